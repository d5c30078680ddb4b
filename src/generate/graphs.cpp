// Graph families (grid, torus, hypercube, Aztec diamond, prism) and the biadjacency matrix.
//
// Vertex numbering conventions (relied on by tests and bundled datasets):
//   grid m x n      vertex (r, c) = r*n + c, 0 <= r < m, 0 <= c < n
//   torus C_m x C_n the same numbering, with wrap-around edges (m, n >= 3)
//   hypercube Q_d   vertex = the integer whose binary digits are the coordinates
//   Aztec diamond   unit squares [x,x+1]x[y,y+1] with |x+1/2| + |y+1/2| <= k, numbered in
//                   reading order: rows from top (y = k-1) to bottom (y = -k), left to right
//   prism C_n x K_2 vertex (i, s) = s*n + i: outer cycle 0..n-1, inner cycle n..2n-1 (n >= 3)
// grid_coordinates and aztec_diamond_coordinates give (row, column) in these numberings, for
// matchcount-generate --names coordinates.
// Edges are listed once each, as (u, v) with u < v, sorted.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "generate/graph_build.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

using generate_detail::add_edge;
using generate_detail::check_size;
using generate_detail::finish;

EdgeList grid_graph(int m, int n) {
  if (m < 1 || n < 1)
    throw UsageError("grid: M and N must be at least 1 (got " + std::to_string(m) + " x " +
                     std::to_string(n) + ")");
  const std::int64_t mm = m, nn = n;
  check_size("grid", mm * nn, mm * (nn - 1) + nn * (mm - 1));
  EdgeList g;
  g.vertices = m * n;
  g.edges.reserve(static_cast<std::size_t>(mm * (nn - 1) + nn * (mm - 1)));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      const int v = r * n + c;
      if (c + 1 < n) add_edge(g, v, v + 1);
      if (r + 1 < m) add_edge(g, v, v + n);
    }
  finish(g);
  return g;
}

EdgeList torus_graph(int m, int n) {
  // C_2 would be a doubled edge (a multigraph), C_1 a loop: refused rather than silently
  // turned into a path. C_n x K_2 is prism_graph(n), C_n x P_2 with open ends is grid(2, n).
  if (m < 3 || n < 3)
    throw UsageError("torus: M and N must be at least 3 (got " + std::to_string(m) + " x " +
                     std::to_string(n) + "); C_2 would double every edge. For C_n x K_2 use "
                     "prism N, for open boundaries use grid");
  const std::int64_t mm = m, nn = n;
  check_size("torus", mm * nn, 2 * mm * nn);
  EdgeList g;
  g.vertices = m * n;
  g.edges.reserve(static_cast<std::size_t>(2 * mm * nn));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      const int v = r * n + c;
      add_edge(g, v, r * n + (c + 1) % n);
      add_edge(g, v, ((r + 1) % m) * n + c);
    }
  finish(g);
  return g;
}

EdgeList hypercube_graph(int d) {
  if (d < 0) throw UsageError("hypercube: D must be at least 0 (got " + std::to_string(d) + ")");
  if (d > 40) throw RefusedError("hypercube: D = " + std::to_string(d) + " has 2^D vertices, too many");
  const std::int64_t vertices = std::int64_t(1) << d;
  check_size("hypercube", vertices, d * vertices / 2);
  EdgeList g;
  g.vertices = static_cast<int>(vertices);
  g.edges.reserve(static_cast<std::size_t>(d * vertices / 2));
  for (int v = 0; v < g.vertices; ++v)
    for (int i = 0; i < d; ++i) {
      const int w = v ^ (1 << i);
      if (v < w) g.edges.emplace_back(v, w);
    }
  finish(g);
  return g;
}

EdgeList aztec_diamond_graph(int order) {
  if (order < 0)
    throw UsageError("aztec: K must be at least 0 (got " + std::to_string(order) + ")");
  const std::int64_t k = order;
  check_size("aztec", 2 * k * (k + 1), 4 * k * k);
  // Square with lower-left corner (x, y) is in the diamond iff |2x+1| + |2y+1| <= 2k.
  auto inside = [k](std::int64_t x, std::int64_t y) {
    return std::llabs(2 * x + 1) + std::llabs(2 * y + 1) <= 2 * k;
  };
  const std::int64_t side = 2 * k;  // x, y in [-k, k-1]
  std::vector<int> id(static_cast<std::size_t>(side * side), -1);
  auto index = [&](std::int64_t x, std::int64_t y) {
    return static_cast<std::size_t>((y + k) * side + (x + k));
  };
  EdgeList g;
  for (std::int64_t y = k - 1; y >= -k; --y)
    for (std::int64_t x = -k; x <= k - 1; ++x)
      if (inside(x, y)) id[index(x, y)] = g.vertices++;
  for (std::int64_t y = k - 1; y >= -k; --y)
    for (std::int64_t x = -k; x <= k - 1; ++x) {
      const int v = id[index(x, y)];
      if (v < 0) continue;
      if (x + 1 <= k - 1 && id[index(x + 1, y)] >= 0) add_edge(g, v, id[index(x + 1, y)]);
      if (y - 1 >= -k && id[index(x, y - 1)] >= 0) add_edge(g, v, id[index(x, y - 1)]);
    }
  finish(g);
  return g;
}

EdgeList prism_graph(int n) {
  if (n < 3)
    throw UsageError("prism: N must be at least 3 (got " + std::to_string(n) +
                     "); C_2 would double every edge");
  check_size("prism", 2 * std::int64_t(n), 3 * std::int64_t(n));
  EdgeList g;
  g.vertices = 2 * n;
  for (int i = 0; i < n; ++i) {
    add_edge(g, i, (i + 1) % n);
    add_edge(g, n + i, n + (i + 1) % n);
    add_edge(g, i, n + i);
  }
  finish(g);
  return g;
}

std::vector<std::pair<int, int>> grid_coordinates(int m, int n) {
  if (m < 1 || n < 1)
    throw UsageError("grid_coordinates: M and N must be at least 1 (got " + std::to_string(m) + " x " +
                     std::to_string(n) + ")");
  check_size("grid", std::int64_t(m) * n, 0);
  std::vector<std::pair<int, int>> rc;
  rc.reserve(static_cast<std::size_t>(std::int64_t(m) * n));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) rc.emplace_back(r, c);
  return rc;
}

std::vector<std::pair<int, int>> aztec_diamond_coordinates(int order) {
  if (order < 0)
    throw UsageError("aztec: K must be at least 0 (got " + std::to_string(order) + ")");
  const std::int64_t k = order;
  check_size("aztec", 2 * k * (k + 1), 4 * k * k);
  // The reading order of aztec_diamond_graph: y from k-1 down to -k, x from -k to k-1.
  std::vector<std::pair<int, int>> rc;
  rc.reserve(static_cast<std::size_t>(2 * k * (k + 1)));
  for (std::int64_t y = k - 1; y >= -k; --y)
    for (std::int64_t x = -k; x <= k - 1; ++x)
      if (std::llabs(2 * x + 1) + std::llabs(2 * y + 1) <= 2 * k)
        rc.emplace_back(static_cast<int>(k - 1 - y), static_cast<int>(x + k));
  return rc;
}

SparseMatrix<Integer> biadjacency(const EdgeList& g) {
  if (g.vertices < 0) throw UsageError("biadjacency: negative vertex count");
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(g.vertices));
  for (const auto& [u, v] : g.edges) {
    if (u < 0 || v < 0 || u >= g.vertices || v >= g.vertices)
      throw UsageError("biadjacency: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                       ") names a vertex outside 0.." + std::to_string(g.vertices - 1));
    if (u == v)
      throw RefusedError("the graph is not bipartite: vertex " + std::to_string(u) +
                         " has a loop");
    adj[static_cast<std::size_t>(u)].push_back(v);
    adj[static_cast<std::size_t>(v)].push_back(u);
  }
  // BFS 2-colouring; each component's lowest-numbered vertex gets colour 0.
  std::vector<int> colour(static_cast<std::size_t>(g.vertices), -1);
  std::deque<int> queue;
  for (int s = 0; s < g.vertices; ++s) {
    if (colour[static_cast<std::size_t>(s)] >= 0) continue;
    colour[static_cast<std::size_t>(s)] = 0;
    queue.push_back(s);
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop_front();
      const int cu = colour[static_cast<std::size_t>(u)];
      for (int w : adj[static_cast<std::size_t>(u)]) {
        int& cw = colour[static_cast<std::size_t>(w)];
        if (cw < 0) {
          cw = 1 - cu;
          queue.push_back(w);
        } else if (cw == cu) {
          throw RefusedError("the graph is not bipartite: edge (" + std::to_string(u) + ", " +
                             std::to_string(w) + ") closes an odd cycle");
        }
      }
    }
  }
  // Rows: colour-0 vertices in vertex order; columns: colour-1 vertices in vertex order.
  std::vector<int> position(static_cast<std::size_t>(g.vertices));
  SparseMatrix<Integer> m;
  for (int v = 0; v < g.vertices; ++v)
    position[static_cast<std::size_t>(v)] = colour[static_cast<std::size_t>(v)] == 0 ? m.rows++
                                                                                     : m.cols++;
  m.entries.reserve(g.edges.size());
  for (auto [u, v] : g.edges) {
    if (colour[static_cast<std::size_t>(u)] != 0) std::swap(u, v);
    m.entries.push_back(
        {position[static_cast<std::size_t>(u)], position[static_cast<std::size_t>(v)], Integer(1)});
  }
  m.normalize();  // a repeated edge becomes an entry 2: it is two different edges
  return m;
}

}  // namespace matchcount
