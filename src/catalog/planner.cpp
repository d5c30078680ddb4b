// The planner: the engine of least predicted time for a block, from the catalog's cost models
// (catalog.cpp), and the default Ryser-type walk for a block (choose_engine).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "catalog/catalog.hpp"
#include "catalog/planar_gate.hpp"
#include "core/arith.hpp"
#include "engines/common.hpp"
#include "engines/ryser/ryser.hpp"
#include "engines/sparse/gpu_skipper.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/memory.hpp"

namespace matchcount {

bool gpu_available() {
  static const bool available = !gpu_devices().empty();
  return available;
}

// Dense Ryser (SIMD, half the subsets of the plain form) beats the scalar sparse walks
// unless rows are very sparse; SkipPer's jumps skip most Gray steps below about 5 nonzeros
// per row, where it wins (the crossover is measured in docs/benchmarks.md, "Dense Ryser
// against the sparse walks"). SpaRyser never beats both, so it is only chosen by name (a
// second independent exact engine).
// On the GPU, a block of n >= 28 (2^27 Gray steps) walks long enough to repay the launch;
// smaller ones stay on the CPU.
std::string choose_engine(int n, std::size_t nnz, NumberKind kind, DevicePolicy device) {
  (void)kind;  // the same crossover holds for exact and float counts
  const bool gpu = device == DevicePolicy::Gpu || (device == DevicePolicy::Auto && gpu_available());
  if (gpu && n >= 28 && n <= 63) return "gpu-ryser";
  if (n <= 16) return "ryser";
  return double(nnz) < 5.0 * n ? "skipper" : "ryser";
}

namespace {

// Seconds per unit of predicted work (calibrated in docs/benchmarks.md, "Planner check";
// the model is tabulated in docs/engines.md, "Planner"): CPU Ryser 2.6e-10 core-seconds per
// row-step (1.3e-10 per n 2^n); SkipPer is predicted at the same rate, though its jumps make
// it faster on random sparse blocks and slower on regular ones (docs/engines.md, known limits
// of the model); GPU Ryser 2 FP64 operations per row-step at 70% of 17e12 per second plus
// 20 ms per block (context, launch, copies). The frontier DP's model is frontier_seconds
// (frontier.hpp), Kasteleyn's kasteleyn_seconds. Real (double) blocks walk without primes,
// so they take a lower rate per row-step than exact ones; complex blocks a higher one (a
// complex product and its error terms per row-step).
constexpr double kCpuRyserRealStep = 1.6e-10, kCpuRyserComplexStep = 5.5e-10;
constexpr double kCpuRyserStep = 2.6e-10, kGpuRyserStep = 2.0 / (0.7 * 17e12),
                 kGpuOverhead = catalog::kLeastGpuSeconds;
// Exact counts pay for their primes (fitted in docs/benchmarks.md, "Predictions against
// measured times"): with every row's absolute sum below 2^49 one walk serves all primes (y
// exact in doubles), costing per Gray step a little per row plus a modular product and sum per
// prime and row group (ModPlan::group_end); wider rows walk once per prime with y as residues,
// per row-step and prime, plus a set-up per prime. Exact decimals become such wide integers
// once their rows are scaled, so a flat rate per step cannot predict them.
constexpr double kCpuRyserSharedRow = 1.0e-10, kCpuRyserModGroup = 2.9e-10, kCpuRyserPrimeRow = 4.0e-10,
                 kCpuRyserPrimeFixed = 3e-4;
// The GPU's exact walks: one walk carries up to kGpuSharedPrimes primes when the rows allow
// shared sums, else one walk per prime (gpu_ryser.cpp, gpu_skipper.cpp).
constexpr double kGpuSharedPrimes = 4;
// A complex row-step on the GPU costs several real ones: 6n FP64 operations a step against 2n,
// and the complex kernels spill (fitted in docs/benchmarks.md, "GPU: register-only against
// hybrid NVRTC kernels").
constexpr double kGpuComplexStep = 3.45;

/// About how many CRT primes an exact count of `a` takes: permanent_bound's logarithm in
/// floating point (the bound itself multiplies n big integers, too slow for planning large
/// blocks). Line sums are doubles unless an entry is too wide for one to hold their logarithm.
double predicted_primes(const SparseMatrix<Integer>& a) {
  bool zero_one = true, narrow = true;
  for (const auto& e : a.entries) {
    zero_one = zero_one && e.value == 1;
    narrow = narrow && mpz_sizeinbase(e.value.get_mpz_t(), 2) < 900;
  }
  std::vector<double> row_log, col_log, row_sum, col_sum;
  if (narrow) {
    row_sum.assign(static_cast<std::size_t>(a.rows), 0.0), col_sum.assign(static_cast<std::size_t>(a.cols), 0.0);
    for (const auto& e : a.entries) {
      const double v = std::fabs(e.value.get_d());
      row_sum[static_cast<std::size_t>(e.row)] += v, col_sum[static_cast<std::size_t>(e.col)] += v;
    }
    for (double& x : row_sum) row_log.push_back(x > 0 ? std::log2(x) : 0.0);
    for (double& x : col_sum) col_log.push_back(x > 0 ? std::log2(x) : 0.0);
  } else {
    std::vector<Integer> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
    for (const auto& e : a.entries)
      row[static_cast<std::size_t>(e.row)] += abs(e.value), col[static_cast<std::size_t>(e.col)] += abs(e.value);
    auto log2_of = [](const Integer& x) {
      long e = 0;
      const double m = mpz_get_d_2exp(&e, x.get_mpz_t());
      return m > 0 ? std::log2(m) + double(e) : 0.0;
    };
    for (const auto& r : row) row_log.push_back(log2_of(r)), row_sum.push_back(r.get_d());
    for (const auto& c : col) col_log.push_back(log2_of(c)), col_sum.push_back(c.get_d());
  }
  double by_rows = 0, by_cols = 0, bregman_rows = 0, bregman_cols = 0;
  for (std::size_t i = 0; i < row_log.size(); ++i)
    by_rows += row_log[i], bregman_rows += std::lgamma(row_sum[i] + 1) / std::max(1.0, row_sum[i]);
  for (std::size_t i = 0; i < col_log.size(); ++i)
    by_cols += col_log[i], bregman_cols += std::lgamma(col_sum[i] + 1) / std::max(1.0, col_sum[i]);
  double bits = std::min(by_rows, by_cols);
  if (zero_one) bits = std::min(bits, std::min(bregman_rows, bregman_cols) / std::log(2.0));
  return std::ceil((bits + 2) / 49.0);  // primes lie in (2^49, 2^50); the product must exceed 2 bound
}

/// Why none of the engines the planner weighed can count an n x n block, from what each one
/// was refused for (the Ryser-type walks' row limit, the frontier DP's width and memory,
/// planarity, repeated lines' terms), then the engines the memory budget ruled out.
std::string why_uncountable(const catalog::BlockFacts& f, const std::string& planar_note,
                            const std::vector<std::string>& over_budget) {
  std::string why = "n = " + std::to_string(f.n) + " is over " + f.first + "'s limit of " +
                    std::to_string(catalog::entry(f.first).max_n);
  const double frontier_bytes = engines::frontier_bytes(f.frontier, f.words);
  if (f.frontier.width > engines::kFrontierMaxWidth)
    why += "; frontier width " + std::to_string(f.frontier.width) + " is over the frontier DP's limit of " +
           std::to_string(engines::kFrontierMaxWidth);
  else if (frontier_bytes > engines::kFrontierMemoryLimit)
    why += "; the frontier DP's state table (" + memory_text(frontier_bytes) + ") is over its memory limit of " +
           memory_text(engines::kFrontierMemoryLimit);
  if (!planar_note.empty()) why += "; " + planar_note;
  else if (!f.kasteleyn.planar) why += "; not planar (no Kasteleyn determinant)";
  else if (f.kasteleyn_bytes > engines::kKasteleynMemoryLimit)
    why += "; Kasteleyn's band matrix (" + memory_text(f.kasteleyn_bytes) + ") is over its memory limit of " +
           memory_text(engines::kKasteleynMemoryLimit);
  char buf[120];
  std::snprintf(buf, sizeof buf, "; repeated lines give %.3g terms, over the limit of %.3g", f.repeated.terms,
                engines::kRepeatedMaxTerms);
  why += buf;
  for (const std::string& note : over_budget) why += "; " + note;
  return why;
}

/// Predicted seconds of the Ryser-type walks on one block (CPU on `cores` cores, and the
/// GPU's dense walk), and how many walks the GPU engines make (one per pass of primes).
struct WalkCost {
  double cpu = 0, gpu = 0, gpu_passes = 1;
};

/// What the plans of one block compute from the block alone: under --device auto the CPU's
/// plan and then, past kLeastGpuSeconds with a device present, the auto plan share it, so that
/// the frontier order, the planarity test, the band order and the nested dissection of a large
/// block run once (each took a second or more on the 1000 x 1000 grid).
struct BlockMemo {
  catalog::Lazy<WalkCost> walk;
  catalog::Lazy<double> primes;
  catalog::Lazy<engines::RepeatedPlan> repeated;
  catalog::Lazy<engines::PatternRC> pattern;
  catalog::Lazy<engines::FrontierPlan> frontier;
  catalog::Lazy<engines::NestedCost> nested;  // exact counts
  catalog::Lazy<engines::KasteleynPlan> kasteleyn_estimate, kasteleyn_tested;
};

/// The Kasteleyn plan of the block, tested for planarity only where the engine could count it
/// within its limits and the budget faster than `others` seconds (planar_gate.hpp); otherwise
/// not planar, with `note` saying why the test was skipped (empty when it ran).
engines::KasteleynPlan gated_kasteleyn(const engines::PatternRC& pattern, catalog::BlockFacts& f, double others,
                                       std::string& note, BlockMemo& memo) {
  note.clear();
  const int n = f.n;
  if (n >= 2 && pattern.size() > std::size_t(4 * n - 4)) return {};  // no planar bipartite graph is this dense
  const catalog::Row& row = catalog::entry("kasteleyn");
  const bool exact = f.kind == NumberKind::Integer;
  auto nested = [&]() -> const engines::NestedCost& { return memo.nested.get([&] { return engines::nested_cost(pattern, n); }); };
  f.kasteleyn = memo.kasteleyn_estimate.get([&] {
    engines::KasteleynPlan p = catalog::estimated_kasteleyn(pattern, n);
    if (exact) engines::plan_nested(p, nested(), pattern.size());
    return p;
  });
  f.kasteleyn_bytes = f.kasteleyn.bytes * (f.kind == NumberKind::Complex ? 2 : 1);
  const std::optional<double> seconds = row.predict(f);
  const double bytes = row.bytes(f);
  engines::KasteleynPlan none;
  if (!seconds) {
    note = "Kasteleyn's band matrix would need about " + memory_text(f.kasteleyn_bytes) + ", over its limit of " +
           memory_text(engines::kKasteleynMemoryLimit) + " (planarity not tested)";
  } else if (bytes > f.max_bytes) {
    note = "Kasteleyn would need about " + memory_text(bytes) + ", over the memory budget of " +
           memory_text(f.max_bytes) + " (--max-memory; planarity not tested)";
  } else if (*seconds >= others) {
    note = "planarity not tested: Kasteleyn is predicted to take " + engines::three_digits(*seconds) +
           " s, longer than " + engines::three_digits(others) + " s";
  } else {
    return memo.kasteleyn_tested.get([&] { return engines::plan_kasteleyn(pattern, n, exact ? &nested() : nullptr); });
  }
  return none;
}

template <class T>
WalkCost walk_cost(const SparseMatrix<T>& a, int cores) {
  const int n = a.rows;
  const double steps = std::ldexp(1.0, std::max(n - 1, 0)), row_steps = n * steps;
  WalkCost c;
  if constexpr (std::is_same_v<T, Integer>) {
    // The engines' own prime and group plan for blocks they can take (cheap there: n <= 63).
    bool shared = false;
    double primes = 0, groups = 1;
    if (n <= 63) {
      std::vector<int> rows(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
      const engines::ModPlan mod = engines::make_mod_plan(a, rows);
      shared = mod.shared, primes = double(mod.primes.size()), groups = double(mod.group_end.size());
    } else {
      primes = predicted_primes(a);
    }
    if (shared) {
      // The engine's walk over two low columns where it takes it (ryser_low_columns.hpp).
      c.cpu = steps * (n * kCpuRyserSharedRow + primes * groups * kCpuRyserModGroup) / cores *
              engines::exact_walk_time_factor(a);
      c.gpu_passes = std::ceil(primes / kGpuSharedPrimes);
    } else {
      c.cpu = primes * (kCpuRyserPrimeFixed + row_steps * kCpuRyserPrimeRow / cores);
      c.gpu_passes = std::max(1.0, primes);
    }
  } else {
    c.cpu = row_steps * (std::is_same_v<T, double> ? kCpuRyserRealStep : kCpuRyserComplexStep) / cores;
  }
  c.gpu = c.gpu_passes * row_steps * kGpuRyserStep * (std::is_same_v<T, Complex> ? kGpuComplexStep : 1.0) + kGpuOverhead;
  return c;
}

template <class T>
EnginePlan plan_engine_impl(const SparseMatrix<T>& a, DevicePolicy device, int threads, double max_bytes,
                            BlockMemo& memo) {
  const int n = a.rows;
  constexpr double inf = std::numeric_limits<double>::infinity();
  catalog::BlockFacts f;
  f.n = n, f.nnz = a.nnz(), f.kind = number_kind<T>(), f.device = device, f.max_bytes = max_bytes;
  f.gpu_auto = device == DevicePolicy::Auto && gpu_available();
  f.gpu = device == DevicePolicy::Gpu || f.gpu_auto;
  f.cores = threads > 0 ? threads : omp_get_max_threads();
  f.first = choose_engine(n, a.nnz(), number_kind<T>(), device);
  const WalkCost walk = memo.walk.get([&] { return walk_cost(a, f.cores); });
  f.walk_cpu = walk.cpu, f.walk_gpu = walk.gpu, f.gpu_passes = walk.gpu_passes;
  // An engine that refuses blocks of this size is predicted to take forever, so that the
  // plan never picks it over one that counts the block, however slowly.
  auto over_limit = [n](const std::string& engine) { return n > catalog::entry(engine).max_n; };
  EnginePlan best;
  best.engine = f.first;
  best.predicted_seconds = over_limit(best.engine) ? inf : best.engine == "gpu-ryser" ? walk.gpu : walk.cpu;
  best.work = best.predicted_seconds * f.cores / kCpuRyserStep;
  best.candidates.emplace_back(best.engine, best.predicted_seconds);
  // The walk on a GPU holds the CUDA runtime in host memory: under a budget below it, the walk
  // runs on the CPU (catalog.cpp, kCudaHostBytes).
  if (const catalog::Row& first = catalog::entry(best.engine); first.bytes) {
    best.predicted_bytes = first.bytes(f);
    if (best.predicted_bytes > max_bytes) {
      best.engine = f.first = "ryser";
      best.predicted_seconds = over_limit("ryser") ? inf : walk.cpu;
      best.predicted_bytes = 0;
      best.candidates.emplace_back(best.engine, best.predicted_seconds);
    }
  }
  if (n <= 16) return best;  // Ryser takes microseconds; not worth planning an order

  const bool exact = std::is_same_v<T, Integer>, cplx = std::is_same_v<T, Complex>;
  f.words = exact ? 1 : cplx ? 3 : 2;
  if constexpr (std::is_same_v<T, Integer>) {
    f.primes = memo.primes.get([&] { return predicted_primes(a); });
    for (const auto& e : a.entries) f.unit = f.unit && e.value == 1;
  }
  f.repeated = memo.repeated.get([&] { return engines::plan_repeated(a); });
  if (f.repeated.terms <= engines::kRepeatedMaxTerms) f.repeated_primes = f.primes;
  if (f.gpu) f.device_gib = catalog::first_device_gib();  // asking starts CUDA: only where a GPU may run
  f.gpu_skipper_seconds = [&] {
    if constexpr (std::is_same_v<T, Integer>) return engines::gpu_skipper_seconds(a, walk.gpu_passes);
    else return engines::gpu_skipper_seconds(a);
  };
  f.gpu_frontier_seconds = [&]() -> double {
    if constexpr (std::is_same_v<T, Integer>) return engines::gpu_frontier_seconds(a, f.frontier, f.primes, f.device_gib);
    else return inf;
  };
  const engines::PatternRC& pattern = memo.pattern.get([&] { return engines::pattern_of(a); });
  f.frontier = memo.frontier.get([&] { return engines::plan_frontier(pattern, n); });
  best.frontier_width = f.frontier.width;
  // An engine's predicted seconds, or nullopt when it is not weighed; infinite beyond its row
  // limit or, with the reason kept, beyond the memory budget.
  std::vector<std::string> over_budget;
  auto weigh = [&](const catalog::Row& row, bool keep_reason) -> std::optional<double> {
    if (!row.predict || row.name == f.first) return std::nullopt;
    const std::optional<double> predicted = row.predict(f);
    if (!predicted) return std::nullopt;
    if (n > row.max_n) return inf;
    if (row.bytes && row.bytes(f) > f.max_bytes) {
      if (keep_reason)
        over_budget.push_back(std::string(row.name) + " would need about " + memory_text(row.bytes(f)) +
                              ", over the memory budget of " + memory_text(f.max_bytes) + " (--max-memory)");
      return inf;
    }
    return predicted;
  };
  // Planarity last, against the best of the others (gated_kasteleyn).
  double others = best.predicted_seconds;
  for (const catalog::Row& row : catalog::rows())
    if (std::string_view(row.name) != "kasteleyn")
      if (const auto seconds = weigh(row, false)) others = std::min(others, *seconds);
  std::string planar_note;
  f.kasteleyn = gated_kasteleyn(pattern, f, others, planar_note, memo);
  f.kasteleyn_bytes = f.kasteleyn.bytes * (cplx ? 2 : 1);
  // Every other engine of the catalog by its cost model, in the catalog's order; a tie keeps
  // the earlier one.
  for (const catalog::Row& row : catalog::rows()) {
    const std::optional<double> seconds = weigh(row, true);
    if (!seconds) continue;
    best.candidates.emplace_back(row.name, *seconds);
    if (*seconds < best.predicted_seconds) {
      best.engine = row.name;
      best.predicted_seconds = *seconds;
      best.predicted_bytes = row.bytes ? row.bytes(f) : 0.0;
    }
  }
  best.work = best.predicted_seconds * f.cores / kCpuRyserStep;
  if (!std::isfinite(best.predicted_seconds)) best.why = why_uncountable(f, planar_note, over_budget);
  return best;
}

/// The plan for `device`, the plans it takes (ask_for_a_device_late) sharing one BlockMemo.
template <class T>
EnginePlan plan_engine_once(const SparseMatrix<T>& a, DevicePolicy device, int threads, double max_bytes) {
  BlockMemo memo;
  return catalog::ask_for_a_device_late<EnginePlan>(
      device, [&](DevicePolicy p) { return plan_engine_impl(a, p, threads, max_bytes, memo); }, gpu_available);
}

}  // namespace

namespace catalog {

double first_device_gib() {
  static const double gib = gpu_devices().empty() ? 0.0 : gpu_devices().front().memory_gib;
  return gib;
}

}  // namespace catalog

EnginePlan plan_engine(const SparseMatrix<Integer>& a, DevicePolicy d, int t, double max_bytes) {
  return plan_engine_once(a, d, t, max_bytes);
}
EnginePlan plan_engine(const SparseMatrix<double>& a, DevicePolicy d, int t, double max_bytes) {
  return plan_engine_once(a, d, t, max_bytes);
}
EnginePlan plan_engine(const SparseMatrix<Complex>& a, DevicePolicy d, int t, double max_bytes) {
  return plan_engine_once(a, d, t, max_bytes);
}

}  // namespace matchcount
