// Stand-in for the GPU Ryser walk when the library is built without nvcc.
#include "engines/ryser/cuda/walk_job.hpp"

namespace matchcount::gpu {

WalkResult run_walk(const WalkJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
