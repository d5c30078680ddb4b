// The generic SkipPer kernels, compiled into the program for 32 and 64 slots (unused slots
// hold 1): they run when NVRTC is missing or a walk is too short to repay a compilation.
// The local columns are read from shared memory, dense over the slots; exact walks fold the
// products every 8 slots (the host pads constant slots to groups of their own).
#include "engines/sparse/cuda/skipper_kernels.hpp"
#include "engines/ryser/cuda/generic_pick.cuh"
#include "engines/sparse/cuda/skipper_kernel.cuh"

namespace matchcount::gpu::detail {
namespace {

template <class Num, int R>
__global__ void __launch_bounds__(256) skipper_generic(mcgpu::SkipArgs S) {
  extern __shared__ double2 shared_cols[];
  __shared__ mcgpu::u64 dead[64];
  double* cols = reinterpret_cast<double*>(shared_cols);
  const int total = S.walk.k * R * Num::W;
  for (int i = threadIdx.x; i < total; i += blockDim.x) cols[i] = S.walk.a2[i];
  for (int i = threadIdx.x; i < S.dead_rows; i += blockDim.x) dead[i] = S.dead_mask[i];
  __syncthreads();
  mcgpu::skip_walk<Num, mcgpu::SharedColumns<R>, mcgpu::DataStart, R>(S, cols, dead);
}

/// The kernel for number policy Num with R slots, for pick_generic.
template <class Num, int R>
struct Entry {
  static const void* fn() { return reinterpret_cast<const void*>(&skipper_generic<Num, R>); }
};

}  // namespace

Kernel skipper_generic_kernel(WalkKind kind, int primes, int slots) {
  Kernel k;
  k.uses_shared = true;
  if (slots <= 32) k.fn = pick_generic<Entry, 32>(kind, primes, "SkipPer"), k.rows = 32;
  else if (slots <= 64) k.fn = pick_generic<Entry, 64>(kind, primes, "SkipPer"), k.rows = 64;
  else throw GpuError("GPU SkipPer: more than 64 slots");
  return k;
}

}  // namespace matchcount::gpu::detail
