// What the CUDA runtime can see, and the GPU walks the GPU engines are built on. Without nvcc
// at build time, or without a GPU at run time, the device list is empty and every stage runs
// on the CPU; run_walk then throws GpuError.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace matchcount {

struct GpuDevice {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  double memory_gib = 0.0;
  int multiprocessors = 0;
};

/// True when the library was compiled with its CUDA sources.
bool built_with_cuda();
/// Devices the CUDA runtime reports; empty when there are none or no driver.
std::vector<GpuDevice> gpu_devices();

/// A CUDA or NVRTC call failed; the message names the call and the CUDA error.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace gpu {

/// Number systems of the dense Ryser walk (see src/gpu/ryser_kernel.cuh).
enum class WalkKind { Real, Complex, ModShared, ModPrime };

/// How the kernel was obtained: compiled now by NVRTC, loaded from the disk cache, or the
/// generic kernel compiled into the program.
enum class KernelSource { Generic, Compiled, Cached };
std::string to_string(KernelSource s);

/// One walk over all 2^(n-1) Gray codes of an n x n block (n >= 2).
struct WalkJob {
  WalkKind kind = WalkKind::Real;
  int n = 0;
  /// Doubled NW columns, a2[(j * n + i) * W + w] for j < n-1 (W = 2 for complex: re, im).
  std::vector<double> a2;
  /// Start values x0[i * W + w].
  std::vector<double> x0;
  /// Primes (at most 4, ModShared; exactly 1, ModPrime) and 1/p.
  std::vector<double> primes, pinv;
  /// ModShared: bit i set = the exact FP64 product of rows up to i is folded in modulo p.
  std::uint64_t fold_mask = 0;
  /// ModShared: folding every 8 rows is also exact (the generic kernels do that); when not,
  /// only a specialised kernel can run the walk and run_walk returns no words without one.
  bool every8_ok = true;
  /// Real/Complex: sums are accumulated exactly as integers times 2^q.
  int q = 0;
  /// log2 of the chunk length; depends on n only, so results do not depend on the launch.
  int k = 0;
  /// Run-time compilation of a kernel specialised to this matrix: 0 never, 1 when the walk is
  /// long enough to repay it (or the kernel is in the disk cache), 2 always.
  int specialise = 1;
  int device = 0;
  std::function<void(double)> progress;
};

struct WalkResult {
  /// Per-thread accumulators, `words` 64-bit words each (see the number policies); empty
  /// when a ModShared walk needed a specialised kernel and none could be had (see note).
  std::vector<std::uint64_t> words;
  int words_per_thread = 0;
  KernelSource source = KernelSource::Generic;
  double compile_seconds = 0.0;
  double run_seconds = 0.0;
  std::string kernel_note;  // why NVRTC was not used, if it was not
};

/// The chunk exponent used for a walk over m Gray columns.
int chunk_log2(int m);
/// For integer walks (W = 1): the estimated fraction of warps (32 random Gray subsets) in
/// which some term is nonzero, from 4096 sampled subsets. Kernels skip the modular products
/// of zero terms when this is small (0-1 matrices of low density: most y_i sets hold a 0).
double warp_nonzero_fraction(const WalkJob& job);
/// Runs the walk on the GPU; throws GpuError on any CUDA failure.
WalkResult run_walk(const WalkJob& job);

}  // namespace gpu
}  // namespace matchcount
