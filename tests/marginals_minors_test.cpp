// Edge probabilities from every minor at once (WhichMethod::Minors: the hafnian's by the reverse
// walk of haf_gradient.hpp, a bipartite graph's permanent's by permanent_minors.cpp): exactly
// the counts' fractions on hundreds of random graphs (general and bipartite; signed, rational
// and large weights), the frontier tables' on a dense 30-vertex graph and a dense 18 x 18
// bipartite one, forced and dead edges, the planner's choice, refusals and budgets, and the
// command line's listing of edges the way the file writes them.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/which.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using test::exact_value;

/// Random weights on a random pattern: a symmetric n x n matrix, or an n x n one (bipartite).
template <class T, class Draw>
SparseMatrix<T> random_minors_matrix(int n, bool symmetric, double p, std::mt19937_64& rng, Draw draw) {
  SparseMatrix<T> a{n, n, {}};
  std::bernoulli_distribution edge(p);
  for (int i = 0; i < n; ++i)
    for (int j = symmetric ? i + 1 : 0; j < n; ++j)
      if (edge(rng) || j == (i + 1) % n) {
        const T w = draw();
        a.entries.push_back({i, j, w});
        if (symmetric) a.entries.push_back({j, i, w});
      }
  a.normalize();
  return a;
}

void expect_same(const MarginalsReport& a, const MarginalsReport& b, const std::string& what) {
  ASSERT_EQ(a.edges.size(), b.edges.size()) << what;
  for (std::size_t k = 0; k < a.edges.size(); ++k) {
    EXPECT_EQ(a.edges[k].u, b.edges[k].u) << what;
    EXPECT_EQ(a.edges[k].v, b.edges[k].v) << what;
    EXPECT_EQ(exact_value(a.edges[k].p), exact_value(b.edges[k].p)) << what << " edge " << k;
  }
}

TEST(MarginalsMinors, ExactlyTheCountsFractionsOnRandomGraphs) {
  std::mt19937_64 rng(23);
  int compared = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const bool symmetric = trial % 3 != 0;
    const int n = symmetric ? 2 * (1 + static_cast<int>(rng() % 7)) : 1 + static_cast<int>(rng() % 7);
    const double p = 0.3 + 0.1 * static_cast<double>(rng() % 6);
    AnyMatrix m;
    switch (trial % 4) {
      case 0: m = random_minors_matrix<Integer>(n, symmetric, p, rng, [&] { return Integer(static_cast<long>(rng() % 7) - 3); }); break;
      case 1: m = random_minors_matrix<Integer>(n, symmetric, p, rng, [&] { return Integer(static_cast<long>(1 + rng() % 1000000007)); }); break;
      case 2: m = random_minors_matrix<Rational>(n, symmetric, p, rng, [&] { Rational r(Integer(static_cast<long>(1 + rng() % 9)), Integer(static_cast<long>(1 + rng() % 7))); r.canonicalize(); return r; }); break;
      default: m = random_minors_matrix<Integer>(n, symmetric, p, rng, [] { return Integer(1); }); break;
    }
    std::visit([](auto& a) { std::erase_if(a.entries, [](const auto& e) { return e.value == std::decay_t<decltype(e.value)>(0); }); }, m);
    const MatchingGraph g{m, symmetric};
    const std::string what = "trial " + std::to_string(trial);
    MarginalsReport counts;
    try {
      counts = edge_probabilities(g, {}, WhichMethod::Counts);
    } catch (const RefusedError&) {  // no perfect matching (or a total of 0): refused both ways
      EXPECT_THROW(edge_probabilities(g, {}, WhichMethod::Minors), RefusedError) << what;
      continue;
    }
    const MarginalsReport minors = edge_probabilities(g, {}, WhichMethod::Minors);
    expect_same(minors, counts, what);
    ASSERT_FALSE(minors.notes.empty());
    EXPECT_NE(minors.notes.back().find(symmetric ? "reverse walk" : "Glynn"), std::string::npos) << minors.notes.back();
    ++compared;
  }
  EXPECT_GT(compared, 150);
}

TEST(MarginalsMinors, DenseThirtyVerticesAgreeWithTheFrontierTables) {
  const SparseMatrix<Integer> a = adjacency_matrix(erdos_renyi_graph(30, 0.5, 1));
  const MatchingGraph g{AnyMatrix(a), true};
  const MarginalsReport chosen = edge_probabilities(g);  // the planner's choice
  ASSERT_FALSE(chosen.notes.empty());
  EXPECT_NE(chosen.notes.back().find("reverse walk"), std::string::npos) << chosen.notes.back();
  expect_same(chosen, edge_probabilities(g, {}, WhichMethod::Frontier), "gnp(30, 0.5)");
  std::vector<Rational> at_vertex(30, Rational(0));
  for (const auto& e : chosen.edges)
    for (int x : {e.u, e.v}) at_vertex[static_cast<std::size_t>(x)] += exact_value(e.p);
  for (const Rational& s : at_vertex) EXPECT_EQ(s, Rational(1));
  // A sparse graph of the same size keeps the tables (far cheaper there).
  const MarginalsReport ring = edge_probabilities(MatchingGraph{AnyMatrix(adjacency_matrix(prism_graph(15))), true});
  EXPECT_NE(ring.notes.back().find("frontier"), std::string::npos) << ring.notes.back();
}

TEST(MarginalsMinors, DenseBipartiteTakesThePermanentsMinors) {
  const SparseMatrix<Integer> a = erdos_renyi_bipartite(18, 0.6, 4);
  const MatchingGraph g{AnyMatrix(a), false};
  const MarginalsReport chosen = edge_probabilities(g);
  ASSERT_FALSE(chosen.notes.empty());
  EXPECT_NE(chosen.notes.back().find("Glynn"), std::string::npos) << chosen.notes.back();
  expect_same(chosen, edge_probabilities(g, {}, WhichMethod::Frontier), "er(18, 0.6)");
  std::vector<Rational> rows(18, Rational(0)), cols(18, Rational(0));
  for (const auto& e : chosen.edges) {
    rows[static_cast<std::size_t>(e.u)] += exact_value(e.p);
    cols[static_cast<std::size_t>(e.v)] += exact_value(e.p);
  }
  for (std::size_t k = 0; k < 18; ++k) {
    EXPECT_EQ(rows[k], Rational(1));
    EXPECT_EQ(cols[k], Rational(1));
  }
}

TEST(MarginalsMinors, ForcedAndDeadEdgesAreExact) {
  // A pendant edge 0-1 hangs on K_4 (2..5) by the edge 1-2: 0-1 is in every perfect matching,
  // 1-2 in none.
  SparseMatrix<Integer> a{6, 6, {}};
  auto edge = [&](int u, int v) { a.entries.push_back({u, v, Integer(1)}), a.entries.push_back({v, u, Integer(1)}); };
  edge(0, 1), edge(1, 2);
  for (int u = 2; u < 6; ++u)
    for (int v = u + 1; v < 6; ++v) edge(u, v);
  a.normalize();
  const MarginalsReport r = edge_probabilities(MatchingGraph{AnyMatrix(a), true}, {}, WhichMethod::Minors);
  for (const auto& e : r.edges) {
    if (e.u == 0) EXPECT_EQ(exact_value(e.p), Rational(1));
    else if (e.u == 1) EXPECT_EQ(exact_value(e.p), Rational(0));
    else EXPECT_EQ(exact_value(e.p), Rational(1, 3));
  }
}

TEST(MarginalsMinors, RefusalsStopsAndBudgets) {
  const SparseMatrix<Integer> a = adjacency_matrix(erdos_renyi_graph(34, 0.6, 2));
  const MatchingGraph g{AnyMatrix(a), true};
  SparseMatrix<double> real{2, 2, {{0, 1, 0.5}, {1, 0, 0.5}}};
  EXPECT_THROW(edge_probabilities(MatchingGraph{AnyMatrix(real), true}, {}, WhichMethod::Minors), RefusedError);
  EXPECT_THROW(edge_probabilities(MatchingGraph{AnyMatrix(adjacency_matrix(grid_graph(6, 14))), true}, {}, WhichMethod::Minors),
               RefusedError);  // 84 vertices, beyond the hafnian minors
  SampleOptions so;
  so.method = WhichMethod::Minors;
  EXPECT_THROW(sample_perfect_matchings(g, so), UsageError);
  EXPECT_THROW(edge_probabilities(g, {}, WhichMethod::Minors, [] { return true; }), Interrupted);
  CountOptions capped;
  capped.max_seconds = 1e-6;  // refused on its prediction, before any work
  EXPECT_THROW(edge_probabilities(g, capped, WhichMethod::Minors), BudgetError);
}

TEST(MarginalsMinors, CommandLineListsEdgesAsTheFileWritesThem) {
  // Bipartite (a 4-cycle of numbers, some lines column first) and general (a triangle on a path).
  const std::string square = test::temp_file("3 1\n1 2\n2 4\n4 3\n", ".edges");
  const auto s = test::run_matchcount("--marginals --as graph '" + square + "'");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out, "3 1 1/2\n1 2 1/2\n2 4 1/2\n4 3 1/2\n");
  const std::string tri = test::temp_file("b a\nc a\nb c\nd c\ne d\nf e\nf d\n", ".edges");
  const auto t = test::run_matchcount("--marginals --json --as graph '" + tri + "'");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find(R"({"u":"b","v":"a","p":"1"},{"u":"c","v":"a","p":"0"})"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(R"({"u":"f","v":"d","p":"0"}])"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace matchcount
