// estimate_permanent: matching check, Dulmage-Mendelsohn split, then per block an exact
// count (small blocks) or rounds of samples until the target error or a cap; block
// estimates multiply, and so do their relative variances (plus one).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "estimate/block_rounds.hpp"
#include "estimate/share_samples.hpp"
#include "matchcount/decompose.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/cluster.hpp"
#include "estimate/runner.hpp"

namespace matchcount {
namespace {

using estimate::Clock;
using estimate::since;
using estimate::wide_of;

/// A rectangular matrix made square for the estimators: transposed to m < n, the longer
/// side's empty lines dropped (no injective map uses them), then n - m rows of ones added (perm
/// of the result = (n - m)! times the rectangular permanent, and it stays nonnegative). Returns
/// n - m (0 for a square matrix), or -1 when a line of the shorter side is empty (the
/// permanent is 0: nothing is padded). The rows of ones must fit the memory budget (bytes).
int pad_to_square(SparseMatrix<double>& a, double budget) {
  if (a.square()) return 0;
  if (a.rows > a.cols) a = transpose(a);
  std::vector<char> row_used(static_cast<std::size_t>(a.rows), 0), col_used(static_cast<std::size_t>(a.cols), 0);
  for (const auto& e : a.entries) row_used[static_cast<std::size_t>(e.row)] = col_used[static_cast<std::size_t>(e.col)] = 1;
  if (std::find(row_used.begin(), row_used.end(), 0) != row_used.end()) return -1;
  std::vector<int> col_index(static_cast<std::size_t>(a.cols), -1);
  int cols = 0;
  for (int c = 0; c < a.cols; ++c)
    if (col_used[static_cast<std::size_t>(c)]) col_index[static_cast<std::size_t>(c)] = cols++;
  for (auto& e : a.entries) e.col = col_index[static_cast<std::size_t>(e.col)];
  a.cols = cols;
  if (a.square()) return 0;
  const int k = a.cols - a.rows;
  // An entry and its share of normalize()'s copy: the padded matrix must fit the budget.
  constexpr double kBytesPerEntry = 2.0 * sizeof(Entry<double>);
  constexpr double kMaxEntries = 1e8;
  const double entries = static_cast<double>(k) * a.cols + static_cast<double>(a.nnz());
  if (entries > kMaxEntries || entries * kBytesPerEntry > budget)
    throw BudgetError("estimating a rectangular " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                      " permanent adds " + std::to_string(k) + " rows of ones: " + memory_text(entries * kBytesPerEntry) +
                      ", more than " + (entries > kMaxEntries ? std::string("1e8 entries") : "the memory budget of " + memory_text(budget)));
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


/// The block as integers when every entry is one (graphs, integer weights): counted exactly
/// with no range limit, as the pipeline counts them.
std::optional<SparseMatrix<Integer>> integral_block(const SparseMatrix<double>& b) {
  for (const auto& e : b.entries)
    if (e.value != std::floor(e.value) || e.value > 0x1p53) return std::nullopt;
  return convert<Integer>(b, [](double v) { return Integer(v); });
}

/// The planner's predicted seconds for counting the block exactly on the CPU (one engine run
/// on the whole block; the pipeline's reductions only make it cheaper), infinite when no
/// engine takes it within the memory budget `max_bytes`.
double predicted_exact_seconds(const SparseMatrix<double>& b, int threads, double max_bytes) {
  if (const auto z = integral_block(b)) return plan_engine(*z, DevicePolicy::Cpu, threads, max_bytes).predicted_seconds;
  return plan_engine(b, DevicePolicy::Cpu, threads, max_bytes).predicted_seconds;
}

/// Counts one block exactly (integers) or with an exact engine in doubles (value with its
/// rounding error as rel_std_error). False when it cannot (an engine or the memory budget
/// refused, or the value is beyond double range): the block is sampled instead.
bool count_block(const SparseMatrix<double>& b, int threads, double max_memory, BlockEstimate& out,
                 PermanentValue& value) {
  CountOptions co;
  co.threads = threads;
  co.max_memory = max_memory;
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

}  // namespace

EstimateReport estimate_permanent(const AnyMatrix& input, const EstimateOptions& o) {
  const auto start = Clock::now();
  if (o.samples == 0 && !(o.rel_error > 0.0)) throw UsageError("estimation needs a sample count or a relative error target > 0");
  if (o.scale_interval < 0 || o.scale_iterations < 0) throw UsageError("the scaling interval and sweeps must be >= 0");
  if (o.particles > 0)
    throw UsageError("--particles applies to general graphs (hafnians); a permanent's samples are independent paths");
  if (o.bethe > 0)
    throw UsageError("--bethe applies to general graphs (hafnians); a permanent's draws follow the Sinkhorn scaling");
  if (static_cast<int>(o.method) > static_cast<int>(EstimateMethod::ScalingPlus))
    throw RefusedError("the " + to_string(o.method) + " estimator estimates hafnians (general graphs, --hafnian); "
                       "permanents take rasmussen, rasmussen+, scaling or scaling+");
  EstimateReport rep;
  rep.method = o.method;
  rep.rows = rows_of(input), rep.cols = cols_of(input), rep.nnz = nnz_of(input);
  SparseMatrix<double> a = estimate::nonnegative_doubles(input);
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
  const int padding = pad_to_square(a, estimate::memory_budget(o));
  if (padding < 0) return exact_zero("a line of the shorter side has no entry: the permanent is 0");
  if (padding > 0)
    rep.notes.push_back("a rectangular matrix: estimated as the permanent of the square matrix with " +
                        std::to_string(padding) + " rows of ones added, divided by " + std::to_string(padding) +
                        "! (the sum over injective maps)");
  if (const std::string empty = estimate::sparse_empty_line(a, false); !empty.empty())
    return exact_zero(empty + ": the permanent is 0");
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
  const double budget = o.max_memory > 0 ? o.max_memory : default_max_memory();
  double exact_budget = estimate::exact_budget_seconds(o), exact_predicted = 0;
  int planned_exact = 0, to_sample = 0;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    if (blocks[bi].rows <= std::max(o.exact_up_to, 1)) {
      count_exactly[bi] = 1;
    } else if (o.exact_up_to > 0 && estimate::worth_planning(blocks[bi].nnz(), exact_budget)) {
      const double p = predicted_exact_seconds(blocks[bi], o.threads, budget);
      if (p <= exact_budget) count_exactly[bi] = 1, exact_budget -= p, exact_predicted += p, ++planned_exact;
    }
    to_sample += !count_exactly[bi];
  }
  // Asked when the first block is sampled, not before: asking starts CUDA (0.1-0.2 s), which a
  // run whose blocks are all counted exactly never needs (gpu_available keeps its answer).
  const auto want_gpu = [&] { return o.device != DevicePolicy::Cpu && gpu_available(); };
  if (o.device == DevicePolicy::Gpu && !gpu_available())
    throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible" : "--device gpu: matchcount was built without CUDA");
  estimate::EstimateRun run(o, start, to_sample);
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const auto& b = blocks[bi];
    BlockEstimate be;
    be.n = b.rows, be.nnz = b.nnz();
    if (run.try_exact(be, count_exactly[bi], [&](BlockEstimate& out, PermanentValue& v) {
          return count_block(b, o.threads, budget, out, v);
        }, rep))
      continue;
    const estimate::BlockData data = estimate::BlockData::from(b);
    {  // each CPU thread's path and scratch arrays (the block's arrays are counted in planning's copies)
      const auto m = static_cast<estimate::Method>(static_cast<int>(o.method));
      const double path = 4.0 * static_cast<double>(estimate::Workspace::ints(data.n, data.max_degree, m)) +
                          8.0 * static_cast<double>(estimate::Workspace::doubles(data.n, m)) + 256;
      estimate::check_sampling_memory(estimate::sampling_threads(o) * path,
                                      "a block of " + std::to_string(b.rows) + " rows", o);
    }
    estimate::SamplerConfig cfg;
    cfg.method = static_cast<estimate::Method>(static_cast<int>(o.method));
    cfg.params = {o.scale_interval > 0 ? o.scale_interval : std::max(1, b.rows / 256), o.scale_iterations};
    cfg.seed = o.seed;
    cfg.block_id = static_cast<std::uint32_t>(bi);
    cfg.threads = o.threads;
    std::unique_ptr<estimate::Sampler> sampler;
    if (want_gpu()) {
      try {
        sampler = estimate::make_gpu_sampler(data, cfg);
      } catch (const GpuError& e) {
        if (o.device == DevicePolicy::Gpu) throw;
        rep.notes.push_back(std::string("GPU unavailable, sampling on the CPU: ") + e.what());
      }
    }
    if (!sampler) sampler = estimate::make_cpu_sampler(data, cfg);
    if (cluster::distributed()) sampler = cluster::share_samples(std::move(sampler), b, cfg, want_gpu());
    run.add_sampled(*sampler, be, rep);
  }
  if (padding > 0) {  // the padded rows' k! orders of the extra columns
    run.multiply(inverse_factorial(padding));
    PermanentValue& exact_value = run.exact_value;
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
  run.finish(rep, planned_exact, exact_predicted, blocks.size());
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