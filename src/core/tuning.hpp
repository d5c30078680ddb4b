// Tuning knobs: the environment variables that steer the engines past their planners (for
// measurements and tests) and the few facts of the environment the library acts on. They are
// read in one place, once per process (tuning.cpp), and shown by `matchcount --explain -v`;
// docs/usage.md, "Tuning knobs (environment)", documents each.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace matchcount::tuning {

/// Every knob, parsed; the defaults are the values without the variable.
struct Tuning {
  // SkipPer on the GPU (docs/gpu.md): 0 the planner's form, 1 plain with jumps, 2 halved.
  int skipper_mode = 0;
  int skipper_k = 0;           // local bits of a chunk; 0: the planner's
  int skipper_task_bits = -1;  // bits of a task; -1: the planner's
  bool skipper_start_data = false;  // start values from the job's arrays, not baked in
  // gpu-ryser: the plain column order (sparsest first, rows as given) instead of the planned one.
  bool gpu_order_columns = false;
  bool gpu_verbose = false;  // kernel choices and resources on stderr
  // gpu-hafnian: KiB of shared memory a block gives the frames of small levels (0: 48).
  int haf_shared_kb = 0;
  // gpu-hafnian: the largest task, in coefficients a lane computes at once (1, 2 or 4; 0: 4).
  int haf_task_block = 0;
  // gpu-hafnian's exact and real walks (the repeated walk's too): 0 (default) or 1 two channels
  // a walk (an odd last one in a launch of its own), 2 one channel a walk.
  int haf_pairs = 0;
  // gpu-hafnian's exact walks: 0 (default) or 1 one channel in the integers modulo 2^64,
  // walked beside the first of the primes for the rest of the bound (one prime of about 47 bits
  // where it covers the rest), 2 primes only, 3 the channel modulo 2^64 in a walk of its own,
  // 4 as 1 with primes below 2^24 only.
  int haf_ring = 0;
  // Batches of small float hafnians on the GPU (n <= 32): 0 (default) by size, 1 one walk a
  // thread (haf_lanes.cu), 2 the big hafnian's walk with the batch's channels, 3 expansion
  // along the first vertex (haf_enum.cu) up to 16 vertices.
  int haf_batch = 0;
  // Rasmussen+ on the GPU: rows from which one warp takes one sample (unset: the planner's).
  std::optional<int> warp_plus_rows;
  // Compiled NVRTC kernels are kept here; empty: no cache.
  std::string kernel_cache;
  // Extra macros for NVRTC kernels, in order (name, value).
  std::vector<std::pair<std::string, std::string>> nvrtc_defines;
  std::optional<bool> nvrtc_bake_columns;   // unset: by density
  int ryser_low_columns = 2;                // exact specialised gpu-ryser walks: low columns taken together (0..2)
  int nvrtc_block = 0;                      // threads per block; 0: the built-in size
  std::optional<bool> nvrtc_memory_shared;  // hybrid memory rows in shared memory; unset: if they fit
  int nvrtc_variant = 0;                    // 0 the planner's, 1 register only, 2 hybrid
  std::optional<int> nvrtc_memory_rows;     // a hybrid with this many memory rows (clamped)
  // gpu-ryser, a specialised kernel not in the cache: 0 compiled beside the walk when the
  // planner asks for it and before the walk when the caller does, 1 always beside, 2 always before.
  int nvrtc_compile = 0;
  // Walks predicted shorter than this many seconds are not shared over MPI ranks.
  double mpi_min_seconds = 0.5;
  // A command's stack goes to the GPU by default only where the CPU would take this long
  // (gpu_stack_pays_for_its_context).
  double gpu_stack_seconds = 1.0;
  // --log's sparse LU: 0 the size's ordering (METIS from kMetisFromRows rows), 1 AMD, 2 METIS.
  int log_ordering = 0;
  /// MATCHCOUNT_HAFNIAN_RPT: 0 by cost, 1 the pair walk, 2 Kan's moment formula.
  int hafnian_rpt = 0;
  /// MATCHCOUNT_MATCHING_POLYNOMIAL: 0 by cost, 1 the frontier DP of polynomials (where its
  /// tables fit), 2 interpolation over loop hafnians.
  int matching_polynomial = 0;
  /// MATCHCOUNT_KASTELEYN_METHOD: how exact planar determinants eliminate: 0 by predicted work,
  /// 1 the band, 2 nested dissection.
  int kasteleyn_method = 0;
  /// MATCHCOUNT_PFAFFIAN_METHOD: how exact Pfaffians of planar graphs eliminate: 0 by predicted
  /// work, 1 the band, 2 nested dissection (2 x 2 pivots).
  int pfaffian_method = 0;
  // Started as a rank by mpirun, Hydra or srun (their variables are set).
  bool launched_by_mpi = false;
};

/// The knobs of this process: the environment's, read once (thread-safe), unless a
/// ScopedTuning holds others.
const Tuning& tuning();

/// Other knobs for the life of the object, for tests that steer the engines in process.
/// Not for use while another thread reads the knobs.
class ScopedTuning {
 public:
  explicit ScopedTuning(Tuning t);
  ~ScopedTuning();
  ScopedTuning(const ScopedTuning&) = delete;
  ScopedTuning& operator=(const ScopedTuning&) = delete;

 private:
  Tuning mine_;
  const Tuning* before_;
};

/// One row of the knob table: the variable, what it does, its default and its current value
/// (changed: not the default).
struct KnobRow {
  std::string name, meaning, fallback, value;
  bool changed = false;
};

/// Every knob, in the order docs/usage.md lists them, with the current values of tuning().
std::vector<KnobRow> knob_table();

}  // namespace matchcount::tuning
