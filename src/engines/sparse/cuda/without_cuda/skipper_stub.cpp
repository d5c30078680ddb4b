// Stand-in for src/engines/sparse/cuda/skipper_launch.cu when the library is built without nvcc.
#include "engines/sparse/cuda/skipper.hpp"

namespace matchcount::gpu {

SkipResult run_skip(const SkipJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
