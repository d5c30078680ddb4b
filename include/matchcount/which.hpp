// Which perfect matchings: the probability of each edge in a random perfect matching (edge
// probabilities, the chemists' Pauling bond orders) and exact random perfect matchings, drawn
// uniformly or with probability proportional to the product of their weights.
#pragma once

#include <cstdint>
#include <functional>
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
  AnyMatrix matrix;
  bool symmetric = false;
};

/// How the questions are answered: Frontier, the graph frontier DP's tables (nonnegative exact
/// weights that fit 64 bits; for marginals integer or rational weights); Counts, one count of
/// the graph without an edge's ends for each (marginals) or candidate (samples); Auto the
/// frontier DP where its tables fit in 1 GiB (a fixed limit, so the method, and with it the
/// samples of a seed, depend on the graph alone), else the counts.
enum class WhichMethod { Auto, Frontier, Counts };

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
MarginalsReport edge_probabilities(const MatchingGraph& g, const CountOptions& options = {},
                                   WhichMethod method = WhichMethod::Auto);


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
