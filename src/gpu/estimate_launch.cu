// The GPU sampler: one sample path per thread (src/estimate/sample_path.hpp, the same code
// the CPU runs), the block's CSR/CSC in global memory, each thread's scratch arrays
// interleaved with its neighbours' so that the warp's loads of element k coalesce.
#include <cuda_runtime.h>

#include <algorithm>

#include "../estimate/runner.hpp"
#include "kernels.hpp"

namespace matchcount::estimate {
namespace {

using gpu::detail::check;

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceArray(std::size_t n) : count(n) { check(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    check(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceArray() { if (ptr) cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

template <Method M>
__global__ void sample_kernel(BlockView b, SampleParams p, int* ints, double* doubles, unsigned long long seed,
                              unsigned block_id, unsigned long long first, unsigned long long count, SampleSums* out) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  Path<M> path(b, Workspace::bind(ints + t, doubles + t, threads, b.n), p);
  SampleSums sums;
  for (unsigned long long k = t; k < count; k += threads) {
    SampleRng rng(seed, block_id, first + k);
    sums.add(run_sample(path, rng));
  }
  out[t] = sums;
}

constexpr int kBlockThreads = 128;

class GpuSampler final : public Sampler {
 public:
  GpuSampler(const BlockData& b, const SamplerConfig& cfg)
      : cfg_(cfg), rs_(b.row_start), co_(b.col_of), rv_(b.row_val), cs_(b.col_start), ro_(b.row_of), cv_(b.col_val),
        sc_(b.col_scale0) {
    check(cudaSetDevice(cfg.device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, cfg.device), "cudaGetDeviceProperties");
    name_ = prop.name;
    view_.n = b.n, view_.max_degree = b.max_degree;
    view_.row_start = rs_.ptr, view_.col_of = co_.ptr, view_.row_val = rv_.ptr;
    view_.col_start = cs_.ptr, view_.row_of = ro_.ptr, view_.col_val = cv_.ptr, view_.col_scale0 = sc_.ptr;
    // Threads: enough to fill every SM, fewer when the scratch arrays would take more than a
    // quarter of the card (total memory, not free memory, so the count is reproducible).
    ints_ = Workspace::ints(b.n, b.max_degree), doubles_ = Workspace::doubles(b.n);
    const double per_thread = 4.0 * ints_ + 8.0 * doubles_ + sizeof(SampleSums);
    const double by_memory = 0.25 * static_cast<double>(prop.totalGlobalMem) / per_thread;
    const double full = static_cast<double>(prop.multiProcessorCount) * prop.maxThreadsPerMultiProcessor;
    max_threads_ = static_cast<std::uint64_t>(std::min(full, by_memory)) / kBlockThreads * kBlockThreads;
    if (max_threads_ == 0) throw GpuError("a sample of this block needs more GPU memory than a quarter of the card");
  }

  SampleSums run(std::uint64_t first, std::uint64_t count) override {
    const std::uint64_t threads =
        std::min<std::uint64_t>(max_threads_, (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads);
    DeviceArray<int> ints(ints_ * threads);
    DeviceArray<double> doubles(doubles_ * threads);
    DeviceArray<SampleSums> out(threads);
    const unsigned grid = static_cast<unsigned>(threads / kBlockThreads);
    launch(grid, ints.ptr, doubles.ptr, first, count, out.ptr);
    check(cudaGetLastError(), "launching the sample kernel");
    check(cudaDeviceSynchronize(), "the sample kernel");
    std::vector<SampleSums> host(threads);
    check(cudaMemcpy(host.data(), out.ptr, threads * sizeof(SampleSums), cudaMemcpyDeviceToHost), "cudaMemcpy");
    SampleSums total;
    for (const auto& s : host) total.merge(s);
    return total;
  }
  std::string device() const override { return name_; }

 private:
  void launch(unsigned grid, int* ints, double* doubles, std::uint64_t first, std::uint64_t count, SampleSums* out) {
    const SampleParams p = cfg_.params;
    switch (cfg_.method) {
      case Method::Rasmussen:
        sample_kernel<Method::Rasmussen><<<grid, kBlockThreads>>>(view_, p, ints, doubles, cfg_.seed, cfg_.block_id, first, count, out);
        break;
      case Method::RasmussenPlus:
        sample_kernel<Method::RasmussenPlus><<<grid, kBlockThreads>>>(view_, p, ints, doubles, cfg_.seed, cfg_.block_id, first, count, out);
        break;
      case Method::Scaling:
        sample_kernel<Method::Scaling><<<grid, kBlockThreads>>>(view_, p, ints, doubles, cfg_.seed, cfg_.block_id, first, count, out);
        break;
      case Method::ScalingPlus:
        sample_kernel<Method::ScalingPlus><<<grid, kBlockThreads>>>(view_, p, ints, doubles, cfg_.seed, cfg_.block_id, first, count, out);
        break;
    }
  }

  SamplerConfig cfg_;
  DeviceArray<int> rs_, co_;
  DeviceArray<double> rv_;
  DeviceArray<int> cs_, ro_;
  DeviceArray<double> cv_, sc_;
  BlockView view_;
  std::size_t ints_ = 0, doubles_ = 0;
  std::uint64_t max_threads_ = 0;
  std::string name_;
};

}  // namespace

std::unique_ptr<Sampler> make_gpu_sampler(const BlockData& block, const SamplerConfig& config) {
  if (gpu_devices().empty()) throw GpuError("no CUDA device is visible");
  return std::make_unique<GpuSampler>(block, config);
}

}  // namespace matchcount::estimate
