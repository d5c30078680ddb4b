// Preprocessing of general (non-bipartite) graphs for hafnians: maximum matchings with a Tutte
// witness, the edges in no perfect matching, components, and reductions that keep the
// (loop) hafnian of a symmetric matrix.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// The undirected graph of a symmetric matrix: adjacency lists without the diagonal, sorted,
/// without repeats. An entry in either triangle makes an edge (the pattern is symmetrised).
struct GraphPattern {
  int n = 0;
  std::vector<std::vector<int>> adj;

  template <class T>
  static GraphPattern of(const SparseMatrix<T>& a) {
    GraphPattern g;
    g.n = std::max(a.rows, a.cols);
    g.adj.resize(static_cast<std::size_t>(g.n));
    for (const auto& e : a.entries)
      if (e.row != e.col) {
        g.adj[e.row].push_back(e.col);
        g.adj[e.col].push_back(e.row);
      }
    for (auto& list : g.adj) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    return g;
  }

  /// Number of edges (each counted once).
  std::size_t edges() const;
};

/// A maximum matching and, when it is not perfect, a Tutte witness from the Gallai-Edmonds
/// decomposition: removing the vertices `barrier` (= A(G), ascending) leaves `odd_components`
/// > barrier.size() components of odd size. `mate[v]` = partner or -1. A perfect matching has
/// an empty barrier and odd_components = 0.
struct GraphMatching {
  int size = 0;  // number of matched pairs
  std::vector<int> mate;
  std::vector<int> barrier;
  int odd_components = 0;
  bool perfect() const { return 2 * size == static_cast<int>(mate.size()); }
};

/// Maximum-cardinality matching by Boost's Edmonds implementation (greedy start, then
/// augmenting searches with blossom shrinking), O(m n alpha) in the worst case.
GraphMatching edmonds_matching(const GraphPattern& g);

/// One line for -v, e.g. "removing the 3 vertices 4, 9, 17 leaves 5 odd components". Vertices
/// are named by index, or by names[v] when `names` covers them; long lists are cut short.
std::string tutte_witness_text(const GraphMatching& m, const std::vector<std::string>& names = {});

/// The edges (u < v, ascending) that lie in no perfect matching, given a perfect matching `m`
/// of `g` (std::invalid_argument otherwise). Searches stop once about `budget` edge visits are
/// spent; then `edges` holds the dead edges proven so far and `complete` is false, which never
/// changes a count (a dead edge kept only adds terms of 0). The default budget (negative) is
/// linear in the graph, kDeadEdgeVisitsPerSlot visits per adjacency slot and at least
/// kDeadEdgeVisitsFloor: no linear-time algorithm is known for general graphs (one search per
/// vertex is O(nm)), and on a large expander the searches would dominate preprocessing.
struct DeadEdges {
  std::vector<std::pair<int, int>> edges;
  bool complete = true;
};
constexpr double kDeadEdgeVisitsPerSlot = 32, kDeadEdgeVisitsFloor = 2e7;
DeadEdges edges_in_no_perfect_matching(const GraphPattern& g, const GraphMatching& m, double budget = -1);

/// Removes both stored entries (u, v) and (v, u) of every undirected edge in `edges` from `a`.
template <class T>
void erase_edges(SparseMatrix<T>& a, const std::vector<std::pair<int, int>>& edges) {
  if (edges.empty()) return;
  std::vector<std::pair<int, int>> gone;
  for (auto [u, v] : edges) gone.emplace_back(u, v), gone.emplace_back(v, u);
  std::sort(gone.begin(), gone.end());
  std::erase_if(a.entries, [&](const Entry<T>& e) {
    return std::binary_search(gone.begin(), gone.end(), std::pair<int, int>{e.row, e.col});
  });
}

/// Connected components: every vertex in exactly one (an isolated vertex is its own), each
/// sorted, ordered by their least vertex.
std::vector<std::vector<int>> graph_components(const GraphPattern& g);

/// The principal submatrix on `vertices` (renumbered 0..k-1 in the given order; normalized).
template <class T>
SparseMatrix<T> principal_submatrix(const SparseMatrix<T>& a, const std::vector<int>& vertices) {
  std::vector<int> local(static_cast<std::size_t>(std::max(a.rows, a.cols)), -1);
  for (std::size_t i = 0; i < vertices.size(); ++i) local[vertices[i]] = static_cast<int>(i);
  SparseMatrix<T> out;
  out.rows = out.cols = static_cast<int>(vertices.size());
  for (const auto& e : a.entries)
    if (local[e.row] >= 0 && local[e.col] >= 0) out.entries.push_back({local[e.row], local[e.col], e.value});
  out.normalize();
  return out;
}

/// haf(input) = factor * haf(rest) (loop hafnian when `loops`); `zero` when it is 0.
/// `rest` is symmetric with both triangles; without loops its diagonal is dropped.
template <class T>
struct GraphReduced {
  bool zero = false;
  T factor = T(1);
  SparseMatrix<T> rest;
  int forced = 0;       // edges forced by a vertex of degree 1 (without a loop)
  int folded = 0;       // vertices of degree 2 folded with their two neighbours
  int loops_taken = 0;  // loops multiplied out or absorbed into a neighbour
  bool changed = false;
};

/// Applies, until none applies, the rules that keep the hafnian (loops = false) or the loop
/// hafnian (loops = true) of a symmetric matrix; weights are read from the upper triangle:
///  - a vertex with no neighbour: with a loop (and `loops`), factor a_vv and it goes; else 0;
///  - a vertex v without a loop and one neighbour u: the edge is forced, factor a_uv, both go;
///  - (loops) a vertex v with a loop and one neighbour u: v goes, u's other edges are scaled by
///    a_vv and u's loop becomes a_vv a_uu + a_uv (v alone or v with u, in one vertex);
///  - a vertex v without a loop and two neighbours u != w folds: u, v, w become one vertex z
///    (in u's slot) with A[z][x] = a_vu A[w][x] + a_vw A[u][x] for every other x, and with
///    loops A[z][z] = a_vu a_ww + a_vw a_uu (the edge u-w is in no perfect matching with v).
/// Exact for every number type; zeros that arise are dropped. Surviving vertices keep their
/// relative order in `rest`. Instantiated for Integer, Rational, double and Complex.
template <class T>
GraphReduced<T> reduce_graph(const SparseMatrix<T>& a, bool loops);

}  // namespace matchcount
