// Stand-in for the GPU torontonian walk when the library is built without nvcc.
#include "engines/torontonian/cuda/tor_gpu_job.hpp"

namespace matchcount::gpu {

TorResult run_torontonian_walk(const TorJob&) { throw GpuError("matchcount was built without CUDA"); }

}  // namespace matchcount::gpu
