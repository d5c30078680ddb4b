// What every CUDA launcher shares: a loaded kernel, device buffers, error checks and occupancy.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cuda/kernel_source.hpp"
#include "cuda/prime_passes.hpp"
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
  int low_columns = 0;  // exact walks: low columns whose subsets one step takes (ryser_low_columns.cuh)
  int block = 256;  // threads per block it was built for (__launch_bounds__)
};

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

/// A non-blocking stream of the current device, destroyed on scope exit.
struct DeviceStream {
  cudaStream_t s = nullptr;
  DeviceStream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~DeviceStream() { if (s) cudaStreamDestroy(s); }
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
};

/// A stack of `count` matrices of `per` doubles each (`re`, and `im` when not null) through the
/// device in chunks of at most `chunk` matrices, the batch kernels' one host loop: each chunk is
/// copied in, `launch(k, d_re, d_im, d_out)` runs k matrices (d_im null for real stacks) and
/// synchronises, and its `out_per` doubles a matrix come back into `out` (count * out_per).
/// `stop` is asked between chunks; returns false when it stopped the batch.
bool run_stack_chunks(const double* re, const double* im, std::size_t per, long long count, long long chunk,
                      std::size_t out_per, double* out, const std::function<bool()>& stop,
                      const std::function<void(long long k, const double* d_re, const double* d_im, double* d_out)>& launch);

/// Blocks of `block` threads with `shared` bytes of dynamic shared memory that one
/// multiprocessor holds (the kernel's limit is raised beyond 48 KiB where needed); throws
/// GpuError naming `what` when not one fits.
int blocks_per_sm(const void* fn, int block, std::size_t shared, const char* what);

/// The frontier DPs' passes over K primes on `device` whose two tables take `per_prime` bytes
/// a prime: what the free memory holds less 512 MiB for the small tables; RefusedError naming
/// `engine` when not one prime fits.
PrimePasses plan_device_passes(const char* engine, int device, std::size_t K, double per_prime,
                               std::size_t max_per_pass);

}  // namespace matchcount::gpu::detail
