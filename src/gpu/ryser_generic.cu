// The generic dense Ryser kernels, compiled into the program for row counts 32, 48 and 64
// (smaller blocks are padded with rows y = 1). They serve whenever NVRTC is unavailable or a
// run is too short to repay a compilation. Their exact walks fold the running product every
// 8 rows (a compile-time pattern: a run-time one cost 7x), which is valid whenever any 8
// consecutive row sums multiply to less than 2^49 (every 0-1 matrix up to n = 63).
#include "kernels.hpp"
#include "ryser_kernel.cuh"

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

constexpr mcgpu::u64 kEvery8 = 0x8080808080808080ULL;

template <int R>
const void* pick(WalkKind kind, int primes) {
  switch (kind) {
    case WalkKind::Real: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::RealNum<R>, R>);
    case WalkKind::Complex: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ComplexNum<R>, R>);
    case WalkKind::ModPrime: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ModPrimeNum<R>, R>);
    case WalkKind::ModShared:
      switch (primes) {
        case 1: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ModSharedNum<R, 1, kEvery8>, R>);
        case 2: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ModSharedNum<R, 2, kEvery8>, R>);
        case 3: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ModSharedNum<R, 3, kEvery8>, R>);
        case 4: return reinterpret_cast<const void*>(&ryser_generic<mcgpu::ModSharedNum<R, 4, kEvery8>, R>);
        default: break;
      }
  }
  throw GpuError("no generic kernel for this walk (" + std::to_string(primes) + " primes)");
}

}  // namespace

Kernel generic_kernel(WalkKind kind, int primes, int n) {
  Kernel k;
  k.uses_shared = true;
  if (n <= 32) k.fn = pick<32>(kind, primes), k.rows = 32;
  else if (n <= 48) k.fn = pick<48>(kind, primes), k.rows = 48;
  else if (n <= 64) k.fn = pick<64>(kind, primes), k.rows = 64;
  else throw GpuError("GPU Ryser: blocks of more than 64 rows are not supported");
  return k;
}

}  // namespace matchcount::gpu::detail
