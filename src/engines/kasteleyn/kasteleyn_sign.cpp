// Planarity, the Kasteleyn signing and the banded order of the Kasteleyn engine
// (kasteleyn.hpp), on the bipartite graph G of a pattern: vertex r < n is row r, n + c is
// column c, edge k is pattern entry k.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boyer_myrvold_planar_test.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <boost/graph/planar_face_traversal.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "engines/kasteleyn/kasteleyn.hpp"

namespace matchcount::engines {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                    boost::property<boost::vertex_index_t, int>,
                                    boost::property<boost::edge_index_t, int>>;
using EdgeDesc = boost::graph_traits<Graph>::edge_descriptor;
using EmbeddingStorage = std::vector<std::vector<EdgeDesc>>;
using Embedding = boost::iterator_property_map<EmbeddingStorage::iterator,
                                               boost::property_map<Graph, boost::vertex_index_t>::type>;

Graph graph_of(const PatternRC& pattern, int n) {
  Graph g(static_cast<std::size_t>(2 * n));
  for (std::size_t k = 0; k < pattern.size(); ++k)
    boost::add_edge(pattern[k].first, n + pattern[k].second, static_cast<int>(k), g);
  return g;
}

/// Collects each face as the edge indices of its boundary walk.
struct FaceCollector : public boost::planar_face_traversal_visitor {
  const Graph* g = nullptr;
  std::vector<std::vector<int>>* faces = nullptr;
  void begin_face() { faces->emplace_back(); }
  void next_edge(EdgeDesc e) { faces->back().push_back(boost::get(boost::edge_index, *g, e)); }
};

/// Union-find root with path halving.
int find(std::vector<int>& up, int v) {
  while (up[std::size_t(v)] != v) v = up[std::size_t(v)] = up[std::size_t(up[std::size_t(v)])];
  return v;
}

}  // namespace

bool planar_pattern(const PatternRC& pattern, int n) {
  // A simple bipartite planar graph with V >= 3 vertices has at most 2V - 4 edges.
  if (n >= 2 && pattern.size() > std::size_t(4 * n - 4)) return false;
  return boost::boyer_myrvold_planarity_test(graph_of(pattern, n));
}

std::vector<signed char> kasteleyn_signing(const PatternRC& pattern, int n) {
  if (n >= 2 && pattern.size() > std::size_t(4 * n - 4)) return {};
  const Graph g = graph_of(pattern, n);
  EmbeddingStorage storage(boost::num_vertices(g));
  const Embedding embedding(storage.begin(), boost::get(boost::vertex_index, g));
  if (!boost::boyer_myrvold_planarity_test(boost::boyer_myrvold_params::graph = g,
                                           boost::boyer_myrvold_params::embedding = embedding))
    return {};
  std::vector<std::vector<int>> faces;
  FaceCollector visitor;
  visitor.g = &g, visitor.faces = &faces;
  boost::planar_face_traversal(g, embedding, visitor);

  // A spanning forest (Kruskal order: edge by edge); its edges keep +1.
  const std::size_t m = pattern.size();
  std::vector<int> up(static_cast<std::size_t>(2 * n));
  std::iota(up.begin(), up.end(), 0);
  std::vector<char> tree(m, 0);
  for (std::size_t k = 0; k < m; ++k) {
    const int a = find(up, pattern[k].first), b = find(up, n + pattern[k].second);
    if (a != b) up[std::size_t(a)] = b, tree[k] = 1;
  }
  // The other edges join two distinct faces and form a spanning tree of each component's
  // dual (tree-cotree duality; bridges are tree edges and lie twice on one face).
  const std::size_t nf = faces.size();
  std::vector<std::vector<std::pair<int, int>>> dual(nf);  // (neighbour face, edge)
  std::vector<int> first_face(m, -1);
  for (std::size_t f = 0; f < nf; ++f)
    for (int e : faces[f]) {
      if (tree[std::size_t(e)]) continue;
      int& other = first_face[std::size_t(e)];
      if (other < 0) {
        other = int(f);
      } else {
        dual[std::size_t(other)].push_back({int(f), e});
        dual[f].push_back({other, e});
      }
    }
  // Each dual tree is rooted at its first face (the "outer" one: on the sphere any face may
  // be), and every other face, from the leaves up, fixes the edge to its parent.
  std::vector<int> parent_edge(nf, -1), order;
  std::vector<char> seen(nf, 0);
  for (std::size_t root = 0; root < nf; ++root) {
    if (seen[root]) continue;
    seen[root] = 1;
    const std::size_t start = order.size();
    order.push_back(int(root));
    for (std::size_t h = start; h < order.size(); ++h)
      for (auto [f, e] : dual[std::size_t(order[h])])
        if (!seen[std::size_t(f)]) seen[std::size_t(f)] = 1, parent_edge[std::size_t(f)] = e, order.push_back(f);
  }
  std::vector<signed char> sign(m, 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto& face = faces[std::size_t(*it)];
    const int pe = parent_edge[std::size_t(*it)];
    if (pe < 0) continue;
    std::size_t negative = 0;  // along the walk, so an edge met twice counts twice (even)
    for (int e : face)
      if (e != pe && sign[std::size_t(e)] < 0) ++negative;
    // The face needs (length/2 - 1) negative edges mod 2; walks of bipartite graphs are even.
    const std::size_t need = face.size() / 2 + 1;  // = length/2 - 1 (mod 2)
    sign[std::size_t(pe)] = (need + negative) % 2 == 1 ? -1 : 1;
  }
  return sign;
}

double band_updates(int n, int kl, int ku) {
  double work = 0;
  for (int c = 0; c < n; ++c) work += double(std::min(kl, n - 1 - c)) * double(std::min(ku, n - 1 - c) + 1);
  return work;
}

double band_bytes(int n, int kl, int ku, std::size_t value_size) {
  return double(n) * double(2 * kl + ku + 4) * double(value_size);
}

BandOrder band_order(const PatternRC& pattern, int n) {
  auto finish = [&](BandOrder o) {
    o.kl = o.ku = 0;
    for (auto [r, c] : pattern) {
      o.kl = std::max(o.kl, o.row_pos[std::size_t(r)] - o.col_pos[std::size_t(c)]);
      o.ku = std::max(o.ku, o.col_pos[std::size_t(c)] - o.row_pos[std::size_t(r)]);
    }
    // det K^T = det K: eliminate the orientation with the smaller lower bandwidth.
    if (o.kl > o.ku) std::swap(o.kl, o.ku), std::swap(o.row_pos, o.col_pos), o.transposed = true;
    return o;
  };
  BandOrder natural;
  natural.row_pos.resize(std::size_t(n)), natural.col_pos.resize(std::size_t(n));
  std::iota(natural.row_pos.begin(), natural.row_pos.end(), 0);
  std::iota(natural.col_pos.begin(), natural.col_pos.end(), 0);
  natural = finish(std::move(natural));

  // Reverse Cuthill-McKee on G; rows and columns numbered in that order separately.
  const Graph g = graph_of(pattern, n);
  std::vector<std::size_t> cm(boost::num_vertices(g));
  boost::cuthill_mckee_ordering(g, cm.rbegin());
  BandOrder rcm;
  rcm.row_pos.resize(std::size_t(n)), rcm.col_pos.resize(std::size_t(n));
  int rows = 0, cols = 0;
  for (std::size_t v : cm) {
    if (v < std::size_t(n)) rcm.row_pos[v] = rows++;
    else rcm.col_pos[v - std::size_t(n)] = cols++;
  }
  rcm = finish(std::move(rcm));
  return band_updates(n, rcm.kl, rcm.ku) < band_updates(n, natural.kl, natural.ku) ? rcm : natural;
}

KasteleynPlan plan_kasteleyn(const PatternRC& pattern, int n) {
  KasteleynPlan p;
  p.n = n;
  p.planar = planar_pattern(pattern, n);
  if (!p.planar) return p;
  const BandOrder o = band_order(pattern, n);
  p.kl = o.kl, p.ku = o.ku;
  p.updates = band_updates(n, o.kl, o.ku);
  p.bytes = band_bytes(n, o.kl, o.ku, 8);
  return p;
}

}  // namespace matchcount::engines
