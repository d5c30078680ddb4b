// The CPU engines against each other, against known values, on large values, threads and
// progress. Every engine of the catalog against the brute-force oracle on small random blocks,
// and the guards all engines share, are in conformance_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "engines/frontier/frontier.hpp"
#include "engines/kasteleyn/kasteleyn.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/error.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

const std::vector<std::string> kFast = {"ryser", "sparyser", "skipper"};

using test::threads;

SparseMatrix<Integer> from_dense(int n, const std::function<long(int, int)>& f) {
  SparseMatrix<Integer> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (long v = f(i, j)) a.entries.push_back({i, j, Integer(v)});
  return a;
}

Integer factorial(unsigned long n) {
  Integer f;
  mpz_fac_ui(f.get_mpz_t(), n);
  return f;
}

TEST(EngineRegistry, NamesFactoryAndChoice) {
  EXPECT_EQ(engine_names(), (std::vector<std::string>{"ryser", "sparyser", "skipper", "glynn", "brute", "gpu-ryser", "gpu-skipper", "frontier",
                                                     "gpu-frontier", "kasteleyn", "repeated", "rect-dp", "rect-ryser", "hafnian",
                                                     "gpu-hafnian", "pfaffian", "graph-frontier", "gpu-graph-frontier",
                                                     "hafnian-brute"}));
  for (const auto& name : test::square_engines()) EXPECT_EQ(make_engine(name)->name(), name);
  for (const char* name : {"hafnian", "gpu-hafnian", "pfaffian", "graph-frontier", "gpu-graph-frontier", "hafnian-brute"}) {
    EXPECT_EQ(make_graph_engine(name)->name(), name);
    EXPECT_THROW(make_engine(name), UsageError);
  }
  EXPECT_THROW(make_graph_engine("ryser"), UsageError);
  EXPECT_THROW(make_engine("rect-dp"), UsageError);
  EXPECT_THROW(make_engine("nope"), UsageError);
  for (int n : {0, 1, 5, 20, 40})
    for (std::size_t nnz : {std::size_t(0), std::size_t(n), std::size_t(n) * std::size_t(n)}) {
      auto name = choose_engine(n, nnz, NumberKind::Integer);
      EXPECT_NO_THROW(make_engine(name)) << name;
    }
}

// Exactly integral real input is summed without any rounding, so engines agree exactly.
TEST(EngineRandom, IntegralRealsAreExact) {
  std::mt19937_64 rng(4);
  for (int it = 0; it < 40; ++it) {
    int n = 8 + it % 8;
    auto a = test::random_integer(rng, n, 0.5, -2, 2);
    double want = make_engine("ryser")->permanent(a, {}).get_d();
    auto ad = convert<double>(a, [](const Integer& v) { return v.get_d(); });
    for (const auto& name : kFast) EXPECT_EQ(make_engine(name)->permanent(ad, {}).value, want) << name;
  }
}

TEST(EngineCross, FastEnginesAgreeUpToN22) {
  std::mt19937_64 rng(5);
  for (int it = 0; it < 6; ++it) {
    int n = 17 + it;
    auto a = test::random_integer(rng, n, it < 3 ? 0.3 : 0.18, -2, 3);
    Integer r = make_engine("ryser")->permanent(a, {});
    EXPECT_EQ(make_engine("sparyser")->permanent(a, {}), r) << n;
    EXPECT_EQ(make_engine("skipper")->permanent(a, {}), r) << n;
    auto ar = test::random_real(rng, n, 0.25, -1, 1);
    auto x = make_engine("ryser")->permanent(ar, {});
    for (const char* other : {"sparyser", "skipper"}) {
      auto y = make_engine(other)->permanent(ar, {});
      EXPECT_LE(std::fabs(x.value - y.value), x.abs_error + y.abs_error) << other << " n " << n;
    }
  }
}

TEST(EngineKnown, AllOnesIsFactorial) {
  for (int n = 1; n <= 16; ++n) {
    auto a = from_dense(n, [](int, int) { return 1; });
    for (const auto& name : kFast) ASSERT_EQ(make_engine(name)->permanent(a, {}), factorial(static_cast<unsigned long>(n))) << name << n;
    if (n <= 9) {
      ASSERT_EQ(make_engine("brute")->permanent(a, {}), factorial(static_cast<unsigned long>(n)));
    }
  }
}

TEST(EngineKnown, DerangementsMenageFibonacci) {
  Integer derange = 1;            // D_0
  Integer fib_a = 1, fib_b = 1;   // F(1), F(2)
  for (int n = 1; n <= 16; ++n) {
    derange = n * derange + (n % 2 ? -1 : 1);  // D_n = n D_{n-1} + (-1)^n
    // Menage numbers: U_n = sum_k (-1)^k 2n/(2n-k) C(2n-k, k) (n-k)!.
    Integer menage = 0;
    for (int k = 0; k <= n; ++k) {
      Integer c;
      mpz_bin_uiui(c.get_mpz_t(), static_cast<unsigned long>(2 * n - k), static_cast<unsigned long>(k));
      Integer term = 2 * n * c * factorial(static_cast<unsigned long>(n - k)) / (2 * n - k);
      menage += k % 2 ? Integer(-term) : term;
    }
    auto der = from_dense(n, [](int i, int j) { return i != j; });
    auto men = from_dense(n, [n](int i, int j) { return i != j && j != (i + 1) % n; });
    auto tri = from_dense(n, [](int i, int j) { return std::abs(i - j) <= 1; });
    for (const auto& name : test::square_engines()) {
      if (name == "brute" && n > 10) continue;
      auto e = make_engine(name);
      // Kasteleyn counts planar graphs only (J - I is planar up to n = 4, the cube graph).
      auto planar = [&](const SparseMatrix<Integer>& a) {
        return name != "kasteleyn" || engines::planar_pattern(engines::pattern_of(a), a.rows);
      };
      if (planar(der)) {
        ASSERT_EQ(e->permanent(der, {}), derange) << name << " n " << n;
      } else {
        ASSERT_THROW(e->permanent(der, {}), RefusedError) << name << " n " << n;
      }
      if (n >= 3 && planar(men)) {
        ASSERT_EQ(e->permanent(men, {}), menage) << name << " n " << n;
      }
      ASSERT_EQ(e->permanent(tri, {}), fib_b) << name << " n " << n;
    }
    Integer next = fib_a + fib_b;
    fib_a = fib_b, fib_b = next;
  }
}

TEST(EngineThreads, ResultsDoNotDependOnThreadCount) {
  std::mt19937_64 rng(6);
  auto dense = test::random_real(rng, 20, 1.0, -1, 1);
  auto sparse = test::random_real(rng, 22, 0.2, -1, 1);
  auto cplx = test::random_complex(rng, 18, 0.6);
  auto exact = test::random_integer(rng, 20, 0.4, -9, 9);
  for (const auto& name : kFast) {
    auto e = make_engine(name);
    const auto& real = name == "ryser" ? dense : sparse;
    auto r1 = e->permanent(real, threads(1)), r2 = e->permanent(real, threads(2));
    EXPECT_EQ(r1.value, r2.value) << name;
    EXPECT_EQ(r1.abs_error, r2.abs_error) << name;
    EXPECT_EQ(e->permanent(cplx, threads(1)).value, e->permanent(cplx, threads(2)).value) << name;
    EXPECT_EQ(e->permanent(exact, threads(1)), e->permanent(exact, threads(2))) << name;
  }
  auto small = test::random_real(rng, 11, 0.5, -1, 1);
  auto b = make_engine("brute");
  EXPECT_EQ(b->permanent(small, threads(1)).value, b->permanent(small, threads(2)).value);
}

TEST(EngineLarge, BeyondTwoTo128AndPerPrimeFallback) {
  // All ones n = 25 -> 25! (about 2^84) through the shared-row-sum path.
  EXPECT_EQ(make_engine("ryser")->permanent(from_dense(25, [](int, int) { return 1; }), {}), factorial(25));
  std::mt19937_64 rng(8);
  auto brute = make_engine("brute");
  // Entries ~1e6 (shared path, perm ~ 2^190) and ~1e15 (row sums >= 2^49: per-prime path).
  for (long mag : {1000000L, 1000000000000000L}) {
    auto a = test::random_integer(rng, 9, 0.9, -mag, mag);
    Integer want = brute->permanent(a, {});
    EXPECT_GT(abs(want), Integer(1) << 128);
    for (const auto& name : kFast) EXPECT_EQ(make_engine(name)->permanent(a, {}), want) << name << " " << mag;
  }
  auto a = test::random_integer(rng, 18, 0.5, -1000000, 1000000);
  Integer r = make_engine("ryser")->permanent(a, {});
  EXPECT_GT(abs(r), Integer(1) << 128);
  EXPECT_EQ(make_engine("skipper")->permanent(a, {}), r);
  auto big = test::random_integer(rng, 14, 0.5, -1000000000000000L, 1000000000000000L);
  EXPECT_EQ(make_engine("ryser")->permanent(big, {}), make_engine("sparyser")->permanent(big, {}));
}

TEST(EngineProgress, ReportsFractions) {
  auto a = from_dense(18, [](int i, int j) { return (i + j) % 3 != 0; });
  for (const auto& name : kFast) {
    double last = -1;
    int calls = 0;
    EngineOptions o;
    o.threads = 1;
    o.progress = [&](double f) { EXPECT_GE(f, last); last = f; ++calls; };
    make_engine(name)->permanent(a, o);
    EXPECT_GT(calls, 0) << name;
    EXPECT_DOUBLE_EQ(last, 1.0) << name;
  }
}

}  // namespace
}  // namespace matchcount

namespace matchcount {

TEST(EnginePlanner, PicksByPredictedTime) {
  // A 12 x 12 grid's biadjacency block (n = 72, colours alternate: u / 2 numbers each class)
  // has frontier width about 12 and is planar: the frontier DP and the Kasteleyn determinant
  // both take about a millisecond (docs/benchmarks.md), and either may win.
  const auto grid = grid_graph(12, 12);
  SparseMatrix<Integer> g;
  g.rows = g.cols = 72;
  for (const auto& [u, v] : grid.edges) {
    const int black = (u / 12 + u % 12) % 2 == 0 ? u : v, white = black == u ? v : u;
    g.entries.push_back({black / 2, white / 2, Integer(1)});
  }
  g.normalize();
  const EnginePlan pg = plan_engine(g, DevicePolicy::Cpu, 2);
  EXPECT_TRUE(pg.engine == "frontier" || pg.engine == "kasteleyn") << pg.engine;
  EXPECT_GE(pg.frontier_width, 6);
  EXPECT_LE(pg.frontier_width, 14);
  // Every engine considered is listed with its prediction, the chosen one the least.
  bool frontier = false, kasteleyn = false;
  for (const auto& [name, seconds] : pg.candidates) {
    EXPECT_GE(seconds, pg.predicted_seconds) << name;
    frontier = frontier || name == "frontier";
    kasteleyn = kasteleyn || name == "kasteleyn";
  }
  EXPECT_TRUE(frontier);
  // Planarity is tested (and Kasteleyn listed) only where its band estimate could beat the
  // others (catalog/planar_gate.hpp).
  EXPECT_TRUE(kasteleyn || pg.engine == "frontier");
  // A dense block has width n - 1: Ryser.
  std::mt19937_64 rng(4);
  EXPECT_EQ(plan_engine(test::random_integer(rng, 20, 0.8, 1, 1), DevicePolicy::Cpu, 2).engine, "ryser");
  // Rows i and i + 5 are equal: 5 row classes of 4, 5^5 terms of Glynn's sum over classes.
  const auto periodic = from_dense(20, [](int i, int j) { return (i * 7 + j * 3) % 5 != 0 ? 1 : 0; });
  EXPECT_EQ(plan_engine(periodic, DevicePolicy::Cpu, 2).engine, "repeated");
  // Small blocks are not planned.
  EXPECT_EQ(plan_engine(from_dense(8, [](int, int) { return 1; }), DevicePolicy::Cpu, 2).frontier_width, -1);
}

// The planner check of docs/benchmarks.md, as choices rather than timings: the 16 x 16 grid
// belongs to Kasteleyn, which beats the frontier DP there by an order of magnitude; a non-planar
// banded block belongs to the frontier DP, a dense n = 20 block to Ryser, a sparse n = 30
// block of width about 20 to SkipPer or the frontier DP, not to dense Ryser.
TEST(EnginePlanner, ChoicesOfThePlannerCheck) {
  for (int threads : {1, 2}) {
    const auto g16 = biadjacency(grid_graph(16, 16));
    EXPECT_EQ(plan_engine(g16, DevicePolicy::Cpu, threads).engine, "kasteleyn");
    EXPECT_EQ(plan_engine(convert<double>(g16, [](const Integer& v) { return 0.75 * v.get_d(); }), DevicePolicy::Cpu,
                          threads).engine, "kasteleyn");
    // Band |i - j| <= 4 with 9 entries a row: too many edges to be planar, width 8.
    const EnginePlan band = plan_engine(band_matrix(60, 4), DevicePolicy::Cpu, threads);
    EXPECT_EQ(band.engine, "frontier");
    EXPECT_LE(band.frontier_width, 10);
    // The torus is not planar: the frontier DP (n = 50 is beyond Ryser).
    EXPECT_EQ(plan_engine(biadjacency(torus_graph(10, 10)), DevicePolicy::Cpu, threads).engine, "frontier");
    std::mt19937_64 rng(7);
    EXPECT_EQ(plan_engine(test::random_integer(rng, 20, 0.9, 1, 1), DevicePolicy::Cpu, threads).engine, "ryser");
    EXPECT_EQ(plan_engine(random_real_matrix(22, 1.0, -1.0, 1.0, 3), DevicePolicy::Cpu, threads).engine, "ryser");
  }
}

}  // namespace matchcount
