// Stand-in for src/estimate/cuda/estimate_launch.cu and graph_launch.cu when the library is built without nvcc.
#include "estimate/runner.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::estimate {

std::unique_ptr<Sampler> make_gpu_sampler(const BlockData&, const SamplerConfig&) {
  throw GpuError("matchcount was built without CUDA");
}

std::unique_ptr<Sampler> make_gpu_graph_sampler(const GraphData&, const SamplerConfig&) {
  throw GpuError("matchcount was built without CUDA");
}

}  // namespace matchcount::estimate
