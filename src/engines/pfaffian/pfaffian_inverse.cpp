// Edge probabilities of planar graphs from the selected inverse of the Pfaffian-oriented matrix
// (pfaffian_inverse.hpp).
#include "engines/pfaffian/pfaffian_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "engines/pfaffian/pfaffian_impl.hpp"
#include "matchcount/graph_matching.hpp"

namespace matchcount::engines {

PlanarEdgeProbabilities pfaffian_edge_probabilities(const SparseMatrix<double>& a, double max_bytes) {
  PlanarEdgeProbabilities out;
  auto refuse = [&](std::string why) {
    out.why = "pfaffian probabilities: " + std::move(why);
    return out;
  };
  if (!a.square()) return refuse("the matrix is not square");
  const int n = a.rows;
  // Every stored entry as (u, v, entry) with u < v, sorted: the copies of an edge are adjacent.
  std::vector<std::tuple<int, int, std::size_t>> copies;
  for (std::size_t e = 0; e < a.entries.size(); ++e) {
    const auto& en = a.entries[e];
    if (en.row < 0 || en.row >= n || en.col < 0 || en.col >= n) return refuse("an entry is out of range");
    if (!std::isfinite(en.value) || en.value < 0) return refuse("a weight is negative or not finite");
    if (en.row != en.col && en.value > 0) copies.emplace_back(std::min(en.row, en.col), std::max(en.row, en.col), e);
  }
  std::sort(copies.begin(), copies.end());
  // The edges (u < v), each once, with the entries that store it.
  pfaffian_detail::EdgeList edges;
  std::vector<double> weight;
  std::vector<std::pair<std::size_t, std::size_t>> stored;  // second = first when stored once
  for (std::size_t i = 0; i < copies.size();) {
    const auto [u, v, e] = copies[i];
    std::size_t j = i + 1;
    if (j < copies.size() && std::get<0>(copies[j]) == u && std::get<1>(copies[j]) == v) {
      const std::size_t f = std::get<2>(copies[j]);
      const auto &x = a.entries[e], &y = a.entries[f];
      if (x.row == y.row) return refuse("a position is repeated");
      if (x.value != y.value) return refuse("the two entries of an edge differ (the matrix is not symmetric)");
      if (++j < copies.size() && std::get<0>(copies[j]) == u && std::get<1>(copies[j]) == v)
        return refuse("a position is repeated");
      stored.emplace_back(e, f);
    } else {
      stored.emplace_back(e, e);
    }
    edges.emplace_back(u, v), weight.push_back(a.entries[e].value);
    i = j;
  }
  out.p.assign(a.entries.size(), 0.0);
  out.abs_error.assign(a.entries.size(), 0.0);
  if (n == 0) {
    out.ok = true;
    return out;
  }
  GraphPattern g;
  g.n = n;
  g.adj.resize(std::size_t(n));
  for (auto [u, v] : edges) g.adj[std::size_t(u)].push_back(v), g.adj[std::size_t(v)].push_back(u);
  for (auto& list : g.adj) std::sort(list.begin(), list.end());
  const GraphMatching matching = edmonds_matching(g);
  if (!matching.perfect()) return refuse("the graph has no perfect matching");
  // Edges in no perfect matching have probability 0 exactly; without them the oriented matrix
  // equilibrates well (selected_inverse.cpp). The search may stop early on large graphs: an
  // edge left in only costs accuracy, not correctness.
  {
    std::vector<std::pair<int, int>> dead = edges_in_no_perfect_matching(g, matching).edges;
    std::sort(dead.begin(), dead.end());
    std::size_t live = 0;
    for (std::size_t k = 0; k < edges.size(); ++k) {
      if (std::binary_search(dead.begin(), dead.end(), edges[k])) continue;
      edges[live] = edges[k], weight[live] = weight[k], stored[live] = stored[k], ++live;
    }
    edges.resize(live), weight.resize(live), stored.resize(live);
  }
  const std::vector<signed char> sign = pfaffian_detail::pfaffian_orientation(n, edges);
  if (sign.empty()) return refuse("the graph is not planar");

  // K: edge k at entries 2k = (u, v) and 2k + 1 = (v, u).
  SparseMatrix<double> k;
  k.rows = k.cols = n;
  k.entries.reserve(2 * edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const double s = sign[e] * weight[e];
    k.entries.push_back({edges[e].first, edges[e].second, s});
    k.entries.push_back({edges[e].second, edges[e].first, -s});
  }
  const planar::TransposedInverse x = planar::inverse_at_transposed(k, max_bytes);
  PlanarEdgeProbabilities q = planar::probabilities_from_inverse(k, x);
  if (!q.ok) return refuse(q.why);
  // The two computations of each edge's probability, (K^-1)(v, u) and (K^-1)(u, v), averaged:
  // the mean is within the mean of their error estimates.
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const double p = (q.p[2 * e] + q.p[2 * e + 1]) / 2, err = (q.abs_error[2 * e] + q.abs_error[2 * e + 1]) / 2;
    for (std::size_t entry : {stored[e].first, stored[e].second}) out.p[entry] = p, out.abs_error[entry] = err;
  }
  q.p = std::move(out.p), q.abs_error = std::move(out.abs_error);
  return q;
}

}  // namespace matchcount::engines
