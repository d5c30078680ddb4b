// The GPU sampler, running the CPU's sample-path code (src/estimate/sample_path.hpp). The
// Rasmussen methods take one sample per thread, each thread's scratch arrays interleaved with
// its neighbours' so that the warp's loads of element k coalesce; the scaling methods, and
// Rasmussen+ on large blocks, take one sample per warp (below). The block's CSR/CSC stay in
// global memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>

#include "core/tuning.hpp"
#include "cuda/launch.hpp"
#include "estimate/cuda/sample_launch.hpp"
#include "estimate/runner.hpp"

namespace matchcount::estimate {
namespace {

using gpu::detail::check;
using gpu::detail::DeviceBuffer;


template <Method M>
__global__ void sample_kernel(BlockView b, SampleParams p, int* ints, double* doubles, unsigned long long seed,
                              unsigned block_id, unsigned long long first, unsigned long long count, SampleSums* out) {
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  Path<M> path(b, Workspace::bind(ints + t, doubles + t, threads, b.n, b.max_degree, M), p);
  SampleSums sums;
  for (unsigned long long k = t; k < count; k += threads) {
    SampleRng rng(seed, block_id, first + k);
    sums.add(run_sample(path, rng));
  }
  out[t] = sums;
}

// Rasmussen methods on blocks of <= 64 rows: one sample per thread with SmallPath (used
// rows and columns in registers, Rasmussen+'s live matching in local memory), the patterns,
// values and the starting matching in shared memory.
template <Method M>
__global__ void sample_small_kernel(SmallBlock b, unsigned long long seed, unsigned block_id, unsigned long long first,
                                    unsigned long long count, SampleSums* out) {
  extern __shared__ double smem[];
  std::uint64_t* rows = reinterpret_cast<std::uint64_t*>(smem);
  std::uint64_t* cols = rows + b.n;
  double* val = smem + 2 * b.n;
  int* match0 = reinterpret_cast<int*>(val + (b.unit ? 0 : b.n * b.n));
  for (int i = threadIdx.x; i < b.n; i += blockDim.x) {
    rows[i] = b.rows[i], cols[i] = b.cols[i];
    if (b.match0) match0[i] = b.match0[i];
  }
  if (!b.unit)
    for (int i = threadIdx.x; i < b.n * b.n; i += blockDim.x) val[i] = b.val[i];
  __syncthreads();
  SmallPath<M> path(SmallBlock{b.n, b.unit, rows, cols, val, b.match0 ? match0 : nullptr});
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  SampleSums sums;
  for (unsigned long long k = t; k < count; k += threads) {
    SampleRng rng(seed, block_id, first + k);
    sums.add(run_sample(path, rng));
  }
  out[t] = sums;
}

constexpr int kBlockThreads = 128;
constexpr std::size_t kWarpSharedBytes = 48 * 1024;

/// A warp as the lanes of run_sample_lanes and the live-entry search: rows claimed by
/// atomicCAS on their marks, queue tails moved by atomicAdd on counters in shared memory.
/// Every phase starts and ends with __syncwarp, which also orders the lanes' memory accesses.
struct WarpLanes {
  int* scalars;
  int lane;
  __device__ static constexpr int count() { return 32; }
  __device__ bool leader() const { return lane == 0; }
  template <class F>
  __device__ void each(F&& f) {
    __syncwarp();
    f(lane);
    __syncwarp();
  }
  template <class F>
  __device__ void single(F&& f) {
    __syncwarp();
    if (lane == 0) f();
    __syncwarp();
  }
  __device__ static int cas(int& a, int expected, int desired) { return atomicCAS(&a, expected, desired); }
  __device__ static int fetch_add(int& a, int v) { return atomicAdd(&a, v); }
  __device__ int* shared() const { return scalars; }
  __device__ int index() const { return lane; }
  __device__ static constexpr int threads() { return 32; }
  __device__ static void sync() { __syncwarp(); }
};

// One warp per sample: the scaling methods, and Rasmussen+ on large blocks. Lane 0 walks the
// path (draws and bookkeeping cost a row's degree); all 32 lanes share the Sinkhorn sweeps,
// which cost the whole remaining matrix, and on large blocks (`cooperate`) the "+" methods'
// live-entry searches, which there visit hundreds of rows per step (32 queued rows at a time).
// The scratch arrays live in shared memory when a warp's fit in kWarpSharedBytes, else in
// global memory (contiguous per warp, so the lanes' sweeps coalesce).
template <Method M>
__global__ void sample_warp_kernel(BlockView b, SampleParams p, int* ints, double* doubles, std::size_t ints_per_warp,
                                   std::size_t doubles_per_warp, bool in_shared, bool cooperate,
                                   unsigned long long seed, unsigned block_id, unsigned long long first,
                                   unsigned long long count, SampleSums* out) {
  extern __shared__ double smem[];
  const unsigned lane = threadIdx.x & 31u, warp_in_block = threadIdx.x >> 5;
  const unsigned warps = gridDim.x * (blockDim.x >> 5);
  const unsigned warp = blockIdx.x * (blockDim.x >> 5) + warp_in_block;
  double* db;
  int* ib;
  if (in_shared) {
    db = smem + warp_in_block * (doubles_per_warp + (ints_per_warp + 1) / 2);
    ib = reinterpret_cast<int*>(db + doubles_per_warp);
  } else {
    db = doubles + warp * doubles_per_warp;
    ib = ints + warp * ints_per_warp;
  }
  __shared__ int search_scalars[kBlockThreads / 32][4];
  Path<M> path(b, Workspace::bind(ib, db, 1, b.n, b.max_degree, M, cooperate), p);
  if constexpr (is_plus(M))
    if (cooperate) path.cooperate();
  WarpLanes lanes{search_scalars[warp_in_block], static_cast<int>(lane)};
  SampleSums sums;
  for (unsigned long long k = warp; k < count; k += warps) {
    SampleRng rng(seed, block_id, first + k);
    const WideValue x =
        run_sample_lanes(path, rng, lanes, [](int v) { return __shfl_sync(0xffffffffu, v, 0); });
    if (lane == 0) sums.add(x);
  }
  if (lane == 0) out[warp] = sums;
}

class GpuSampler final : public Sampler {
 public:
  GpuSampler(const BlockData& b, const SamplerConfig& cfg)
      : cfg_(cfg), rs_(b.row_start), co_(b.col_of), rv_(b.row_val), cs_(b.col_start), ro_(b.row_of), cv_(b.col_val),
        sc_(b.col_scale0), rbits_(b.row_bits), cbits_(b.col_bits), dense_(b.dense), m0_(b.match0) {
    const int* match0 = b.match0.empty() ? nullptr : m0_.ptr;
    if (uses_small_path(b, cfg)) {
      small_.n = b.n, small_.unit = b.unit;
      small_.rows = rbits_.ptr, small_.cols = cbits_.ptr, small_.val = dense_.ptr, small_.match0 = match0;
    }
    // Tuning knob (docs/estimation.md): where Rasmussen+ switches to one sample per warp.
    if (const auto rows = tuning::tuning().warp_plus_rows) cfg_.warp_plus_rows = *rows;
    check(cudaSetDevice(cfg.device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, cfg.device), "cudaGetDeviceProperties");
    sms_ = prop.multiProcessorCount;
    name_ = prop.name;
    view_.n = b.n, view_.max_degree = b.max_degree;
    view_.row_start = rs_.ptr, view_.col_of = co_.ptr, view_.row_val = rv_.ptr;
    view_.col_start = cs_.ptr, view_.row_of = ro_.ptr, view_.col_val = cv_.ptr, view_.col_scale0 = sc_.ptr;
    view_.match0 = match0;
    ints_ = Workspace::ints(b.n, b.max_degree, cfg.method), doubles_ = Workspace::doubles(b.n, cfg.method);
    max_threads_ = sample_threads(prop, 4.0 * ints_ + 8.0 * doubles_ + sizeof(SampleSums), kBlockThreads);
    total_bytes_ = static_cast<double>(prop.totalGlobalMem);
    if (max_threads_ == 0) throw GpuError("a sample of this block needs more GPU memory than a quarter of the card");
  }

  SampleSums run(std::uint64_t first, std::uint64_t count) override {
    if (is_scaling(cfg_.method) || (is_plus(cfg_.method) && view_.n >= cfg_.warp_plus_rows))
      return run_warps(first, count);
    if (small_.n > 0) return run_small(first, count);
    const std::uint64_t threads =
        std::min<std::uint64_t>(max_threads_, (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads);
    DeviceBuffer<int> ints(ints_ * threads);
    DeviceBuffer<double> doubles(doubles_ * threads);
    DeviceBuffer<SampleSums> out(threads);
    const unsigned grid = static_cast<unsigned>(threads / kBlockThreads);
    launch(grid, ints.ptr, doubles.ptr, first, count, out.ptr);
    return collect_sums(out, threads);
  }
  std::string device() const override { return name_; }

 private:
  SampleSums run_small(std::uint64_t first, std::uint64_t count) {
    const std::uint64_t threads = std::min<std::uint64_t>(
        static_cast<std::uint64_t>(sms_) * 2048, (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads);
    DeviceBuffer<SampleSums> out(threads);
    const std::size_t n = static_cast<std::size_t>(small_.n);
    const std::size_t smem = 8 * (2 * n + (small_.unit ? 0 : n * n)) + 4 * n;
    auto go = [&](auto kernel) {
      check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
            "cudaFuncSetAttribute");
      kernel<<<static_cast<unsigned>(threads / kBlockThreads), kBlockThreads, smem>>>(small_, cfg_.seed, cfg_.block_id,
                                                                                    first, count, out.ptr);
    };
    if (cfg_.method == Method::Rasmussen) go(sample_small_kernel<Method::Rasmussen>);
    else go(sample_small_kernel<Method::RasmussenPlus>);
    return collect_sums(out, threads);
  }
  SampleSums run_warps(std::uint64_t first, std::uint64_t count) {
    const bool cooperate = view_.n >= cfg_.warp_plus_rows;  // smaller: lane 0 searches alone
    const std::size_t ints_per_warp = Workspace::ints(view_.n, view_.max_degree, cfg_.method, cooperate);
    const std::size_t shared_per_warp = 8 * doubles_ + 8 * ((ints_per_warp + 1) / 2);
    const bool in_shared = shared_per_warp <= kWarpSharedBytes;
    const std::uint64_t warps_per_block = kBlockThreads / 32;
    const std::uint64_t warps = std::min<std::uint64_t>(max_warps(in_shared ? 0 : shared_per_warp),
                                                        (count + warps_per_block - 1) / warps_per_block * warps_per_block);
    DeviceBuffer<int> ints(in_shared ? 0 : ints_per_warp * warps);
    DeviceBuffer<double> doubles(in_shared ? 0 : doubles_ * warps);
    DeviceBuffer<SampleSums> out(warps);
    const unsigned grid = static_cast<unsigned>(warps / warps_per_block);
    const std::size_t smem = in_shared ? shared_per_warp * warps_per_block : 0;
    const SampleParams p = cfg_.params;
    auto go = [&](auto kernel) {
      check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)),
            "cudaFuncSetAttribute");
      kernel<<<grid, kBlockThreads, smem>>>(view_, p, ints.ptr, doubles.ptr, ints_per_warp, doubles_, in_shared,
                                            cooperate, cfg_.seed, cfg_.block_id, first, count, out.ptr);
    };
    if (cfg_.method == Method::Scaling) go(sample_warp_kernel<Method::Scaling>);
    else if (cfg_.method == Method::ScalingPlus) go(sample_warp_kernel<Method::ScalingPlus>);
    else go(sample_warp_kernel<Method::RasmussenPlus>);
    return collect_sums(out, warps);
  }
  /// Warps that fill the card: 64 per SM at most, fewer by the global scratch memory.
  std::uint64_t max_warps(std::size_t global_bytes_per_warp) const {
    double w = 64.0 * sms_;
    if (global_bytes_per_warp > 0) w = std::min(w, 0.25 * total_bytes_ / static_cast<double>(global_bytes_per_warp));
    return std::max<std::uint64_t>(4, static_cast<std::uint64_t>(w) / 4 * 4);
  }
  void launch(unsigned grid, int* ints, double* doubles, std::uint64_t first, std::uint64_t count, SampleSums* out) {
    auto go = [&](auto kernel) {
      kernel<<<grid, kBlockThreads>>>(view_, cfg_.params, ints, doubles, cfg_.seed, cfg_.block_id, first, count, out);
    };
    if (cfg_.method == Method::Rasmussen) go(sample_kernel<Method::Rasmussen>);
    else go(sample_kernel<Method::RasmussenPlus>);
  }

  SamplerConfig cfg_;
  DeviceBuffer<int> rs_, co_;
  DeviceBuffer<double> rv_;
  DeviceBuffer<int> cs_, ro_;
  DeviceBuffer<double> cv_, sc_;
  DeviceBuffer<std::uint64_t> rbits_, cbits_;
  DeviceBuffer<double> dense_;
  DeviceBuffer<int> m0_;
  SmallBlock small_;  // n = 0: Path for this block
  BlockView view_;
  std::size_t ints_ = 0, doubles_ = 0;
  std::uint64_t max_threads_ = 0;
  int sms_ = 0;
  double total_bytes_ = 0;
  std::string name_;
};

}  // namespace

std::unique_ptr<Sampler> make_gpu_sampler(const BlockData& block, const SamplerConfig& config) {
  if (gpu_devices().empty()) throw GpuError("no CUDA device is visible");
  return std::make_unique<GpuSampler>(block, config);
}

}  // namespace matchcount::estimate
