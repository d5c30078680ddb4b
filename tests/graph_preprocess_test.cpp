// Preprocessing of general graphs: Edmonds matching and its Tutte witness, the edges in no
// perfect matching, components and the hafnian-keeping reductions, against brute force.
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "hafnian_oracle.hpp"
#include "matchcount/graph_matching.hpp"

using namespace matchcount;
using test::naive_hafnian;

namespace {

using Edge = std::pair<int, int>;

template <class T>
SparseMatrix<T> symmetric_from_entries(int n, const std::vector<std::tuple<int, int, T>>& entries) {
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  for (const auto& [i, j, v] : entries) {
    a.entries.push_back({i, j, v});
    if (i != j) a.entries.push_back({j, i, v});
  }
  a.normalize();
  return a;
}

SparseMatrix<Integer> unit_graph(int n, const std::vector<Edge>& edges) {
  std::vector<std::tuple<int, int, Integer>> entries;
  for (const auto& [i, j] : edges) entries.emplace_back(i, j, Integer(1));
  return symmetric_from_entries(n, entries);
}

/// Random symmetric matrix: each edge with probability `density`, each loop with probability
/// `loop_density`, weights drawn by `draw`.
template <class T, class Draw>
SparseMatrix<T> random_symmetric_of(std::mt19937_64& rng, int n, double density, double loop_density, Draw draw) {
  std::bernoulli_distribution edge(density), loop(loop_density);
  std::vector<std::tuple<int, int, T>> entries;
  for (int i = 0; i < n; ++i) {
    if (loop(rng)) entries.emplace_back(i, i, draw());
    for (int j = i + 1; j < n; ++j)
      if (edge(rng)) entries.emplace_back(i, j, draw());
  }
  return symmetric_from_entries(n, entries);
}

/// Random unit-weight graph; with `plant_matching`, a random perfect matching is added (n even).
SparseMatrix<Integer> random_graph_matrix(std::mt19937_64& rng, int n, double density, bool plant_matching) {
  auto a = random_symmetric_of<Integer>(rng, n, density, 0.0, [] { return Integer(1); });
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int i = 0; plant_matching && i + 1 < n; i += 2)
    a.entries.push_back({order[i], order[i + 1], 1}), a.entries.push_back({order[i + 1], order[i], 1});
  a.normalize();
  for (auto& e : a.entries) e.value = 1;  // a planted edge may have doubled an entry
  return a;
}

bool adjacent(const GraphPattern& g, int u, int v) {
  return std::binary_search(g.adj[u].begin(), g.adj[u].end(), v);
}

/// Maximum matching size by expansion on the lowest vertex, memoised on the set still free.
int brute_matching_size(const GraphPattern& g) {
  std::vector<int> memo(std::size_t{1} << g.n, -1);
  auto best = [&](auto& self, unsigned free) -> int {
    if (free == 0) return 0;
    int& m = memo[free];
    if (m >= 0) return m;
    const int v = std::countr_zero(free);
    const unsigned rest = free & ~(1u << v);
    m = self(self, rest);
    for (int w : g.adj[v])
      if (rest >> w & 1) m = std::max(m, 1 + self(self, rest & ~(1u << w)));
    return m;
  };
  return best(best, (1u << g.n) - 1);
}

/// The edges (u < v) in no perfect matching, by enumerating every perfect matching.
std::set<Edge> brute_dead_edges(const GraphPattern& g) {
  std::set<Edge> dead, current;
  for (int u = 0; u < g.n; ++u)
    for (int v : g.adj[u])
      if (u < v) dead.insert({u, v});
  auto rec = [&](auto& self, unsigned free) -> void {
    if (free == 0) {
      for (const auto& e : current) dead.erase(e);
      return;
    }
    const int v = std::countr_zero(free);
    for (int w : g.adj[v])
      if (free >> w & 1) {
        current.insert({v, w});  // v is the lowest free vertex, so v < w
        self(self, free & ~(1u << v) & ~(1u << w));
        current.erase({v, w});
      }
  };
  rec(rec, (1u << g.n) - 1);
  return dead;
}

void expect_valid_matching(const GraphPattern& g, const GraphMatching& m) {
  ASSERT_EQ(static_cast<int>(m.mate.size()), g.n);
  for (int v = 0; v < g.n; ++v)
    ASSERT_TRUE(m.mate[v] < 0 || (m.mate[m.mate[v]] == v && adjacent(g, v, m.mate[v]))) << v;
  ASSERT_EQ(g.n - std::count(m.mate.begin(), m.mate.end(), -1), 2 * m.size);
}

/// Sizes of the components of g without the vertices in `removed` (an independent search).
std::vector<int> component_sizes(const GraphPattern& g, const std::vector<int>& removed) {
  std::vector<char> seen(static_cast<std::size_t>(g.n), 0);
  for (int v : removed) seen[v] = 1;
  std::vector<int> sizes;
  for (int s = 0; s < g.n; ++s) {
    if (seen[s]) continue;
    std::vector<int> stack{s};
    seen[s] = 1;
    sizes.push_back(0);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      ++sizes.back();
      for (int w : g.adj[v])
        if (!seen[w]) seen[w] = 1, stack.push_back(w);
    }
  }
  return sizes;
}

/// Recounts the odd components of G - barrier.
void expect_valid_witness(const GraphPattern& g, const GraphMatching& m) {
  if (m.perfect()) {
    EXPECT_TRUE(m.barrier.empty());
    return;
  }
  int odd = 0;
  for (int size : component_sizes(g, m.barrier)) odd += size & 1;
  EXPECT_EQ(odd, m.odd_components);
  EXPECT_GT(m.odd_components, static_cast<int>(m.barrier.size()));
  // Tutte-Berge: the witness is tight for a maximum matching.
  EXPECT_EQ(g.n - 2 * m.size, m.odd_components - static_cast<int>(m.barrier.size()));
}

/// Boost's maximum matching size of g without the vertices a and b: an oracle for graphs too
/// large to enumerate.
int boost_matching_size(const GraphPattern& g, int a = -1, int b = -1) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph bg(static_cast<std::size_t>(g.n));
  for (int v = 0; v < g.n; ++v)
    for (int w : g.adj[v])
      if (v < w && v != a && v != b && w != a && w != b) boost::add_edge(static_cast<std::size_t>(v), static_cast<std::size_t>(w), bg);
  std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(static_cast<std::size_t>(g.n));
  boost::edmonds_maximum_cardinality_matching(bg, mate.data());
  return static_cast<int>(boost::matching_size(bg, mate.data()));
}

std::set<Edge> as_set(const DeadEdges& d) { return {d.edges.begin(), d.edges.end()}; }

/// haf(a) = factor * haf(rest) for the given reduction, compared by `near`.
template <class T, class Near>
void expect_keeps_hafnian(const SparseMatrix<T>& a, bool loops, Near near) {
  const GraphReduced<T> r = reduce_graph(a, loops);
  const T expected = naive_hafnian(a, loops);
  const T got = r.zero ? T(0) : T(r.factor * naive_hafnian(r.rest, loops));
  ASSERT_TRUE(near(expected, got)) << "n=" << a.rows << " loops=" << loops << " rest n=" << r.rest.rows;
  ASSERT_EQ(r.rest.rows, r.rest.cols);
  for (const auto& e : r.rest.entries) ASSERT_TRUE(loops || e.row != e.col);
}

SparseMatrix<Integer> petersen() {
  std::vector<Edge> edges;
  for (int i = 0; i < 5; ++i) {
    edges.push_back({i, (i + 1) % 5});          // outer cycle
    edges.push_back({i, i + 5});                // spokes
    edges.push_back({5 + i, 5 + (i + 2) % 5});  // inner pentagram
  }
  return unit_graph(10, edges);
}

}  // namespace

TEST(GraphPreprocess, MatchingIsMaximumWithValidWitness) {
  std::mt19937_64 rng(11);
  int imperfect = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int n = static_cast<int>(rng() % 15);
    const double density = 0.05 + 0.5 * static_cast<double>(rng() % 100) / 100.0;
    const GraphPattern g = GraphPattern::of(random_graph_matrix(rng, n, density, false));
    const GraphMatching m = edmonds_matching(g);
    expect_valid_matching(g, m);
    ASSERT_EQ(m.size, brute_matching_size(g)) << "trial " << trial;
    expect_valid_witness(g, m);
    imperfect += !m.perfect();
  }
  EXPECT_GT(imperfect, 100);  // the witness is exercised
}

TEST(GraphPreprocess, DeadEdgesMatchBruteForce) {
  std::mt19937_64 rng(12);
  std::size_t dead_seen = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int n = 2 * static_cast<int>(rng() % 8);
    const double density = 0.05 + 0.45 * static_cast<double>(rng() % 100) / 100.0;
    const GraphPattern g = GraphPattern::of(random_graph_matrix(rng, n, density, true));
    const GraphMatching m = edmonds_matching(g);
    ASSERT_TRUE(m.perfect());
    const DeadEdges d = edges_in_no_perfect_matching(g, m);
    EXPECT_TRUE(d.complete);
    ASSERT_TRUE(std::is_sorted(d.edges.begin(), d.edges.end()));
    ASSERT_EQ(as_set(d), brute_dead_edges(g)) << "trial " << trial << " n=" << n;
    dead_seen += d.edges.size();
  }
  EXPECT_GT(dead_seen, 200u);
}

TEST(GraphPreprocess, LargerGraphsMatchBoost) {
  // Sparse graphs of 16..60 vertices, half with a planted perfect matching: many blossoms,
  // barriers and dead edges. Each edge uv is checked by Boost's matching of G - u - v.
  std::mt19937_64 rng(18);
  std::size_t edges_checked = 0, dead_seen = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int n = 16 + static_cast<int>(rng() % 45);
    const bool plant = trial % 2 == 0;
    const double density = (0.5 + static_cast<double>(rng() % 30) / 10.0) / n;
    const GraphPattern g = GraphPattern::of(random_graph_matrix(rng, plant ? n & ~1 : n, density, plant));
    const GraphMatching m = edmonds_matching(g);
    expect_valid_matching(g, m);
    ASSERT_EQ(m.size, boost_matching_size(g)) << "trial " << trial;
    expect_valid_witness(g, m);
    if (!m.perfect()) continue;
    const auto dead = as_set(edges_in_no_perfect_matching(g, m));
    for (int u = 0; u < g.n; ++u)
      for (int v : g.adj[u])
        if (u < v) {
          const bool in_none = boost_matching_size(g, u, v) < g.n / 2 - 1;
          ASSERT_EQ(in_none, dead.count({u, v}) == 1) << "trial " << trial << " edge " << u << "-" << v;
          ++edges_checked;
          dead_seen += in_none;
        }
  }
  EXPECT_GT(edges_checked, 1000u);
  EXPECT_GT(dead_seen, 100u);
}

TEST(GraphPreprocess, DeadEdgesWithinBudgetAreProvenAndNeedAPerfectMatching) {
  std::mt19937_64 rng(13);
  int cut_short = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const GraphPattern g = GraphPattern::of(random_graph_matrix(rng, 14, 0.2, true));
    const GraphMatching m = edmonds_matching(g);
    const DeadEdges d = edges_in_no_perfect_matching(g, m, static_cast<double>(rng() % 60));
    const auto dead = brute_dead_edges(g);
    for (const auto& e : d.edges) ASSERT_TRUE(dead.count(e));
    if (d.complete) {
      ASSERT_EQ(as_set(d), dead);
    }
    cut_short += !d.complete;
  }
  EXPECT_GT(cut_short, 0);
  const GraphPattern path = GraphPattern::of(unit_graph(3, {{0, 1}, {1, 2}}));
  EXPECT_THROW(edges_in_no_perfect_matching(path, edmonds_matching(path)), std::invalid_argument);
}

TEST(GraphPreprocess, ReduceKeepsHafnianInteger) {
  std::mt19937_64 rng(14);
  std::uniform_int_distribution<int> weight(-3, 3);
  auto draw = [&] {
    int w = 0;
    while (w == 0) w = weight(rng);
    return Integer(w);
  };
  int forced[2] = {0, 0}, folded[2] = {0, 0}, taken[2] = {0, 0}, zero[2] = {0, 0};
  for (int trial = 0; trial < 600; ++trial) {
    const int n = static_cast<int>(rng() % 13);
    const bool loops = trial % 2 == 1;
    const double density = 0.05 + 0.35 * static_cast<double>(rng() % 100) / 100.0;
    const auto a = random_symmetric_of<Integer>(rng, n, density, loops ? 0.3 : 0.2, draw);
    expect_keeps_hafnian(a, loops, [](const Integer& x, const Integer& y) { return x == y; });
    const auto r = reduce_graph(a, loops);
    forced[loops] += r.forced, folded[loops] += r.folded, taken[loops] += r.loops_taken, zero[loops] += r.zero;
  }
  for (int loops = 0; loops < 2; ++loops) {  // every rule is exercised
    EXPECT_GT(forced[loops], 50);
    EXPECT_GT(folded[loops], 30) << "loops=" << loops;
    EXPECT_GT(zero[loops], 10);
  }
  EXPECT_EQ(taken[0], 0);
  EXPECT_GT(taken[1], 50);
}

TEST(GraphPreprocess, ReduceKeepsHafnianRational) {
  std::mt19937_64 rng(15);
  auto draw = [&] {
    Rational q(static_cast<long>(rng() % 7) + 1, static_cast<long>(rng() % 5) + 1);
    q.canonicalize();  // GMP's arithmetic needs lowest terms
    return Rational(q - 2);
  };
  for (int trial = 0; trial < 150; ++trial) {
    const int n = static_cast<int>(rng() % 11);
    const bool loops = trial % 2 == 1;
    auto a = random_symmetric_of<Rational>(rng, n, 0.25, 0.4, draw);
    expect_keeps_hafnian(a, loops, [](const Rational& x, const Rational& y) { return x == y; });
  }
}

TEST(GraphPreprocess, ReduceKeepsHafnianDoubleAndComplex) {
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = static_cast<int>(rng() % 13);
    const bool loops = trial % 2 == 1;
    const double density = 0.05 + 0.35 * static_cast<double>(rng() % 100) / 100.0;
    // The hafnian of |A| bounds every term, hence the rounding of the sums.
    const auto tolerance = [&](const auto& a) {
      SparseMatrix<double> abs_a = convert<double>(a, [](const auto& x) { return std::abs(x); });
      return 1e-12 * (1 + naive_hafnian(abs_a, loops));
    };
    const auto r = random_symmetric_of<double>(rng, n, density, 0.4, [&] { return u(rng); });
    expect_keeps_hafnian(r, loops, [&, t = tolerance(r)](double x, double y) { return std::abs(x - y) <= t; });
    const auto c = random_symmetric_of<Complex>(rng, n, density, 0.4, [&] { return Complex(u(rng), u(rng)); });
    expect_keeps_hafnian(c, loops, [&, t = tolerance(c)](Complex x, Complex y) { return std::abs(x - y) <= t; });
  }
}

TEST(GraphPreprocess, Components) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = static_cast<int>(rng() % 15);
    const GraphPattern g = GraphPattern::of(random_graph_matrix(rng, n, 0.12, false));
    const auto comps = graph_components(g);
    std::vector<int> which(static_cast<std::size_t>(n), -1);
    for (std::size_t c = 0; c < comps.size(); ++c) {
      ASSERT_FALSE(comps[c].empty());
      ASSERT_TRUE(std::is_sorted(comps[c].begin(), comps[c].end()));
      if (c > 0) {
        ASSERT_LT(comps[c - 1].front(), comps[c].front());
      }
      for (int v : comps[c]) {
        ASSERT_EQ(which[v], -1);
        which[v] = static_cast<int>(c);
      }
    }
    for (int v = 0; v < n; ++v) {
      ASSERT_GE(which[v], 0);
      for (int w : g.adj[v]) ASSERT_EQ(which[v], which[w]);
    }
    // Closed under edges and as many as an independent search finds: each one is connected.
    ASSERT_EQ(comps.size(), component_sizes(g, {}).size());
  }
}

TEST(GraphPreprocess, PrincipalSubmatrixAndPattern) {
  const auto a = symmetric_from_entries<Integer>(4, {{0, 0, 5}, {0, 1, 2}, {1, 3, -1}, {2, 3, 7}, {3, 3, 4}});
  const GraphPattern g = GraphPattern::of(a);
  EXPECT_EQ(g.edges(), 3u);
  EXPECT_EQ(g.adj[3], (std::vector<int>{1, 2}));
  const auto s = principal_submatrix(a, {3, 1});
  ASSERT_EQ(s.rows, 2);
  EXPECT_EQ(s.dense(), (std::vector<Integer>{4, -1, -1, 0}));
}

TEST(GraphPreprocess, TwoTrianglesJoinedByABridge) {
  // The bridge 2-3 joins two odd sides: every perfect matching holds it, and with it the
  // triangle edges at 2 and 3 die.
  const auto a = symmetric_from_entries<Integer>(6, {{0, 1, 2}, {1, 2, 3}, {0, 2, 5}, {2, 3, 7}, {3, 4, 11}, {4, 5, 13}, {3, 5, 17}});
  const GraphPattern g = GraphPattern::of(a);
  const GraphMatching m = edmonds_matching(g);
  ASSERT_TRUE(m.perfect());
  EXPECT_EQ(m.mate[2], 3);
  const DeadEdges d = edges_in_no_perfect_matching(g, m);
  EXPECT_EQ(d.edges, (std::vector<Edge>{{0, 2}, {1, 2}, {3, 4}, {3, 5}}));
  const auto r = reduce_graph(a, false);
  EXPECT_FALSE(r.zero);
  EXPECT_EQ(r.rest.rows, 0);
  EXPECT_EQ(r.factor, Integer(2 * 7 * 13));
  EXPECT_EQ(naive_hafnian(a), Integer(2 * 7 * 13));
}

TEST(GraphPreprocess, BridgeInNoPerfectMatching) {
  // Two 4-cycles joined by the bridge 3-4: removing its ends leaves two paths of 3 vertices.
  const auto a = unit_graph(8, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 4}});
  const GraphPattern g = GraphPattern::of(a);
  const GraphMatching m = edmonds_matching(g);
  ASSERT_TRUE(m.perfect());
  const DeadEdges d = edges_in_no_perfect_matching(g, m);
  EXPECT_TRUE(d.complete);
  EXPECT_EQ(d.edges, (std::vector<Edge>{{3, 4}}));
  expect_keeps_hafnian(a, false, [](const Integer& x, const Integer& y) { return x == y; });
  EXPECT_EQ(naive_hafnian(a), Integer(4));
}

TEST(GraphPreprocess, OddComponentsGiveZeroWithWitness) {
  // A star with three leaves plus a separate edge: removing the centre leaves 3 odd leaves.
  const auto a = unit_graph(6, {{0, 1}, {0, 2}, {0, 3}, {4, 5}});
  const GraphPattern g = GraphPattern::of(a);
  const GraphMatching m = edmonds_matching(g);
  EXPECT_FALSE(m.perfect());
  EXPECT_EQ(m.size, 2);
  EXPECT_EQ(m.barrier, (std::vector<int>{0}));
  EXPECT_EQ(m.odd_components, 3);
  EXPECT_EQ(tutte_witness_text(m), "removing the vertex 0 leaves 3 odd components");
  EXPECT_EQ(tutte_witness_text(m, {"c", "x", "y", "z"}), "removing the vertex c leaves 3 odd components");
  const auto r = reduce_graph(a, false);
  EXPECT_TRUE(r.zero);
  EXPECT_EQ(r.factor, Integer(0));
  // Odd size alone: an empty barrier.
  const GraphMatching triangle = edmonds_matching(GraphPattern::of(unit_graph(3, {{0, 1}, {1, 2}, {0, 2}})));
  EXPECT_TRUE(triangle.barrier.empty());
  EXPECT_EQ(triangle.odd_components, 1);
  EXPECT_EQ(tutte_witness_text(triangle), "the graph has 1 odd component (components with an odd number of vertices)");
  // A long barrier is cut short.
  std::vector<Edge> edges;
  for (int c = 0; c < 20; ++c)
    for (int leaf = 20; leaf < 42; ++leaf) edges.push_back({c, leaf});
  const GraphMatching big = edmonds_matching(GraphPattern::of(unit_graph(42, edges)));
  EXPECT_EQ(big.barrier.size(), 20u);
  EXPECT_EQ(tutte_witness_text(big),
            "removing the 20 vertices 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (8 more) leaves 22 odd components");
}

TEST(GraphPreprocess, PathForcesEveryOtherEdge) {
  std::vector<std::tuple<int, int, Integer>> entries;
  Integer expected = 1;
  for (int i = 0; i + 1 < 10; ++i) {
    entries.emplace_back(i, i + 1, Integer(i + 2));
    if (i % 2 == 0) expected *= i + 2;
  }
  const auto a = symmetric_from_entries(10, entries);
  const auto r = reduce_graph(a, false);
  EXPECT_EQ(r.forced, 5);
  EXPECT_EQ(r.folded, 0);
  EXPECT_EQ(r.rest.rows, 0);
  EXPECT_EQ(r.factor, expected);
  const GraphPattern g = GraphPattern::of(a);
  const DeadEdges d = edges_in_no_perfect_matching(g, edmonds_matching(g));
  EXPECT_EQ(d.edges, (std::vector<Edge>{{1, 2}, {3, 4}, {5, 6}, {7, 8}}));
}

TEST(GraphPreprocess, EvenCycleFolds) {
  for (int k = 2; k <= 7; ++k) {
    std::vector<std::tuple<int, int, Integer>> entries;
    Integer even = 1, odd = 1;
    for (int i = 0; i < 2 * k; ++i) {
      entries.emplace_back(i, (i + 1) % (2 * k), Integer(i + 1));
      (i % 2 == 0 ? even : odd) *= i + 1;
    }
    const auto a = symmetric_from_entries(2 * k, entries);
    const auto r = reduce_graph(a, false);
    EXPECT_GT(r.folded, 0);
    EXPECT_TRUE(r.changed);
    EXPECT_EQ(r.rest.rows, 0) << "k=" << k;  // folding a cycle ends in a single edge, then forced
    EXPECT_EQ(r.factor, even + odd);
    const GraphPattern g = GraphPattern::of(a);
    EXPECT_TRUE(edges_in_no_perfect_matching(g, edmonds_matching(g)).edges.empty());
  }
}

TEST(GraphPreprocess, LoopRules) {
  // Loop hafnian of an edge with two loops: a00 a11 + a01.
  const auto pair = symmetric_from_entries<Integer>(2, {{0, 0, 3}, {1, 1, 5}, {0, 1, 7}});
  const auto r = reduce_graph(pair, true);
  EXPECT_EQ(r.rest.rows, 0);
  EXPECT_EQ(r.factor, Integer(3 * 5 + 7));
  EXPECT_EQ(r.loops_taken, 2);
  // Without loops the diagonal is ignored: the edge is forced.
  EXPECT_EQ(reduce_graph(pair, false).factor, Integer(7));
  // An isolated vertex with a loop counts only in the loop hafnian.
  const auto lone = symmetric_from_entries<Integer>(1, {{0, 0, 4}});
  EXPECT_EQ(reduce_graph(lone, true).factor, Integer(4));
  EXPECT_TRUE(reduce_graph(lone, false).zero);
}

TEST(GraphPreprocess, PetersenGraph) {
  const auto a = petersen();
  EXPECT_EQ(naive_hafnian(a), Integer(6));
  const auto r = reduce_graph(a, false);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.factor, Integer(1));
  EXPECT_EQ(r.rest.entries.size(), a.entries.size());
  const GraphPattern g = GraphPattern::of(a);
  EXPECT_EQ(g.edges(), 15u);
  const GraphMatching m = edmonds_matching(g);
  EXPECT_TRUE(m.perfect());
  EXPECT_TRUE(edges_in_no_perfect_matching(g, m).edges.empty());
  EXPECT_EQ(graph_components(g).size(), 1u);
}
