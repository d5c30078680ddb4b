// The table from a walk's number kind to a precompiled kernel, shared by the generic Ryser
// and SkipPer kernels: Entry<Num, R>::fn() is the kernel for number policy Num and R row
// slots. Generic exact walks fold the product every 8 rows (kEvery8).
#pragma once

#include <string>

#include "engines/ryser/cuda/ryser_kernels.hpp"
#include "cuda/device_arith.cuh"
#include "engines/ryser/cuda/ryser_policies.cuh"

namespace matchcount::gpu::detail {

constexpr mcgpu::u64 kEvery8 = 0x8080808080808080ULL;

template <template <class, int> class Entry, int R>
const void* pick_generic(WalkKind kind, int primes, const char* what) {
  switch (kind) {
    case WalkKind::Real: return Entry<mcgpu::RealNum<R>, R>::fn();
    case WalkKind::Complex: return Entry<mcgpu::ComplexNum<R>, R>::fn();
    case WalkKind::ModPrime: return Entry<mcgpu::ModPrimeNum<R>, R>::fn();
    case WalkKind::ModShared:
      switch (primes) {
        case 1: return Entry<mcgpu::ModSharedNum<R, 1, kEvery8>, R>::fn();
        case 2: return Entry<mcgpu::ModSharedNum<R, 2, kEvery8>, R>::fn();
        case 3: return Entry<mcgpu::ModSharedNum<R, 3, kEvery8>, R>::fn();
        case 4: return Entry<mcgpu::ModSharedNum<R, 4, kEvery8>, R>::fn();
        default: break;
      }
  }
  throw GpuError(std::string("no generic ") + what + " kernel for this walk (" + std::to_string(primes) + " primes)");
}

}  // namespace matchcount::gpu::detail
