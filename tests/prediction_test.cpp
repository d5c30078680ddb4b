// The planner's predicted seconds against measured engine seconds on one thread: within 4x
// either way for each kind of number (0-1, wide integers, exact decimals, real, complex) and
// each engine the planner picks (Ryser, the frontier DP, Kasteleyn, repeated lines). Each case
// is sized to take well under two seconds. Timings mean nothing under sanitizers or without
// optimisation, so the test skips there; a case that misses gets one more run (other tests may
// run at the same time). Its ratios are recorded in docs/benchmarks.md, "Predictions against
// measured times".
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"


namespace matchcount {
namespace {

struct PredictionCase {
  std::string name, engine;  // the engine the planner is expected to pick
  std::function<AnyMatrix()> make;
};

/// n x n with decimals of `digits` digits in (0, 1) (exact rationals, as --exact reads them).
SparseMatrix<Rational> decimals(int n, int digits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Integer scale = 1;
  for (int d = 0; d < digits; ++d) scale *= 10;
  std::uniform_int_distribution<unsigned long> draw(1, scale.get_ui() - 1);
  SparseMatrix<Rational> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      Rational q(Integer(static_cast<unsigned long>(draw(rng))), scale);
      q.canonicalize();
      a.entries.push_back({i, j, q});
    }
  return a;
}

/// n x n with `classes` classes of identical columns (random entries 1..9 per row and class).
SparseMatrix<Integer> repeated_columns(int n, int classes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> draw(1, 9);
  SparseMatrix<Integer> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i) {
    std::vector<int> v(static_cast<std::size_t>(classes));
    for (auto& x : v) x = draw(rng);
    for (int j = 0; j < n; ++j) a.entries.push_back({i, j, v[static_cast<std::size_t>(j % classes)]});
  }
  return a;
}

std::vector<PredictionCase> prediction_cases() {
  return {
      {"0-1 dense n=26", "ryser", [] { return AnyMatrix(erdos_renyi_bipartite(26, 0.6, 1)); }},
      {"integers to 1e6 n=23", "ryser", [] { return AnyMatrix(random_integer_matrix(23, 1.0, 1, 1000000, 2)); }},
      {"integers to 1e17 n=20", "ryser",
       [] { return AnyMatrix(random_integer_matrix(20, 1.0, 1, 100000000000000000L, 3)); }},
      {"3-digit decimals n=23", "ryser", [] { return AnyMatrix(decimals(23, 3, 4)); }},
      {"17-digit decimals n=20", "ryser", [] { return AnyMatrix(decimals(20, 17, 5)); }},
      {"real n=26", "ryser", [] { return AnyMatrix(random_real_matrix(26, 1.0, 0.0, 1.0, 6)); }},
      {"complex n=25", "ryser", [] { return AnyMatrix(random_complex_matrix(25, 1.0, 7)); }},
      {"torus 10x30 0-1", "frontier", [] { return AnyMatrix(biadjacency(torus_graph(10, 30))); }},
      {"grid 80x80 0-1", "kasteleyn", [] { return AnyMatrix(biadjacency(grid_graph(80, 80))); }},
      {"repeated columns n=36, 6 classes", "repeated", [] { return AnyMatrix(repeated_columns(36, 6, 8)); }},
  };
}

/// Predicted and measured engine seconds of one count on one thread (CPU engines).
std::pair<double, double> predicted_and_measured(const AnyMatrix& a, std::string& engines) {
  CountOptions o;
  o.threads = 1;
  o.device = DevicePolicy::Cpu;
  const CountReport r = count_permanent(a, o);
  double predicted = 0, measured = 0;
  engines.clear();
  for (const auto& run : r.engine_runs) {
    predicted += run.predicted_seconds, measured += run.seconds;
    if (run.n > 16 && engines.find(run.engine) == std::string::npos) engines += (engines.empty() ? "" : ",") + run.engine;
  }
  return {predicted, measured};
}

TEST(Prediction, WithinFourTimesOfTheMeasuredTime) {
  if (test::kSanitized) GTEST_SKIP() << "timings under sanitizers say nothing about the model";
#ifndef NDEBUG
  GTEST_SKIP() << "timings of unoptimised builds say nothing about the model";
#endif
  for (const PredictionCase& c : prediction_cases()) {
    const AnyMatrix a = c.make();
    std::string engines;
    double predicted = 0, measured = 0, ratio = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::tie(predicted, measured) = predicted_and_measured(a, engines);
      ratio = measured / predicted;
      std::printf("prediction: %-34s %-10s predicted %.3g s, measured %.3g s, measured/predicted %.2f\n",
                  c.name.c_str(), engines.c_str(), predicted, measured, ratio);
      if (ratio >= 0.25 && ratio <= 4) break;
    }
    EXPECT_EQ(engines, c.engine) << c.name;
    EXPECT_GE(ratio, 0.25) << c.name << ": predicted " << predicted << " s, measured " << measured << " s";
    EXPECT_LE(ratio, 4.0) << c.name << ": predicted " << predicted << " s, measured " << measured << " s";
  }
}

}  // namespace
}  // namespace matchcount
