// Private to src/gpu: how the launcher obtains a kernel (generic, or specialised by NVRTC).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "gpu/jobs.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu::detail {

/// A launchable kernel taking one mcgpu::WalkArgs by value, for blocks of up to `rows` rows;
/// generic kernels read the columns from `shared_bytes` of dynamic shared memory.
struct Kernel {
  const void* fn = nullptr;
  int rows = 0;
  bool uses_shared = false;
  KernelSource source = KernelSource::Generic;
  double compile_seconds = 0.0;
  std::string note;
  /// Hybrid kernels: rows 0..memory_rows-1 of y live in memory, memory_doubles (rows times W)
  /// per thread, in dynamic shared memory after the columns or in WalkArgs::scratch.
  int memory_rows = 0, memory_doubles = 0;
  bool memory_shared = false;
  int block = 256;  // threads per block it was built for (__launch_bounds__)
};

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

/// Throws GpuError naming `what` unless e is cudaSuccess.
void check(cudaError_t e, const char* what);

/// Device memory for `count` elements (at least one), freed on scope exit; or a copy of a
/// host vector.
template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(std::size_t count) { check(cudaMalloc(&ptr, std::max<std::size_t>(count, 1) * sizeof(T)), "cudaMalloc"); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (!host.empty()) check(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceBuffer() { if (ptr) cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// Blocks of `block` threads with `shared` bytes of dynamic shared memory that one
/// multiprocessor holds (the kernel's limit is raised beyond 48 KiB where needed); throws
/// GpuError naming `what` when not one fits.
int blocks_per_sm(const void* fn, int block, std::size_t shared, const char* what);

/// The precompiled kernel for this kind with the fewest rows >= n (n <= 64).
Kernel generic_kernel(WalkKind kind, int primes, int n);

/// A kernel compiled by NVRTC for this very matrix (or loaded from the disk cache; compiled
/// only when `compile` is set); fn is null and note says why when there is none.
Kernel specialised_kernel(const WalkJob& job, int cc_major, int cc_minor, bool compile);

}  // namespace matchcount::gpu::detail
