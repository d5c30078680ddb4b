#include "coverage.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::cli {
namespace {

double log2_of(const WideReal& x) {
  return x.zero() ? -INFINITY : std::log2(x.mant) + static_cast<double>(x.exp);
}

double log2_of(const Integer& v) {
  long e = 0;
  const double m = mpz_get_d_2exp(&e, v.get_mpz_t());
  return m > 0 ? std::log2(m) + static_cast<double>(e) : -INFINITY;
}

SparseMatrix<double> as_doubles(const AnyMatrix& m) {
  return std::visit(
      [](const auto& a) -> SparseMatrix<double> {
        using T = std::decay_t<decltype(a.entries[0].value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          return convert<double>(a, [](const Complex& z) { return z.real(); });
        } else if constexpr (std::is_same_v<T, double>) {
          return a;
        } else {
          return convert<double>(a, [](const T& v) { return v.get_d(); });
        }
      },
      m);
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

CoverageCase coverage_case(std::string label, const AnyMatrix& m) {
  CoverageCase c;
  c.label = std::move(label);
  c.matrix = as_doubles(m);
  const PermanentValue v = count_permanent(m).value;
  c.exact_log2 = v.value.index() == 0 ? log2_of(std::get<Integer>(v.value)) : std::log2(std::get<double>(v.value));
  return c;
}

std::vector<CoverageCase> standard_coverage_cases() {
  std::vector<CoverageCase> cases;
  for (int k : {10, 16}) cases.push_back(coverage_case("grid " + std::to_string(k) + "x" + std::to_string(k),
                                                       AnyMatrix(biadjacency(grid_graph(k, k)))));
  // An Erdos-Renyi matrix whose Rasmussen+ weights are skewed enough to strain the interval
  // (docs/estimation.md), and denser ones.
  cases.push_back(coverage_case("er 30 p=0.15", AnyMatrix(erdos_renyi_bipartite(30, 0.15, 4))));
  cases.push_back(coverage_case("er 30 p=0.3", AnyMatrix(erdos_renyi_bipartite(30, 0.3, 4))));
  cases.push_back(coverage_case("er 26 p=0.5", AnyMatrix(erdos_renyi_bipartite(26, 0.5, 4))));
  cases.push_back(coverage_case("regular 40 d=3", AnyMatrix(random_regular_bipartite(40, 3, 1))));
  cases.push_back(coverage_case("regular 60 d=4", AnyMatrix(random_regular_bipartite(60, 4, 1))));
  cases.push_back(coverage_case("digraph 30 p=0.15", AnyMatrix(random_digraph(30, 0.15, 2, false))));
  cases.push_back(coverage_case("real 24 p=0.4", AnyMatrix(random_real_matrix(24, 0.4, 0.0, 1.0, 3))));
  return cases;
}

Coverage measure_coverage(const CoverageCase& c, const CoverageRun& run) {
  Coverage out;
  std::vector<double> rel_errors, ratios;
  double seconds = 0;
  for (int k = 0; k < run.seeds; ++k) {
    EstimateOptions o;
    o.method = run.method;
    o.device = run.device;
    o.threads = run.threads;
    o.samples = run.samples;
    o.exact_up_to = 0;
    o.seed = run.first_seed + static_cast<std::uint64_t>(k);
    const auto t0 = std::chrono::steady_clock::now();
    const EstimateReport r = estimate_permanent(AnyMatrix(c.matrix), o);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // An interval without a variance estimate (one nonzero sample) holds nothing.
    const bool bounded = std::isfinite(r.rel_std_error);
    const bool covered =
        bounded && log2_of(r.ci_low) <= c.exact_log2 + 1e-12 && c.exact_log2 <= log2_of(r.ci_high) + 1e-12;
    ++out.runs;
    out.covered += covered;
    out.flagged += r.heavy_tail;
    out.unflagged_misses += !covered && !r.heavy_tail;
    rel_errors.push_back(r.rel_std_error);
    ratios.push_back(std::exp2(log2_of(r.estimate) - c.exact_log2));
    for (const auto& b : r.blocks)
      if (!b.exact) out.device = b.device;
  }
  out.median_rel_error = median(rel_errors);
  out.median_ratio = median(ratios);
  out.seconds_per_run = out.runs ? seconds / out.runs : 0.0;
  return out;
}

}  // namespace matchcount::cli
