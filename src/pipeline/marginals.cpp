// Edge probabilities (matchcount/which.hpp, edge_probabilities): p_uv = w_uv count(G - u - v) /
// count(G), each count through the counting pipeline (components, reductions, the planner's
// engine), so an edge in no perfect matching gets exactly 0 and a forced edge exactly 1.
// Integer and rational weights give exact fractions; real weights a double with a bound that
// holds, from the counts' own bounds. Graphs of narrow frontier with nonnegative exact weights
// take the graph frontier DP's forward and backward tables instead (all edges in one pass); with
// --log, planar graphs take the inverse Kasteleyn matrix in floats (planar_marginals.cpp); dense
// graphs with exact weights every minor at once (marginals_minors.cpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "matchcount/which.hpp"
#include "engines/graph_frontier/graph_frontier_tables.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "engines/ryser/ryser.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/which_common.hpp"

namespace matchcount {
namespace {

using detail::exact_value;
using detail::rational_of;

double double_of(const PermanentValue& v) {
  if (const auto* d = std::get_if<double>(&v.value)) return *d;
  if (const auto* i = std::get_if<Integer>(&v.value)) return i->get_d();
  return std::get<Rational>(v.value).get_d();
}

/// a / b with a's and b's errors: |a/b - a'/b'| <= (ea + |a'/b'| eb) / (|b'| - eb) when
/// |b'| > eb, plus the division's rounding.
PermanentValue float_ratio(double a, double ea, double b, double eb, bool estimated) {
  PermanentValue v;
  const double q = a / b;
  v.value = q;
  const double room = std::fabs(b) - eb;
  v.abs_error = room > 0 ? (ea + std::fabs(q) * eb) / room * (1 + 0x1p-50) + std::fabs(q) * 0x1p-53
                         : std::numeric_limits<double>::infinity();
  v.error_estimated = estimated;
  return v;
}

template <class T>
void edges_of(const SparseMatrix<T>& a, bool symmetric, const CountOptions& options, const PermanentValue& total,
              MarginalsReport& report, const std::function<bool()>& stop) {
  const std::size_t rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols);
  std::vector<char> drop_row(rows, 0), drop_col(cols, 0);
  for (const auto& e : a.entries) {
    if (symmetric && e.row >= e.col) continue;  // each edge once; the diagonal is no edge
    if (stop && stop()) throw Interrupted(2, "edge probabilities stopped");
    const std::size_t r = static_cast<std::size_t>(e.row), c = static_cast<std::size_t>(e.col);
    drop_row[r] = drop_col[c] = 1;
    if (symmetric) drop_row[c] = drop_col[r] = 1;
    const PermanentValue minor = detail::count_quietly(AnyMatrix(detail::without(a, drop_row, drop_col)), symmetric, options);
    drop_row[r] = drop_col[c] = 0;
    if (symmetric) drop_row[c] = drop_col[r] = 0;
    EdgeProbability p;
    p.u = e.row, p.v = e.col;
    if constexpr (std::is_same_v<T, double>) {
      const double m = double_of(minor), w = e.value;
      const double num = w * m, e_num = std::fabs(w) * minor.abs_error * (1 + 0x1p-52) + std::fabs(num) * 0x1p-53;
      p.p = float_ratio(num, e_num, double_of(total), total.abs_error, minor.error_estimated || total.error_estimated);
    } else {
      p.p = exact_value(Rational(e.value) * rational_of(minor) / rational_of(total));
    }
    report.edges.push_back(std::move(p));
  }
}

/// Every edge's probability by the graph frontier DP's forward and backward tables, for
/// nonnegative exact weights whose tables fit in 1 GiB; false where that does not apply.
bool by_frontier(const MatchingGraph& g, bool forced, MarginalsReport& report) {
  if (g.matrix.index() > 1) return false;  // real weights: counts, whose bounds cover the decimals
  const auto z = detail::scaled_integer_weights(g.matrix, nullptr);
  if (!z || (!g.symmetric && z->rows != z->cols)) return false;
  const SparseMatrix<Integer> general = detail::general_graph(*z, g.symmetric);
  for (const auto& e : general.entries)
    if (!e.value.fits_ulong_p()) return false;
  const auto dp = engines::FrontierTables::make(general, double(forced ? 16 : 1) * detail::kTablesBytes);
  if (!dp) {
    if (forced) throw RefusedError("the graph frontier DP's tables do not fit for these edge probabilities");
    return false;
  }
  const Integer total = dp->total();
  if (total == 0) throw RefusedError("the graph has no perfect matching, so no edge has a probability of lying in one");
  const std::vector<Integer> through = dp->edge_weights();
  const auto weight_of = [&](int u, int v) {  // both entries of the general graph's edge
    Integer sum = 0;
    for (auto [r, c] : {std::pair{u, v}, std::pair{v, u}}) {
      const auto it = std::lower_bound(general.entries.begin(), general.entries.end(), std::pair{r, c},
                                       [](const auto& e, const std::pair<int, int>& k) { return std::pair{e.row, e.col} < k; });
      if (it != general.entries.end() && it->row == r && it->col == c) sum += through[std::size_t(it - general.entries.begin())];
    }
    return sum;
  };
  report.total.value = total;  // of the weights scaled to integers (the probabilities are the same)
  const int rows = rows_of(g.matrix);
  std::visit(
      [&](const auto& a) {
        for (const auto& e : a.entries) {
          if (g.symmetric && e.row >= e.col) continue;
          EdgeProbability p;
          p.u = e.row, p.v = e.col;
          p.p = exact_value(Rational(weight_of(e.row, g.symmetric ? e.col : rows + e.col), total));
          report.edges.push_back(std::move(p));
        }
      },
      g.matrix);
  report.notes.push_back("the graph frontier DP's forward and backward tables (frontier width " +
                         std::to_string(dp->width()) + ")");
  return true;
}

}  // namespace

MarginalsReport edge_probabilities(const MatchingGraph& g, const CountOptions& options, WhichMethod method,
                                   const std::function<bool()>& stop) {
  const auto start = std::chrono::steady_clock::now();
  if (g.symmetric && rows_of(g.matrix) != cols_of(g.matrix))
    throw UsageError("edge probabilities of a general graph need its square adjacency matrix");
  MarginalsReport report;
  if (options.log) {  // counts too large to print: floats from the inverse Kasteleyn matrix
    detail::planar_marginals(g, options, report);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  if ((method == WhichMethod::Auto || method == WhichMethod::Minors) && detail::marginals_by_minors(g, options, method, report, stop)) {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  if (method == WhichMethod::Minors)
    throw RefusedError("the minors need integer (or nonnegative rational) weights, every vertex with an edge, and "
                       "at most " + std::to_string(engines::kHafnianMaxN) + " vertices (a general graph) or " +
                       std::to_string(engines::kPermanentMinorsMaxN) + " + " + std::to_string(engines::kPermanentMinorsMaxN) +
                       " (a bipartite one)");
  if (method != WhichMethod::Counts && by_frontier(g, method == WhichMethod::Frontier, report)) {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  report.total = detail::count_quietly(g.matrix, g.symmetric, options);
  if (report.total.is_zero())
    throw RefusedError("the graph has no perfect matching, so no edge has a probability of lying in one");
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a.entries[0].value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          throw UsageError("edge probabilities need real weights, not complex ones");
        } else {
          edges_of(a, g.symmetric, options, report.total, report, stop);
        }
      },
      g.matrix);
  report.notes.push_back("one count of the graph without each edge's ends (" + std::to_string(report.edges.size()) + " edges)");
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace matchcount
