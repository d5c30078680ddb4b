// The graph frontier (path-width DP) engine against the naive hafnian and on known families.
// The test graphs are built here.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "test_support.hpp"
#include "engines/common.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/error.hpp"

namespace matchcount {
namespace {

using engines::make_graph_frontier;
using Edges = std::vector<std::pair<int, int>>;

using test::threads;

/// The symmetric matrix of a graph (each edge once in `edges`) with the value value(u, v).
template <class T = Integer>
SparseMatrix<T> graph(int n, const Edges& edges, const std::function<T(int, int)>& value = [](int, int) { return T(1); }) {
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  for (auto [u, v] : edges) {
    T x = value(u, v);
    a.entries.push_back({u, v, x});
    if (u != v) a.entries.push_back({v, u, x});
  }
  a.normalize();
  return a;
}

/// Grid r x c (vertex i*c + j); king graphs add both diagonals; `periodic` wraps the columns.
Edges lattice(int r, int c, bool king, bool periodic = false, bool triangular = false) {
  std::set<std::pair<int, int>> s;
  auto add = [&](int i, int j, int i2, int j2) {
    if (periodic) j2 = (j2 + c) % c;
    if (i2 < 0 || i2 >= r || j2 < 0 || j2 >= c) return;
    int u = i * c + j, v = i2 * c + j2;
    if (u != v) s.insert({std::min(u, v), std::max(u, v)});
  };
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) {
      add(i, j, i, j + 1), add(i, j, i + 1, j);
      if (king || triangular) add(i, j, i + 1, j + 1);
      if (king) add(i, j, i + 1, j - 1);
    }
  return {s.begin(), s.end()};
}

Edges complete(int n) {
  Edges e;
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v) e.emplace_back(u, v);
  return e;
}

/// A random d-regular simple graph (configuration model, retried until simple).
Edges random_regular(std::mt19937_64& rng, int n, int d) {
  for (;;) {
    std::vector<int> stubs;
    for (int v = 0; v < n; ++v)
      for (int k = 0; k < d; ++k) stubs.push_back(v);
    std::shuffle(stubs.begin(), stubs.end(), rng);
    std::set<std::pair<int, int>> s;
    bool ok = true;
    for (std::size_t i = 0; ok && i < stubs.size(); i += 2) {
      int u = std::min(stubs[i], stubs[i + 1]), v = std::max(stubs[i], stubs[i + 1]);
      ok = u != v && s.insert({u, v}).second;
    }
    if (ok) return {s.begin(), s.end()};
  }
}

/// A random graph on n vertices: each pair an edge with probability p (loops with probability
/// `loop_p`).
Edges random_graph(std::mt19937_64& rng, int n, double p, double loop_p) {
  std::uniform_real_distribution<double> u(0, 1);
  Edges e;
  for (int i = 0; i < n; ++i) {
    if (u(rng) < loop_p) e.emplace_back(i, i);
    for (int j = i + 1; j < n; ++j)
      if (u(rng) < p) e.emplace_back(i, j);
  }
  return e;
}

Integer hafnian(const SparseMatrix<Integer>& a, bool loops = false, const EngineOptions& o = {}) {
  return make_graph_frontier()->hafnian(a, loops, o);
}

TEST(GraphFrontierOracle, RandomIntegerGraphs) {
  std::mt19937_64 rng(11);
  auto f = make_graph_frontier();
  for (int it = 0; it < 300; ++it) {
    const bool loops = it % 3 == 0;
    const int n = loops ? 1 + int(rng() % 14) : 2 * (1 + int(rng() % 7));
    const double p = 0.15 + 0.6 * double(rng() % 100) / 100;
    const Edges e = random_graph(rng, n, p, loops ? 0.5 : 0.0);
    const int kind = it % 4;  // 0-1, small signed integers that cancel, large, a constant
    std::uniform_int_distribution<long> small(-3, 3), large(-1000000000000L, 1000000000000L);
    auto a = graph<Integer>(n, e, [&](int, int) {
      long v = kind == 1 ? small(rng) : kind == 2 ? large(rng) : kind == 3 ? 2 : 1;
      return Integer(v == 0 ? 1 : v);
    });
    EXPECT_EQ(f->hafnian(a, loops, threads(1 + it % 2)), test::naive_hafnian(a, loops)) << it << " n=" << n;
  }
}

TEST(GraphFrontierOracle, RandomRealAndComplex) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  auto f = make_graph_frontier();
  auto absolute = [](const auto& a) { return convert<double>(a, [](const auto& v) { return double(std::abs(v)); }); };
  for (int it = 0; it < 200; ++it) {
    const bool loops = it % 2 == 0;
    const int n = loops ? 1 + int(rng() % 13) : 2 * (1 + int(rng() % 6));
    const Edges e = random_graph(rng, n, 0.2 + 0.6 * double(rng() % 100) / 100, loops ? 0.6 : 0.0);
    const int scale = it % 3 == 0 ? 80 : it % 3 == 1 ? -80 : 0;  // far from 1: the DP scales
    if (it % 4 < 2) {
      auto a = graph<double>(n, e, [&](int, int) { return std::ldexp(u(rng), scale); });
      auto got = f->hafnian(a, loops, {});
      const double want = test::naive_hafnian(a, loops), bound = test::naive_hafnian(absolute(a), loops);
      EXPECT_LE(std::abs(got.value - want), got.abs_error + 1e-13 * bound) << it;
      EXPECT_LE(got.abs_error, 1e-12 * bound) << it;
    } else {
      auto a = graph<Complex>(n, e, [&](int, int) { return std::ldexp(1.0, scale) * Complex(u(rng), u(rng)); });
      auto got = f->hafnian(a, loops, {});
      const Complex want = test::naive_hafnian(a, loops);
      const double bound = test::naive_hafnian(absolute(a), loops);
      EXPECT_LE(std::abs(got.value - want), got.abs_error + 1e-13 * bound) << it;
      EXPECT_LE(got.abs_error, 1e-12 * bound) << it;
    }
  }
}

TEST(GraphFrontierOracle, IntegralFloatsAreExact) {
  std::mt19937_64 rng(13);
  auto f = make_graph_frontier();
  for (int it = 0; it < 40; ++it) {
    const bool loops = it % 2 == 1;
    const int n = 2 + 2 * int(rng() % 6);
    auto ai = graph<Integer>(n, random_graph(rng, n, 0.5, loops ? 0.5 : 0), [&](int, int) { long v = long(rng() % 7) - 3; return Integer(v == 0 ? 1 : v); });
    auto ad = convert<double>(ai, [](const Integer& v) { return v.get_d(); });
    auto got = f->hafnian(ad, loops, {});
    EXPECT_EQ(got.abs_error, 0.0) << it;
    EXPECT_EQ(got.value, test::naive_hafnian(ai, loops).get_d()) << it;
  }
}

TEST(GraphFrontierOracle, KingTriangularAndRegular) {
  for (auto [r, c] : {std::pair{2, 7}, {3, 4}, {4, 4}, {3, 5}, {2, 6}}) {
    auto k = graph(r * c, lattice(r, c, true));
    EXPECT_EQ(hafnian(k), test::naive_hafnian(k)) << "king " << r << "x" << c;
    auto t = graph(r * c, lattice(r, c, false, true, true));
    EXPECT_EQ(hafnian(t), test::naive_hafnian(t)) << "periodic triangular " << r << "x" << c;
  }
  std::mt19937_64 rng(14);
  for (int it = 0; it < 10; ++it) {
    auto g = graph(14, random_regular(rng, 14, 3 + it % 2));
    EXPECT_EQ(hafnian(g), test::naive_hafnian(g)) << it;
  }
}

TEST(GraphFrontierOracle, OddLoopsBridgesAndComponents) {
  // Two triangles joined by a bridge (6), a triangle and a square (0: odd component).
  Edges bridge = {{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {4, 5}, {3, 5}};
  EXPECT_EQ(hafnian(graph(6, bridge)), 1);
  EXPECT_EQ(hafnian(graph(7, {{0, 1}, {1, 2}, {0, 2}, {3, 4}, {4, 5}, {5, 6}, {3, 6}})), 0);
  // Components: two 4-cycles and an edge (2 * 2 * 1), in scrambled numbering.
  EXPECT_EQ(hafnian(graph(10, {{0, 5}, {5, 2}, {2, 7}, {7, 0}, {1, 3}, {3, 9}, {9, 8}, {8, 1}, {4, 6}})), 4);
  // Odd n with loops: a path of 3 with loops 2, 3, 5 and edges 1: 2*3*5 + 5 + 2.
  const int loop_value[] = {2, 3, 5};
  auto p = graph<Integer>(3, {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}},
                          [&](int u, int v) { return Integer(u == v ? loop_value[u] : 1); });
  EXPECT_EQ(hafnian(p, true), 37);
  EXPECT_EQ(hafnian(p, false), 0);  // the diagonal is dropped and n is odd
  // A star with loops on the leaves only: the centre must take one leaf.
  auto star = graph(5, {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 1}, {2, 2}, {3, 3}, {4, 4}});
  EXPECT_EQ(hafnian(star, true), 4);
  // Random graphs of several components with bridges between some, against the oracle.
  std::mt19937_64 rng(15);
  for (int it = 0; it < 40; ++it) {
    const bool loops = it % 2 == 0;
    Edges e;
    int n = 0;
    for (int part = 0; part < 3; ++part) {
      const int m = 2 + int(rng() % 4);
      for (auto [u, v] : random_graph(rng, m, 0.6, loops ? 0.3 : 0)) e.emplace_back(n + u, n + v);
      if (part > 0 && rng() % 2) e.emplace_back(n - 1, n);  // a bridge to the previous part
      n += m;
    }
    auto a = graph(n, e);
    EXPECT_EQ(hafnian(a, loops), test::naive_hafnian(a, loops)) << it;
  }
}

TEST(GraphFrontierKnown, CompleteGraphs) {
  Integer dfact = 1;
  for (int m = 1; m <= 11; ++m) {
    dfact *= 2 * m - 1;
    EXPECT_EQ(hafnian(graph(2 * m, complete(2 * m))), dfact) << "K_" << 2 * m;
  }
}

TEST(GraphFrontierKnown, PlatonicAndPetersen) {
  Edges petersen;
  for (int i = 0; i < 5; ++i) petersen.insert(petersen.end(), {{i, (i + 1) % 5}, {i, i + 5}, {5 + i, 5 + (i + 2) % 5}});
  EXPECT_EQ(hafnian(graph(10, petersen)), 6);
  // Dodecahedron: outer 5-cycle, 10-cycle in the middle, inner 5-cycle.
  Edges dodeca;
  for (int i = 0; i < 5; ++i) dodeca.insert(dodeca.end(), {{i, (i + 1) % 5}, {i, 5 + 2 * i}, {15 + i, 15 + (i + 1) % 5}, {15 + i, 6 + 2 * i}});
  for (int i = 0; i < 10; ++i) dodeca.emplace_back(5 + i, 5 + (i + 1) % 10);
  EXPECT_EQ(hafnian(graph(20, dodeca)), 36);
  // Icosahedron: two poles, two 5-cycles in antiprism.
  Edges icosa;
  for (int i = 0; i < 5; ++i)
    icosa.insert(icosa.end(), {{0, 1 + i}, {1 + i, 1 + (i + 1) % 5}, {1 + i, 6 + i}, {1 + i, 6 + (i + 4) % 5}, {6 + i, 6 + (i + 1) % 5}, {11, 6 + i}});
  EXPECT_EQ(hafnian(graph(12, icosa)), 125);
}

TEST(GraphFrontierKnown, SquareGridsAndKingGraphs) {
  EXPECT_EQ(hafnian(graph(64, lattice(8, 8, false))), Integer("12988816"));
  EXPECT_EQ(hafnian(graph(100, lattice(10, 10, false)), false, threads(2)), Integer("258584046368"));
  // Floats agree with the exact count on a king graph.
  auto k = graph(48, lattice(6, 8, true));
  auto kd = convert<double>(k, [](const Integer& v) { return v.get_d(); });
  const Integer exact = hafnian(k);
  auto approx = make_graph_frontier()->hafnian(kd, false, {});
  EXPECT_EQ(approx.abs_error, 0.0);
  EXPECT_EQ(approx.value, exact.get_d());
  // The natural row-major order has frontier width c + 1 on a king graph, c on a grid; the
  // planner's order costs no more.
  for (bool king : {true, false}) {
    auto g = graph(400, lattice(20, 20, king));
    std::vector<std::vector<int>> adj(400);
    for (const auto& e : g.entries) adj[std::size_t(e.row)].push_back(e.col);
    std::vector<int> natural(400);
    std::iota(natural.begin(), natural.end(), 0);
    const auto row_major = engines::graph_frontier_profile(adj, natural);
    EXPECT_EQ(row_major.width, king ? 21 : 20);
    EXPECT_LE(engines::plan_graph_frontier(engines::pattern_of(g), 400).cost, row_major.cost);
  }
}

TEST(GraphFrontierRun, PassesThreadsAndMultipliers) {
  std::mt19937_64 rng(16);
  for (int it = 0; it < 12; ++it) {
    const bool loops = it % 2 == 0;
    const int n = 24 + int(rng() % 12);
    auto a = graph<Integer>(n, lattice(n / 6, 6, it % 3 == 0, it % 3 == 1, it % 3 == 2), [&](int, int) { return Integer(long(rng() % 2001) - 1000); });
    for (int i = 0; i < n; ++i) a.entries.push_back({i, i, Integer(long(rng() % 5) - 2)});
    a.normalize();
    const Integer want = engines::graph_frontier_hafnian(a, loops, threads(1), {});
    engines::GraphFrontierTuning one;
    one.max_primes_per_pass = 1;
    EXPECT_EQ(engines::graph_frontier_hafnian(a, loops, threads(2), one), want) << it;
    // The float DP of the same block brackets the exact count.
    auto ad = convert<double>(a, [](const Integer& v) { return v.get_d(); });
    auto f = make_graph_frontier()->hafnian(ad, loops, {});
    EXPECT_LE(std::abs(f.value - want.get_d()), f.abs_error + 1e-12 * std::abs(want.get_d())) << it;
  }
}

TEST(GraphFrontierRun, RefusesWideFrontiers) {
  EXPECT_THROW(hafnian(graph(70, complete(70))), RefusedError);  // width 69 > 63
  EXPECT_THROW(hafnian(graph(44, complete(44))), RefusedError);  // width 43: tables far over 8 GiB
  auto plan = engines::plan_graph_frontier(engines::pattern_of(graph(44, complete(44))), 44);
  EXPECT_EQ(plan.width, 43);
  EXPECT_GT(engines::graph_frontier_bytes(plan, 1), engines::kGraphFrontierMemoryLimit);
  EXPECT_TRUE(std::isfinite(engines::graph_frontier_seconds(plan, 44, 3, NumberKind::Integer, 2)));
}

TEST(GraphFrontierRun, NameAndProgress) {
  auto f = make_graph_frontier();
  EXPECT_EQ(f->name(), "graph-frontier");
  EXPECT_TRUE(f->loops());
  EXPECT_GE(f->max_n(), 1 << 20);
  EngineOptions o;
  double last = -1;
  bool monotone = true;
  o.progress = [&](double x) { monotone = monotone && x >= last, last = x; };
  EXPECT_EQ(f->hafnian(graph(36, lattice(6, 6, false)), false, o), 6728);
  EXPECT_TRUE(monotone);
  EXPECT_DOUBLE_EQ(last, 1.0);
}

}  // namespace
}  // namespace matchcount
