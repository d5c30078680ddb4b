// The GPU batch of small torontonians (tor_batch.hpp; matchcount::gpu_dense_torontonians): one
// thread a matrix, each running tor_small.cuh's whole count (input to certified bound) with its
// scratch in local memory, sized by the kernel's most modes (8, 12 or 16); with gammas, the loop
// torontonian. Launches of at most kLaunchMatrices, so that a stop request is seen between them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "cuda/launch.hpp"
#include "engines/torontonian/cuda/tor_batch.hpp"
#include "engines/torontonian/cuda/tor_small.cuh"

namespace {

namespace ts = matchcount::gpu::tor_small;
using matchcount::gpu::tor_batch::kOut;

constexpr int kThreads = 64;
constexpr std::int64_t kLaunchMatrices = 1 << 16;

template <int N>
__global__ void __launch_bounds__(kThreads) tor_batch_kernel(const double* re, const double* im, const double* g_re,
                                                             const double* g_im, int modes, long long count, double* out) {
  const long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= count) return;
  double m[4 * N * N], chol[4 * N * N], levels[ts::walk_doubles(N)];
  const long long dd = 4LL * modes * modes, dg = 2LL * modes;
  const ts::Result r = ts::torontonian<N>(re + i * dd, im ? im + i * dd : nullptr, modes, m, chol, levels,
                                          g_re ? g_re + i * dg : nullptr, g_im ? g_im + i * dg : nullptr);
  out[i * kOut] = r.value, out[i * kOut + 1] = r.error, out[i * kOut + 2] = r.status;
}

const void* kernel_for(int modes) {
  if (modes <= 8) return reinterpret_cast<const void*>(tor_batch_kernel<8>);
  if (modes <= 12) return reinterpret_cast<const void*>(tor_batch_kernel<12>);
  if (modes <= ts::kMaxModes) return reinterpret_cast<const void*>(tor_batch_kernel<ts::kMaxModes>);
  return nullptr;
}

}  // namespace

namespace matchcount::gpu::tor_batch {

std::vector<double> run(const double* re, const double* im, const double* g_re, const double* g_im, int modes,
                        std::int64_t count, const std::function<bool()>& stop, bool& stopped, bool verbose) {
  using detail::check;
  stopped = false;
  std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)) * kOut, 0.0);
  for (std::size_t i = 2; i < out.size(); i += kOut) out[i] = ts::kRefer;
  if (count <= 0) return out;
  const void* fn = kernel_for(modes);
  if (modes < 1 || !fn) throw GpuError("GPU torontonian batch: 1..16 modes");
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices < 1) throw GpuError("no CUDA device");
  check(cudaSetDevice(0), "cudaSetDevice");
  const std::size_t dd = 4 * static_cast<std::size_t>(modes) * static_cast<std::size_t>(modes);
  // The gammas of a launch's matrices beside them (the chunks come in order: `first` counts them).
  const std::size_t dg = 2 * static_cast<std::size_t>(modes), chunk = static_cast<std::size_t>(std::min<std::int64_t>(count, kLaunchMatrices));
  detail::DeviceBuffer<double> d_g_re(g_re ? chunk * dg : 1), d_g_im(g_im ? chunk * dg : 1);
  std::size_t first = 0;
  const auto launch = [&](long long k, const double* pr, const double* pi, double* po) {
    const std::size_t bytes = static_cast<std::size_t>(k) * dg * sizeof(double);
    if (g_re) check(cudaMemcpy(d_g_re.ptr, g_re + first * dg, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (g_im) check(cudaMemcpy(d_g_im.ptr, g_im + first * dg, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    first += static_cast<std::size_t>(k);
    const double* pg_re = g_re ? d_g_re.ptr : nullptr;
    const double* pg_im = g_im ? d_g_im.ptr : nullptr;
    long long count_k = k;
    int n = modes;
    void* params[] = {&pr, &pi, &pg_re, &pg_im, &n, &count_k, &po};
    const auto blocks = static_cast<unsigned>((k + kThreads - 1) / kThreads);
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaLaunchKernel(fn, dim3(blocks), dim3(kThreads), params, 0, nullptr), "cudaLaunchKernel");
    check(cudaDeviceSynchronize(), "the GPU torontonian batch kernel");
    if (verbose)
      std::fprintf(stderr, "gpu-torontonian batch: %lld matrices of %d modes, kernel %.6f s\n", count_k, modes,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  stopped = !detail::run_stack_chunks(re, im, dd, count, kLaunchMatrices, kOut, out.data(), stop, launch);
  return out;
}

}  // namespace matchcount::gpu::tor_batch
