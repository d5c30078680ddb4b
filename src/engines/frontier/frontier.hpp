// The frontier (profile) dynamic-programming engine and its planner (private to src/engines).
//
// Rows are processed in a chosen order; a state is the set of used columns among the open
// columns (touched by a processed row and still present in a later row). The work is about
// nnz * (live states), and the live states are at most C(w, p) for a frontier of w open
// columns of which p are used, so the engine suits blocks of small path-width at any n.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engines/common.hpp"
#include "engines/engine.hpp"
#include "engines/frontier/cuda/frontier_job.hpp"
#include "engines/growing_array.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::engines {

/// Widest frontier the DP keys (uint64 bit sets) can hold.
constexpr int kFrontierMaxWidth = 63;

/// A row order for the frontier DP with its predicted size.
struct FrontierPlan {
  /// Rows of the matrix (of its transpose when `transposed`) in processing order.
  std::vector<int> row_order;
  /// Count perm(A^T) = perm(A): the columns are processed as rows.
  bool transposed = false;
  /// Largest number of open columns after any row (> kFrontierMaxWidth: not runnable).
  int width = 0;
  /// Predicted work: sum over rows of (live-state bound before the row) * (row degree)
  /// plus the states written (infinity when the width exceeds kFrontierMaxWidth).
  double cost = 0;
  /// Largest predicted number of live states (old plus new) held while processing one row.
  double peak_states = 0;
};

/// The frontier profile of one row order of an n x n pattern ((row, col) pairs, each once).
/// Live states after row k are bounded by min(C(w_k, p_k), states before * degree), where w_k
/// columns are open and p_k = (k+1) - (columns closed so far) of them are used.
FrontierPlan frontier_profile(const std::vector<std::vector<int>>& rows, int n,
                              std::vector<int> order);

/// The cheapest order found among natural, reverse Cuthill-McKee and greedy minimum-frontier
/// orders, each tried on the pattern and on its transpose.
FrontierPlan plan_frontier(const std::vector<std::pair<int, int>>& pattern_rc, int n);

/// Bytes of the live states (a key and `words` 8-byte value words each) at the plan's peak.
inline double frontier_state_bytes(const FrontierPlan& plan, int words) {
  return plan.peak_states * 8.0 * (1 + words);
}

/// Predicted peak bytes of the DP's state tables: the live states of the old and new tables
/// and a page for each of the four (keys and values, old and new; their resident pages are
/// what the engine's TableMeter charges, growing_array.hpp). The run never holds more:
/// peak_states bounds the states of two consecutive rows, and each row's table is sized by
/// the same bound.
inline double frontier_bytes(const FrontierPlan& plan, int words) {
  const double states = frontier_state_bytes(plan, words);
  return states + 4 * table_page(states / 2);
}

/// The engine's memory beside its tables, per row and per entry of the block: the row order
/// planned again (adjacency lists and orders of the pattern and its transpose), the steps of
/// the DP and their moves; about twice what a long strip measured (docs/benchmarks.md,
/// "Memory budget against the measured peak").
constexpr double kFrontierBytesPerRow = 400, kFrontierBytesPerEntry = 64;
inline double frontier_other_bytes(double rows, double nnz) {
  return kFrontierBytesPerRow * rows + kFrontierBytesPerEntry * nnz;
}

/// Refusal threshold of the engine: predicted peak bytes of the state tables.
constexpr double kFrontierMemoryLimit = 8.0 * (1ull << 30);

/// Time model of the CPU engine (calibrated with matchcount-bench --planner-check,
/// docs/benchmarks.md, "Planner check"): per unit of FrontierPlan::cost, a base for the
/// merge (key compare, compact, advance) plus a cost per value word: a Shoup product and a
/// modular sum per prime (0-1 blocks: the sum only), two doubles for reals (value and bound),
/// three for complex numbers; plus a fixed cost (the engine plans its order again, sets up
/// primes and CRT) and a little per row. Tables beyond the caches run slower: the rate grows
/// by half for each doubling beyond 8 MiB of the peak states at 24 bytes each (a key and two
/// words; the further words of many primes are read in the same stream; measured slowdowns in
/// docs/benchmarks.md, "Planner check"). Second threads gain little here (the merges are
/// memory-bound and rows are short), so the model is for one core.
constexpr double kFrontierBase = 2.5e-9, kFrontierModWord = 1.5e-9, kFrontierUnitWord = 0.75e-9,
                 kFrontierRealWord = 1.0e-9, kFrontierComplexWord = 1.0e-9;
constexpr double kFrontierFixed = 1e-4, kFrontierPerRow = 1e-6;

/// Predicted seconds of the CPU engine on an n-row block with `plan`: exact counts with
/// `primes` CRT primes (`unit`: every entry 1), or floats (primes 0; `complex_values`).
/// Exact counts split the primes over passes as the engine does when the tables would not
/// fit kFrontierMemoryLimit; each pass repeats the merge.
inline double frontier_seconds(const FrontierPlan& plan, int n, double primes, bool unit, bool complex_values) {
  double per_unit = kFrontierBase + (complex_values ? 3 * kFrontierComplexWord : 2 * kFrontierRealWord);
  if (primes > 0) {
    const double fit = std::floor((kFrontierMemoryLimit - 8.0 * plan.peak_states) / (8.0 * plan.peak_states));
    const double passes = std::ceil(primes / std::max(1.0, fit));
    per_unit = passes * kFrontierBase + primes * (unit ? kFrontierUnitWord : kFrontierModWord);
  }
  const double bytes = frontier_state_bytes(plan, 2);  // a key and two words a state: many primes stream
  const double memory = 1 + 0.5 * std::max(0.0, std::log2(bytes / double(8 << 20)));
  return kFrontierFixed + kFrontierPerRow * n + plan.cost * per_unit * memory;
}

/// DP state keys: bit b set = the column at layout position b is used.
using FrontierKey = std::uint64_t;

/// C(n, k) exactly for 0 <= n <= 63 (all below 2^63), 0 outside 0 <= k <= n: the tables are
/// sized by such counts, which must not round down as the floating binomial may.
inline std::uint64_t exact_binomial(int n, int k) {
  static const auto table = [] {
    std::vector<std::uint64_t> c(64 * 64, 0);
    for (int i = 0; i < 64; ++i) {
      c[std::size_t(i) * 64] = 1;
      for (int j = 1; j <= i; ++j) c[std::size_t(i) * 64 + std::size_t(j)] = c[std::size_t(i - 1) * 64 + std::size_t(j - 1)] + c[std::size_t(i - 1) * 64 + std::size_t(j)];
    }
    return c;
  }();
  return k < 0 || k > n || n < 0 || n > 63 ? 0 : table[std::size_t(n) * 64 + std::size_t(k)];
}

/// Entry (r, c) of the row at hand as a map of old keys s (c unused, closing columns used)
/// to new keys: compact(s) | add.
struct FrontierMove {
  FrontierKey cbit = 0;   // c's bit in the old layout (0 when c opens at this row)
  FrontierKey fixed = 0;  // closing bits a source must hold: closing & ~cbit
  FrontierKey add = 0;    // c's bit in the new layout (0 when c closes at this row)
  int entry = 0;          // index into the matrix's entries (value tables)
};

/// One row of the order: the old layout's closing bits and the row's moves.
struct FrontierStep {
  int kept = 0;                     // old bits that stay open (new bits 0..kept-1, same order)
  std::vector<int> close_asc;       // old bit positions of the columns closing at this row
  std::vector<FrontierMove> moves;  // entries that can lead to a live state
  double predicted = 0;             // predicted work, for progress reports
  /// After the row, a live state's key has exactly `used` of its `open` bits set (the rows so
  /// far less the columns closed, all of which are used): at most C(open, used) states. The DP
  /// sizes its tables by it.
  int open = 0, used = 0;
  std::size_t max_states() const { return std::size_t(exact_binomial(open, used)); }
  /// New keys below t with `used` of their `open` bits set: the most states a chunk of the new
  /// key range [lo, hi) can hold is keys_below(hi) - keys_below(lo).
  std::size_t keys_below(FrontierKey t) const {
    if (open < 64 && (t >> open) != 0) return max_states();
    std::size_t count = 0;
    int ones = 0;
    for (int b = open - 1; b >= 0 && ones <= used; --b)
      if ((t >> b) & 1) count += std::size_t(exact_binomial(b, used - ones)), ++ones;
    return count;
  }

  static bool accepts(const FrontierMove& m, FrontierKey s) {
    return !(s & m.cbit) && (s & m.fixed) == m.fixed;
  }
  FrontierKey compact(FrontierKey s) const {  // remove the closing bits (pext, kept mask)
    for (auto b = close_asc.rbegin(); b != close_asc.rend(); ++b)
      s = (s & ((FrontierKey{1} << *b) - 1)) | ((s >> (*b + 1)) << *b);
    return s;
  }
  FrontierKey expand(FrontierKey x) const {  // the inverse: zero bits at closing positions
    for (int b : close_asc) x = (x & ((FrontierKey{1} << b) - 1)) | ((x >> b) << (b + 1));
    return x;
  }
};

/// The steps of a row order over `rows` (per row: (column, entry index) pairs): layouts,
/// moves and predicted work (as frontier_profile). RefusedError beyond kFrontierMaxWidth.
std::vector<FrontierStep> frontier_steps(const std::vector<std::vector<std::pair<int, int>>>& rows,
                                         const std::vector<int>& order, int n);

/// The steps of `plan` over the matrix's entries (entry indices into a.entries).
template <class T>
std::vector<FrontierStep> frontier_steps(const SparseMatrix<T>& a, const FrontierPlan& plan) {
  std::vector<std::vector<std::pair<int, int>>> rows(static_cast<std::size_t>(a.rows));
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto& e = a.entries[i];
    rows[std::size_t(plan.transposed ? e.col : e.row)].emplace_back(plan.transposed ? e.row : e.col, int(i));
  }
  return frontier_steps(rows, plan.row_order, a.rows);
}

std::unique_ptr<Engine> make_frontier();
std::unique_ptr<Engine> make_gpu_frontier();

/// The rows of a row order as the GPU engine runs them (new layouts, popcounts, pull moves);
/// empty when some row leaves no state alive (the permanent is 0).
std::vector<gpu::FrontierRowDesc> gpu_frontier_rows(const std::vector<FrontierStep>& steps);

/// The GPU engine's exact count without its CPU fallback (GpuError when no device can run it);
/// max_primes_per_pass > 0 caps the primes per pass (tests reach the multi-pass path with it).
Integer gpu_frontier_permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt, std::size_t max_primes_per_pass);

/// Predicted seconds of the GPU frontier engine for an exact count of `a` with `primes` CRT
/// primes on a device of `device_gib` GiB (infinity when one prime's tables do not fit).
double gpu_frontier_seconds(const SparseMatrix<Integer>& a, const FrontierPlan& plan, double primes, double device_gib);

/// Knobs of the exact count that tests use to reach the memory fallbacks on small input.
struct FrontierTuning {
  /// Most primes carried per DP pass (0: as many as kFrontierMemoryLimit allows, usually all).
  std::size_t max_primes_per_pass = 0;
  /// Size every row's output with a counting merge first (else only rows whose bound on the
  /// output, with the previous row's states, exceeds a quarter of the memory limit).
  bool count_first = false;
};

/// The engine's exact count (what permanent(SparseMatrix<Integer>) returns) with knobs.
Integer frontier_permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt,
                           const FrontierTuning& tuning);

}  // namespace matchcount::engines
