// Stand-in for src/engines/graph_frontier/cuda/graph_frontier_launch.cu and
// graph_polynomial_launch.cu when the library is
// built without nvcc: every GPU count falls back to the CPU engine.
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

GraphFrontierResult run_graph_frontier(const GraphFrontierJob&) { throw GpuError("matchcount was built without CUDA"); }
GraphPolynomialResult run_graph_polynomial(const GraphPolynomialJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
