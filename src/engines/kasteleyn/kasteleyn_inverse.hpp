// Every edge probability of a planar bipartite graph in floating point, from the inverse of
// its Kasteleyn matrix (private to src/engines).
//
// The n x n block A (rows: black vertices, columns: white ones, entry (r, c) = weight of edge
// (r, c)) defines random perfect matchings, drawn with probability proportional to the product
// of their weights. For a Kasteleyn signing s (kasteleyn.hpp) and K(r, c) = s(r, c) A(r, c),
// every term of det K has the same sign, so the cofactor expansion along row r splits det K
// into the edges (r, c) of r, each term being the part from matchings using that edge:
//   P(edge (r, c)) = K(r, c) (K^-1)(c, r) = |A(r, c) (K^-1)(c, r)|   (Kenyon's local statistics).
// The entries (K^-1)(c, r) at the transposed positions of K's entries come from the selected
// inverse of K^T K or K K^T (planar/selected_inverse.hpp), in O(n b^2) for envelope width b.
#pragma once

#include "engines/planar/selected_inverse.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// The probability of every entry (edge) of the n x n biadjacency matrix `a` (square; positive
/// finite weights; entries in any order, no position twice; an explicit zero is an edge of
/// probability 0 and is left out of the graph), with estimated errors (error_estimated).
/// ok = false with `why` when `a` is not square, has a negative or non-finite entry or a
/// repeated position, its graph is not planar or has no perfect matching, the selected inverse
/// would need more than `max_bytes`, or the signed matrix is singular to working precision.
PlanarEdgeProbabilities kasteleyn_edge_probabilities(const SparseMatrix<double>& a, double max_bytes);

}  // namespace matchcount::engines
