// The GPU sampler of general graphs (the hafnian), running the CPU's sample path
// (src/estimate/graph_path.hpp): one sample per thread, each thread's scratch arrays
// interleaved with its neighbours' so that the warp's loads of element k coalesce. The graph
// stays in global memory. A sample is a function of (seed, block, index) alone, so the GPU
// draws the CPU's samples (up to the rounding of contracted multiply-adds), and the same
// seed on the same device gives the same bits.
//
// One thread per sample, not one warp as for the permanent's scaling methods: a graph step
// costs a vertex's degree (draw, bookkeeping) plus the rescale of a region of a few dozen
// vertices (local rescaling) or of the whole remaining graph, and on the sparse graphs that
// need sampling the whole graph is a few thousand edges, too little to share among 32 lanes.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "cuda/launch.hpp"
#include "estimate/cuda/sample_launch.hpp"
#include "estimate/runner.hpp"

namespace matchcount::estimate {
namespace {

using gpu::detail::check;
using gpu::detail::DeviceBuffer;

template <Method M>
__global__ void graph_sample_kernel(GraphView g, SampleParams p, int* ints, double* doubles, unsigned long long seed,
                                    unsigned block_id, unsigned long long first, unsigned long long count,
                                    SampleSums* out) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  GraphPath<M> path(g, GraphWorkspace::bind(ints + t, doubles + t, threads, g.n, g.max_degree, M), p);
  SampleSums sums;
  for (unsigned long long k = t; k < count; k += threads) {
    SampleRng rng(seed, block_id, first + k);
    sums.add(run_graph_sample(path, rng));
  }
  out[t] = sums;
}

constexpr int kBlockThreads = 128;

class GpuGraphSampler final : public Sampler {
 public:
  GpuGraphSampler(const GraphData& g, const SamplerConfig& cfg)
      : cfg_(cfg), start_(g.start), adj_(g.adj), val_(g.val), scale0_(g.scale0), mate0_(g.mate0) {
    if (is_determinant(cfg.method)) throw GpuError("the determinant estimators run on the CPU only");
    check(cudaSetDevice(cfg.device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, cfg.device), "cudaGetDeviceProperties");
    name_ = prop.name;
    view_.n = g.n, view_.max_degree = g.max_degree;
    view_.start = start_.ptr, view_.adj = adj_.ptr, view_.val = val_.ptr, view_.scale0 = scale0_.ptr;
    view_.mate0 = g.mate0.empty() ? nullptr : mate0_.ptr;
    ints_ = GraphWorkspace::ints(g.n, g.max_degree, cfg.method), doubles_ = GraphWorkspace::doubles(g.n, cfg.method);
    max_threads_ = sample_threads(
        prop, 4.0 * static_cast<double>(ints_) + 8.0 * static_cast<double>(doubles_) + sizeof(SampleSums), kBlockThreads);
    if (max_threads_ == 0) throw GpuError("a sample of this graph needs more GPU memory than a quarter of the card");
  }

  SampleSums run(std::uint64_t first, std::uint64_t count) override {
    const std::uint64_t threads =
        std::min<std::uint64_t>(max_threads_, (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads);
    DeviceBuffer<int> ints(ints_ * threads);
    DeviceBuffer<double> doubles(doubles_ * threads);
    DeviceBuffer<SampleSums> out(threads);
    const unsigned grid = static_cast<unsigned>(threads / kBlockThreads);
    auto go = [&](auto kernel) {
      kernel<<<grid, kBlockThreads>>>(view_, cfg_.params, ints.ptr, doubles.ptr, cfg_.seed, cfg_.block_id, first, count,
                                      out.ptr);
    };
    switch (cfg_.method) {
      case Method::Rasmussen: go(graph_sample_kernel<Method::Rasmussen>); break;
      case Method::RasmussenPlus: go(graph_sample_kernel<Method::RasmussenPlus>); break;
      case Method::Scaling: go(graph_sample_kernel<Method::Scaling>); break;
      default: go(graph_sample_kernel<Method::ScalingPlus>); break;
    }
    return collect_sums(out, threads);
  }
  std::string device() const override { return name_; }
  /// Samples that run in about the time of one: not every thread the card holds. A sample is
  /// a chain of dependent global loads, and the card keeps only about latency x bandwidth /
  /// 32 B sectors in flight, a few tens of thousands (Little's law; docs/estimation.md).
  std::uint64_t width() const override { return std::min<std::uint64_t>(max_threads_, 32768); }

 private:
  SamplerConfig cfg_;
  DeviceBuffer<int> start_, adj_;
  DeviceBuffer<double> val_, scale0_;
  DeviceBuffer<int> mate0_;
  GraphView view_;
  std::size_t ints_ = 0, doubles_ = 0;
  std::uint64_t max_threads_ = 0;
  std::string name_;
};

}  // namespace

std::unique_ptr<Sampler> make_gpu_graph_sampler(const GraphData& graph, const SamplerConfig& config) {
  if (gpu_devices().empty()) throw GpuError("no CUDA device is visible");
  return std::make_unique<GpuGraphSampler>(graph, config);
}

}  // namespace matchcount::estimate
