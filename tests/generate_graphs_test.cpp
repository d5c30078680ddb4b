// The generators of general (non-bipartite) graphs in generate.hpp: structure, reproducibility,
// and perfect-matching counts by two independent brute forces (GraphMatchings on the edge list,
// naive_hafnian on the adjacency matrix) against known values (OEIS where noted). Symmetric
// matrices, their writers and the program: generate_symmetric_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "generate_helpers.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

using namespace matchcount;
using namespace matchcount::gentest;

namespace {

bool regular(const EdgeList& g, int d) {
  const auto deg = degrees(g);
  return std::all_of(deg.begin(), deg.end(), [d](int x) { return x == d; });
}

bool connected(const EdgeList& g) {
  if (g.vertices == 0) return true;
  std::vector<std::vector<int>> adj(g.vertices);
  for (auto [u, v] : g.edges) adj[u].push_back(v), adj[v].push_back(u);
  std::vector<char> seen(g.vertices, 0);
  std::deque<int> queue{0};
  seen[0] = 1;
  int reached = 1;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    for (int w : adj[u])
      if (!seen[w]) seen[w] = 1, ++reached, queue.push_back(w);
  }
  return reached == g.vertices;
}

/// The simple cycles of length k, each as its sorted vertex set (a cycle through the same
/// vertices in another order would be a different cycle, but none occurs in these graphs'
/// short cycles: checked by counting both ways).
std::vector<std::vector<int>> cycles(const EdgeList& g, int k, std::size_t* directed = nullptr) {
  std::vector<std::vector<int>> adj(g.vertices);
  for (auto [u, v] : g.edges) adj[u].push_back(v), adj[v].push_back(u);
  std::set<std::vector<int>> found;
  std::size_t walks = 0;
  std::vector<int> path;
  auto dfs = [&](auto& self, int u) -> void {
    if (static_cast<int>(path.size()) == k) {
      if (std::find(adj[u].begin(), adj[u].end(), path.front()) != adj[u].end()) {
        ++walks;
        auto set = path;
        std::sort(set.begin(), set.end());
        found.insert(set);
      }
      return;
    }
    for (int w : adj[u])
      if (w > path.front() && std::find(path.begin(), path.end(), w) == path.end()) {
        path.push_back(w);
        self(self, w);
        path.pop_back();
      }
  };
  for (int s = 0; s < g.vertices; ++s) {
    path = {s};
    dfs(dfs, s);
  }
  if (directed) *directed = walks;  // each cycle twice: once per direction
  return {found.begin(), found.end()};
}


std::uint64_t fingerprint(const EdgeList& g) {
  std::ostringstream out;
  out << g.vertices << '\n';
  for (auto [u, v] : g.edges) out << u << ' ' << v << '\n';
  return fingerprint_text(out.str());
}

/// Perfect matchings twice: on the edge list and as the hafnian of the adjacency matrix.
std::uint64_t matchings_both_ways(const EdgeList& g) {
  const std::uint64_t by_edges = graph_matchings(g);
  const Integer by_hafnian = test::naive_hafnian(adjacency_matrix(g));
  EXPECT_EQ(Integer(static_cast<unsigned long>(by_edges)), by_hafnian);
  return by_edges;
}

}  // namespace

// --- lattices -----------------------------------------------------------------------------

TEST(GenerateGraphsLattices, TriangularStructure) {
  for (int m = 1; m <= 6; ++m)
    for (int n = 1; n <= 6; ++n) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
      const EdgeList g = triangular_graph(m, n);
      EXPECT_EQ(g.vertices, m * n);
      expect_simple(g);
      EXPECT_EQ(static_cast<int>(g.edges.size()), 3 * m * n - 2 * m - 2 * n + 1);
      const auto deg = degrees(g);
      EXPECT_LE(*std::max_element(deg.begin(), deg.end()), 6);
      if (m >= 3 && n >= 3) { EXPECT_EQ(deg[1 * n + 1], 6); }
      // The diagonal runs (r, c) -- (r+1, c+1), never the other way.
      if (m >= 2 && n >= 2) {
        EXPECT_TRUE(std::binary_search(g.edges.begin(), g.edges.end(), std::pair(0, n + 1)));
        EXPECT_FALSE(std::binary_search(g.edges.begin(), g.edges.end(), std::pair(1, n)));
      }
      if (m >= 3 && n >= 3) {
        const EdgeList t = triangular_graph(m, n, {true, true});
        expect_simple(t);
        EXPECT_EQ(static_cast<int>(t.edges.size()), 3 * m * n);
        EXPECT_TRUE(regular(t, 6));
      }
      if (n >= 3) {
        const EdgeList x = triangular_graph(m, n, {false, true});
        expect_simple(x);
        EXPECT_EQ(static_cast<int>(x.edges.size()), 3 * m * n - 2 * n);
      }
      if (m >= 3) {
        const EdgeList y = triangular_graph(m, n, {true, false});
        expect_simple(y);
        EXPECT_EQ(static_cast<int>(y.edges.size()), 3 * m * n - 2 * m);
      }
    }
  EXPECT_THROW(triangular_graph(0, 3), UsageError);
  EXPECT_THROW(triangular_graph(2, 4, {true, false}), UsageError);  // 2 rows cannot wrap
  EXPECT_THROW(triangular_graph(4, 2, {false, true}), UsageError);
}

TEST(GenerateGraphsLattices, KingStructure) {
  for (int m = 1; m <= 6; ++m)
    for (int n = 1; n <= 6; ++n) {
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
      const EdgeList g = king_graph(m, n);
      EXPECT_EQ(g.vertices, m * n);
      expect_simple(g);
      EXPECT_EQ(static_cast<int>(g.edges.size()), m * (n - 1) + (m - 1) * n + 2 * (m - 1) * (n - 1));
      if (m >= 3 && n >= 3) {
        EXPECT_EQ(degrees(g)[n + 1], 8);
        const EdgeList t = king_graph(m, n, {true, true});
        expect_simple(t);
        EXPECT_EQ(static_cast<int>(t.edges.size()), 4 * m * n);
        EXPECT_TRUE(regular(t, 8));
      }
    }
  EXPECT_THROW(king_graph(3, 0), UsageError);
  EXPECT_THROW(king_graph(2, 2, {true, true}), UsageError);
}

TEST(GenerateGraphsLattices, PerfectMatchings) {
  // Triangular 2 x 2: a square with one diagonal, 2 perfect matchings.
  EXPECT_EQ(matchings_both_ways(triangular_graph(2, 2)), 2u);
  // Width 4: OEIS A309117 (Perepechko), a(0..8) = 1, 1, 5, 15, 56, 203, 749, 2777, 10293.
  const std::uint64_t a309117[] = {1, 5, 15, 56, 203, 749, 2777, 10293};
  for (int n = 1; n <= 8; ++n) {
    SCOPED_TRACE("triangular 4 x " + std::to_string(n));
    const EdgeList g = triangular_graph(4, n);
    EXPECT_EQ(graph_matchings(g), a309117[n - 1]);
    if (n <= 4) { EXPECT_EQ(matchings_both_ways(g), a309117[n - 1]); }
    // The lattice is symmetric under (r, c) -> (c, r): n x 4 counts the same.
    EXPECT_EQ(graph_matchings(triangular_graph(n, 4)), a309117[n - 1]);
  }
  // King graph of the 2n x 2n board: OEIS A239273 (even bisection of A243510) 1, 3, 280, 3037561.
  EXPECT_EQ(matchings_both_ways(king_graph(2, 2)), 3u);
  EXPECT_EQ(matchings_both_ways(king_graph(4, 4)), 280u);
  EXPECT_EQ(graph_matchings(king_graph(6, 6)), 3037561u);
  // Odd vertex count: none.
  EXPECT_EQ(graph_matchings(triangular_graph(3, 3)), 0u);
}

// --- complete graphs and polyhedra --------------------------------------------------------

TEST(GenerateGraphsPolyhedra, CompleteGraph) {
  for (int n = 0; n <= 9; ++n) {
    const EdgeList g = complete_graph(n);
    expect_simple(g);
    EXPECT_EQ(static_cast<int>(g.edges.size()), n * (n - 1) / 2);
    if (n > 0) { EXPECT_TRUE(regular(g, n - 1)); }
  }
  // (n-1)!! for even n (OEIS A001147).
  EXPECT_EQ(matchings_both_ways(complete_graph(4)), 3u);
  EXPECT_EQ(matchings_both_ways(complete_graph(6)), 15u);
  EXPECT_EQ(matchings_both_ways(complete_graph(8)), 105u);
  EXPECT_EQ(matchings_both_ways(complete_graph(10)), 945u);
  EXPECT_EQ(matchings_both_ways(complete_graph(7)), 0u);
  EXPECT_THROW(complete_graph(-1), UsageError);
}

TEST(GenerateGraphsPolyhedra, PetersenIcosahedronDodecahedron) {
  const EdgeList petersen = petersen_graph();
  expect_simple(petersen);
  EXPECT_EQ(petersen.vertices, 10);
  EXPECT_EQ(petersen.edges.size(), 15u);
  EXPECT_TRUE(regular(petersen, 3));
  EXPECT_TRUE(cycles(petersen, 3).empty());
  EXPECT_TRUE(cycles(petersen, 4).empty());  // girth 5
  EXPECT_EQ(cycles(petersen, 5).size(), 12u);
  EXPECT_EQ(matchings_both_ways(petersen), 6u);

  const EdgeList ico = icosahedron_graph();
  expect_simple(ico);
  EXPECT_EQ(ico.vertices, 12);
  EXPECT_EQ(ico.edges.size(), 30u);
  EXPECT_TRUE(regular(ico, 5));
  EXPECT_EQ(cycles(ico, 3).size(), 20u);  // the 20 faces; Euler: 12 - 30 + 20 = 2
  EXPECT_EQ(matchings_both_ways(ico), 125u);

  const EdgeList dodeca = dodecahedron_graph();
  expect_simple(dodeca);
  EXPECT_EQ(dodeca.vertices, 20);
  EXPECT_EQ(dodeca.edges.size(), 30u);
  EXPECT_TRUE(regular(dodeca, 3));
  EXPECT_TRUE(connected(dodeca));
  EXPECT_TRUE(cycles(dodeca, 3).empty() && cycles(dodeca, 4).empty());
  EXPECT_EQ(cycles(dodeca, 5).size(), 12u);  // the 12 faces; Euler: 20 - 30 + 12 = 2
  EXPECT_EQ(matchings_both_ways(dodeca), 36u);
}

TEST(GenerateGraphsPolyhedra, C60) {
  const EdgeList c60 = c60_graph();
  expect_simple(c60);
  EXPECT_EQ(c60.vertices, 60);
  EXPECT_EQ(c60.edges.size(), 90u);
  EXPECT_TRUE(regular(c60, 3));
  EXPECT_TRUE(connected(c60));
  // A planar 3-connected graph: faces by Euler, F = 2 - V + E = 32 = 12 pentagons + 20 hexagons.
  const int faces = 2 - c60.vertices + static_cast<int>(c60.edges.size());
  EXPECT_EQ(faces, 32);
  EXPECT_TRUE(cycles(c60, 3).empty() && cycles(c60, 4).empty());
  std::size_t directed = 0;
  const auto pentagons = cycles(c60, 5, &directed);
  EXPECT_EQ(pentagons.size(), 12u);
  EXPECT_EQ(directed, 2 * pentagons.size());
  const auto hexagons = cycles(c60, 6, &directed);
  EXPECT_EQ(hexagons.size(), 20u);
  EXPECT_EQ(directed, 2 * hexagons.size());
  EXPECT_EQ(static_cast<int>(pentagons.size() + hexagons.size()), faces);
  // The pentagons are disjoint and cover every vertex (isolated pentagon rule); every edge lies
  // on two faces: 60 pentagon-hexagon edges and 30 hexagon-hexagon edges.
  std::vector<int> in_pentagon(60, 0);
  for (const auto& p : pentagons)
    for (int v : p) ++in_pentagon[v];
  EXPECT_TRUE(std::all_of(in_pentagon.begin(), in_pentagon.end(), [](int k) { return k == 1; }));
  int hex_hex = 0;
  for (auto [u, v] : c60.edges) {
    int shared = 0;
    for (const auto& h : hexagons)
      shared += std::binary_search(h.begin(), h.end(), u) && std::binary_search(h.begin(), h.end(), v);
    hex_hex += shared == 2;
  }
  EXPECT_EQ(hex_hex, 30);
  // 12500 Kekule structures.
  EXPECT_EQ(matchings_both_ways(c60), 12500u);
}

// --- random graphs ------------------------------------------------------------------------

TEST(GenerateGraphsRandom, ErdosRenyi) {
  const EdgeList a = erdos_renyi_graph(40, 0.3, 7), b = erdos_renyi_graph(40, 0.3, 7);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_NE(a.edges, erdos_renyi_graph(40, 0.3, 8).edges);
  expect_simple(a);
  EXPECT_EQ(erdos_renyi_graph(12, 0.0, 1).edges.size(), 0u);
  EXPECT_EQ(erdos_renyi_graph(12, 1.0, 1).edges, complete_graph(12).edges);
  // 19900 pairs at p = 0.25: mean 4975, sd ~61.
  EXPECT_NEAR(static_cast<double>(erdos_renyi_graph(200, 0.25, 3).edges.size()), 4975.0, 300.0);
  // The documented draw order, by an independent reading of mt19937_64.
  std::mt19937_64 rng(11);
  const auto t = static_cast<std::uint64_t>(0.4 * 0x1p53);
  std::vector<std::pair<int, int>> want;
  for (int u = 0; u < 15; ++u)
    for (int v = u + 1; v < 15; ++v)
      if ((rng() >> 11) < t) want.emplace_back(u, v);
  EXPECT_EQ(erdos_renyi_graph(15, 0.4, 11).edges, want);
  EXPECT_THROW(erdos_renyi_graph(5, 1.5, 1), UsageError);
  EXPECT_THROW(erdos_renyi_graph(-1, 0.5, 1), UsageError);
}

TEST(GenerateGraphsRandom, RegularGraphsAreSimpleAndRegular) {
  for (auto [n, d] : std::vector<std::pair<int, int>>{
           {1, 0}, {2, 1}, {4, 3}, {6, 2}, {10, 3}, {11, 4}, {12, 5}, {12, 6}, {12, 9}, {16, 14},
           {30, 3}, {50, 7}, {64, 20}, {200, 3}, {301, 10}, {40, 30}, {1000, 4}}) {
    for (std::uint64_t seed : {1u, 2u, 99u}) {
      SCOPED_TRACE(std::to_string(n) + " " + std::to_string(d) + " seed " + std::to_string(seed));
      const EdgeList g = random_regular_graph(n, d, seed);
      EXPECT_EQ(g.vertices, n);
      expect_simple(g);
      EXPECT_EQ(static_cast<long>(g.edges.size()), static_cast<long>(n) * d / 2);
      EXPECT_TRUE(regular(g, d));
      EXPECT_EQ(g.edges, random_regular_graph(n, d, seed).edges);
    }
  }
  EXPECT_NE(random_regular_graph(100, 3, 1).edges, random_regular_graph(100, 3, 2).edges);
  EXPECT_EQ(random_regular_graph(8, 7, 5).edges, complete_graph(8).edges);
  EXPECT_THROW(random_regular_graph(5, 3, 1), UsageError);  // n*d odd
  EXPECT_THROW(random_regular_graph(5, 5, 1), UsageError);  // d >= n
  EXPECT_THROW(random_regular_graph(6, -1, 1), UsageError);
}

TEST(GenerateGraphsRandom, FixedOutputOnEveryPlatform) {
  // Everything is derived from raw mt19937_64 output (fixed by the standard) by our own
  // arithmetic, so these fingerprints hold with any compiler and standard library.
  EXPECT_EQ(fingerprint(erdos_renyi_graph(20, 0.3, 42)), 12639389547404652389ull);
  EXPECT_EQ(fingerprint(random_regular_graph(20, 3, 42)), 6936065143112626973ull);
  EXPECT_EQ(fingerprint(random_regular_graph(12, 8, 42)), 11426686706501007562ull);
}
