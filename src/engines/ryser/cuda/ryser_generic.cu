// The generic dense Ryser kernels, compiled into the program for row counts 32, 48 and 64
// (smaller blocks are padded with rows y = 1). They serve whenever NVRTC is unavailable or a
// run is too short to repay a compilation. Their exact walks fold the running product every
// 8 rows (a compile-time pattern, which the compiler unrolls; a run-time one is far slower,
// docs/gpu.md), which is valid whenever any 8
// consecutive row sums multiply to less than 2^49 (every 0-1 matrix up to n = 63).
#include "engines/ryser/cuda/ryser_kernels.hpp"
#include "engines/ryser/cuda/generic_pick.cuh"
#include "engines/ryser/cuda/ryser_kernel.cuh"

namespace matchcount::gpu::detail {
namespace {

template <class Num, int R>
__global__ void __launch_bounds__(256) ryser_generic(mcgpu::WalkArgs A) {
  extern __shared__ double2 shared_cols[];
  double* cols = reinterpret_cast<double*>(shared_cols);
  const int total = A.m * R * Num::W;
  for (int i = threadIdx.x; i < total; i += blockDim.x) cols[i] = A.a2[i];
  __syncthreads();
  mcgpu::walk<Num, mcgpu::SharedColumns<R>, R>(A, cols, cols);
}

/// The kernel for number policy Num with R slots, for pick_generic.
template <class Num, int R>
struct Entry {
  static const void* fn() { return reinterpret_cast<const void*>(&ryser_generic<Num, R>); }
};

}  // namespace

Kernel generic_kernel(WalkKind kind, int primes, int n) {
  Kernel k;
  k.uses_shared = true;
  if (n <= 32) k.fn = pick_generic<Entry, 32>(kind, primes, "Ryser"), k.rows = 32;
  else if (n <= 48) k.fn = pick_generic<Entry, 48>(kind, primes, "Ryser"), k.rows = 48;
  else if (n <= 64) k.fn = pick_generic<Entry, 64>(kind, primes, "Ryser"), k.rows = 64;
  else throw GpuError("GPU Ryser: blocks of more than 64 rows are not supported");
  return k;
}

}  // namespace matchcount::gpu::detail
