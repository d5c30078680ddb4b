// The whole count: matching check, Dulmage-Mendelsohn split, Forbert-Marx reduction, then an
// engine per remaining block; products and sums of the parts are exact.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "matchcount/checkpoint.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/reduce.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

struct CountOptions {
  /// Count perfect matchings (graph inputs): a non-square matrix counts 0. Otherwise (matrix
  /// inputs) a non-square matrix gives its rectangular permanent: the sum over injective maps
  /// from the shorter side into the longer one.
  bool perfect_matchings = false;
  /// Engine name for every block; empty = chosen per block by choose_engine().
  std::string engine;
  /// Skip matching/DM/Forbert-Marx and hand the whole matrix to the engine.
  bool preprocess = true;
  int threads = 0;
  /// Where blocks may be counted (auto: on a GPU when one is present and a block repays it).
  DevicePolicy device = DevicePolicy::Auto;
  /// GPU engines may compile kernels specialised to a block (NVRTC).
  Specialise specialise = Specialise::Auto;
  ReduceOptions reduce;
  /// Refuse (RefusedError) instead of running engines whose predicted work, in units of one
  /// Ryser step n * 2^(n-1) summed over blocks, exceeds this.
  double max_work = std::numeric_limits<double>::infinity();
  /// A time cap in seconds (0: none): a count whose planned engines are predicted to take
  /// longer is refused (BudgetError, a RefusedError) before any engine starts, naming the
  /// prediction. (A cap reached while running is the caller's to enforce:
  /// Checkpoint::request_stop.)
  double max_seconds = 0;
  /// A memory budget in bytes: 0 (the default) stands for default_max_memory()
  /// (matchcount/memory.hpp, 3/4 of the memory available), infinity for none. Preprocessing
  /// and planning are predicted before they start and refused beyond it (BudgetError naming
  /// the stage); the planner passes over engines whose tables would not fit, and a block no
  /// engine can count within it is refused before any engine starts.
  double max_memory = 0;
  /// Called once, before the engines start, with their predicted seconds (not called when
  /// no engine has a prediction: engines forced by name); may be empty.
  std::function<void(double)> on_prediction;
  /// Preprocess and plan, but run no engine: engine_runs hold the plan (seconds 0) and the
  /// value is not computed (CountReport::explained).
  bool explain = false;
  /// Count in logarithms (--log): the value is PermanentValue::log. A block whose graph is
  /// planar is counted by the sparse LU log-determinant of its Kasteleyn matrix (permanents)
  /// or Pfaffian matrix (hafnians; nonnegative weights, no loops), in polynomial time and to
  /// about double precision; every other block by the engine the planner picks, its value
  /// then taken to its logarithm. Integer, rational and real weights (complex ones are a
  /// UsageError); no checkpoint. docs/engines.md, "Sparse LU log-determinants".
  bool log = false;
  /// With `explain`: receives a copy of every block left for the engines (benchmarks time
  /// engines on them); may be null.
  std::vector<AnyMatrix>* leaves = nullptr;
  /// Fraction of the predicted engine work done so far (0..1); may be empty.
  std::function<void(double)> progress;
  /// GPU engines: use the first `gpus` visible devices (0: all).
  int gpus = 0;
  /// Hafnians: the names of the vertices (graph inputs), for messages such as the Tutte
  /// witness; empty: vertices are named by their 1-based index.
  std::vector<std::string> vertex_names;
  /// Resume from and save progress to this checkpoint (block values and the running walk);
  /// may be null. The count throws Interrupted after a stop request (Checkpoint::request_stop).
  Checkpoint* checkpoint = nullptr;
};

/// One block handed to an engine.
struct BlockRun {
  int n = 0;
  std::size_t nnz = 0;
  std::string engine;
  double seconds = 0.0;
  /// Where it ran, which kernel (GPU) and the seconds spent compiling it (part of `seconds`).
  EngineStats stats;
  /// The planner's prediction of `seconds` (0 when the engine was forced).
  double predicted_seconds = 0.0;
  /// Largest frontier of the best row order the planner found (-1: not planned).
  int frontier_width = -1;
  /// Explain runs: why no engine can count the block (EnginePlan::why; empty when one can).
  std::string why = {};
  /// The planner's prediction of the engine's own memory in bytes (its tables; 0 when the
  /// engine was forced or needs little).
  double predicted_bytes = 0;
};

/// What the general-graph path did (count_hafnian): the structure found before the engines.
struct GraphReport {
  /// A hafnian was counted (count_hafnian); false for permanents.
  bool hafnian = false;
  /// The loop hafnian (the diagonal as loop weights).
  bool loops = false;
  /// Vertices of the graph and its edges (each once, loops not counted).
  int vertices = 0;
  std::size_t edges = 0;
  /// Without a perfect matching: a Tutte set that proves it (Gallai-Edmonds), e.g. "removing the
  /// 2 vertices 3, 7 leaves 4 odd components"; empty otherwise.
  std::string witness;
  /// Edges that lie in no perfect matching, removed before the split (complete = false: the
  /// search stopped at its work budget and kept some such edges).
  std::size_t dead_edges = 0;
  bool dead_edges_complete = true;
  /// Connected components after the dead edges were removed, and how many of the blocks left
  /// were bipartite (counted as permanents of their biadjacency matrices).
  int components = 0;
  int bipartite_blocks = 0;
  /// Reductions: edges forced by a vertex of degree 1, vertices of degree 2 folded, loops taken
  /// by a vertex without neighbours.
  int forced = 0, folded = 0, loops_taken = 0;
};

struct CountReport {
  PermanentValue value;
  int rows = 0, cols = 0;
  std::size_t nnz = 0;
  /// Size of a maximum matching (Hopcroft-Karp); < rows means the permanent is 0.
  int matching_size = 0;
  /// Square blocks of the fine Dulmage-Mendelsohn decomposition and entries it deleted.
  int dm_blocks = 0;
  std::size_t dm_deleted_entries = 0;
  std::vector<int> dm_block_sizes;
  ReduceStats reduce;
  std::vector<BlockRun> engine_runs;
  /// Seconds per stage: "matching", "decompose", "reduce", "engines", "total".
  std::vector<std::pair<std::string, double>> stage_seconds;
  /// The memory budget the count was planned with (bytes; infinity: none), and the predicted
  /// bytes of preprocessing and planning (the matrix's copies and the planner's structures).
  double max_memory = 0, planning_bytes = 0;
  /// True when CountOptions::explain stopped the count after planning (value unset).
  bool explained = false;
  /// Human-readable remarks (why the count is 0, what was refused, ...).
  std::vector<std::string> notes;
  /// The general-graph path (count_hafnian); graph.hafnian is false for permanents.
  GraphReport graph;
  /// Set by the questions of one block, which have no preprocessing to report: "torontonian" or
  /// "loop_torontonian" (count_torontonian), "hafnian" or "loop_hafnian" (count_hafnian_repeated);
  /// and "matchings" (count_matchings_report, matchcount/matchings.hpp). Empty for the counts of
  /// perfect matchings (the permanent, hafnian or loop hafnian, as `graph`).
  std::string quantity;
  /// With quantity "matchings" and the polynomial asked for: the coefficients m_0, m_1, ...,
  /// m_floor(n/2) of the matching polynomial (m_k: the weighted number of k-matchings).
  std::vector<PermanentValue> polynomial;
  /// With CountOptions::checkpoint: what was resumed from the file and verified.
  ResumeSummary resume;
};

/// Counts the permanent of `m`. Rational matrices are scaled to integers row by row and the
/// exact fraction is returned. Throws RefusedError when an engine or bound cannot be met.
CountReport count_permanent(const AnyMatrix& m, const CountOptions& options = {});

/// Counts the hafnian of the symmetric matrix `m` (both triangles stored): the weighted number
/// of perfect matchings of the graph whose adjacency matrix it is. With `loops`, the loop
/// hafnian: the diagonal holds loop weights, and a vertex may also be covered alone by its loop;
/// without, the diagonal is ignored. Edmonds' matching (no perfect matching: 0 with a witness),
/// edges in no perfect matching removed, connected components multiplied, bipartite ones counted
/// as permanents, degree-1 and degree-2 reductions, then a hafnian engine per block. Rational
/// matrices are scaled to integers and give the exact fraction. Throws std::invalid_argument
/// for a matrix that is not square and symmetric, RefusedError when no engine can count a block.
CountReport count_hafnian(const AnyMatrix& m, bool loops, const CountOptions& options = {});

/// The hafnian of `m` with row and column i repeated rpt[i] times (0 drops it), thewalrus's
/// hafnian_repeated(A, rpt, mu, loop): two copies of i are joined by m_ii; with `loops` each copy
/// of i also has loop weight mu[i] (`mu`: an n x 1 or 1 x n matrix; null: the diagonal of m).
/// The expanded matrix is never built (src/engines/hafnian/hafnian_repeated.hpp). Integers and
/// rationals give exact values, floats an error estimate. UsageError for options that do not
/// apply (--engine other than hafnian, --log, --explain, --no-preprocess) and for a pattern or
/// loop weights of the wrong length.
CountReport count_hafnian_repeated(const AnyMatrix& m, const std::vector<std::uint64_t>& rpt, const AnyMatrix* mu,
                                   bool loops, const CountOptions& options = {});

/// The torontonian of the 2n x 2n matrix O (thewalrus's tor, in its (a, a^dagger) order): the sum
/// over subsets Z of the modes of (-1)^(n-|Z|) / sqrt(det(I - O_Z)); with `gamma` (2n values,
/// n x 1 or 1 x n) the loop torontonian (thewalrus's ltor), each term times
/// exp(gamma_Z^T (I - O_Z)^-1 conj(gamma_Z) / 2). I - O must be Hermitian positive definite (a
/// Gaussian state's). The value is a double with an error bound that holds
/// (src/engines/torontonian/torontonian.cpp); RefusedError where no bound smaller than the
/// value can be given.
CountReport count_torontonian(const AnyMatrix& o, const AnyMatrix* gamma, const CountOptions& options = {});

/// A predicted duration for people: "42 s", "12 minutes", "5.1 hours", "3.2 days",
/// "590 years (1.86e+10 s)" (the budgets' refusals and the long-count note).
inline std::string duration_text(double seconds) {
  char buf[64];
  if (seconds < 120) std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  else if (seconds < 7200) std::snprintf(buf, sizeof buf, "%.3g minutes", seconds / 60);
  else if (seconds < 2 * 86400) std::snprintf(buf, sizeof buf, "%.3g hours", seconds / 3600);
  else if (seconds < 2 * 365.25 * 86400) std::snprintf(buf, sizeof buf, "%.3g days", seconds / 86400);
  else std::snprintf(buf, sizeof buf, "%.3g years (%.3g s)", seconds / (365.25 * 86400), seconds);
  return buf;
}

}  // namespace matchcount
