// The rounds of samples of a block, its summary and the assembly of the whole estimate
// (block_rounds.hpp), shared by estimate_permanent and estimate_hafnian.
#include "estimate/block_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <omp.h>

#include "matchcount/error.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::estimate {
namespace {

/// Skewness of the mean of n samples if a sample is 0 with probability 1 - p and otherwise
/// lognormal with log-variance s2: the k-th moment of one sample is p exp(k^2 s2 / 2) (taking
/// the log-mean as 0, which skewness does not see). The sample variance of skewed weights runs
/// low exactly when their mean does, so the normal interval undercovers until this is small.
double mean_skewness(double p, double s2, double n) {
  if (p <= 0 || n < 1) return INFINITY;
  if (s2 > 60) return INFINITY;  // exp(4.5 s2) would overflow; the mean is hopelessly skewed
  const double m1 = p * std::exp(0.5 * s2), m2 = p * std::exp(2 * s2), m3 = p * std::exp(4.5 * s2);
  const double var = m2 - m1 * m1;
  if (!(var > 0)) return 0.0;  // every sample equal
  return (m3 - 3 * m1 * m2 + 2 * m1 * m1 * m1) / (var * std::sqrt(var)) / std::sqrt(n);
}

/// A block estimate from its sample sums.
}  // namespace

void summarise(const SampleSums& s, BlockEstimate& out) {
  out.samples = s.count;
  out.zero_samples = s.zeros;
  const double n = static_cast<double>(s.count);
  WideReal sum{s.sum_m, s.sum_e}, sq{s.sq_m, s.sq_e};
  sum = sum * 1.0, sq = sq * 1.0;  // normalise
  out.mean = sum * (1.0 / n);
  if (sum.zero()) {
    out.rel_std_error = 0.0;
  } else {
    // Relative variance of one sample: n * sum(x^2) / sum(x)^2 - 1; of the mean: that / (n - 1).
    const double ratio = std::ldexp(sq.mant / (sum.mant * sum.mant), static_cast<int>(sq.exp - 2 * sum.exp));
    const double rel_var = std::max(0.0, n * ratio - 1.0);
    out.rel_std_error = s.count > 1 ? std::sqrt(rel_var / (n - 1.0)) : INFINITY;
    out.max_weight_share =
        std::ldexp(s.max_m / sum.mant, static_cast<int>(std::max<long long>(s.max_e - sum.exp, -2000)));
  }
  out.log_weight_variance = s.log_n > 1 ? s.log_m2 / static_cast<double>(s.log_n - 1) : 0.0;
  out.log_weight_mean = s.log_mean;
  const double nonzero = static_cast<double>(s.count - s.zeros);
  out.mean_skewness = mean_skewness(nonzero / std::max(n, 1.0), out.log_weight_variance, n);
  // Heavy tails: one sample carries a large share of the sum, ln(sample) varies so much that
  // about exp(variance) samples would be needed to see the weight that matters, or the mean
  // is still so skewed that the normal interval undercovers (docs/estimation.md, "When to
  // trust an estimate").
  out.heavy_tail = nonzero < 2 || out.max_weight_share > 0.1 + 5.0 / n ||
                   out.log_weight_variance > std::log(std::max(nonzero, 2.0)) ||
                   out.mean_skewness > kMaxMeanSkewness;
}

namespace {

struct Budget {
  Clock::time_point deadline;
  bool limited = false;
};

/// prod * (1 + r^2), the product of a block's relative variance plus one into the others':
/// one rounding (fma), so that progress reports and the final report agree to the bit
/// whatever the compiler contracts.
double times_rel_var(double prod, double r) { return std::fma(prod, r * r, prod); }

/// Under a time cap a long round is drawn in parts so that progress is reported at least this
/// often (the parts are whole batches; capped runs do not promise the same bits anyway).
constexpr double kProgressSeconds = 2.0;

/// The whole estimate as far as it has got, for EstimateOptions::progress: the blocks done
/// so far combine as in the final report, with the block being sampled.
struct WholeProgress {
  const EstimateOptions& o;
  Clock::time_point start;
  std::uint64_t sample_target = 0;  // fixed-size runs: samples over all sampled blocks
  double max_seconds = 0;           // the cap in force (0: none)
  std::uint64_t samples_done = 0;   // blocks finished
  double rel_var_plus_one = 1.0;    // blocks finished, sampled or exact
  std::uint64_t reported_samples = ~std::uint64_t{0};
  double reported_rel_error = -1.0;

  /// The blocks finished and the one being sampled.
  void report(std::uint64_t block_samples, double block_rel_error) {
    emit(samples_done + block_samples, std::sqrt(times_rel_var(rel_var_plus_one, block_rel_error) - 1.0));
  }
  void emit(std::uint64_t samples, double rel_error) {
    if (!o.progress) return;
    EstimateProgress p;
    p.samples = samples;
    p.sample_target = sample_target;
    p.rel_error = rel_error;
    p.rel_error_target = o.samples > 0 ? 0.0 : o.rel_error;
    p.seconds = since(start);
    p.max_seconds = max_seconds;
    reported_samples = p.samples, reported_rel_error = p.rel_error;
    o.progress(p);
  }
  /// A block is finished: its relative variance joins the product.
  void finish(const BlockEstimate& b) {
    samples_done += b.samples;
    rel_var_plus_one = times_rel_var(rel_var_plus_one, b.rel_std_error);
  }
};

/// The time of a round on a wide sampler (a GPU running `width` samples side by side):
/// waves(k) x latency + k x cost, a start-up per wave (latency-bound threads) plus a cost per
/// sample (memory bandwidth once many run), fitted to the last two rounds; before two rounds
/// of different sizes, linear in k from the first (as for the CPU).
struct RoundTimes {
  std::uint64_t width;
  double k1 = 0, t1 = 0, k2 = 0, t2 = 0;
  bool known() const { return k2 > 0; }
  void add(std::uint64_t k, double t) { k1 = k2, t1 = t2, k2 = static_cast<double>(k), t2 = t; }
  double waves(double k) const { return std::ceil(k / static_cast<double>(width)); }
  double cost() const { return k1 > 0 && k2 > k1 ? std::max(0.0, (t2 - t1) / (k2 - k1)) : t2 / k2; }
  double latency() const { return k1 > 0 && k2 > k1 ? std::max(0.0, (t2 - cost() * k2) / waves(k2)) : 0.0; }
  double seconds(std::uint64_t k) const {
    const double x = static_cast<double>(k);
    return waves(x) * latency() + cost() * x;
  }
  /// The most samples whose round fits in `left` seconds (0 when none).
  std::uint64_t within(double left) const {
    std::uint64_t lo = 0, hi = 1;
    while (seconds(hi) <= left && hi < (std::uint64_t{1} << 50)) lo = hi, hi *= 2;
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (seconds(mid) <= left ? lo : hi) = mid;
    }
    return lo;
  }
  /// k, or up to the end of its wave when that costs at most a quarter more.
  std::uint64_t fill(std::uint64_t k) const {
    if (!known() || k == 0) return k;
    const std::uint64_t full = (k + width - 1) / width * width;
    return seconds(full) <= 1.25 * seconds(k) ? full : k;
  }
};

/// Samples one block in rounds until the target, the sample cap or the deadline.
void sample_block(Sampler& sampler, const EstimateOptions& o, double target, const Budget& budget,
                  int blocks_left, bool graph, BlockEstimate& out, bool& target_met, WholeProgress& whole) {
  const auto t0 = Clock::now();
  const bool fixed = o.samples > 0;
  const std::uint64_t cap = fixed ? o.samples : std::max<std::uint64_t>(o.max_samples, 2);
  SampleSums sums;
  // The first round is small: a sample of a large block with global rescaling can take a
  // second, and the rate it measures sizes the rounds that the time cap allows.
  std::uint64_t next = std::min<std::uint64_t>(cap, fixed ? std::max<std::uint64_t>(cap / 64, 1024) : 256);
  // A wide sampler (a GPU) takes nearly as long for a few samples as for a wave of many;
  // its rounds are sized by RoundTimes, the others' by their mean time per sample.
  RoundTimes times{std::max<std::uint64_t>(sampler.width(), 1)};
  const bool wide = times.width > 1;
  for (;;) {
    Clock::time_point block_deadline = Clock::time_point::max();
    if (wide && !fixed) next = std::min(cap - sums.count, times.fill(next));
    if (budget.limited) {  // this block's share of the time left
      const auto now = Clock::now();
      const double left = std::chrono::duration<double>(budget.deadline - now).count() / blocks_left;
      block_deadline =
          now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(left, 0.0)));
      if (wide && times.known()) {
        if (times.seconds(next) > left) {
          next = std::min(next, times.within(left));
          if (next < 256) break;
        }
      } else {
        const double rate = sums.count > 0 ? since(t0) / static_cast<double>(sums.count) : 0.0;
        if (sums.count > 0 && rate * static_cast<double>(next) > left) {
          next = static_cast<std::uint64_t>(std::max(0.0, left / rate));
          if (next < 256) break;
        }
      }
    }
    const auto round_start = Clock::now();
    const std::uint64_t round_samples = next;
    if (budget.limited && !fixed) sampler.stop_at(block_deadline);
    // Under a time cap the CPU stops a round between batches at the block's deadline (a
    // sample of a large block can take seconds, and its first round has 256), and draws a
    // long round in parts that end every kProgressSeconds for a progress report.
    for (std::uint64_t rest = next; rest > 0;) {
      const auto part_end =
          budget.limited && o.progress
              ? std::min(block_deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                            std::chrono::duration<double>(kProgressSeconds)))
              : block_deadline;
      const SampleSums part = sampler.run_until(sums.count, rest, part_end);
      sums.merge(part);
      rest -= std::min(rest, part.count);
      summarise(sums, out);
      whole.report(sums.count, out.rel_std_error);
      if (part.count == 0 || Clock::now() >= block_deadline) break;
    }
    if (wide) times.add(round_samples, since(round_start));
    if (sums.count >= cap || sums.count == 0) break;  // 0: the cap came before a batch finished
    if (fixed) {
      next = std::min(cap - sums.count, 2 * sums.count);
      continue;
    }
    const double r = out.rel_std_error;
    if (r <= target && !out.heavy_tail) break;
    // Samples for the target if the relative variance holds: the next round at least
    // doubles the count and at most quintuples it.
    double want = std::isfinite(r) && r > 0 ? static_cast<double>(sums.count) * (r * r / (target * target)) * 1.2 : 0;
    want = std::clamp(want - static_cast<double>(sums.count), static_cast<double>(sums.count),
                      4.0 * static_cast<double>(sums.count));
    next = std::min(cap - sums.count, static_cast<std::uint64_t>(want));
  }
  if (sums.count == 0) {
    // Under a time cap a sample of a very large block may not finish: there is no estimate
    // (refused, as an exact count predicted past its cap is).
    if (budget.limited && !fixed)
      throw BudgetError("no sample of a block of " + std::to_string(out.n) + " " + (graph ? "vertices" : "rows") +
                         " finished within the time cap of " + duration_text(o.max_seconds) +
                         " (--max-seconds): one sample takes longer; a larger cap, or fewer --particles on a "
                         "general graph, gives one");
    sums.merge(sampler.run(0, 256));
  }
  summarise(sums, out);
  if (!fixed && (out.rel_std_error > target || out.heavy_tail)) target_met = false;
  out.seconds = since(t0);
}

}  // namespace

double memory_budget(const EstimateOptions& o) { return o.max_memory > 0 ? o.max_memory : default_max_memory(); }

int sampling_threads(const EstimateOptions& o) { return o.threads > 0 ? o.threads : omp_get_max_threads(); }

void check_sampling_memory(double bytes, const std::string& what, const EstimateOptions& o) {
  const double budget = memory_budget(o);
  if (bytes <= budget) return;
  throw BudgetError("sampling needs about " + memory_text(bytes) + " for " + what + " on " +
                    std::to_string(sampling_threads(o)) + " thread(s), over the memory budget of " + memory_text(budget) +
                    " (--max-memory; fewer --threads or --particles need less)");
}

std::string sparse_empty_line(const SparseMatrix<double>& a, bool graph) {
  const auto lines = static_cast<std::size_t>(std::max(a.rows, a.cols));
  if (lines < 2 * a.nnz() + 2) return {};
  // The smallest index missing from the sorted, distinct indices of one side.
  const auto first_missing = [](std::vector<int>& used, int count, int& missing) {
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    missing = count - static_cast<int>(used.size());
    int k = 0;
    while (k < static_cast<int>(used.size()) && used[static_cast<std::size_t>(k)] == k) ++k;
    return k;
  };
  std::vector<int> rows, cols;
  rows.reserve(a.nnz() * (graph ? 2 : 1)), cols.reserve(a.nnz());
  for (const auto& e : a.entries) {
    rows.push_back(e.row);
    (graph ? rows : cols).push_back(e.col);
  }
  int missing = 0;
  const int row = first_missing(rows, a.rows, missing);
  const auto text = [](const char* what, const char* plural, int line, int count, const char* has) {
    return std::string(what) + " " + std::to_string(line + 1) + " has " + has + " (" + std::to_string(count) + " " +
           (count == 1 ? std::string(what) + " has" : std::string(plural) + " have") + " none)";
  };
  if (graph) return missing > 0 ? text("vertex", "vertices", row, missing, "no edge") : std::string();
  if (missing > 0) return text("row", "rows", row, missing, "no nonzero entry");
  const int col = first_missing(cols, a.cols, missing);
  return missing > 0 ? text("column", "columns", col, missing, "no nonzero entry") : std::string();
}

SparseMatrix<double> nonnegative_doubles(const AnyMatrix& m) {
  SparseMatrix<double> a = std::visit(
      [](const auto& x) -> SparseMatrix<double> {
        using T = std::decay_t<decltype(x.entries[0].value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          throw RefusedError("estimation needs nonnegative real entries; this matrix is complex");
        } else {
          return convert<double>(x, [](const T& v) {
            if constexpr (std::is_same_v<T, double>) return v;
            else return v.get_d();
          });
        }
      },
      m);
  for (const auto& e : a.entries) {
    if (e.value < 0)
      throw RefusedError("estimation needs nonnegative entries; entry (" + std::to_string(e.row + 1) + ", " +
                         std::to_string(e.col + 1) + ") is negative (the estimators are unbiased only for "
                         "nonnegative matrices; the exact engines take any sign)");
    if (!std::isfinite(e.value) || e.value > 1e300)
      throw RefusedError("an entry is beyond double precision; estimation works in doubles");
  }
  return a;
}

WideReal wide_of(const Integer& v) {
  long e = 0;
  const double m = mpz_get_d_2exp(&e, v.get_mpz_t());
  return WideReal{m, e} * 1.0;
}

void multiply_exact(PermanentValue& acc, const PermanentValue& x) {
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  if (acc.value.index() == 0 && x.value.index() == 0) {
    acc.value = Integer(std::get<Integer>(acc.value) * std::get<Integer>(x.value));
    return;
  }
  const auto as_double = [](const PermanentValue& v) {
    return v.value.index() == 0 ? std::get<Integer>(v.value).get_d() : std::get<double>(v.value);
  };
  const double a = as_double(acc), b = as_double(x), v = a * b;
  acc.abs_error = std::fabs(a) * x.abs_error + std::fabs(b) * acc.abs_error + acc.abs_error * x.abs_error +
                  kEps * std::fabs(v) * (acc.value.index() == 0 ? 2 : 1);
  acc.error_estimated = acc.error_estimated || x.error_estimated;
  acc.value = v;
}

struct EstimateRun::Progress {
  Budget budget;
  WholeProgress whole;
};

EstimateRun::EstimateRun(const EstimateOptions& o, Clock::time_point start, int to_sample)
    : o_(o), start_(start), to_sample_(to_sample),
      // Each block gets an equal share of the relative variance: (1 + t^2)^k - 1 ~ k t^2.
      target_(o.rel_error / std::sqrt(std::max(to_sample, 1))),
      progress_(std::make_unique<Progress>(Progress{Budget{}, WholeProgress{o, start}})) {
  exact_value.value = Integer(1);
  Budget& budget = progress_->budget;
  budget.limited = time_capped(o);
  budget.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.max_seconds));
  progress_->whole.sample_target = o.samples * static_cast<std::uint64_t>(to_sample);
  progress_->whole.max_seconds = budget.limited ? o.max_seconds : 0.0;
}

EstimateRun::~EstimateRun() = default;

void EstimateRun::add_exact(BlockEstimate be, const PermanentValue& value, EstimateReport& rep) {
  multiply_exact(exact_value, value);
  rel_var_plus_one_ = times_rel_var(rel_var_plus_one_, be.rel_std_error);
  estimate = estimate * be.mean;
  progress_->whole.finish(be);
  rep.blocks.push_back(be);
}

void EstimateRun::add_sampled(Sampler& sampler, BlockEstimate be, EstimateReport& rep) {
  be.device = sampler.device();
  sample_block(sampler, o_, target_, progress_->budget, std::max(to_sample_ - sampled, 1), rep.hafnian, be, rep.target_met,
               progress_->whole);
  ++sampled;
  rep.samples += be.samples;
  rep.zero_samples += be.zero_samples;
  rep.heavy_tail = rep.heavy_tail || be.heavy_tail;
  rel_var_plus_one_ = times_rel_var(rel_var_plus_one_, be.rel_std_error);
  estimate = estimate * be.mean;
  progress_->whole.finish(be);
  rep.blocks.push_back(be);
}

void EstimateRun::finish(EstimateReport& rep, int planned_exact, double exact_predicted, std::size_t blocks) {
  rep.exact = sampled == 0;
  if (rep.exact) rep.exact_value = exact_value;
  rep.estimate = estimate;
  rep.rel_std_error = std::sqrt(rel_var_plus_one_ - 1.0);
  const double half = 1.96 * rep.rel_std_error;
  rep.ci_low = estimate * std::max(0.0, 1.0 - half);
  rep.ci_high = estimate * (1.0 + half);
  const bool capped = time_capped(o_);
  if (planned_exact > 0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%scounted exactly: predicted %.2g s, within the estimate's budget of %.2g s%s",
                  planned_exact > 1 || blocks > 1 ? (std::to_string(planned_exact) + " block(s) ").c_str() : "",
                  exact_predicted, exact_budget_seconds(o_), capped ? " (a tenth of --max-seconds)" : "");
    rep.notes.push_back(buf);
  } else if (rep.exact) {
    rep.notes.push_back("every block was small enough to count exactly");
  }
  if (estimate.zero() && !rep.exact)
    rep.notes.push_back("every sample of some block was 0, yet every block has a perfect matching: the count is "
                        "positive; more samples or another method are needed");
  // The whole estimate's final figures, where exact blocks after the last round changed them.
  WholeProgress& whole = progress_->whole;
  if (whole.reported_samples != rep.samples || whole.reported_rel_error != rep.rel_std_error)
    whole.emit(rep.samples, rep.rel_std_error);
  rep.seconds = since(start_);
}

}  // namespace matchcount::estimate
