// Helpers of the all-matchings tests (matchings_test.cpp, matchings_parts_test.cpp): a graph's
// adjacency matrix, its polynomial through the pipeline, and the enumeration of its matchings
// by size.
#pragma once

#include <vector>

#include "matchcount/generate.hpp"
#include "matchcount/matchings.hpp"

namespace matchcount::matchtest {

inline SparseMatrix<Integer> of(const EdgeList& g) { return adjacency_matrix(g); }

inline std::vector<Integer> polynomial(const SparseMatrix<Integer>& a) {
  std::vector<Integer> out;
  for (const auto& v : matching_polynomial(a)) out.push_back(std::get<Integer>(v.value));
  return out;
}

/// The weighted count of matchings of each size, by enumeration of edge subsets' sizes.
inline void brute_sizes(int n, const std::vector<std::vector<long>>& w, std::vector<bool>& used, Integer weight, int size,
                 std::vector<Integer>& out) {
  int v = 0;
  while (v < n && used[static_cast<std::size_t>(v)]) ++v;
  if (v == n) {
    out[static_cast<std::size_t>(size)] += weight;
    return;
  }
  used[static_cast<std::size_t>(v)] = true;
  brute_sizes(n, w, used, weight, size, out);
  for (int u = v + 1; u < n; ++u)
    if (!used[static_cast<std::size_t>(u)] && w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)] != 0) {
      used[static_cast<std::size_t>(u)] = true;
      brute_sizes(n, w, used, weight * w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)], size + 1, out);
      used[static_cast<std::size_t>(u)] = false;
    }
  used[static_cast<std::size_t>(v)] = false;
}

}  // namespace matchcount::matchtest
