// General (non-bipartite) graph families: triangular and king lattices, complete graphs, the
// Petersen graph and the polyhedra icosahedron, dodecahedron and C60; the adjacency matrix.
//
// Vertex numbering (relied on by tests and documented in matchcount-generate --help):
//   triangular, king m x n  vertex (r, c) = r*n + c, as grid_graph
//   Petersen                outer 5-cycle 0..4, spokes i -- 5+i, inner pentagram 5+i -- 5+(i+2)%5
//   icosahedron             0 = top, 1..5 upper pentagon, 6..10 lower pentagon, 11 = bottom;
//                           upper 1+k touches lower 6+k and 6+(k+1)%5 (an antiprism between)
//   dodecahedron            the 20 faces (triangles a < b < c) of the icosahedron in
//                           lexicographic order, adjacent when they share an edge (the dual)
//   C60                     the truncated icosahedron: vertex 5u + k stands for the arc from
//                           icosahedron vertex u to its k-th neighbour (increasing order), so
//                           5u..5u+4 is the pentagon that replaces u
// The polyhedra are built from the icosahedron, so one hand-written table (12 vertices, 30
// edges) is the whole of their construction; the tests check degrees, faces and known counts.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "generate/graph_build.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

using generate_detail::add_edge;
using generate_detail::check_size;
using generate_detail::finish;

namespace {

struct Step {
  int dr, dc;
};

/// The m x n lattice whose vertex (r, c) is joined to (r + dr, c + dc) for each step; a periodic
/// direction wraps around, an open one drops the steps that leave the lattice.
EdgeList lattice(const char* family, int m, int n, Periodic periodic, const std::vector<Step>& steps) {
  if (m < 1 || n < 1)
    throw UsageError(std::string(family) + ": M and N must be at least 1 (got " +
                     std::to_string(m) + " x " + std::to_string(n) + ")");
  // Wrapping around 2 sites would join the same pair twice (a multigraph), 1 site would loop.
  if ((periodic.rows && m < 3) || (periodic.cols && n < 3))
    throw UsageError(std::string(family) + ": a periodic direction needs at least 3 sites (got " +
                     std::to_string(m) + " x " + std::to_string(n) + (periodic.rows ? ", rows" : "") +
                     (periodic.cols ? ", columns" : "") + " periodic)");
  const std::int64_t mm = m, nn = n;
  check_size(family, mm * nn, mm * nn * static_cast<std::int64_t>(steps.size()));
  EdgeList g;
  g.vertices = m * n;
  g.edges.reserve(static_cast<std::size_t>(mm * nn) * steps.size());
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      for (const Step& s : steps) {
        int r2 = r + s.dr, c2 = c + s.dc;
        if (r2 < 0 || r2 >= m) {
          if (!periodic.rows) continue;
          r2 = (r2 + m) % m;
        }
        if (c2 < 0 || c2 >= n) {
          if (!periodic.cols) continue;
          c2 = (c2 + n) % n;
        }
        add_edge(g, r * n + c, r2 * n + c2);
      }
  finish(g);
  return g;
}

/// Neighbour lists of a graph, each in increasing order.
std::vector<std::vector<int>> neighbours(const EdgeList& g) {
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(g.vertices));
  for (auto [u, v] : g.edges) {
    adj[static_cast<std::size_t>(u)].push_back(v);
    adj[static_cast<std::size_t>(v)].push_back(u);
  }
  for (auto& list : adj) std::sort(list.begin(), list.end());
  return adj;
}

bool adjacent(const std::vector<std::vector<int>>& adj, int u, int v) {
  const auto& list = adj[static_cast<std::size_t>(u)];
  return std::binary_search(list.begin(), list.end(), v);
}

}  // namespace

EdgeList triangular_graph(int m, int n, Periodic periodic) {
  return lattice("triangular", m, n, periodic, {{0, 1}, {1, 0}, {1, 1}});
}

EdgeList king_graph(int m, int n, Periodic periodic) {
  return lattice("king", m, n, periodic, {{0, 1}, {1, 0}, {1, 1}, {1, -1}});
}

EdgeList complete_graph(int n) {
  if (n < 0) throw UsageError("complete: N must be at least 0 (got " + std::to_string(n) + ")");
  const std::int64_t nn = n;
  check_size("complete", nn, nn * (nn - 1) / 2);
  EdgeList g;
  g.vertices = n;
  g.edges.reserve(static_cast<std::size_t>(nn * (nn - 1) / 2));
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v) g.edges.emplace_back(u, v);
  return g;
}

EdgeList petersen_graph() {
  EdgeList g;
  g.vertices = 10;
  for (int i = 0; i < 5; ++i) {
    add_edge(g, i, (i + 1) % 5);
    add_edge(g, i, 5 + i);
    add_edge(g, 5 + i, 5 + (i + 2) % 5);
  }
  finish(g);
  return g;
}

EdgeList icosahedron_graph() {
  EdgeList g;
  g.vertices = 12;
  for (int k = 0; k < 5; ++k) {
    const int up = 1 + k, up_next = 1 + (k + 1) % 5;
    const int low = 6 + k, low_next = 6 + (k + 1) % 5;
    add_edge(g, 0, up);
    add_edge(g, up, up_next);
    add_edge(g, up, low);
    add_edge(g, up, low_next);
    add_edge(g, low, low_next);
    add_edge(g, low, 11);
  }
  finish(g);
  return g;
}

EdgeList dodecahedron_graph() {
  const EdgeList ico = icosahedron_graph();
  const auto adj = neighbours(ico);
  // Every triangle of the icosahedron is a face (the link of each vertex is a 5-cycle).
  std::vector<std::array<int, 3>> faces;
  for (int a = 0; a < ico.vertices; ++a)
    for (int b : adj[static_cast<std::size_t>(a)])
      for (int c : adj[static_cast<std::size_t>(b)])
        if (a < b && b < c && adjacent(adj, a, c)) faces.push_back({a, b, c});
  std::sort(faces.begin(), faces.end());
  EdgeList g;
  g.vertices = static_cast<int>(faces.size());
  for (std::size_t f = 0; f < faces.size(); ++f)
    for (std::size_t h = f + 1; h < faces.size(); ++h) {
      int shared = 0;
      for (int x : faces[f]) shared += static_cast<int>(std::count(faces[h].begin(), faces[h].end(), x));
      if (shared == 2) add_edge(g, static_cast<int>(f), static_cast<int>(h));
    }
  finish(g);
  return g;
}

EdgeList c60_graph() {
  // Truncating the icosahedron cuts every vertex u off by a small pentagon: the pentagon's
  // corners sit on the 5 edges at u, one per arc u -> v. Two corners of u's pentagon are joined
  // when their edges bound a common face, i.e. when v and w are adjacent; the remains of the
  // edge u -- v join corner (u -> v) to corner (v -> u).
  const EdgeList ico = icosahedron_graph();
  const auto adj = neighbours(ico);
  auto corner = [&](int u, int v) {
    const auto& list = adj[static_cast<std::size_t>(u)];
    return 5 * u + static_cast<int>(std::lower_bound(list.begin(), list.end(), v) - list.begin());
  };
  EdgeList g;
  g.vertices = 5 * ico.vertices;
  for (int u = 0; u < ico.vertices; ++u)
    for (int v : adj[static_cast<std::size_t>(u)]) {
      if (u < v) add_edge(g, corner(u, v), corner(v, u));
      for (int w : adj[static_cast<std::size_t>(u)])
        if (v < w && adjacent(adj, v, w)) add_edge(g, corner(u, v), corner(u, w));
    }
  finish(g);
  return g;
}

SparseMatrix<Integer> adjacency_matrix(const EdgeList& g) {
  if (g.vertices < 0) throw UsageError("adjacency_matrix: negative vertex count");
  SparseMatrix<Integer> a;
  a.rows = a.cols = g.vertices;
  a.entries.reserve(2 * g.edges.size());
  for (const auto& [u, v] : g.edges) {
    if (u < 0 || v < 0 || u >= g.vertices || v >= g.vertices)
      throw UsageError("adjacency_matrix: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                       ") names a vertex outside 0.." + std::to_string(g.vertices - 1));
    // A loop lies in no perfect matching; it is kept on the diagonal (once) for the loop hafnian.
    a.entries.push_back({u, v, Integer(1)});
    if (u != v) a.entries.push_back({v, u, Integer(1)});
  }
  a.normalize();  // a repeated edge sums to 2: two different edges
  return a;
}

}  // namespace matchcount
