// The GPU SkipPer walk (src/engines/sparse/cuda/skipper_kernel.cuh, docs/gpu.md): what the engine
// (src/engines/sparse/gpu_skipper.cpp) hands to the device. Private to the library.
//
// The walk sums (-1)^|S| prod_i y_i(S) over all subsets S of `bits` Gray bits. The low k bits
// are walked in Gray order inside a chunk, as in the dense kernel; the bits >= k form the
// chunk's subset `high`. Each factor of the product is a slot: slots 0..rows_l-1 are the rows
// touched by the local columns (updated at every step), the others are constants of the
// chunk (products of rows that no local column touches). A slot's start value is the
// product of its sums; a sum is a base plus the entries whose Gray bit is set in `high`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

struct SkipJob {
  WalkKind kind = WalkKind::Real;
  int n = 0;          // rows of the block (for messages and cost)
  int bits = 0;       // Gray bits of the walk, <= 63
  int k = 0;          // local bits, walked inside a chunk
  int task_bits = 0;  // bits [k, k + task_bits) fix a task; the bits above run inside it
  int rows_l = 0;     // slots updated by the local columns
  /// Slot i is the product of sums slot_sum[i] .. slot_sum[i+1]-1 (W = 2 doubles per value
  /// for complex walks); slots.size() == slot_sum.size() - 1.
  std::vector<int> slot_sum;
  std::vector<double> sum_base;   // sum s: base value, W doubles
  std::vector<int> sum_entry;     // sum s: entries sum_entry[s] .. sum_entry[s+1]-1
  std::vector<int> entry_bit;     // Gray bit (>= k) of each entry
  std::vector<double> entry_val;  // W doubles each
  /// Local columns: local[(j * rows_l + i) * W + w] is slot i's entry in Gray column j < k.
  std::vector<double> local;
  /// Constant slots: when one is 0 at a chunk's start, the chunk is skipped. The sign slot
  /// (a constant) is negated when |high| is odd, so that steps keep the sign of the local walk.
  std::uint64_t const_mask = 0;
  int sign_slot = 0;
  /// Masks (Gray bits >= k) of rows that are structurally zero whenever `high` misses them.
  std::vector<std::uint64_t> dead_mask;
  /// Primes and 1/p (ModShared: at most 4; ModPrime: exactly 1).
  std::vector<double> primes, pinv;
  /// ModShared with a specialised kernel: bit i set = fold the exact product after slot i.
  std::uint64_t fold_mask = 0;
  /// ModShared with a generic kernel (products folded every 8 slots): the L slots may be
  /// folded in aligned groups of 8 (their bounds multiply to < 2^49 in each); constant
  /// slots then get an 8-slot group of their own.
  bool every8_ok = true;
  int q = 0;                    // Real/Complex: sums are integers times 2^q
  double predicted_ops = 0;     // FP64 operations the walk is expected to take
  int specialise = 1;           // as WalkJob::specialise
  int device = 0;
  std::function<void(double)> progress;

  int slots() const { return static_cast<int>(slot_sum.size()) - 1; }
  int width() const { return kind == WalkKind::Complex ? 2 : 1; }
};

/// run_skip's answer: per-thread accumulators, `words_per_thread` 64-bit words each, in the
/// number policy's layout (src/engines/ryser/cuda/ryser_policies.cuh); empty when a ModShared walk found no
/// kernel that can fold its products exactly (kernel_note says why).
struct SkipResult {
  std::vector<std::uint64_t> words;
  int words_per_thread = 0;
  KernelSource source = KernelSource::Generic;
  double compile_seconds = 0.0;
  double run_seconds = 0.0;
  std::string kernel_note;
  std::uint64_t threads = 0, launches = 0;
};

/// The job with pad slots (value 1) inserted so that a generic kernel of `rows` slots,
/// folding every 8 slots, folds exactly: L slots keep their places, each constant slot
/// starts an 8-slot group of its own. Empty slot_sum when it does not fit.
SkipJob padded_for_every8(const SkipJob& job, int rows);

/// Runs the walk on the GPU; throws GpuError on any CUDA failure.
SkipResult run_skip(const SkipJob& job);

}  // namespace matchcount::gpu
