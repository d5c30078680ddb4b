// Edge probabilities of planar bipartite graphs from the selected inverse of the Kasteleyn
// matrix (kasteleyn_inverse.hpp).
#include "engines/kasteleyn/kasteleyn_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "matchcount/decompose.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::engines {

PlanarEdgeProbabilities kasteleyn_edge_probabilities(const SparseMatrix<double>& a, double max_bytes) {
  PlanarEdgeProbabilities out;
  auto refuse = [&](std::string why) {
    out.why = "kasteleyn probabilities: " + std::move(why);
    return out;
  };
  if (!a.square()) return refuse("the matrix is not square");
  const int n = a.rows;
  // The graph: the positive entries, in the input's order.
  SparseMatrix<double> k;
  k.rows = k.cols = n;
  std::vector<std::size_t> kept;
  PatternRC pattern;
  for (std::size_t e = 0; e < a.entries.size(); ++e) {
    const auto& en = a.entries[e];
    if (en.row < 0 || en.row >= n || en.col < 0 || en.col >= n) return refuse("an entry is out of range");
    if (!std::isfinite(en.value) || en.value < 0) return refuse("a weight is negative or not finite");
    if (en.value == 0) continue;
    kept.push_back(e);
    k.entries.push_back(en);
    pattern.emplace_back(en.row, en.col);
  }
  {
    PatternRC sorted = pattern;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return refuse("a position is repeated");
  }
  out.p.assign(a.entries.size(), 0.0);
  out.abs_error.assign(a.entries.size(), 0.0);
  if (n == 0) {
    out.ok = true;
    return out;
  }
  const Matching matching = hopcroft_karp(Pattern::of(k));
  if (!matching.perfect()) return refuse("the graph has no perfect matching");
  // Edges in no perfect matching (between blocks of the fine Dulmage-Mendelsohn decomposition)
  // have probability 0 exactly; without them the signed matrix is a direct sum of fully
  // indecomposable blocks, which equilibrate well (selected_inverse.cpp).
  {
    const FineDecomposition d = fine_dulmage_mendelsohn(Pattern::of(k), matching);
    std::size_t live = 0;
    for (std::size_t e = 0; e < k.entries.size(); ++e) {
      const auto& en = k.entries[e];
      if (d.block_of_row[std::size_t(en.row)] != d.block_of_col[std::size_t(en.col)]) continue;
      kept[live] = kept[e], k.entries[live] = en, pattern[live] = pattern[e], ++live;
    }
    kept.resize(live), k.entries.resize(live), pattern.resize(live);
  }
  const std::vector<signed char> sign = kasteleyn_signing(pattern, n);
  if (sign.empty()) return refuse("the graph is not planar");
  for (std::size_t e = 0; e < k.entries.size(); ++e) k.entries[e].value *= sign[e];

  const planar::TransposedInverse x = planar::inverse_at_transposed(k, max_bytes);
  PlanarEdgeProbabilities q = planar::probabilities_from_inverse(k, x);
  if (!q.ok) return refuse(q.why);
  for (std::size_t e = 0; e < kept.size(); ++e) out.p[kept[e]] = q.p[e], out.abs_error[kept[e]] = q.abs_error[e];
  q.p = std::move(out.p), q.abs_error = std::move(out.abs_error);
  return q;
}

}  // namespace matchcount::engines
