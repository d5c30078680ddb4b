// Band estimates of the planar engines before any planarity test (planar_gate.hpp).
#include "catalog/planar_gate.hpp"

#include <algorithm>
#include <numeric>

#include "engines/frontier_orders.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"

namespace matchcount::catalog {
namespace {

/// Cuthill-McKee over the graph `adj`, components started from their least-degree vertices:
/// the position of every vertex.
std::vector<int> cm_positions(const engines::AdjacencyLists& adj) {
  std::vector<int> pos(adj.size());
  const std::vector<int> order = engines::cuthill_mckee(adj, engines::by_degree(adj, adj.size()));
  for (std::size_t i = 0; i < order.size(); ++i) pos[std::size_t(order[i])] = int(i);
  return pos;
}

}  // namespace

engines::KasteleynPlan estimated_kasteleyn(const engines::PatternRC& pattern, int n) {
  engines::KasteleynPlan p;
  p.planar = true;
  p.n = n;
  auto bands = [&](const std::vector<int>& row_pos, const std::vector<int>& col_pos) {
    int kl = 0, ku = 0;
    for (auto [r, c] : pattern) {
      kl = std::max(kl, row_pos[std::size_t(r)] - col_pos[std::size_t(c)]);
      ku = std::max(ku, col_pos[std::size_t(c)] - row_pos[std::size_t(r)]);
    }
    return std::pair{std::min(kl, ku), std::max(kl, ku)};  // the engine eliminates the narrower side
  };
  std::vector<int> natural(static_cast<std::size_t>(n));
  std::iota(natural.begin(), natural.end(), 0);
  auto [kl, ku] = bands(natural, natural);
  {
    engines::AdjacencyLists adj(std::size_t(2 * n));
    for (auto [r, c] : pattern) adj[std::size_t(r)].push_back(n + c), adj[std::size_t(n + c)].push_back(r);
    const std::vector<int> pos = cm_positions(adj);
    adj = {};
    // Rows and columns numbered separately, each in the order of their vertices.
    std::vector<int> by_pos(std::size_t(2 * n)), row_pos(static_cast<std::size_t>(n)), col_pos(static_cast<std::size_t>(n));
    for (int v = 0; v < 2 * n; ++v) by_pos[std::size_t(pos[std::size_t(v)])] = v;
    int rows = 0, cols = 0;
    for (int v : by_pos) {
      if (v < n) row_pos[std::size_t(v)] = rows++;
      else col_pos[std::size_t(v - n)] = cols++;
    }
    const auto [cl, cu] = bands(row_pos, col_pos);
    if (engines::band_updates(n, cl, cu) < engines::band_updates(n, kl, ku)) kl = cl, ku = cu;
  }
  p.kl = kl, p.ku = ku;
  p.updates = engines::band_updates(n, kl, ku);
  p.bytes = engines::band_bytes(n, kl, ku, 8);
  return p;
}

engines::PfaffianPlan estimated_pfaffian(const std::vector<std::pair<int, int>>& pattern, int n) {
  engines::PfaffianPlan p;
  p.planar = true;
  p.n = n;
  // The engine's estimate of its elimination (pfaffian_orient.cpp): step k updates the
  // triangle of rows k+2..E, E the farthest column reached by rows <= k+1.
  auto profile = [&](const std::vector<int>& pos, int& band) {
    std::vector<int> reach(static_cast<std::size_t>(n));
    std::iota(reach.begin(), reach.end(), 0);
    band = 0;
    for (auto [u, v] : pattern) {
      const int a = std::min(pos[std::size_t(u)], pos[std::size_t(v)]), b = std::max(pos[std::size_t(u)], pos[std::size_t(v)]);
      reach[std::size_t(a)] = std::max(reach[std::size_t(a)], b);
      band = std::max(band, b - a);
    }
    double work = 0;
    int far = 0;
    for (int k = 0; k + 1 < n; k += 2) {
      far = std::max({far, reach[std::size_t(k)], reach[std::size_t(k + 1)]});
      const double rows = far - k - 1;
      if (rows > 1) work += rows * (rows - 1) / 2;
    }
    return work;
  };
  std::vector<int> natural(static_cast<std::size_t>(n));
  std::iota(natural.begin(), natural.end(), 0);
  p.updates = profile(natural, p.band);
  engines::AdjacencyLists adj(static_cast<std::size_t>(n));
  for (auto [u, v] : pattern) adj[std::size_t(u)].push_back(v);
  const std::vector<int> pos = cm_positions(adj);
  adj = {};
  int band = 0;
  if (const double work = profile(pos, band); work < p.updates) p.updates = work, p.band = band;
  p.bytes = engines::pfaffian_detail::band_bytes(n, p.band, 8);
  return p;
}

}  // namespace matchcount::catalog
