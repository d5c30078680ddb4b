// Planarity, the Kasteleyn signing and the banded order of the Kasteleyn engine
// (kasteleyn.hpp), on the bipartite graph G of a pattern: vertex r < n is row r, n + c is
// column c, edge k is pattern entry k.
#include <algorithm>
#include <numeric>
#include <string>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/kasteleyn/kasteleyn_band.hpp"
#include "engines/planar/planar.hpp"

namespace matchcount::engines {
namespace {

/// The edges of G: entry k = (r, c) is edge k = (r, n + c).
planar::EdgeList edges_of(const PatternRC& pattern, int n) {
  planar::EdgeList edges;
  edges.reserve(pattern.size());
  for (auto [r, c] : pattern) edges.emplace_back(r, n + c);
  return edges;
}

/// A simple bipartite planar graph with V >= 3 vertices has at most 2V - 4 edges.
bool too_dense(const PatternRC& pattern, int n) { return n >= 2 && pattern.size() > std::size_t(4 * n - 4); }

}  // namespace

bool planar_pattern(const PatternRC& pattern, int n) {
  if (too_dense(pattern, n)) return false;
  return planar::is_planar(2 * n, edges_of(pattern, n));
}

std::vector<signed char> kasteleyn_signing(const PatternRC& pattern, int n) {
  if (too_dense(pattern, n)) return {};
  const auto tree = planar::face_tree(2 * n, edges_of(pattern, n));
  if (!tree) return {};
  // The spanning forest's edges keep +1; every other face, leaves first, fixes the edge to its
  // parent in the dual tree.
  std::vector<signed char> sign(pattern.size(), 1);
  for (const planar::FaceToFix& fix : tree->leaves_first) {
    const planar::Face& face = tree->faces[std::size_t(fix.face)];
    std::size_t negative = 0;  // along the walk, so an edge met twice counts twice (even)
    for (const planar::FaceStep& s : face)
      if (s.edge != fix.parent_edge && sign[std::size_t(s.edge)] < 0) ++negative;
    // The face needs (length/2 - 1) negative edges mod 2; walks of bipartite graphs are even.
    const std::size_t need = face.size() / 2 + 1;  // = length/2 - 1 (mod 2)
    sign[std::size_t(fix.parent_edge)] = (need + negative) % 2 == 1 ? -1 : 1;
  }
  return sign;
}

RefusedError not_planar_error(int n, std::size_t edges) {
  return RefusedError("kasteleyn: the graph of this " + std::to_string(n) + " x " + std::to_string(n) + " block (" +
                      std::to_string(edges) + " edges) is not planar, so it has no Kasteleyn signing; count it with "
                      "another engine");
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
  const std::vector<std::size_t> cm = planar::reverse_cuthill_mckee(2 * n, edges_of(pattern, n));
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

KasteleynPlan plan_kasteleyn(const PatternRC& pattern, int n, const NestedCost* nested) {
  KasteleynPlan p;
  p.n = n;
  p.planar = planar_pattern(pattern, n);
  if (!p.planar) return p;
  const BandOrder o = band_order(pattern, n);
  p.kl = o.kl, p.ku = o.ku;
  p.updates = band_updates(n, o.kl, o.ku);
  p.bytes = band_bytes(n, o.kl, o.ku, 8);
  if (nested) plan_nested(p, *nested, pattern.size());
  return p;
}

NestedCost nested_cost(const PatternRC& pattern, int n) {
  // On the matching the engine finds, as exact_permanent does.
  Pattern rows;
  rows.rows = rows.cols = n;
  rows.start.assign(std::size_t(n) + 1, 0);
  for (auto [r, c] : pattern) ++rows.start[std::size_t(r) + 1];
  for (int r = 0; r < n; ++r) rows.start[std::size_t(r) + 1] += rows.start[std::size_t(r)];
  rows.column.resize(pattern.size());
  std::vector<int> next(rows.start.begin(), rows.start.end() - 1);
  for (auto [r, c] : pattern) rows.column[std::size_t(next[std::size_t(r)]++)] = c;
  const Matching m = hopcroft_karp(rows);
  if (!m.perfect()) return {};
  const planar::Dissection d = matching_dissection(pattern, n, m);
  return NestedCost{true, d.updates, d.scratch_bytes() + d.plan_bytes()};
}

void plan_nested(KasteleynPlan& p, const NestedCost& nested, std::size_t nnz) {
  // Nested dissection where its fronts cost less (exact_permanent's choice).
  if (nested.matched && take_nested(nested.updates, p.updates + double(nnz))) {
    p.nested = true;
    p.updates = nested.updates * kDissectionUpdate;
    p.bytes = nested.bytes;
  }
}

}  // namespace matchcount::engines
