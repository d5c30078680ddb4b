// Private to the pipeline: samples of whole lattice regions (sample.cpp). A graph with unit
// weights whose vertices are lattice cells (MatchingGraph::cells), joined exactly where they are
// neighbours, is a region of the square lattice; an Aztec diamond takes domino shuffling and a
// rectangle Temperley's bijection with Wilson's algorithm (src/engines/lattice), each exact and
// far faster than the general methods.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "matchcount/which.hpp"

namespace matchcount::detail {

/// The region the graph is, or why it is none (`why`).
struct LatticeRegion {
  enum Kind { None, AztecDiamond, Rectangle } kind = None;
  int order = 0, rows = 0, cols = 0;  // the diamond's order, or the rectangle's sides
  int top = 0, left = 0;              // where the region's (0, 0) lies among the cells
  std::string why;
};

/// Recognises the region of the graph of `a` (symmetric: its adjacency matrix; else a bipartite
/// graph's, rows then columns as the cells' vertices) with the vertices' `cells`.
LatticeRegion lattice_region(const SparseMatrix<Integer>& a, bool symmetric, const std::vector<std::pair<int, int>>& cells);

/// The samples by the lattice samplers, or nothing where the graph (an integer matrix, read as it
/// is: no copy of a large lattice) is not such a region (Auto); WhichMethod::Lattice refuses
/// (RefusedError) instead. Pairs as sample_perfect_matchings gives them.
std::optional<std::vector<std::vector<std::pair<int, int>>>> lattice_samples(const MatchingGraph& g, const SampleOptions& options);

}  // namespace matchcount::detail
