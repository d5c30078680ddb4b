// Private to the pipeline's which-matchings questions (marginals.cpp, sample.cpp): a graph
// without some of its vertices, and its count through the counting pipeline.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/pipeline.hpp"
#include "matchcount/which.hpp"

namespace matchcount::detail {

/// `a` without the rows whose drop_row is set and the columns whose drop_col is set, the others
/// renumbered in order.
template <class T>
SparseMatrix<T> without(const SparseMatrix<T>& a, const std::vector<char>& drop_row, const std::vector<char>& drop_col) {
  std::vector<int> row(static_cast<std::size_t>(a.rows), -1), col(static_cast<std::size_t>(a.cols), -1);
  int rows = 0, cols = 0;
  for (int r = 0; r < a.rows; ++r)
    if (!drop_row[static_cast<std::size_t>(r)]) row[static_cast<std::size_t>(r)] = rows++;
  for (int c = 0; c < a.cols; ++c)
    if (!drop_col[static_cast<std::size_t>(c)]) col[static_cast<std::size_t>(c)] = cols++;
  SparseMatrix<T> out{rows, cols, {}};
  for (const auto& e : a.entries) {
    const int r = row[static_cast<std::size_t>(e.row)], c = col[static_cast<std::size_t>(e.col)];
    if (r >= 0 && c >= 0) out.entries.push_back({r, c, e.value});
  }
  return out;
}

/// The weighted number of perfect matchings of the graph `m` (symmetric: its hafnian without
/// loops; else its permanent, 0 when not square), quietly: no progress or checkpoint.
inline PermanentValue count_quietly(const AnyMatrix& m, bool symmetric, const CountOptions& options) {
  CountOptions o = options;
  o.progress = nullptr;
  o.checkpoint = nullptr;
  o.on_prediction = nullptr;
  o.vertex_names.clear();
  o.explain = false;
  if (!symmetric && rows_of(m) != cols_of(m)) return PermanentValue{};
  if (rows_of(m) == 0) {
    PermanentValue one;
    one.value = Integer(1);
    return one;
  }
  return symmetric ? count_hafnian(m, false, o).value : count_permanent(m, o).value;
}

/// The weights as nonnegative integers with the same ratios (rationals over their common
/// denominator, doubles as the binary fractions they are); nothing where one is negative,
/// complex or not finite (`why` says which).
std::optional<SparseMatrix<Integer>> scaled_integer_weights(const AnyMatrix& m, std::string* why);

/// Every edge's probability of a planar graph in floats from the inverse of its Kasteleyn (or,
/// for a general graph, Pfaffian-oriented) matrix, the total as a logarithm (options.log):
/// --marginals --log (planar_marginals.cpp). RefusedError where the graph is not planar, has no
/// perfect matching or negative weights, or the inverse is beyond the memory budget.
void planar_marginals(const MatchingGraph& g, const CountOptions& options, MarginalsReport& report);

/// The frontier tables' memory limit for edge probabilities and samples (a fixed one: the
/// method, and with it a seed's samples, depends on the graph alone).
constexpr double kTablesBytes = double(1ull << 30);

/// Every edge's probability from every count(G - u - v) at once (marginals_minors.cpp): a
/// bipartite graph's permanent minors, any other graph's hafnian minors, for exact weights;
/// false where they do not apply or (Auto) the frontier tables are predicted cheaper.
bool marginals_by_minors(const MatchingGraph& g, const CountOptions& options, WhichMethod method,
                         MarginalsReport& report, const std::function<bool()>& stop);

/// The general graph of `a`: itself (less the diagonal) when symmetric, else the bipartite graph
/// of rows 0..r-1 and columns r..r+c-1.
SparseMatrix<Integer> general_graph(const SparseMatrix<Integer>& a, bool symmetric);

}  // namespace matchcount::detail
