// Stand-in for src/gpu/frontier_launch.cu when the library is built without nvcc.
#include "gpu/jobs.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

FrontierResult run_frontier(const FrontierJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
