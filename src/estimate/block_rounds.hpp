// Private to the estimation stage: what estimate_permanent and estimate_hafnian share. A
// block's rounds of samples until the target or a cap, its summary (error bar, heavy-tail
// flags), the progress of the whole estimate, and the assembly of exact and sampled blocks
// into the report (block estimates multiply, and so do their relative variances plus one).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "estimate/runner.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::estimate {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The matrix with nonnegative double entries; refuses (RefusedError) what the estimators
/// cannot take: complex, negative or beyond-double entries.
SparseMatrix<double> nonnegative_doubles(const AnyMatrix& m);

/// When the lines far outnumber the entries (a 10^8 x 10^8 file with a few entries), the
/// first line without an entry, found in time and memory of the entries rather than of the
/// dimensions (the matching stages allocate per line): "row 2 has no nonzero entry (99999999
/// rows have none)", or "vertex 2 has no edge (...)" for a hafnian's `graph`. Empty otherwise,
/// and for matrices with fewer lines than twice their entries (the full path explains those).
std::string sparse_empty_line(const SparseMatrix<double>& a, bool graph);

/// The memory budget of an estimate (EstimateOptions::max_memory; 0 for default_max_memory()).
double memory_budget(const EstimateOptions& o);
/// CPU threads an estimate's samplers run (EstimateOptions::threads; 0 for OpenMP's count).
int sampling_threads(const EstimateOptions& o);
/// Refuses (BudgetError, exit code 3) sampling predicted to need `bytes` (every thread's paths
/// and scratch arrays) for `what` ("a block of 10000 vertices"), over the memory budget.
void check_sampling_memory(double bytes, const std::string& what, const EstimateOptions& o);

/// A block estimate from its sample sums.
void summarise(const SampleSums& s, BlockEstimate& out);

/// Seconds of exact counting an estimate spends rather than sample a block: a tenth of the
/// time cap of a --rel-error run, or a second without a cap (fixed sample counts,
/// --max-seconds 0). Blocks the planner predicts within what is left are counted exactly.
constexpr double kExactShareOfCap = 0.1, kExactUncapped = 1.0;
inline bool time_capped(const EstimateOptions& o) { return o.samples == 0 && o.max_seconds > 0; }
/// Planning an exact count takes about this long per entry of a block (docs/benchmarks.md,
/// "Planning at scale"): a block whose planning alone would outlast the seconds left for exact
/// counts is sampled without asking the planner.
constexpr double kPlanSecondsPerEntry = 1.5e-6;
inline bool worth_planning(std::size_t entries, double exact_seconds_left) {
  return static_cast<double>(entries) * kPlanSecondsPerEntry <= exact_seconds_left;
}
inline double exact_budget_seconds(const EstimateOptions& o) {
  return time_capped(o) ? kExactShareOfCap * o.max_seconds : kExactUncapped;
}

WideReal wide_of(const Integer& v);

/// The product of exactly counted blocks: exact while every factor is an integer, else a
/// double whose error bound grows as in the exact pipeline's products.
void multiply_exact(PermanentValue& acc, const PermanentValue& x);

/// One estimate's blocks, in order, exactly counted or sampled, and the report they make.
class EstimateRun {
 public:
  /// `to_sample`: how many blocks will be sampled (each gets an equal share of the relative
  /// variance of a --rel-error target, and of the time left).
  EstimateRun(const EstimateOptions& o, Clock::time_point start, int to_sample);
  ~EstimateRun();
  EstimateRun(const EstimateRun&) = delete;
  EstimateRun& operator=(const EstimateRun&) = delete;

  /// A block counted exactly (be.mean and be.rel_std_error set) with its value.
  void add_exact(BlockEstimate be, const PermanentValue& value, EstimateReport& rep);
  /// When `wanted`, counts a block exactly through count(be, value) -> bool (false: it could
  /// not), timed, and adds it as add_exact does; false leaves the block to be sampled.
  template <class Count>
  bool try_exact(BlockEstimate& be, bool wanted, Count count, EstimateReport& rep) {
    const auto t0 = Clock::now();
    PermanentValue value;
    if (!wanted || !count(be, value)) return false;
    be.seconds = since(t0);
    add_exact(be, value, rep);
    return true;
  }
  /// A block sampled by `sampler` until the target, its sample cap or its share of the time.
  void add_sampled(Sampler& sampler, BlockEstimate be, EstimateReport& rep);
  /// A factor of the whole count that is known exactly (reductions before the blocks).
  void multiply(const WideReal& factor) { estimate = estimate * factor; }
  /// Fills the report's estimate, error, interval and notes (`planned_exact` blocks were
  /// counted exactly by the planner's prediction of `exact_predicted` seconds).
  void finish(EstimateReport& rep, int planned_exact, double exact_predicted, std::size_t blocks);

  WideReal estimate = WideReal::from(1.0);
  /// The product of the exactly counted blocks.
  PermanentValue exact_value;
  int sampled = 0;

 private:
  struct Progress;
  const EstimateOptions& o_;
  Clock::time_point start_;
  int to_sample_;
  double target_;
  double rel_var_plus_one_ = 1.0;
  std::unique_ptr<Progress> progress_;
};

}  // namespace matchcount::estimate
