// Stand-in for src/engines/frontier/cuda/frontier_launch.cu when the library is built without nvcc.
#include "engines/frontier/cuda/frontier_job.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

FrontierResult run_frontier(const FrontierJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
