// The frontier (profile DP) engine against the oracle, against Ryser, and on known families
// (the guards and the random small-block loop of every engine are in conformance_test.cpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "engines/frontier/frontier.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"
#include "oracle.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using engines::make_frontier;

using test::threads;

using test::entries_as;

/// A random band / sparse / dense / arrow-shaped pattern with values from `value`.
SparseMatrix<Integer> random_shaped_matrix(std::mt19937_64& rng, int n, int shape, long lo, long hi) {
  std::uniform_int_distribution<long> val(lo, hi);
  std::uniform_real_distribution<double> u(0, 1);
  int band = 1 + int(rng() % 3);
  double p = shape == 0 ? 0.15 + 0.25 * u(rng) : 0.5 + 0.5 * u(rng);
  SparseMatrix<Integer> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      bool on = shape == 0 ? u(rng) < p
              : shape == 1 ? std::abs(i - j) <= band && u(rng) < 0.9
              : shape == 2 ? u(rng) < p
                           : (i == 0 || j == n - 1 || std::abs(i - j) <= 1) && u(rng) < 0.95;
      long v = 0;
      while (on && v == 0) v = val(rng);
      if (on) a.entries.push_back({i, j, Integer(v)});
    }
  a.normalize();
  return a;
}

TEST(FrontierRandom, IntegerAgainstRyserUpToN20) {
  std::mt19937_64 rng(12);
  auto f = make_frontier();
  auto ryser = make_engine("ryser");
  for (int it = 0; it < 120; ++it) {
    int n = 10 + it % 11;
    auto a = random_shaped_matrix(rng, n, it % 4, it % 3 == 0 ? 1 : -3, 3);
    if (it % 8 == 7) a = test::random_integer(rng, n, 0.9, -1, 1);
    ASSERT_EQ(f->permanent(a, {}), ryser->permanent(a, {})) << "it " << it << " n " << n;
  }
}

TEST(FrontierRandom, RealAndComplexAgainstOracleAndRyser) {
  std::mt19937_64 rng(13);
  auto f = make_frontier();
  auto ryser = make_engine("ryser");
  for (int it = 0; it < 240; ++it) {
    int n = it < 160 ? 1 + it % 9 : 10 + it % 9;
    double density = 0.15 + 0.85 * double(rng() % 1000) / 1000;
    auto ar = test::random_real(rng, n, density, -1.0, 1.0);
    auto got = f->permanent(ar, {});
    auto abs_a = ar;
    for (auto& e : abs_a.entries) e.value = std::fabs(e.value);
    double scale = f->permanent(abs_a, {}).value;
    double want = it < 160 ? test::naive_permanent(ar) : ryser->permanent(ar, {}).value;
    double want_err = it < 160 ? 1e-14 * scale : ryser->permanent(ar, {}).abs_error;
    ASSERT_LE(std::fabs(got.value - want), got.abs_error + want_err + 1e-300) << "it " << it;
    ASSERT_LE(got.abs_error, 1e-12 * scale + 1e-300) << "it " << it;  // not vacuous
    auto ac = test::random_complex(rng, n, density);
    auto gc = f->permanent(ac, {});
    Complex wc = it < 160 ? test::naive_permanent(ac) : ryser->permanent(ac, {}).value;
    double wc_err = it < 160 ? 1e-13 * std::abs(wc) + 1e-14 : ryser->permanent(ac, {}).abs_error;
    ASSERT_LE(std::abs(gc.value - wc), gc.abs_error + wc_err + 1e-300) << "it " << it;
  }
}

TEST(FrontierRandom, IntegralRealsAreExact) {
  std::mt19937_64 rng(14);
  auto f = make_frontier();
  for (int it = 0; it < 30; ++it) {
    auto a = random_shaped_matrix(rng, 8 + it % 8, it % 4, -2, 2);
    double want = make_engine("ryser")->permanent(a, {}).get_d();
    auto got = f->permanent(entries_as<double>(a), {});
    EXPECT_EQ(got.value, want);
    EXPECT_EQ(got.abs_error, 0.0);
  }
}

// Rows far from 1 in magnitude: the DP scales rows by powers of two, so no state over- or
// underflows unless the permanent itself does (then the value is infinite, never NaN).
TEST(FrontierRandom, HugeAndTinyRows) {
  std::mt19937_64 rng(17);
  auto f = make_frontier();
  for (int it = 0; it < 20; ++it) {
    auto base = test::random_real(rng, 4 + it % 6, 0.7, -1, 1);
    auto big = base;
    for (auto& e : big.entries)  // row factors cancel in pairs (the last row of an odd n: 1)
      e.value *= e.row == big.rows - 1 && big.rows % 2 ? 1.0 : e.row % 2 ? 0x1p-830 : 0x1p830;
    double want = test::naive_permanent(base);
    auto got = f->permanent(big, {});
    auto abs_b = base;
    for (auto& e : abs_b.entries) e.value = std::fabs(e.value);
    ASSERT_LE(std::fabs(got.value - want), got.abs_error + 1e-14 * test::naive_permanent(abs_b) + 1e-300) << it;
    for (auto& e : big.entries) std::swap(e.row, e.col);  // the same with huge and tiny columns
    big.normalize();
    auto got_t = f->permanent(big, {});
    ASSERT_LE(std::fabs(got_t.value - want), got_t.abs_error + 1e-14 * test::naive_permanent(abs_b) + 1e-300) << it;
  }
  auto ones = entries_as<double>(complete_bipartite(6));
  for (auto& e : ones.entries) e.value = 1e100;
  auto inf = f->permanent(ones, {});
  EXPECT_TRUE(std::isinf(inf.value));
  for (auto& e : ones.entries) e.value = 1e-100;
  EXPECT_EQ(f->permanent(ones, {}).value, 0.0);  // 720e-600 underflows
}

TEST(FrontierKnown, GridsAztecTorusHypercube) {
  auto f = make_frontier();
  auto perm = [&](const EdgeList& g) { return f->permanent(biadjacency(g), {}); };
  EXPECT_EQ(perm(grid_graph(6, 9)), 817991);
  EXPECT_EQ(perm(grid_graph(7, 10)), 53175517);
  EXPECT_EQ(perm(grid_graph(8, 8)), 12988816);
  EXPECT_EQ(perm(grid_graph(4, 30)), Integer("21096536145301"));
  EXPECT_EQ(perm(grid_graph(10, 10)), Integer("258584046368"));
  EXPECT_EQ(perm(grid_graph(12, 12)), Integer("53060477521960000"));
  EXPECT_EQ(perm(grid_graph(16, 16)), Integer("2444888770250892795802079170816"));
  for (int k = 1; k <= 11; ++k) EXPECT_EQ(perm(aztec_diamond_graph(k)), Integer(1) << (k * (k + 1) / 2)) << k;
  EXPECT_EQ(perm(torus_graph(8, 8)), 311853312);
  EXPECT_EQ(perm(torus_graph(10, 10)), Integer("11203604497408"));
  EXPECT_EQ(perm(hypercube_graph(5)), 589185);
  EXPECT_EQ(perm(hypercube_graph(6)), Integer("16332454526976"));
  EXPECT_EQ(perm(prism_graph(20)), 15129);
}

TEST(FrontierKnown, AllOnesDerangementsBand) {
  auto f = make_frontier();
  Integer fact = 1, derange = 1;
  for (int n = 1; n <= 14; ++n) {
    fact *= n;
    derange = n * derange + (n % 2 ? -1 : 1);
    EXPECT_EQ(f->permanent(complete_bipartite(n), {}), fact) << n;
    EXPECT_EQ(f->permanent(complete_loopless_digraph(n), {}), derange) << n;
  }
  Integer fa = 1, fb = 1;  // perm of the tridiagonal 0-1 matrix: Fibonacci
  for (int n = 1; n <= 3000; ++n) {
    if (n == 200 || n == 3000) {  // n = 3000: 627 digits, 52 primes, width 2
      EXPECT_EQ(f->permanent(band_matrix(n, 1), {}), fb) << n;
    }
    Integer next = fa + fb;
    fa = fb, fb = next;
  }
  EXPECT_EQ(f->permanent(band_matrix(31, 2), {}), Integer("116471963129"));
  // The circulant I + P + P^2 (n = 27): a wrap-around band.
  SparseMatrix<Integer> circ;
  circ.rows = circ.cols = 27;
  for (int i = 0; i < 27; ++i)
    for (int d = 0; d < 3; ++d) circ.entries.push_back({i, (i + d) % 27, Integer(1)});
  circ.normalize();
  EXPECT_EQ(f->permanent(circ, {}), 439206);
}

TEST(FrontierPlanner, OrdersWidthsAndRefusals) {
  auto g = biadjacency(grid_graph(16, 16));
  auto plan = engines::plan_frontier(engines::pattern_of(g), g.rows);
  std::vector<int> sorted = plan.row_order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> iota(std::size_t(g.rows));
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_LE(plan.width, 17);
  EXPECT_GT(plan.cost, 0);
  EXPECT_EQ(engines::plan_frontier(engines::pattern_of(band_matrix(500, 2)), 500).width, 4);
  // Too wide for 64-bit keys, and too many states for the memory limit.
  EXPECT_THROW(make_frontier()->permanent(complete_bipartite(70), {}), RefusedError);
  EXPECT_THROW(make_frontier()->permanent(complete_bipartite(45), {}), RefusedError);
}

TEST(FrontierThreads, ResultsDoNotDependOnThreadCount) {
  auto f = make_frontier();
  auto g = biadjacency(grid_graph(16, 16));
  EXPECT_EQ(f->permanent(g, threads(1)), f->permanent(g, threads(2)));
  std::mt19937_64 rng(15);
  auto r = entries_as<double>(g);
  for (auto& e : r.entries) e.value = std::uniform_real_distribution<double>(-1, 1)(rng);
  auto r1 = f->permanent(r, threads(1)), r2 = f->permanent(r, threads(2));
  EXPECT_EQ(r1.value, r2.value);
  EXPECT_EQ(r1.abs_error, r2.abs_error);
  // Dense n = 20: up to C(20, 10) states, enough work for many chunks per row.
  auto w = random_shaped_matrix(rng, 20, 2, -1000, 1000);
  EXPECT_EQ(f->permanent(w, threads(3)), make_engine("ryser")->permanent(w, {}));
  auto d = test::random_real(rng, 20, 0.9, -1, 1);
  auto d1 = f->permanent(d, threads(1)), d3 = f->permanent(d, threads(3));
  EXPECT_EQ(d1.value, d3.value);
  auto want = make_engine("ryser")->permanent(d, {});
  EXPECT_LE(std::fabs(d1.value - want.value), d1.abs_error + want.abs_error);
  auto c = test::random_complex(rng, 19, 0.7);
  EXPECT_EQ(f->permanent(c, threads(1)).value, f->permanent(c, threads(3)).value);
}

// The memory fallbacks: primes split over several passes, rows sized by a counting merge.
TEST(FrontierRandom, PrimesInSeveralPassesAndCountingMerge) {
  std::mt19937_64 rng(16);
  auto ryser = make_engine("ryser");
  for (int it = 0; it < 12; ++it) {
    auto a = random_shaped_matrix(rng, 9 + it, it % 4, -1000000000000L, 1000000000000L);
    Integer want = ryser->permanent(a, {});
    engines::FrontierTuning tune;
    tune.max_primes_per_pass = 1 + std::size_t(it % 3);
    tune.count_first = it % 2 == 1;
    EXPECT_EQ(engines::frontier_permanent(a, threads(1 + it % 3), tune), want) << it;
  }
  engines::FrontierTuning one;
  one.max_primes_per_pass = 1, one.count_first = true;
  EXPECT_EQ(engines::frontier_permanent(biadjacency(grid_graph(10, 10)), {}, one), Integer("258584046368"));
  auto w = random_shaped_matrix(rng, 20, 2, -3, 3);
  EXPECT_EQ(engines::frontier_permanent(w, threads(3), one), ryser->permanent(w, {}));
}

TEST(FrontierProgress, ReportsFractions) {
  double last = -1;
  int calls = 0;
  EngineOptions o;
  o.progress = [&](double x) { EXPECT_GE(x, last); last = x; ++calls; };
  make_frontier()->permanent(biadjacency(grid_graph(8, 8)), o);
  EXPECT_GT(calls, 0);
  EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(FrontierShared, SuiteSparseMatrices) {
  auto dir = test::shared_dir();
  if (!dir) GTEST_SKIP() << "no shared datasets";
  struct Case { const char* file; const char* value; };
  for (Case c : {Case{"mycielskian6.mtx", "1381724105482686970"}, Case{"curtis54.mtx", "8787902965855203136"},
                 Case{"bcspwr02.mtx", "17339123388"}}) {
    std::string path = *dir + "/datasets/matrices/" + c.file;
    if (!std::filesystem::exists(path)) continue;
    auto m = std::get<SparseMatrix<Integer>>(read_input(path, ReadOptions{}).matrix);
    auto plan = engines::plan_frontier(engines::pattern_of(m), m.rows);
    auto t0 = std::chrono::steady_clock::now();
    Integer got = make_frontier()->permanent(m, {});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[frontier] %s: n %d, width %d, predicted states %.3g, %.3f s\n", c.file, m.rows, plan.width, plan.peak_states, s);
    EXPECT_EQ(got, Integer(c.value)) << c.file;
  }
}

}  // namespace
}  // namespace matchcount
