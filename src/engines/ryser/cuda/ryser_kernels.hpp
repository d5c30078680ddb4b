// Private to the GPU Ryser walk: how the launcher obtains a kernel (generic, or specialised by
// NVRTC) and what its hybrid variants need besides the columns.
#pragma once

#include <memory>

#include "cuda/launch.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "runtime/kernel_switch.hpp"

namespace matchcount::gpu::detail {

/// Threads per block of the Ryser kernels (NVRTC kernels: walk_block()).
constexpr int kWalkBlock = 256;

/// Dynamic shared memory a block needs besides the columns (hybrid kernels' memory rows).
inline std::size_t row_memory_shared_bytes(const Kernel& k) {
  return k.memory_shared ? std::size_t(k.block) * k.memory_doubles * sizeof(double) : 0;
}
/// Doubles of WalkArgs::scratch a launch of `threads` threads needs (0: none).
inline std::size_t row_memory_global_doubles(const Kernel& k, std::uint64_t threads) {
  return k.memory_shared ? 0 : static_cast<std::size_t>(threads) * k.memory_doubles;
}

/// The precompiled kernel for this kind with the fewest rows >= n (n <= 64).
Kernel generic_kernel(WalkKind kind, int primes, int n);

/// A kernel compiled by NVRTC for this very matrix (or loaded from the disk cache; compiled
/// only when `compile` is set); fn is null and note says why when there is none.
Kernel specialised_kernel(const WalkJob& job, int cc_major, int cc_minor, bool compile);

/// A specialised kernel compiled beside the walk; workers poll it between runs (on their own
/// threads, which load it) and switch to it once it is there.
using BackgroundKernel = runtime::KernelSwitch<Kernel>;

/// Starts the compilation of the kernel specialised_kernel would compile, on a thread of its
/// own (NVRTC and the cache file only), unless it is loaded already or in the disk cache: then
/// null, and specialised_kernel loads it at once. The register-only variant that spills is
/// replaced by the hybrid as specialised_kernel does, with a second compilation in the
/// background. Call on the thread of the walk's first device (the plan reads its limits).
std::unique_ptr<BackgroundKernel> compile_in_background(const WalkJob& job, int cc_major, int cc_minor);

}  // namespace matchcount::gpu::detail
