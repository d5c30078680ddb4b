// The matching polynomial of a forest by the classical recursion over its rooted trees
// (private to src/engines): a vertex's subtree has the polynomial of its matchings with the
// vertex left free, F_v, and with it matched, M_v; a child c joins as
//   F_v <- F_v (F_c + M_c),   M_v <- M_v (F_c + M_c) + w_vc x F_v F_c,
// so a tree of n vertices takes O(n^2) coefficient products, exactly, whatever its width.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// True when the graph of the symmetric pattern of `a` (off-diagonal entries) has no cycle.
bool is_forest(const SparseMatrix<Integer>& a);

/// m_0, m_1, ..., m_{floor(n/2)} of the forest `a` (symmetric, both triangles or one; the
/// diagonal ignored; entries are the edges' weights, any integers), exactly. Throws
/// std::invalid_argument when `a` is not square or its graph has a cycle. `stop` (when set) is
/// called between vertices; returning true throws Interrupted.
std::vector<Integer> tree_matching_polynomial(const SparseMatrix<Integer>& a, bool (*stop)() = nullptr);

}  // namespace matchcount::engines
