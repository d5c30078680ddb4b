// Stand-in for the GPU batch of small torontonians when the library is built without nvcc.
#include "engines/torontonian/cuda/tor_batch.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu::tor_batch {

std::vector<double> run(const double*, const double*, const double*, const double*, int, std::int64_t, const std::function<bool()>&, bool&,
                        bool) {
  throw GpuError("matchcount was built without CUDA");
}

}  // namespace matchcount::gpu::tor_batch
