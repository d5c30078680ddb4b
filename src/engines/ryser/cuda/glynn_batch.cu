// The GPU batch of small dense permanents (glynn_batch.hpp; matchcount::gpu_dense_permanents):
// on a CUDA device, one block of 64 threads per matrix (grid-stride over the batch),
// each thread walking its share of Glynn's formula (glynn_batch_walk.cuh) with the matrix in
// shared memory, the threads' sums added in thread order by the block. Launches of at most
// kLaunchMatrices, so that a stop request is seen between them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/launch.hpp"
#include "engines/ryser/cuda/glynn_batch.hpp"
#include "engines/ryser/cuda/glynn_batch_walk.cuh"

namespace {

using matchcount::gpu::glynn_batch::ThreadSums;
using matchcount::gpu::glynn_batch::two_sum;

using matchcount::gpu::glynn_batch::kOut;
constexpr int kThreads = 64;

template <int N, bool CX>
__global__ void __launch_bounds__(kThreads) glynn_batch_kernel(const double* re, const double* im, long long count, int t,
                                                               double* out) {
  __shared__ double ar[N * N], ai[CX ? N * N : 1];
  __shared__ double red[kThreads][kOut];
  const int tid = threadIdx.x;
  for (long long m = blockIdx.x; m < count; m += gridDim.x) {
    for (int e = tid; e < N * N; e += kThreads) {
      ar[e] = re[m * N * N + e];
      if constexpr (CX) ai[e] = im[m * N * N + e];
    }
    __syncthreads();
    ThreadSums s;
    if (tid < (1 << t)) s = matchcount::gpu::glynn_batch::glynn_thread<N, CX>(ar, ai, static_cast<unsigned>(tid), t);
    red[tid][0] = s.re_hi, red[tid][1] = s.re_lo, red[tid][2] = s.im_hi, red[tid][3] = s.im_lo, red[tid][4] = s.abs;
    __syncthreads();
    if (tid == 0) {  // in thread order: the value does not depend on timing
      ThreadSums total;
      for (int i = 0; i < kThreads; ++i) {
        two_sum(total.re_hi, total.re_lo, red[i][0]), two_sum(total.re_hi, total.re_lo, red[i][1]);
        two_sum(total.im_hi, total.im_lo, red[i][2]), two_sum(total.im_hi, total.im_lo, red[i][3]);
        total.abs += red[i][4];
      }
      double* o = out + m * kOut;
      o[0] = total.re_hi, o[1] = total.re_lo, o[2] = total.im_hi, o[3] = total.im_lo, o[4] = total.abs;
    }
    __syncthreads();
  }
}

template <int N, bool CX>
const void* kernel_of() {
  return reinterpret_cast<const void*>(glynn_batch_kernel<N, CX>);
}

template <bool CX>
const void* kernel_for(int n) {
  switch (n) {
    case 4: return kernel_of<4, CX>();
    case 5: return kernel_of<5, CX>();
    case 6: return kernel_of<6, CX>();
    case 7: return kernel_of<7, CX>();
    case 8: return kernel_of<8, CX>();
    case 9: return kernel_of<9, CX>();
    case 10: return kernel_of<10, CX>();
    case 11: return kernel_of<11, CX>();
    case 12: return kernel_of<12, CX>();
    case 13: return kernel_of<13, CX>();
    case 14: return kernel_of<14, CX>();
    case 15: return kernel_of<15, CX>();
    case 16: return kernel_of<16, CX>();
    case 17: return kernel_of<17, CX>();
    case 18: return kernel_of<18, CX>();
    case 19: return kernel_of<19, CX>();
    case 20: return kernel_of<20, CX>();
    default: return nullptr;
  }
}

}  // namespace

namespace matchcount::gpu::glynn_batch {

std::vector<double> run(const double* re, const double* im, int n, std::int64_t count, const std::function<bool()>& stop,
                        bool& stopped) {
  using detail::check;
  stopped = false;
  std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)) * kOut, 0.0);
  if (count <= 0) return out;
  const bool cplx = im != nullptr;
  const void* fn = cplx ? kernel_for<true>(n) : kernel_for<false>(n);
  if (!fn) throw GpuError("GPU permanent batch: n must be 4..20");
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (devices < 1) throw GpuError("no CUDA device");
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const int per_sm = detail::blocks_per_sm(fn, kThreads, 0, "GPU permanent batch");
  const long long resident = static_cast<long long>(per_sm) * prop.multiProcessorCount;
  const int t = thread_bits(n);
  // A launch takes about a tenth of a second at 2e12 multiply-adds a second (2^(n-1) terms of
  // n products, complex ones four), and at least a wave of blocks.
  const double per_matrix = std::ldexp(1.0, n - 1) * n * (cplx ? 4 : 1);
  const auto launch = static_cast<std::int64_t>(std::max<double>(double(resident), 0.1 * 2e12 / per_matrix));
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const auto run_chunk = [&](long long k, const double* pr, const double* pi, double* po) {
    long long count_k = k;
    int bits = t;
    void* params[] = {&pr, &pi, &count_k, &bits, &po};
    const auto blocks = static_cast<unsigned>(std::min<long long>(k, resident * 4));
    check(cudaLaunchKernel(fn, dim3(blocks), dim3(kThreads), params, 0, nullptr), "cudaLaunchKernel");
    check(cudaDeviceSynchronize(), "the GPU permanent batch kernel");
  };
  stopped = !detail::run_stack_chunks(re, im, nn, count, launch, kOut, out.data(), stop, run_chunk);
  return out;
}

}  // namespace matchcount::gpu::glynn_batch
