// Which perfect matchings: the probability of each edge in a random perfect matching (edge
// probabilities, the chemists' Pauling bond orders) and exact random perfect matchings, drawn
// uniformly or with probability proportional to the product of their weights.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

/// A graph as the questions take it: `symmetric`, the adjacency matrix of a general graph
/// (vertices are its rows; the diagonal is ignored); otherwise a bipartite graph's matrix
/// (row r matched to column c).
struct MatchingGraph {
  MatchingGraph() = default;
  MatchingGraph(AnyMatrix m, bool is_symmetric, std::vector<std::pair<int, int>> lattice_cells = {})
      : matrix(std::move(m)), symmetric(is_symmetric), cells(std::move(lattice_cells)) {}
  AnyMatrix matrix;
  bool symmetric = false;
  /// Where each vertex lies on the square lattice, (row, column), when known (empty otherwise):
  /// vertices of a symmetric graph, else the matrix's rows then its columns. The CLI and Python
  /// fill it from names such as `3,4` or `(3, 4)` (lattice_cell_of_name). It lets the samples of
  /// whole lattice regions take the lattice samplers (SampleOptions).
  std::vector<std::pair<int, int>> cells;
};

/// The lattice cell a vertex name stands for: two integers as `r,c` or `(r, c)` (networkx's
/// tuple names), spaces allowed around them; nothing for any other name.
std::optional<std::pair<int, int>> lattice_cell_of_name(std::string_view name);

/// How the questions are answered: Frontier, the graph frontier DP's tables (nonnegative exact
/// weights that fit 64 bits; for marginals integer or rational weights); Counts, one count of
/// the graph without an edge's ends for each (marginals) or candidate (samples); Auto the
/// frontier DP where its tables fit in 1 GiB (a fixed limit, so the method, and with it the
/// samples of a seed, depend on the graph alone), else the counts.
/// Marginals only: Minors, every count(G - u - v) at once as a partial derivative of the count
/// (integer or nonnegative rational weights): a bipartite graph's permanent minors from one
/// forward Gray-code walk of Glynn's formula (up to 62 + 62 vertices), any other graph's hafnian
/// minors from one reverse walk of the hafnian recursion (up to 64 vertices, about three counts'
/// work); Auto takes them where they are predicted cheaper than the frontier tables.
/// Samples only: Lattice, the exact samplers of whole lattice regions with unit weights and
/// known cells (MatchingGraph::cells): the Aztec diamond by domino shuffling, rectangles by
/// Temperley's bijection and Wilson's algorithm; Auto takes them first where they apply.
enum class WhichMethod { Auto, Frontier, Counts, Lattice, Minors };

/// The probability of edge (u, v): for a symmetric graph u < v are vertices, else u a row and v
/// a column.
struct EdgeProbability {
  int u = 0, v = 0;
  /// Exact (a reduced fraction, or an integer 0 or 1) for integer and rational weights; a double
  /// with a bound (PermanentValue::abs_error) for real weights.
  PermanentValue p;
};

struct MarginalsReport {
  /// Every edge of the graph (each once, in the matrix's order: by u, then v).
  std::vector<EdgeProbability> edges;
  /// The weighted number of perfect matchings, their common denominator.
  PermanentValue total;
  std::vector<std::string> notes;
  double seconds = 0;
};

/// The probability that each edge lies in a random perfect matching drawn with probability
/// proportional to its weight (uniformly for 0-1 graphs): the weight of the perfect matchings
/// through the edge (the frontier DP's forward and backward tables, or w_uv times the count of
/// the graph without u and v) over the weight of all. RefusedError when the graph has no perfect
/// matching (every probability is undefined) or for complex weights; `options` as for counts
/// (threads, device, budgets).
/// `stop` (when set) is asked between edges of the counts' way; returning true throws
/// Interrupted (Python's Ctrl-C).
MarginalsReport edge_probabilities(const MatchingGraph& g, const CountOptions& options = {},
                                   WhichMethod method = WhichMethod::Auto, const std::function<bool()>& stop = {});


struct SampleOptions {
  std::uint64_t samples = 1;
  /// The same seed gives the same samples on every machine and thread count.
  std::uint64_t seed = 1;
  CountOptions count;
  /// Called between samples (and between steps of one); returning true stops with Interrupted.
  std::function<bool()> stop;
  WhichMethod method = WhichMethod::Auto;
};

/// Independent exact samples: each a perfect matching as its pairs (u, v) (u < v vertices of a
/// symmetric graph, else (row, column)), sorted by u. Two exact methods, all in exact integers
/// (real weights as the exact binary fractions they are): the graph frontier DP's tables, kept
/// from one forward pass and walked back once a sample (graphs of narrow frontier), or
/// sequential self-reducibility, where the first unmatched vertex u takes neighbour v with
/// probability w_uv count(G - u - v) / count(G) (any graph the counts reach).
/// RefusedError for negative or complex weights and for a graph without a perfect matching.
std::vector<std::vector<std::pair<int, int>>> sample_perfect_matchings(const MatchingGraph& g, const SampleOptions& options);

}  // namespace matchcount
