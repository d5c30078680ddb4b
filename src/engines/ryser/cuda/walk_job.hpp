// The GPU Ryser walk the GPU engines are built on (WalkJob) and its row split. Internal to the
// library and its tests; run_walk throws GpuError without CUDA or a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda/kernel_source.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount {

class WalkJournal;  // matchcount/checkpoint.hpp
namespace cluster {
class WalkTeam;  // matchcount/cluster.hpp
}

namespace gpu {

/// Number systems of the dense Ryser walk (see src/engines/ryser/cuda/ryser_policies.cuh).
enum class WalkKind { Real, Complex, ModShared, ModPrime };

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
  /// long enough to repay it (or the kernel is in the disk cache), 2 always. A kernel not in
  /// the cache is compiled beside the walk under 1 (the generic kernel runs until it is there)
  /// and before the walk under 2; MATCHCOUNT_NVRTC_COMPILE changes that (docs/gpu.md).
  int specialise = 1;
  /// Devices: the first `gpus` visible ones (0: all). Long walks are shared out in units
  /// (unit_log2) through a queue from which every device takes runs of about a second.
  int gpus = 0;
  /// Called with the fraction of units done, from one thread at a time.
  std::function<void(double)> progress;
  /// Checkpoints: the walk resumes from and saves its state to `journal` under `tag` (a name
  /// that identifies this walk, its input and primes); may be null.
  WalkJournal* journal = nullptr;
  std::string tag;
  /// MPI: the walk's units are shared with the other ranks through it; may be null.
  cluster::WalkTeam* team = nullptr;
};

struct WalkResult {
  /// The walk's sum in the format of sum_words(); empty when a ModShared walk needed a
  /// specialised kernel and none could be had (see note).
  std::vector<std::uint64_t> words;
  /// Units of the walk done by each device used in this run (resumed units not counted).
  std::vector<std::uint64_t> units_per_device;
  /// MPI: units rank 0 handed to each rank (its own entry 0: not counted there).
  std::vector<std::uint64_t> units_by_rank;
  KernelSource source = KernelSource::Generic;  // the kernel that ran most of the units
  double compile_seconds = 0.0;  // also a compilation beside the walk, which run_seconds excludes
  double run_seconds = 0.0;
  std::string kernel_note;  // why NVRTC was not used, if it was not; how kernels shared the walk
  int memory_rows = 0;      // > 0: the hybrid register/memory variant ran
  int low_columns = 0;      // > 0: the specialised kernel took 2^low_columns subsets a step (ryser_low_columns.cuh)
  /// A kernel compiled beside the walk: units the generic kernel ran meanwhile and units the
  /// specialised one ran after the switch (runs of verify-resume included); 0 otherwise.
  std::uint64_t units_generic = 0, units_specialised = 0;
};

/// The chunk exponent used for a walk over m Gray columns.
int chunk_log2(int m);
/// A walk's work unit is 2^unit_log2(m, k) chunks: at most 2^14 units, fixed by m and k alone
/// so that the sums and checkpoints do not depend on the devices.
int unit_log2(int m, int k);

/// Words of a walk's sum: Real (W = 1) and Complex (W = 2): W 512-bit two's-complement
/// fixed-point integers (8 limbs each, least significant first, added modulo 2^512) and the sum
/// of |terms| as a double; ModShared and ModPrime: the sum modulo each prime, in [0, p).
std::size_t sum_words(WalkKind kind, std::size_t primes);
/// total += the sums of `threads` per-thread accumulators as a kernel leaves them (mod kinds:
/// doubles in (-p, p)); total has sum_words() words.
void add_thread_sums(WalkKind kind, const std::vector<double>& primes, const std::uint64_t* raw,
                     std::size_t threads, std::vector<std::uint64_t>& total);
/// total += sum, both in the format of sum_words(): exact, and independent of the order.
void add_sums(WalkKind kind, const std::vector<double>& primes, std::vector<std::uint64_t>& total,
              const std::vector<std::uint64_t>& sum);
/// For integer walks (W = 1): the estimated fraction of warps (32 random Gray subsets) in
/// which some term is nonzero, from 4096 sampled subsets. Kernels skip the modular products
/// of zero terms when this is small (0-1 matrices of low density: most y_i sets hold a 0).
double warp_nonzero_fraction(const WalkJob& job);
/// Runs the walk on the GPU; throws GpuError on any CUDA failure.
WalkResult run_walk(const WalkJob& job);

/// How a specialised kernel holds y: rows 0..memory_rows-1 (in the job's order) in a
/// per-thread slice of global or shared memory, the rest in registers; memory_rows = 0 is the
/// register-only variant. See docs/gpu.md ("Hybrid kernels").
struct RowSplit {
  int memory_rows = 0;  // the choice: the hybrid when the register-only kernel would spill or
                        // the hybrid is modelled at least 10% cheaper; else 0
  int hybrid_rows = 1;  // the hybrid's split (>= 1), whether chosen or not
  int register_estimate = 0;  // 32-bit registers the register-only kernel is estimated to need
  double register_cost = 0.0, hybrid_cost = 0.0;  // modelled issue slots per Gray step
};
/// Plans the split for a kernel over `rows` >= n rows whose columns are baked into the code
/// (`baked`: a memory row costs only when a column holding it flips) or read from shared
/// memory (every step updates every row). Rows should come coldest first (see gpu_ryser.cpp).
RowSplit plan_row_split(const WalkJob& job, int rows, bool baked);
/// Estimated 32-bit registers of a specialised kernel with `register_rows` rows in registers.
int register_estimate(const WalkJob& job, int register_rows, bool shared_columns);

}  // namespace gpu
}  // namespace matchcount
