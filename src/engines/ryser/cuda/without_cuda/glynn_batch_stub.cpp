// Stand-in for the GPU batch of small dense permanents when the library is built without nvcc.
#include "engines/ryser/cuda/glynn_batch.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu::glynn_batch {

std::vector<double> run(const double*, const double*, int, std::int64_t, const std::function<bool()>&, bool&) {
  throw GpuError("matchcount was built without CUDA");
}

}  // namespace matchcount::gpu::glynn_batch
