// Host side of the GPU Ryser walk: picks a kernel, pads the input to its row count, sizes the
// launch with the occupancy API and runs the chunks in launches of about a second each.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "kernels.hpp"
#include "ryser_kernel.cuh"

namespace matchcount::gpu {
namespace detail {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw GpuError(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

}  // namespace detail

namespace {

using detail::check;

/// Device memory freed on scope exit.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(std::size_t count) { check(cudaMalloc(&ptr, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc"); }
  ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

int width(WalkKind kind) { return kind == WalkKind::Complex ? 2 : 1; }
int words_of(WalkKind kind, int primes) {
  switch (kind) {
    case WalkKind::Real: return mcgpu::kLimbs + 1;
    case WalkKind::Complex: return 2 * mcgpu::kLimbs + 1;
    case WalkKind::ModShared: return primes;
    case WalkKind::ModPrime: return 1;
  }
  return 1;
}

/// The job's columns and start values with rows padded to R (padded rows have y = 1).
void pad(const WalkJob& job, int R, std::vector<double>& a2, std::vector<double>& x0) {
  const int n = job.n, m = n - 1, W = width(job.kind);
  a2.assign(static_cast<std::size_t>(m) * R * W, 0.0);
  x0.assign(static_cast<std::size_t>(R) * W, 0.0);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < W; ++w)
        a2[(static_cast<std::size_t>(j) * R + i) * W + w] = job.a2[(static_cast<std::size_t>(j) * n + i) * W + w];
  for (int i = 0; i < R; ++i) x0[static_cast<std::size_t>(i) * W] = 1.0;
  for (int i = 0; i < n * W; ++i) x0[static_cast<std::size_t>(i)] = job.x0[static_cast<std::size_t>(i)];
}

}  // namespace

WalkResult run_walk(const WalkJob& job) {
  using Clock = std::chrono::steady_clock;
  if (job.n < 2 || job.n > 63) throw GpuError("GPU Ryser: block size must be 2..63");
  const int np = static_cast<int>(job.primes.size());
  if ((job.kind == WalkKind::ModShared && (np < 1 || np > 4)) || (job.kind == WalkKind::ModPrime && np != 1))
    throw GpuError("GPU Ryser: wrong number of primes for this walk");
  check(cudaSetDevice(job.device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, job.device), "cudaGetDeviceProperties");

  WalkResult result;
  detail::Kernel kernel;
  // A compilation takes 0.5 to 2 s: worth it when the generic kernel would run longer than
  // about 3 s (at roughly 5e12 useful FP64 operations per second), or when it is cached.
  const double generic_seconds = std::ldexp(2.0 * job.n, job.n - 1) * (job.kind == WalkKind::Complex ? 3 : 1) / 5e12;
  const bool needs_specialised = job.kind == WalkKind::ModShared && !job.every8_ok;
  if (job.specialise > 0 || needs_specialised)
    kernel = detail::specialised_kernel(job, prop.major, prop.minor,
                                        job.specialise == 2 || generic_seconds > 3.0 || needs_specialised);
  result.kernel_note = kernel.note;
  if (!kernel.fn && needs_specialised) return result;
  if (!kernel.fn) kernel = detail::generic_kernel(job.kind, np, job.n);
  result.source = kernel.source;
  result.compile_seconds = kernel.compile_seconds;

  const int m = job.n - 1, W = width(job.kind), R = kernel.rows;
  std::vector<double> a2, x0;
  pad(job, R, a2, x0);
  const std::size_t shared = kernel.uses_shared ? a2.size() * sizeof(double) : 0;
  if (shared > 48 * 1024)
    check(cudaFuncSetAttribute(kernel.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
          "cudaFuncSetAttribute");
  const int block = 256;
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel.fn, block, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw GpuError("GPU Ryser: the kernel does not fit on a multiprocessor");
  const std::uint64_t max_threads = static_cast<std::uint64_t>(per_sm) * prop.multiProcessorCount * block;

  mcgpu::WalkArgs args{};
  args.n = job.n;
  args.m = m;
  args.k = job.k;
  args.q = job.q;
  args.fold_mask = job.fold_mask;
  for (int i = 0; i < np; ++i) args.prime[i] = job.primes[i], args.pinv[i] = job.pinv[i];
  const std::uint64_t total_chunks = std::uint64_t{1} << (m - job.k);
  const std::uint64_t threads = std::min(max_threads, total_chunks);
  const int words = words_of(job.kind, np);

  DeviceBuffer<double> d_a2(a2.size()), d_x0(x0.size());
  DeviceBuffer<std::uint64_t> d_out(threads * words);
  check(cudaMemcpy(d_a2.ptr, a2.data(), a2.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(d_x0.ptr, x0.data(), x0.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(d_out.ptr, 0, threads * words * sizeof(std::uint64_t)), "cudaMemset");
  args.a2 = d_a2.ptr;
  args.x0 = d_x0.ptr;
  args.out = reinterpret_cast<mcgpu::u64*>(d_out.ptr);

  // About 1e13 FP64 operations per launch (well under a second on a Hopper card) so that
  // progress can be shown; every launch but the last covers a multiple of `threads` chunks.
  const double ops = std::ldexp(1.0, m) * job.n * 2.0 * W * W;
  const std::uint64_t launches = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(ops / 1e13));
  std::uint64_t per_launch = (total_chunks + launches - 1) / launches;
  per_launch = std::max(threads, (per_launch + threads - 1) / threads * threads);

  auto t0 = Clock::now();
  for (std::uint64_t begin = 0; begin < total_chunks; begin += per_launch) {
    args.chunk_begin = begin;
    args.chunks = std::min<std::uint64_t>(per_launch, total_chunks - begin);
    args.threads = std::min<std::uint64_t>(threads, args.chunks);
    const unsigned grid = static_cast<unsigned>((args.threads + block - 1) / block);
    void* params[] = {&args};
    check(cudaLaunchKernel(kernel.fn, dim3(grid), dim3(block), params, shared, nullptr), "cudaLaunchKernel");
    check(cudaDeviceSynchronize(), "the GPU Ryser kernel");
    if (job.progress) job.progress(double(begin + args.chunks) / double(total_chunks));
  }
  result.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result.words.resize(threads * words);
  result.words_per_thread = words;
  check(cudaMemcpy(result.words.data(), d_out.ptr, result.words.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  return result;
}

}  // namespace matchcount::gpu
