// Every edge probability of a planar graph (not necessarily bipartite) in floating point, from
// the inverse of its Pfaffian-oriented skew-symmetric matrix (private to src/engines).
//
// For a Pfaffian orientation (pfaffian.hpp: K(u, v) = a(u, v) when u -> v, -a(u, v) when
// v -> u) every perfect matching enters Pf(K) with the same sign, and the expansion of Pf(K)
// along row u splits it into the edges (u, v) of u, each term being the part from matchings
// using that edge: P(edge (u, v)) = K(u, v) (K^-1)(v, u) = |a(u, v) (K^-1)(v, u)|. The entries
// of K^-1 at the transposed positions of K's entries come from the selected inverse of
// K^T K = -K^2 (planar/selected_inverse.hpp).
#pragma once

#include "engines/planar/selected_inverse.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// The probability of every edge of the graph of the n x n adjacency matrix `a`, with estimated
/// errors (error_estimated). An undirected edge {u, v} (u != v) may be stored as (u, v), as
/// (v, u) or as both, with equal values when both; p and abs_error are given per stored entry
/// (both copies of an edge get the same). Weights must be finite and >= 0; an explicit zero is
/// an edge of probability 0 and left out of the graph, and so is a diagonal entry (a loop is in
/// no perfect matching). ok = false with `why` when `a` is not square, has a negative or
/// non-finite entry, a repeated position or two copies of an edge that differ, its graph is not
/// planar or has no perfect matching, the selected inverse would need more than `max_bytes`,
/// or the oriented matrix is singular to working precision or too ill-conditioned.
PlanarEdgeProbabilities pfaffian_edge_probabilities(const SparseMatrix<double>& a, double max_bytes);

}  // namespace matchcount::engines
