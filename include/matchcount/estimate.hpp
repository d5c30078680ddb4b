// Estimation with error bars: unbiased random estimators of the permanent of a nonnegative
// matrix (Rasmussen, Rasmussen+, Scaling, Scaling+), for blocks far beyond exact reach.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

/// Rasmussen: rows in order, a column drawn with probability proportional to its entry.
/// The "+" variants take the row with the fewest available entries next, propagate forced
/// choices (a column left with one row) and discard the entries that lie in no perfect
/// matching of the rest, so their samples never die. Scaling variants draw by the entries of the remaining
/// matrix scaled towards doubly stochastic (Sinkhorn), and weight by 1/probability.
/// For hafnians (estimate_hafnian) the same four cover vertices instead of rows: a vertex
/// (the lowest, or for "+" the one of least degree) takes a partner among its edges (for
/// "+" those in some perfect matching of the rest). The determinant estimators estimate
/// hafnians only: |det W| for a random skew-symmetric W with w_uv = x_uv sqrt(a_uv), x = +-1
/// (Godsil-Gutman), x in {1, i, -1, -i} (its complex variant) or x normal (Barvinok).
enum class EstimateMethod { Rasmussen, RasmussenPlus, Scaling, ScalingPlus, GodsilGutman, GodsilGutmanComplex, Barvinok };

std::string to_string(EstimateMethod m);
/// Accepts "rasmussen", "rasmussen+", "scaling", "scaling+" (and "-plus" spellings),
/// "godsil-gutman", "godsil-gutman-complex", "barvinok".
bool parse_estimate_method(const std::string& text, EstimateMethod& out);
std::vector<std::string> estimate_method_names();

/// A nonnegative number mant * 2^exp: dimer counts of large graphs overflow a double
/// (the 100 x 100 grid has 1254 digits). mant is 0 or in [0.5, 1).
struct WideReal {
  double mant = 0.0;
  std::int64_t exp = 0;

  static WideReal from(double x);
  bool zero() const { return mant == 0.0; }
  double log10() const;  // -inf for 0
  /// The value as a double (inf beyond range).
  double to_double() const;
  /// Scientific notation with `digits` significant digits, e.g. "1.23e+1254".
  std::string to_string(int digits) const;
  WideReal operator*(const WideReal& o) const;
  WideReal operator*(double x) const;
};

/// Where a running estimate stands, for progress displays.
struct EstimateProgress {
  /// Samples drawn so far, over all blocks, and the cap of a fixed-size run (0: none).
  std::uint64_t samples = 0;
  std::uint64_t sample_target = 0;
  /// Relative standard error of the estimate so far (inf before two samples), and the
  /// target of a --rel-error run (0 for a fixed sample count).
  double rel_error = 0.0;
  double rel_error_target = 0.0;
  /// Seconds since the estimate started, and the time cap (0: none).
  double seconds = 0.0;
  double max_seconds = 0.0;
};

struct EstimateOptions {
  /// Graph inputs count perfect matchings: a non-square matrix gives 0. Otherwise a rectangular
  /// m x n matrix (m < n) is estimated as the permanent of the square matrix with n - m rows of
  /// ones added, divided by (n - m)!, which is the sum over injective maps (CountOptions).
  bool perfect_matchings = false;
  EstimateMethod method = EstimateMethod::ScalingPlus;
  /// Samples per estimated block (0: sample until rel_error is met or a cap is reached).
  std::uint64_t samples = 0;
  /// Target relative standard error of the whole estimate (used when samples is 0).
  double rel_error = 0.01;
  /// Caps for rel_error runs: samples per block and seconds in all.
  std::uint64_t max_samples = 1'000'000'000;
  double max_seconds = 60.0;
  /// Runs with the same seed, options and device give the same bits.
  std::uint64_t seed = 1;
  int threads = 0;
  DevicePolicy device = DevicePolicy::Auto;
  /// Scaling methods: rescale the remaining matrix every `scale_interval` rows with
  /// `scale_iterations` Sinkhorn sweeps (each sweep: rows, then columns). A sweep costs the
  /// whole remaining matrix, so 0 (auto) rescales every max(1, n / 256) rows: every row up to
  /// n = 511, and about 256 times a sample beyond. (Sweeps are not restricted to the drawn
  /// row's neighbourhood: on grids that loses the parity constraints that make the method
  /// work, and the estimate degrades to Rasmussen+'s.)
  int scale_interval = 0;
  int scale_iterations = 5;
  /// General graphs, scaling methods: after each step sweep the remaining vertices within
  /// this many edges of the pair just covered (besides the full sweeps every scale_interval
  /// steps; with a radius, 0 (auto) means none after the first); 0: full sweeps only; -1
  /// (auto): 2 on lattice-like graphs, where it is faster for the same variance, else 0
  /// (docs/estimation.md).
  int scale_radius = -1;
  /// General graphs, sequential methods: > 0 makes each sample a sequential Monte Carlo
  /// estimate over this many paths, resampled when their weights grow uneven (docs/
  /// estimation.md, "General graphs"); 0: independent paths; -1 (auto): 50 for the scaling
  /// methods on lattice-like graphs of at least 512 vertices, else 0.
  int particles = -1;
  /// General graphs, scaling methods: 1 weights the draws by belief-propagation messages (the
  /// Bethe approximation) instead of the Sinkhorn scaling, with one sweep of them after every
  /// step (scale_iterations is for Sinkhorn); 0: Sinkhorn; -1 (auto): Bethe on sparse graphs
  /// (at most 8 neighbours a vertex on average) of at least 512 vertices sampled on the CPU
  /// (docs/estimation.md, "General graphs").
  int bethe = -1;
  /// Blocks up to this size after the Dulmage-Mendelsohn split are counted exactly (an
  /// exact factor has no error); 0 estimates every block. Hafnians: blocks of up to twice as
  /// many vertices (perfect matchings of up to this many edges).
  int exact_up_to = 20;
  /// The memory budget of the blocks counted exactly, as CountOptions::max_memory (0: the
  /// default, 3/4 of the memory available; infinity: none): a block whose exact count would
  /// not fit is sampled instead.
  double max_memory = 0;
  /// Called after every round of samples (see EstimateProgress); may be empty.
  std::function<void(const EstimateProgress&)> progress;
};

/// Largest skewness of a block's mean for which the normal 95% interval covers the exact
/// count at least 90% of the time in the coverage runs (docs/estimation.md, "When to trust an
/// estimate").
constexpr double kMaxMeanSkewness = 0.5;

/// One estimated (or exactly counted) block.
struct BlockEstimate {
  int n = 0;
  std::size_t nnz = 0;
  bool exact = false;   // counted by an exact engine: rel_std_error 0
  WideReal mean;        // the block's estimate
  double rel_std_error = 0.0;
  std::uint64_t samples = 0;
  std::uint64_t zero_samples = 0;
  /// Largest single sample over the sum of all samples.
  double max_weight_share = 0.0;
  /// Variance of ln(sample) over the nonzero samples: about exp(this) samples are needed
  /// before the mean settles (heavy tails when it exceeds ln(samples)).
  double log_weight_variance = 0.0;
  /// Mean of ln(sample) over the nonzero samples.
  double log_weight_mean = 0.0;
  /// Skewness of the block's estimate (the mean of its samples), from a lognormal model of the
  /// nonzero samples: beyond kMaxMeanSkewness the 95% interval covers less often than it says,
  /// and heavy_tail is set.
  double mean_skewness = 0.0;
  bool heavy_tail = false;
  std::string device = "cpu";
  double seconds = 0.0;
};

struct EstimateReport {
  WideReal estimate;
  double rel_std_error = 0.0;
  /// 95% normal confidence interval (lower end clamped at 0).
  WideReal ci_low, ci_high;
  /// True when the count is known exactly (no perfect matching, or every block exact).
  bool exact = false;
  /// With `exact`: the count as the exact pipeline gives it (an exact integer when every block
  /// has integer entries, else a double with its rounding error).
  std::optional<PermanentValue> exact_value;
  std::uint64_t samples = 0;       // over all estimated blocks
  std::uint64_t zero_samples = 0;
  bool heavy_tail = false;
  /// Whether the rel_error target was met (true for fixed sample counts).
  bool target_met = true;
  EstimateMethod method = EstimateMethod::ScalingPlus;
  /// The hafnian of a general graph was estimated (estimate_hafnian), not a permanent.
  bool hafnian = false;
  int rows = 0, cols = 0;
  std::size_t nnz = 0;
  int matching_size = 0;
  std::vector<BlockEstimate> blocks;
  double seconds = 0.0;
  std::vector<std::string> notes;
  /// Digits of the estimate the standard error justifies (for printing).
  int significant_digits() const;
};

/// Estimates the permanent of a nonnegative matrix. Throws RefusedError for negative or
/// complex entries and UsageError for inconsistent options.
EstimateReport estimate_permanent(const AnyMatrix& m, const EstimateOptions& options = {});

/// Estimates the hafnian of a nonnegative symmetric matrix (both triangles stored; the
/// diagonal is ignored, with a note): the weighted number of perfect matchings of its graph.
/// Edmonds' matching (none: 0, exactly), edges in no perfect matching removed, components and
/// the degree-1 and degree-2 reductions of count_hafnian, then per block an exact count or
/// rounds of samples as estimate_permanent. Bipartite blocks are sampled as graphs too.
/// Throws RefusedError for negative or complex entries and for loops (the loop hafnian is not
/// estimated), std::invalid_argument for a matrix that is not square and symmetric, and
/// UsageError for inconsistent options.
EstimateReport estimate_hafnian(const AnyMatrix& m, bool loops, const EstimateOptions& options = {});

/// Expected value of one sample of `method` on a small nonnegative block, computed by
/// enumerating every sample path with its probability (for tests: it equals the permanent).
double estimator_expectation(const SparseMatrix<double>& block, const EstimateOptions& options);

}  // namespace matchcount
