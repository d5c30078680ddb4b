// Planarity, the Pfaffian orientation (FKT), the banded vertex order and the global sign of
// the Pfaffian engine (pfaffian.hpp).
#include <algorithm>
#include <numeric>
#include <string>

#include "engines/common.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"
#include "core/tuning.hpp"
#include "engines/planar/dissection.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/graph_matching.hpp"

namespace matchcount::engines {
namespace pfaffian_detail {
namespace {

/// A simple planar graph on n >= 3 vertices has at most 3n - 6 edges.
bool too_dense(int n, std::size_t m) { return n >= 3 && m > std::size_t(3 * n - 6); }

/// Entry updates of the skew elimination in the order `pos`, assuming every row below a pivot
/// pair fills up to the farthest column the pair reaches (an upper estimate for connected
/// fronts): step k updates the triangle of rows k+2..E, E the farthest column of rows <= k+1.
double order_updates(int n, const EdgeList& edges, const std::vector<int>& pos, int& band) {
  std::vector<int> reach(static_cast<std::size_t>(n));
  std::iota(reach.begin(), reach.end(), 0);
  band = 0;
  for (auto [u, v] : edges) {
    int p = pos[std::size_t(u)], q = pos[std::size_t(v)];
    if (p > q) std::swap(p, q);
    reach[std::size_t(p)] = std::max(reach[std::size_t(p)], q);
    band = std::max(band, q - p);
  }
  double work = 0;
  int far = 0;
  for (int k = 0; k + 1 < n; k += 2) {
    far = std::max({far, reach[std::size_t(k)], reach[std::size_t(k + 1)]});
    const double rows = far - k - 1;  // rows k+2..far
    if (rows > 1) work += rows * (rows - 1) / 2;
  }
  return work;
}

}  // namespace

RefusedError not_planar_error(int n, std::size_t edges) {
  return RefusedError("pfaffian: the graph is not planar (" + std::to_string(n) + " vertices, " +
                      std::to_string(edges) + " edges), so it has no Pfaffian orientation; count it with another "
                      "engine");
}

EdgeList edges_of(const std::vector<std::pair<int, int>>& pattern) {
  EdgeList e;
  e.reserve(pattern.size() / 2);
  for (auto [r, c] : pattern)
    if (r < c) e.emplace_back(r, c);
  return e;
}

std::vector<signed char> pfaffian_orientation(int n, const EdgeList& edges) {
  if (too_dense(n, edges.size())) return {};
  const auto tree = planar::face_tree(n, edges);
  if (!tree) return {};
  // The spanning forest's edges stay oriented u -> v (a bridge lies twice on one face, walked
  // once each way, so it counts once whatever its direction); every other face, leaves first,
  // fixes the edge to its parent in the dual tree so that an odd number of its edges point
  // along its walk.
  std::vector<signed char> sign(edges.size(), 1);
  for (const planar::FaceToFix& fix : tree->leaves_first) {
    const int pe = fix.parent_edge;
    std::size_t along = 0;
    int from = -1;
    for (const planar::FaceStep& s : tree->faces[std::size_t(fix.face)]) {
      if (s.edge == pe) {
        from = s.from;
        continue;
      }
      const bool forward = s.from == edges[std::size_t(s.edge)].first;
      if (forward == (sign[std::size_t(s.edge)] > 0)) ++along;
    }
    // pe must point along the walk (away from `from`) exactly when the others are even.
    const bool along_needed = along % 2 == 0;
    const bool forward = from == edges[std::size_t(pe)].first;
    sign[std::size_t(pe)] = forward == along_needed ? 1 : -1;
  }
  return sign;
}

VertexOrder band_order(int n, const EdgeList& edges) {
  VertexOrder natural;
  natural.pos.resize(std::size_t(n));
  std::iota(natural.pos.begin(), natural.pos.end(), 0);
  natural.updates = order_updates(n, edges, natural.pos, natural.band);

  const std::vector<std::size_t> cm = planar::reverse_cuthill_mckee(n, edges);
  VertexOrder rcm;
  rcm.pos.resize(std::size_t(n));
  for (std::size_t i = 0; i < cm.size(); ++i) rcm.pos[cm[i]] = int(i);
  rcm.updates = order_updates(n, edges, rcm.pos, rcm.band);
  return rcm.updates < natural.updates ? rcm : natural;
}

void refuse_band(int n, int band, double bytes, double limit, const std::string& more) {
  refuse_memory(limit < kPfaffianMemoryLimit,
                "pfaffian: banded elimination of this graph (" + std::to_string(n) + " vertices, band " +
                    std::to_string(band) + ") needs " + three_digits(bytes / double(1ull << 30)) + " GiB, over the " +
                    (limit < kPfaffianMemoryLimit ? "memory budget (--max-memory) of " : "limit of ") +
                    three_digits(limit / double(1ull << 30)) + " GiB" + more);
}

template <class T>
SkewBlock prepare(const SparseMatrix<T>& a, std::size_t value_size, double max_bytes, bool exact) {
  const int n = a.rows;
  EdgeList edges;
  SkewBlock b;
  b.n = n;
  for (std::size_t k = 0; k < a.entries.size(); ++k)
    if (a.entries[k].row < a.entries[k].col) edges.emplace_back(a.entries[k].row, a.entries[k].col), b.entry.push_back(k);
  if (too_dense(n, edges.size())) throw not_planar_error(n, edges.size());
  // The band first: the embedding behind the orientation is the heavy part.
  const VertexOrder o = band_order(n, edges);
  b.band = o.band;
  b.updates = o.updates;
  const double bytes = band_bytes(n, o.band, value_size), limit = std::min(kPfaffianMemoryLimit, max_bytes);
  if (bytes > limit && !exact) refuse_band(n, o.band, bytes, limit);
  const std::vector<signed char> orient = pfaffian_orientation(n, edges);
  if (orient.empty()) throw not_planar_error(n, edges.size());
  b.row.resize(edges.size()), b.col.resize(edges.size()), b.s.resize(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const int p = o.pos[std::size_t(edges[k].first)], q = o.pos[std::size_t(edges[k].second)];
    // K'(p, q) = orient * a when p < q; else K'(q, p) = -K'(p, q).
    if (p < q) b.row[k] = p, b.col[k] = q, b.s[k] = orient[k];
    else b.row[k] = q, b.col[k] = p, b.s[k] = static_cast<signed char>(-orient[k]);
  }
  return b;
}

template <class T>
void set_sign(const SparseMatrix<T>& a, SkewBlock& b, const std::vector<int>& mate) {
  // The matching's term in Pf(K'): sgn(p1 q1 p2 q2 ...) * prod K'(p_i, q_i), p_i < q_i; its sign
  // is every matching's, so haf = eps * Pf(K').
  std::vector<int> perm;
  perm.reserve(std::size_t(b.n));
  b.eps = 1;
  b.mate.assign(std::size_t(b.n), -1);
  for (std::size_t k = 0; k < b.entry.size(); ++k) {
    const auto& e = a.entries[b.entry[k]];
    if (mate[std::size_t(e.row)] != e.col) continue;
    perm.push_back(b.row[k]), perm.push_back(b.col[k]);
    b.mate[std::size_t(b.row[k])] = b.col[k], b.mate[std::size_t(b.col[k])] = b.row[k];
    b.eps *= b.s[k];
  }
  if (perm.size() != std::size_t(b.n)) throw std::logic_error("pfaffian: the matching is not perfect");
  b.eps *= planar::permutation_sign(perm);
}

template SkewBlock prepare(const SparseMatrix<Integer>&, std::size_t, double, bool);
template SkewBlock prepare(const SparseMatrix<double>&, std::size_t, double, bool);
template SkewBlock prepare(const SparseMatrix<Complex>&, std::size_t, double, bool);
template void set_sign(const SparseMatrix<Integer>&, SkewBlock&, const std::vector<int>&);
template void set_sign(const SparseMatrix<double>&, SkewBlock&, const std::vector<int>&);
template void set_sign(const SparseMatrix<Complex>&, SkewBlock&, const std::vector<int>&);

}  // namespace pfaffian_detail

PfaffianPlan plan_pfaffian(const std::vector<std::pair<int, int>>& pattern, int n) {
  using namespace pfaffian_detail;
  PfaffianPlan p;
  p.n = n;
  const EdgeList edges = edges_of(pattern);
  p.planar = !too_dense(n, edges.size()) && planar::is_planar(n, edges);
  if (!p.planar) return p;
  const VertexOrder o = band_order(n, edges);
  p.band = o.band;
  p.updates = o.updates;
  p.bytes = band_bytes(n, o.band, 8);
  return p;
}

bool fronts_win(double front_work, double band_updates) {
  const int method = tuning::tuning().pfaffian_method;
  if (method != 0) return method == 2;
  return front_work * kPfaffianFrontOverhead < 2 * band_updates;  // the band: two multiply-adds an update
}

void plan_pfaffian_fronts(PfaffianPlan& p, const std::vector<std::pair<int, int>>& pattern, int n) {
  GraphPattern g;
  g.n = n;
  g.adj.resize(std::size_t(n));
  for (auto [u, v] : pattern) g.adj[std::size_t(u)].push_back(v);
  const GraphMatching m = edmonds_matching(g);
  if (!m.perfect()) return;
  const planar::Dissection d = planar::dissect(n, pattern, &m.mate);
  p.fronts = pfaffian_detail::front_work(d);
  p.front_bytes = d.scratch_bytes() + d.plan_bytes();
  take_fronts(p);
}

void take_fronts(PfaffianPlan& p) {
  if (p.fronts <= 0 || !fronts_win(p.fronts, p.updates)) return;
  p.nested = true;
  p.updates = p.fronts * kPfaffianDissectionUpdate;
  p.bytes = p.front_bytes;
}

}  // namespace matchcount::engines
