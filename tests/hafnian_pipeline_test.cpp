// count_hafnian, the general-graph path: preprocessing (Edmonds, edges in no perfect matching,
// components, reductions, bipartite blocks) and the engines behind it, against the naive
// hafnian on random structured graphs of every number kind, with and without loops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "catalog/catalog.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount {
namespace {

template <class T>
void add_edge(SparseMatrix<T>& a, int u, int v, const T& w) {
  a.entries.push_back({u, v, w});
  if (u != v) a.entries.push_back({v, u, w});
}

/// A random graph with structure the preprocessing must handle: a few dense or sparse parts,
/// pendant vertices, paths of degree-2 vertices and bridges between parts; weights from `draw`.
template <class T, class Draw>
SparseMatrix<T> structured_graph(std::mt19937_64& rng, int n, bool loops, Draw draw) {
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  std::uniform_real_distribution<double> u(0, 1);
  const double p = 0.15 + 0.6 * u(rng);
  const int parts = 1 + static_cast<int>(rng() % 3);
  std::vector<int> part(static_cast<std::size_t>(n));
  for (auto& x : part) x = static_cast<int>(rng() % static_cast<unsigned>(parts));
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const bool same = part[static_cast<std::size_t>(i)] == part[static_cast<std::size_t>(j)];
      if (u(rng) < (same ? p : 0.04)) add_edge(a, i, j, draw());
    }
  if (n >= 3 && rng() % 2) {  // a path through fresh degree-2 structure: i - j - k
    const int i = static_cast<int>(rng() % n), j = static_cast<int>(rng() % n), k = static_cast<int>(rng() % n);
    if (i != j && j != k && i != k) add_edge(a, i, j, draw()), add_edge(a, j, k, draw());
  }
  if (loops)
    for (int i = 0; i < n; ++i)
      if (u(rng) < 0.4) add_edge(a, i, i, draw());
  a.normalize();
  return a;
}

CountOptions quiet() {
  CountOptions o;
  o.threads = 2;
  return o;
}

TEST(HafnianPipeline, IntegerGraphsAgainstTheOracle) {
  std::mt19937_64 rng(101);
  int nonzero = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 14);
    const bool loops = trial % 3 == 0;
    const bool signed_weights = trial % 4 == 1;
    const auto a = structured_graph<Integer>(rng, n, loops, [&] {
      return signed_weights ? Integer(static_cast<long>(rng() % 7) - 3) : Integer(1);
    });
    const Integer want = test::naive_hafnian(a, loops);
    const CountReport r = count_hafnian(AnyMatrix(a), loops, quiet());
    ASSERT_EQ(std::get<Integer>(r.value.value), want) << "trial " << trial << " n " << n << " loops " << loops;
    nonzero += want != 0;
  }
  EXPECT_GT(nonzero, 50);  // the structured graphs are not all trivially zero
}

TEST(HafnianPipeline, RealComplexAndRationalAgainstTheOracle) {
  std::mt19937_64 rng(202);
  std::uniform_real_distribution<double> w(-1, 1);
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 12);
    const bool loops = trial % 2 == 0;
    const auto re = structured_graph<double>(rng, n, loops, [&] { return w(rng); });
    const double want = test::naive_hafnian(re, loops);
    const CountReport r = count_hafnian(AnyMatrix(re), loops, quiet());
    const double got = std::get<double>(r.value.value);
    EXPECT_LE(std::fabs(got - want), r.value.abs_error + 1e-14) << "trial " << trial;
    EXPECT_LE(r.value.abs_error, 1e-9 + 1e-9 * std::fabs(want)) << "trial " << trial;

    const auto cx = structured_graph<Complex>(rng, n, loops, [&] { return Complex(w(rng), w(rng)); });
    const Complex cwant = test::naive_hafnian(cx, loops);
    const CountReport rc = count_hafnian(AnyMatrix(cx), loops, quiet());
    EXPECT_LE(std::abs(std::get<Complex>(rc.value.value) - cwant), rc.value.abs_error + 1e-14) << "trial " << trial;

    const auto q = structured_graph<Rational>(rng, n, loops, [&] {
      return Rational(static_cast<long>(rng() % 9) - 4, 1 + static_cast<long>(rng() % 6));
    });
    const CountReport rq = count_hafnian(AnyMatrix(q), loops, quiet());
    Rational qwant = test::naive_hafnian(q, loops);
    qwant.canonicalize();
    EXPECT_EQ(std::get<Rational>(rq.value.value), qwant) << "trial " << trial;
  }
}

TEST(HafnianPipeline, EveryGraphEngineCountsTheSame) {
  std::mt19937_64 rng(303);
  for (const auto& row : catalog::rows()) {
    if (row.shape != catalog::Shape::Symmetric) continue;
    for (int trial = 0; trial < 30; ++trial) {
      const int n = 2 * (1 + static_cast<int>(rng() % 6));
      const bool loops = row.loops && trial % 2 == 0;
      const auto a = structured_graph<Integer>(rng, n, loops, [&] { return Integer(1 + static_cast<long>(rng() % 3)); });
      CountOptions o = quiet();
      o.engine = row.name;
      try {
        const CountReport r = count_hafnian(AnyMatrix(a), loops, o);
        EXPECT_EQ(std::get<Integer>(r.value.value), test::naive_hafnian(a, loops)) << row.name << " trial " << trial;
      } catch (const RefusedError&) {
        EXPECT_STREQ(row.name, "pfaffian");  // a non-planar block; the others take every block
      }
    }
  }
}

TEST(HafnianPipeline, NoPerfectMatchingGivesZeroWithAWitness) {
  // Two triangles joined at a vertex: 5 vertices; and a star K_{1,3} plus an edge: even but no
  // perfect matching (removing the centre leaves three odd components).
  SparseMatrix<Integer> star;
  star.rows = star.cols = 6;
  for (int leaf : {1, 2, 3}) add_edge(star, 0, leaf, Integer(1));
  add_edge(star, 4, 5, Integer(1));
  star.normalize();
  const CountReport r = count_hafnian(AnyMatrix(star), false, quiet());
  EXPECT_EQ(std::get<Integer>(r.value.value), 0);
  EXPECT_NE(r.graph.witness.find("odd components"), std::string::npos) << r.graph.witness;
  EXPECT_LT(r.matching_size, 3);
  // With loops on the leaves the loop hafnian is not 0: 3 ways to pick the leaf matched to the
  // centre, the other two covered by their loops, times the edge 4-5.
  for (int leaf : {1, 2, 3}) add_edge(star, leaf, leaf, Integer(1));
  star.normalize();
  EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(star), true, quiet()).value.value), 3);
}

TEST(HafnianPipeline, StructureIsFoundAndReported) {
  // A triangle with a pendant edge at each corner: the pendants are forced, so the triangle's
  // edges lie in no perfect matching; count 1.
  SparseMatrix<Integer> sun;
  sun.rows = sun.cols = 6;
  add_edge(sun, 0, 1, Integer(1)), add_edge(sun, 1, 2, Integer(1)), add_edge(sun, 2, 0, Integer(1));
  add_edge(sun, 0, 3, Integer(2)), add_edge(sun, 1, 4, Integer(3)), add_edge(sun, 2, 5, Integer(5));
  sun.normalize();
  CountReport r = count_hafnian(AnyMatrix(sun), false, quiet());
  EXPECT_EQ(std::get<Integer>(r.value.value), 30);
  EXPECT_EQ(r.graph.dead_edges, 3u);
  EXPECT_EQ(r.graph.components, 3);
  // A 6-cycle with a chord making a triangle (0-1-2) plus a square: not bipartite; the path
  // 3-4-5 folds.
  SparseMatrix<Integer> c;
  c.rows = c.cols = 6;
  for (int i = 0; i < 6; ++i) add_edge(c, i, (i + 1) % 6, Integer(1));
  add_edge(c, 0, 2, Integer(1));
  c.normalize();
  r = count_hafnian(AnyMatrix(c), false, quiet());
  EXPECT_EQ(std::get<Integer>(r.value.value), test::naive_hafnian(c));
  EXPECT_GT(r.graph.forced + r.graph.folded, 0);
  // A bipartite component goes to the permanent path.
  SparseMatrix<Integer> mixed;
  mixed.rows = mixed.cols = 8;
  add_edge(mixed, 0, 1, Integer(1)), add_edge(mixed, 1, 2, Integer(1)), add_edge(mixed, 2, 0, Integer(1));
  add_edge(mixed, 2, 3, Integer(1));
  for (int i = 4; i < 8; ++i) add_edge(mixed, i, 4 + (i - 3) % 4, Integer(1));
  mixed.normalize();
  r = count_hafnian(AnyMatrix(mixed), false, quiet());
  EXPECT_EQ(std::get<Integer>(r.value.value), 2);  // the triangle's one matching times the 4-cycle's two
  EXPECT_EQ(std::get<Integer>(r.value.value), test::naive_hafnian(mixed));
}

TEST(HafnianPipeline, KnownValues) {
  // K_{2m}: (2m-1)!!, through the dense engine (no structure to remove).
  for (int m = 1; m <= 9; ++m) {
    SparseMatrix<Integer> k;
    k.rows = k.cols = 2 * m;
    for (int i = 0; i < 2 * m; ++i)
      for (int j = 0; j < 2 * m; ++j)
        if (i != j) k.entries.push_back({i, j, Integer(1)});
    Integer want = 1;
    for (int f = 2 * m - 1; f > 1; f -= 2) want *= f;
    EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(k), false, quiet()).value.value), want) << "K_" << 2 * m;
  }
  // The all-ones 8 x 8 matrix with one entry 10^6 (and its mirror): thewalrus issue 369.
  SparseMatrix<Integer> big;
  big.rows = big.cols = 8;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      if (i != j) big.entries.push_back({i, j, (i == 0 && j == 1) || (i == 1 && j == 0) ? Integer(1000000) : Integer(1)});
  EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(big), false, quiet()).value.value), 15000090);
  // The diagonal is ignored without loops and counted with them: lhaf(J_3) = 4.
  SparseMatrix<Integer> j3;
  j3.rows = j3.cols = 3;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) j3.entries.push_back({i, j, Integer(1)});
  EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(j3), true, quiet()).value.value), 4);
  const CountReport plain = count_hafnian(AnyMatrix(j3), false, quiet());
  EXPECT_EQ(std::get<Integer>(plain.value.value), 0);
  ASSERT_FALSE(plain.notes.empty());
  EXPECT_NE(plain.notes[0].find("diagonal (3 entries) is ignored"), std::string::npos) << plain.notes[0];
}

TEST(HafnianPipeline, RejectsMatricesThatAreNotSymmetric) {
  SparseMatrix<Integer> a;
  a.rows = a.cols = 2;
  a.entries = {{0, 1, Integer(1)}, {1, 0, Integer(2)}};
  EXPECT_THROW(count_hafnian(AnyMatrix(a), false, quiet()), std::invalid_argument);
  a.rows = 3;
  EXPECT_THROW(count_hafnian(AnyMatrix(a), false, quiet()), std::invalid_argument);
}

TEST(HafnianPipeline, ExplainPlansWithoutCounting) {
  SparseMatrix<Integer> k;
  k.rows = k.cols = 20;
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 20; ++j)
      if (i != j && (i + j) % 3 != 0) k.entries.push_back({i, j, Integer(1)});
  CountOptions o = quiet();
  o.explain = true;
  const CountReport r = count_hafnian(AnyMatrix(k), false, o);
  EXPECT_TRUE(r.explained);
  ASSERT_EQ(r.engine_runs.size(), 1u);
  EXPECT_EQ(r.engine_runs[0].n, 20);
  EXPECT_GT(r.engine_runs[0].predicted_seconds, 0);
}

}  // namespace
}  // namespace matchcount
