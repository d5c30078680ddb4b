// estimate_permanent: matching check, Dulmage-Mendelsohn split, then per block an exact
// count (small blocks) or rounds of samples until the target error or a cap; block
// estimates multiply, and so do their relative variances (plus one).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "estimate/share_samples.hpp"
#include "matchcount/decompose.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/cluster.hpp"
#include "estimate/runner.hpp"

namespace matchcount {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The matrix with nonnegative double entries; refuses what the estimators cannot take.
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

/// A rectangular matrix made square for the estimators: transposed to m < n, then n - m rows
/// of ones added (perm of the result = (n - m)! times the rectangular permanent, and it stays
/// nonnegative). Returns n - m (0 for a square matrix).
int pad_to_square(SparseMatrix<double>& a) {
  if (a.square()) return 0;
  if (a.rows > a.cols) a = transpose(a);
  const int k = a.cols - a.rows;
  constexpr double kMaxEntries = 1e8;
  if (static_cast<double>(k) * a.cols + static_cast<double>(a.nnz()) > kMaxEntries)
    throw RefusedError("estimating a rectangular " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                       " permanent adds " + std::to_string(k) + " rows of ones: more than 1e8 entries");
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < a.cols; ++c) a.entries.push_back({a.rows + r, c, 1.0});
  a.rows = a.cols;
  a.normalize();
  return k;
}

/// 1 / k! without overflow (k! passes the double range at k = 171).
WideReal inverse_factorial(int k) {
  WideReal x = WideReal::from(1.0);
  for (int i = 2; i <= k; ++i) x = x * (1.0 / i);
  return x;
}

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
void summarise(const estimate::SampleSums& s, BlockEstimate& out) {
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

/// Samples one block in rounds until the target, the sample cap or the deadline.
void sample_block(estimate::Sampler& sampler, const EstimateOptions& o, double target, const Budget& budget,
                  int blocks_left, BlockEstimate& out, bool& target_met, WholeProgress& whole) {
  const auto t0 = Clock::now();
  const bool fixed = o.samples > 0;
  const std::uint64_t cap = fixed ? o.samples : std::max<std::uint64_t>(o.max_samples, 2);
  estimate::SampleSums sums;
  // The first round is small: a sample of a large block with global rescaling can take a
  // second, and the rate it measures sizes the rounds that the time cap allows.
  std::uint64_t next = std::min<std::uint64_t>(cap, fixed ? std::max<std::uint64_t>(cap / 64, 1024) : 256);
  for (;;) {
    Clock::time_point block_deadline = Clock::time_point::max();
    if (budget.limited) {  // this block's share of the time left
      const auto now = Clock::now();
      const double left = std::chrono::duration<double>(budget.deadline - now).count() / blocks_left;
      block_deadline =
          now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(left, 0.0)));
      const double rate = sums.count > 0 ? since(t0) / static_cast<double>(sums.count) : 0.0;
      if (sums.count > 0 && rate * static_cast<double>(next) > left) {
        next = static_cast<std::uint64_t>(std::max(0.0, left / rate));
        if (next < 256) break;
      }
    }
    // Under a time cap the CPU stops a round between batches at the block's deadline (a
    // sample of a large block can take seconds, and its first round has 256), and draws a
    // long round in parts that end every kProgressSeconds for a progress report.
    for (std::uint64_t rest = next; rest > 0;) {
      const auto part_end =
          budget.limited && o.progress
              ? std::min(block_deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                            std::chrono::duration<double>(kProgressSeconds)))
              : block_deadline;
      const estimate::SampleSums part = sampler.run_until(sums.count, rest, part_end);
      sums.merge(part);
      rest -= std::min(rest, part.count);
      summarise(sums, out);
      whole.report(sums.count, out.rel_std_error);
      if (part.count == 0 || Clock::now() >= block_deadline) break;
    }
    if (sums.count >= cap) break;
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
  if (sums.count == 0) sums.merge(sampler.run(0, 256));
  summarise(sums, out);
  if (!fixed && (out.rel_std_error > target || out.heavy_tail)) target_met = false;
  out.seconds = since(t0);
}

/// Seconds of exact counting an estimate spends rather than sample a block: a tenth of the
/// time cap of a --rel-error run, or a second without a cap (fixed sample counts,
/// --max-seconds 0). Blocks the planner predicts within what is left are counted exactly.
constexpr double kExactShareOfCap = 0.1, kExactUncapped = 1.0;

WideReal wide_of(const Integer& v) {
  long e = 0;
  const double m = mpz_get_d_2exp(&e, v.get_mpz_t());
  return WideReal{m, e} * 1.0;
}

/// The block as integers when every entry is one (graphs, integer weights): counted exactly
/// with no range limit, as the pipeline counts them.
std::optional<SparseMatrix<Integer>> integral_block(const SparseMatrix<double>& b) {
  for (const auto& e : b.entries)
    if (e.value != std::floor(e.value) || e.value > 0x1p53) return std::nullopt;
  return convert<Integer>(b, [](double v) { return Integer(v); });
}

/// The planner's predicted seconds for counting the block exactly on the CPU (one engine run
/// on the whole block; the pipeline's reductions only make it cheaper), infinite when no
/// engine takes it.
double predicted_exact_seconds(const SparseMatrix<double>& b, int threads) {
  if (const auto z = integral_block(b)) return plan_engine(*z, DevicePolicy::Cpu, threads).predicted_seconds;
  return plan_engine(b, DevicePolicy::Cpu, threads).predicted_seconds;
}

/// Counts one block exactly (integers) or with an exact engine in doubles (value with its
/// rounding error as rel_std_error). False when it cannot (an engine refused, or the value is
/// beyond double range): the block is sampled instead.
bool count_block(const SparseMatrix<double>& b, int threads, BlockEstimate& out, PermanentValue& value) {
  CountOptions co;
  co.threads = threads;
  co.device = DevicePolicy::Cpu;
  try {
    if (const auto z = integral_block(b)) {
      value = count_permanent(AnyMatrix(*z), co).value;
      out.mean = wide_of(std::get<Integer>(value.value));
    } else {
      value = count_permanent(AnyMatrix(b), co).value;
      const double v = std::get<double>(value.value);
      if (!std::isfinite(v)) return false;
      out.mean = WideReal::from(v);
      out.rel_std_error = v > 0 ? value.abs_error / v : 0.0;
    }
  } catch (const RefusedError&) {
    return false;
  }
  out.exact = true;
  return true;
}

/// The product of exactly counted blocks: exact while every factor is an integer, else a
/// double whose error bound grows as in the exact pipeline's products.
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
  acc.value = v;
}

}  // namespace

EstimateReport estimate_permanent(const AnyMatrix& input, const EstimateOptions& o) {
  const auto start = Clock::now();
  if (o.samples == 0 && !(o.rel_error > 0.0)) throw UsageError("estimation needs a sample count or a relative error target > 0");
  if (o.scale_interval < 0 || o.scale_iterations < 0) throw UsageError("the scaling interval and sweeps must be >= 0");
  EstimateReport rep;
  rep.method = o.method;
  rep.rows = rows_of(input), rep.cols = cols_of(input), rep.nnz = nnz_of(input);
  SparseMatrix<double> a = nonnegative_doubles(input);
  auto exact_zero = [&](const std::string& why) {
    rep.exact = true;
    rep.exact_value.emplace();
    if (kind_of(input) == NumberKind::Real) rep.exact_value->value = 0.0;
    rep.notes.push_back(why);
    rep.seconds = since(start);
    return rep;
  };
  if (!a.square() && o.perfect_matchings)
    return exact_zero("a graph whose sides differ in size has no perfect matching: the count is 0");
  const int padding = pad_to_square(a);
  if (padding > 0)
    rep.notes.push_back("a rectangular matrix: estimated as the permanent of the square matrix with " +
                        std::to_string(padding) + " rows of ones added, divided by " + std::to_string(padding) +
                        "! (the sum over injective maps)");
  const Pattern pattern = Pattern::of(a);
  const Matching matching = hopcroft_karp(pattern);
  rep.matching_size = matching.size;
  if (!matching.perfect())
    return exact_zero("no perfect matching (a maximum matching has " + std::to_string(matching.size) + " of " +
                      std::to_string(a.rows) + " rows): the count is 0");
  const std::vector<SparseMatrix<double>> blocks = split_blocks(a, fine_dulmage_mendelsohn(pattern, matching));

  // Blocks counted exactly: the small ones, and (unless every block is to be sampled) those the
  // planner predicts to count within the estimate's share of time for exact counts.
  std::vector<char> count_exactly(blocks.size(), 0);
  const bool capped = o.samples == 0 && o.max_seconds > 0;
  double exact_budget = capped ? kExactShareOfCap * o.max_seconds : kExactUncapped, exact_predicted = 0;
  int planned_exact = 0, to_sample = 0;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    if (blocks[bi].rows <= std::max(o.exact_up_to, 1)) {
      count_exactly[bi] = 1;
    } else if (o.exact_up_to > 0) {
      const double p = predicted_exact_seconds(blocks[bi], o.threads);
      if (p <= exact_budget) count_exactly[bi] = 1, exact_budget -= p, exact_predicted += p, ++planned_exact;
    }
    to_sample += !count_exactly[bi];
  }
  const bool want_gpu = o.device != DevicePolicy::Cpu && gpu_available();
  if (o.device == DevicePolicy::Gpu && !gpu_available())
    throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible" : "--device gpu: matchcount was built without CUDA");
  // Each block gets an equal share of the relative variance: (1 + t^2)^k - 1 ~ k t^2.
  const double target = o.rel_error / std::sqrt(std::max(to_sample, 1));
  Budget budget;
  budget.limited = o.samples == 0 && o.max_seconds > 0;
  budget.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.max_seconds));

  WholeProgress whole{o, start};
  whole.sample_target = o.samples * static_cast<std::uint64_t>(to_sample);
  whole.max_seconds = budget.limited ? o.max_seconds : 0.0;
  WideReal estimate = WideReal::from(1.0);
  double rel_var_plus_one = 1.0;
  int sampled = 0;
  PermanentValue exact_value;  // the product of the exactly counted blocks
  exact_value.value = Integer(1);
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const auto& b = blocks[bi];
    BlockEstimate be;
    be.n = b.rows, be.nnz = b.nnz();
    const auto t0 = Clock::now();
    PermanentValue block_value;
    if (count_exactly[bi] && count_block(b, o.threads, be, block_value)) {
      be.seconds = since(t0);
      multiply_exact(exact_value, block_value);
      rel_var_plus_one = times_rel_var(rel_var_plus_one, be.rel_std_error);
    } else {
      const estimate::BlockData data = estimate::BlockData::from(b);
      estimate::SamplerConfig cfg;
      cfg.method = static_cast<estimate::Method>(static_cast<int>(o.method));
      cfg.params = {o.scale_interval > 0 ? o.scale_interval : std::max(1, b.rows / 256), o.scale_iterations};
      cfg.seed = o.seed;
      cfg.block_id = static_cast<std::uint32_t>(bi);
      cfg.threads = o.threads;
      std::unique_ptr<estimate::Sampler> sampler;
      if (want_gpu) {
        try {
          sampler = estimate::make_gpu_sampler(data, cfg);
        } catch (const GpuError& e) {
          if (o.device == DevicePolicy::Gpu) throw;
          rep.notes.push_back(std::string("GPU unavailable, sampling on the CPU: ") + e.what());
        }
      }
      if (!sampler) sampler = estimate::make_cpu_sampler(data, cfg);
      if (cluster::distributed()) sampler = cluster::share_samples(std::move(sampler), b, cfg, want_gpu);
      be.device = sampler->device();
      sample_block(*sampler, o, target, budget, std::max(to_sample - sampled, 1), be, rep.target_met, whole);
      ++sampled;
      rep.samples += be.samples;
      rep.zero_samples += be.zero_samples;
      rep.heavy_tail = rep.heavy_tail || be.heavy_tail;
      rel_var_plus_one = times_rel_var(rel_var_plus_one, be.rel_std_error);
    }
    estimate = estimate * be.mean;
    whole.finish(be);
    rep.blocks.push_back(be);
  }
  if (padding > 0) {  // the padded rows' k! orders of the extra columns
    const WideReal inverse = inverse_factorial(padding);
    estimate = estimate * inverse;
    Integer factorial;
    mpz_fac_ui(factorial.get_mpz_t(), static_cast<unsigned long>(padding));
    if (exact_value.value.index() == 0) {
      exact_value.value = Integer(std::get<Integer>(exact_value.value) / factorial);
    } else {
      const double f = factorial.get_d();
      exact_value.value = std::get<double>(exact_value.value) / f;
      exact_value.abs_error = exact_value.abs_error / f + std::numeric_limits<double>::epsilon() *
                                                             std::fabs(std::get<double>(exact_value.value));
    }
  }
  rep.exact = sampled == 0;
  if (rep.exact) rep.exact_value = exact_value;
  rep.estimate = estimate;
  rep.rel_std_error = std::sqrt(rel_var_plus_one - 1.0);
  const double half = 1.96 * rep.rel_std_error;
  rep.ci_low = estimate * std::max(0.0, 1.0 - half);
  rep.ci_high = estimate * (1.0 + half);
  if (planned_exact > 0) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%scounted exactly: predicted %.2g s, within the estimate's budget of %.2g s%s",
                  planned_exact > 1 || blocks.size() > 1 ? (std::to_string(planned_exact) + " block(s) ").c_str() : "",
                  exact_predicted, capped ? kExactShareOfCap * o.max_seconds : kExactUncapped,
                  capped ? " (a tenth of --max-seconds)" : "");
    rep.notes.push_back(buf);
  } else if (rep.exact) {
    rep.notes.push_back("every block was small enough to count exactly");
  }
  if (estimate.zero() && !rep.exact)
    rep.notes.push_back("every sample of some block was 0, yet every block has a perfect matching: the count is "
                        "positive; more samples or another method are needed");
  // The whole estimate's final figures, where exact blocks after the last round changed them.
  if (whole.reported_samples != rep.samples || whole.reported_rel_error != rep.rel_std_error)
    whole.emit(rep.samples, rep.rel_std_error);
  rep.seconds = since(start);
  return rep;
}

}  // namespace matchcount

namespace matchcount {

double estimator_expectation(const SparseMatrix<double>& block, const EstimateOptions& o) {
  const estimate::BlockData data = estimate::BlockData::from(block);
  estimate::SamplerConfig cfg;
  cfg.method = static_cast<estimate::Method>(static_cast<int>(o.method));
  cfg.params = {std::max(o.scale_interval, 1), o.scale_iterations};
  return estimate::path_expectation(data, cfg);
}

}  // namespace matchcount
