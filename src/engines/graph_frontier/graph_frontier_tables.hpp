// Which perfect matchings by the graph frontier DP (private to src/engines and the pipeline's
// sample.cpp and marginals.cpp): one forward pass keeps every vertex's table (graph_step.hpp's
// states) in exact fixed-width integers. A sample walks back from the last table, at each vertex
// choosing one of the states its state pulled from with probability weight × source / value,
// by an exact uniform draw: O(n) table reads a sample after the pass. Edge weights take one
// backward pass of completions over the same pulls: forward × weight × backward per entry.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engines/graph_frontier/cuda/graph_pull.hpp"
#include "engines/graph_frontier/graph_step.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::engines {

class FrontierTables {
 public:
  /// The tables of `a`, a symmetric matrix of nonnegative integer weights (the diagonal
  /// ignored), after the forward pass; nothing where a weight does not fit 64 bits, the frontier
  /// is wider than the state bits, or the tables would take more than `max_bytes` (planned once,
  /// before anything is allocated).
  static std::optional<FrontierTables> make(const SparseMatrix<Integer>& a, double max_bytes);
  /// Predicted seconds of make() and edge_weights() on one core: both passes gather over every
  /// state (the plan's cost) in limbs of 64 bits; infinity where make() would give nothing.
  static double predicted_seconds(const SparseMatrix<Integer>& a, double max_bytes);

  /// The widest frontier of the vertex order.
  int width() const { return width_; }
  /// False when the graph has no perfect matching.
  bool has_matching() const { return !dead_; }
  /// One sample, every random draw from `seed` (std::mt19937_64, the same on every platform):
  /// the pairs (u, v), u < v, sorted.
  std::vector<std::pair<int, int>> draw(std::uint64_t seed) const;

  /// The weighted number of perfect matchings (the last table's value).
  Integer total() const;
  /// Per entry of `a` (row v, column u): the weight of the perfect matchings that match v to u
  /// through that entry, by one backward pass over the forward tables (forward × weight ×
  /// backward); an edge's two entries together give its weight, one of them 0.
  std::vector<Integer> edge_weights() const;

  /// A vertex's step as its pulls read it (graph_pull.hpp): built once, read by the forward
  /// pass, every sample and the backward pass.
  struct Pull {
    gpu::PullStep step;
    std::vector<gpu::SlotPair> moved, back;
  };

 private:
  FrontierTables() = default;
  void forward();

  int limbs_ = 1, width_ = 0;
  bool dead_ = false;
  std::vector<int> order_;
  std::vector<Pull> pulls_;                          // per vertex of the order
  std::vector<std::vector<std::uint64_t>> tables_;  // table k: the states before vertex k, limbs_ words each
  std::vector<std::uint64_t> weight_;               // per entry of `a`
  std::vector<int> other_;                          // per entry: its column (v's neighbour)
};

}  // namespace matchcount::engines
