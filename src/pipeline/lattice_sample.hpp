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

/// Recognises the region of `a` (the graph as general_graph gives it: vertices of a symmetric
/// graph, or rows then columns) with the vertices' `cells`.
LatticeRegion lattice_region(const SparseMatrix<Integer>& general, const std::vector<std::pair<int, int>>& cells);

/// The samples by the lattice samplers, or nothing where the graph is not such a region (Auto);
/// WhichMethod::Lattice refuses (RefusedError) instead. Pairs as sample_perfect_matchings gives
/// them, for a matrix of `rows` rows (symmetric: 0).
std::optional<std::vector<std::vector<std::pair<int, int>>>> lattice_samples(const SparseMatrix<Integer>& general,
                                                                             int rows, const MatchingGraph& g,
                                                                             const SampleOptions& options);

}  // namespace matchcount::detail
