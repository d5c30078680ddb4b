// The left-right planarity test (src/engines/planar/lr_planarity.cpp) against Boost's
// Boyer-Myrvold on random graphs, planar and not, and its embeddings: every edge on two face
// sides and Euler's formula (face_tree checks it itself; here it must hold, not throw).
#include <gtest/gtest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boyer_myrvold_planar_test.hpp>

#include <chrono>
#include <random>
#include <set>

#include "engines/planar/lr_planarity.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {
namespace {

using PlanarEdges = engines::planar::EdgeList;

bool boost_planar(int n, const PlanarEdges& edges) {
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g(static_cast<std::size_t>(n));
  for (auto [u, v] : edges) boost::add_edge(u, v, g);
  return boost::boyer_myrvold_planarity_test(g);
}

/// Each edge once, no loops, vertices in a random order (the DFS starts anywhere).
PlanarEdges simple(std::mt19937_64& rng, int n, const std::vector<std::pair<int, int>>& raw) {
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::set<std::pair<int, int>> seen;
  PlanarEdges out;
  for (auto [u, v] : raw) {
    if (u == v) continue;
    const int a = perm[std::size_t(u)], b = perm[std::size_t(v)];
    if (seen.insert({std::min(a, b), std::max(a, b)}).second) out.emplace_back(a, b);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

/// Faces of a planar graph's embedding: every edge is walked twice (once each way, or twice
/// along one face for a bridge) over all faces.
void expect_faces_cover_edges(int n, const PlanarEdges& edges, const std::string& what) {
  const auto t = engines::planar::face_tree(n, edges);  // throws if Euler's formula fails
  ASSERT_TRUE(t) << what;
  std::vector<int> sides(edges.size(), 0);
  for (const auto& face : t->faces)
    for (const auto& step : face) ++sides[std::size_t(step.edge)];
  for (std::size_t k = 0; k < edges.size(); ++k) ASSERT_EQ(sides[k], 2) << what << " edge " << k;
}

TEST(Planarity, AgreesWithBoyerMyrvoldOnRandomGraphs) {
  std::mt19937_64 rng(31);
  int planar = 0, not_planar = 0;
  for (int it = 0; it < 1500; ++it) {
    const int n = 3 + int(rng() % 14);
    std::vector<std::pair<int, int>> raw;
    if (it % 3 == 0) {  // G(n, p) around the threshold where planarity is lost
      const double p = 0.15 + 0.35 * double(rng() % 100) / 100;
      for (int u = 0; u < n; ++u)
        for (int v = u + 1; v < n; ++v)
          if (double(rng() % 1000) < 1000 * p) raw.emplace_back(u, v);
    } else {  // a triangulated grid with edges removed, plus a few random chords
      const int w = 2 + int(rng() % 4), h = 2 + int(rng() % 4);
      for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) {
          const int v = r * w + c;
          if (c + 1 < w && rng() % 5) raw.emplace_back(v, v + 1);
          if (r + 1 < h && rng() % 5) raw.emplace_back(v, v + w);
          if (c + 1 < w && r + 1 < h && rng() % 2) raw.emplace_back(v, v + w + 1);
        }
      for (int extra = int(rng() % 3); extra > 0; --extra)
        raw.emplace_back(int(rng() % std::size_t(w * h)), int(rng() % std::size_t(w * h)));
      const int m = w * h;
      const PlanarEdges g = simple(rng, m, raw);
      const bool want = boost_planar(m, g);
      ASSERT_EQ(engines::planar::is_planar(m, g), want) << "it " << it;
      if (want) expect_faces_cover_edges(m, g, "it " + std::to_string(it));
      (want ? planar : not_planar) += 1;
      continue;
    }
    const PlanarEdges g = simple(rng, n, raw);
    const bool want = boost_planar(n, g);
    ASSERT_EQ(engines::planar::is_planar(n, g), want) << "it " << it;
    ASSERT_EQ(engines::planar::face_tree(n, g).has_value(), want) << "it " << it;
    if (want) expect_faces_cover_edges(n, g, "it " + std::to_string(it));
    (want ? planar : not_planar) += 1;
  }
  EXPECT_GT(planar, 300);
  EXPECT_GT(not_planar, 200);
}

TEST(Planarity, KnownGraphs) {
  std::mt19937_64 rng(32);
  auto check = [&](const PlanarEdges& g, int n, bool want, const char* what) {
    EXPECT_EQ(engines::planar::is_planar(n, g), want) << what;
    if (want) expect_faces_cover_edges(n, g, what);
  };
  auto edges = [&](const matchcount::EdgeList& g) { return simple(rng, g.vertices, g.edges); };
  check(edges(complete_graph(4)), 4, true, "K4");
  check(edges(complete_graph(5)), 5, false, "K5");
  check(edges(petersen_graph()), 10, false, "Petersen");
  check(edges(icosahedron_graph()), 12, true, "icosahedron");
  check(edges(c60_graph()), 60, true, "C60");
  check(edges(torus_graph(4, 4)), 16, false, "torus 4x4");
  check(edges(king_graph(5, 5)), 25, false, "king 5x5");
  check(edges(triangular_graph(9, 7)), 63, true, "triangular 9x7");
  check({}, 5, true, "no edges");
  check({{0, 1}, {2, 3}, {3, 4}}, 7, true, "a forest with isolated vertices");
}

// Linear time: a 300 x 300 grid (Boost's walks made this take seconds) in well under one.
TEST(Planarity, LargeGridsAreFast) {
  const auto g = grid_graph(300, 300);
  const auto t0 = std::chrono::steady_clock::now();
  const auto t = engines::planar::face_tree(g.vertices, g.edges);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->faces.size(), std::size_t(299 * 299 + 1));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}

}  // namespace
}  // namespace matchcount
