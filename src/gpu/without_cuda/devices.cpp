// Stand-in for src/gpu/*.cu when the library is built without nvcc.
#include "gpu/jobs.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount {

bool built_with_cuda() { return false; }
std::vector<GpuDevice> gpu_devices() { return {}; }

namespace gpu {
WalkResult run_walk(const WalkJob&) { throw GpuError("matchcount was built without CUDA"); }
}  // namespace gpu

}  // namespace matchcount
