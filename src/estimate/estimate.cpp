// estimate_permanent: matching check, Dulmage-Mendelsohn split, then per block an exact
// count (small blocks) or rounds of samples until the target error or a cap; block
// estimates multiply, and so do their relative variances (plus one).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "matchcount/decompose.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/pipeline.hpp"
#include "../cluster/share_samples.hpp"
#include "matchcount/cluster.hpp"
#include "runner.hpp"

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
  const double nonzero = static_cast<double>(s.count - s.zeros);
  // Heavy tails: one sample carries a large share of the sum, or ln(sample) varies so much
  // that about exp(variance) samples would be needed to see the weight that matters.
  out.heavy_tail = nonzero < 2 || out.max_weight_share > 0.1 + 5.0 / n ||
                   out.log_weight_variance > std::log(std::max(nonzero, 2.0));
}

struct Budget {
  Clock::time_point deadline;
  bool limited = false;
};

/// Samples one block in rounds until the target, the sample cap or the deadline.
void sample_block(estimate::Sampler& sampler, const EstimateOptions& o, double target, const Budget& budget,
                  int blocks_left, BlockEstimate& out, bool& target_met) {
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
    // sample of a large block can take seconds, and its first round has 256).
    sums.merge(sampler.run_until(sums.count, next, block_deadline));
    summarise(sums, out);
    if (o.progress) o.progress(std::min(1.0, static_cast<double>(sums.count) / static_cast<double>(cap)));
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

}  // namespace

EstimateReport estimate_permanent(const AnyMatrix& input, const EstimateOptions& o) {
  const auto start = Clock::now();
  if (o.samples == 0 && !(o.rel_error > 0.0)) throw UsageError("estimation needs a sample count or a relative error target > 0");
  if (o.scale_interval < 0 || o.scale_iterations < 0) throw UsageError("the scaling interval and sweeps must be >= 0");
  EstimateReport rep;
  rep.method = o.method;
  rep.rows = rows_of(input), rep.cols = cols_of(input), rep.nnz = nnz_of(input);
  const SparseMatrix<double> a = nonnegative_doubles(input);
  auto exact_zero = [&](const std::string& why) {
    rep.exact = true;
    rep.notes.push_back(why);
    rep.seconds = since(start);
    return rep;
  };
  if (!a.square()) return exact_zero("a non-square matrix has no perfect matching: the count is 0");
  const Pattern pattern = Pattern::of(a);
  const Matching matching = hopcroft_karp(pattern);
  rep.matching_size = matching.size;
  if (!matching.perfect())
    return exact_zero("no perfect matching (a maximum matching has " + std::to_string(matching.size) + " of " +
                      std::to_string(a.rows) + " rows): the count is 0");
  const std::vector<SparseMatrix<double>> blocks = split_blocks(a, fine_dulmage_mendelsohn(pattern, matching));

  int to_sample = 0;
  for (const auto& b : blocks) to_sample += b.rows > std::max(o.exact_up_to, 1);
  const bool want_gpu = o.device != DevicePolicy::Cpu && gpu_available();
  if (o.device == DevicePolicy::Gpu && !gpu_available())
    throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible" : "--device gpu: matchcount was built without CUDA");
  // Each block gets an equal share of the relative variance: (1 + t^2)^k - 1 ~ k t^2.
  const double target = o.rel_error / std::sqrt(std::max(to_sample, 1));
  Budget budget;
  budget.limited = o.samples == 0 && o.max_seconds > 0;
  budget.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.max_seconds));

  WideReal estimate = WideReal::from(1.0);
  double rel_var_plus_one = 1.0;
  int sampled = 0;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const auto& b = blocks[bi];
    BlockEstimate be;
    be.n = b.rows, be.nnz = b.nnz();
    const auto t0 = Clock::now();
    if (b.rows <= std::max(o.exact_up_to, 1)) {
      CountOptions co;
      co.threads = o.threads;
      co.device = DevicePolicy::Cpu;
      const CountReport cr = count_permanent(AnyMatrix(b), co);
      const double v = std::get<double>(cr.value.value);
      be.exact = true;
      be.mean = WideReal::from(v);
      be.seconds = since(t0);
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
      sample_block(*sampler, o, target, budget, to_sample - sampled, be, rep.target_met);
      ++sampled;
      rep.samples += be.samples;
      rep.zero_samples += be.zero_samples;
      rep.heavy_tail = rep.heavy_tail || be.heavy_tail;
      rel_var_plus_one *= 1.0 + be.rel_std_error * be.rel_std_error;
    }
    estimate = estimate * be.mean;
    rep.blocks.push_back(be);
  }
  rep.exact = sampled == 0;
  rep.estimate = estimate;
  rep.rel_std_error = std::sqrt(rel_var_plus_one - 1.0);
  const double half = 1.96 * rep.rel_std_error;
  rep.ci_low = estimate * std::max(0.0, 1.0 - half);
  rep.ci_high = estimate * (1.0 + half);
  if (rep.exact) rep.notes.push_back("every block was small enough to count exactly");
  if (estimate.zero() && !rep.exact)
    rep.notes.push_back("every sample of some block was 0, yet every block has a perfect matching: the count is "
                        "positive; more samples or another method are needed");
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
