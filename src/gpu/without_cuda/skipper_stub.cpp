// Stand-in for src/gpu/skipper_launch.cu when the library is built without nvcc.
#include "gpu/skipper.hpp"

namespace matchcount::gpu {

SkipResult run_skip(const SkipJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
