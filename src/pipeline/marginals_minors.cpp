// Edge probabilities from every minor at once (which_common.hpp, marginals_by_minors):
// p_uv = w_uv count(G - u - v) / count(G), with every count(G - u - v) a partial derivative of
// the count: for a bipartite graph the permanent's, from one forward Gray-code walk of Glynn's
// formula (engines::permanent_minors), for any other graph the hafnian's, from one reverse walk
// of the hafnian recursion (engines::hafnian_minors). Exact weights only: integers of any sign,
// or nonnegative rationals over their common denominator. The count's expansion along every
// row (and column) must give one same total: a check of the walk for one pass over the edges.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "engines/graph_frontier/graph_frontier_tables.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "engines/ryser/ryser.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/which_common.hpp"

namespace matchcount::detail {

bool marginals_by_minors(const MatchingGraph& g, const CountOptions& options, WhichMethod method,
                         MarginalsReport& report, const std::function<bool()>& stop) {
  std::optional<SparseMatrix<Integer>> z;
  if (const auto* a = std::get_if<SparseMatrix<Integer>>(&g.matrix)) z = *a;
  else if (g.matrix.index() == 1) z = scaled_integer_weights(g.matrix, nullptr);
  if (!z || (!g.symmetric && z->rows != z->cols)) return false;
  const bool bipartite = !g.symmetric;
  const SparseMatrix<Integer> general = general_graph(*z, g.symmetric);
  const int n = general.rows;
  if (n < 2 || n % 2) return false;
  std::vector<char> has_edge(static_cast<std::size_t>(n), 0);
  for (const auto& e : general.entries) has_edge[static_cast<std::size_t>(e.row)] = 1;
  if (std::find(has_edge.begin(), has_edge.end(), 0) != has_edge.end()) return false;  // no perfect matching
  const int cores = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const double by_permanent = bipartite && z->rows <= engines::kPermanentMinorsMaxN
                                  ? engines::permanent_minors_seconds(*z, cores)
                                  : kNever;
  const double by_hafnian =
      n <= engines::kHafnianMaxN
          ? 3 * engines::hafnian_seconds(n, double(engines::hafnian_prime_count(general, false)), NumberKind::Integer, false, cores)
          : kNever;
  const bool permanent = by_permanent <= by_hafnian;
  const double predicted = std::min(by_permanent, by_hafnian);
  if (predicted == kNever) return false;
  if (method == WhichMethod::Auto && engines::FrontierTables::predicted_seconds(general, kTablesBytes) <= predicted)
    return false;
  check_time_budget(permanent ? "permanent-minors" : "hafnian-minors", predicted, options);
  const auto start = std::chrono::steady_clock::now();
  const auto stop_or_late = [&] {
    if (stop && stop()) return true;
    return options.max_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > options.max_seconds;
  };
  std::vector<Integer> minors;
  try {
    const EngineOptions eo = block_options(options, nullptr, nullptr);
    minors = permanent ? engines::permanent_minors(*z, eo, stop_or_late) : engines::hafnian_minors(general, eo, stop_or_late);
  } catch (const Interrupted&) {
    if (stop && stop()) throw;
    throw BudgetError("the edge probabilities ran past the time cap of " + std::to_string(options.max_seconds) + " s");
  }
  // count(G - u - v) for an entry (u, v) of z: row u and column v of a permanent, vertices u
  // and v (or row u and column r + v) of a hafnian's packed triangle.
  const int r0 = z->rows;
  const auto minor = [&](int u, int v) -> const Integer& {
    if (permanent) return minors[static_cast<std::size_t>(u) * static_cast<std::size_t>(r0) + static_cast<std::size_t>(v)];
    if (bipartite) v += r0;
    const auto hi = static_cast<std::size_t>(std::max(u, v)), lo = static_cast<std::size_t>(std::min(u, v));
    return minors[hi * (hi - 1) / 2 + lo];
  };
  // Every vertex's expansion (a permanent's rows and columns, a hafnian's rows) gives the total.
  std::vector<Integer> along(static_cast<std::size_t>(n));
  for (const auto& e : z->entries) {
    const Integer x = e.value * minor(e.row, e.col);
    along[static_cast<std::size_t>(e.row)] += x;
    if (bipartite) along[static_cast<std::size_t>(r0 + e.col)] += x;
  }
  const Integer total = along[0];
  for (const Integer& s : along)
    if (s != total) throw std::logic_error("minors: the expansions along the vertices disagree");
  if (total == 0) throw RefusedError("the graph has no perfect matching, so no edge has a probability of lying in one");
  report.total.value = total;  // of the weights scaled to integers (the probabilities are the same)
  for (const auto& e : z->entries) {
    if (g.symmetric && e.row >= e.col) continue;
    EdgeProbability p;
    p.u = e.row, p.v = e.col;
    p.p = exact_value(Rational(e.value * minor(e.row, e.col), total));
    report.edges.push_back(std::move(p));
  }
  report.notes.push_back(permanent ? "every perm(A - u - v) from one Gray-code walk of Glynn's formula (" +
                                         std::to_string(r0) + " x " + std::to_string(r0) + ")"
                                   : "every haf(G - u - v) from one reverse walk of the hafnian recursion (" +
                                         std::to_string(n) + " vertices)");
  return true;
}

}  // namespace matchcount::detail
