// Edge probabilities of large planar graphs in floating point (which_common.hpp,
// planar_marginals): p_uv = |w_uv (K^-1)_vu| for the Kasteleyn matrix of a bipartite graph, or
// the Pfaffian-oriented matrix of any planar graph, from the selected inverse of K^T K
// (src/engines/planar/selected_inverse.hpp), all edges in one factorisation, where exact
// fractions would need a count per edge and denominators of thousands of digits (times:
// docs/benchmarks.md). Asked for with --log (the counts are too large to print as they are);
// the errors are estimates (error_estimated), checked against exact values on random planar
// graphs (tests/planar_marginals_test.cpp).
#include <cmath>
#include <limits>
#include <string>

#include "engines/kasteleyn/kasteleyn_inverse.hpp"
#include "engines/pfaffian/pfaffian_inverse.hpp"
#include "matchcount/error.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/which_common.hpp"

namespace matchcount::detail {

void planar_marginals(const MatchingGraph& g, const CountOptions& options, MarginalsReport& report) {
  if (g.matrix.index() == 3) throw UsageError("edge probabilities need real weights, not complex ones");
  // The weights as doubles (integers and fractions rounded: the probabilities are floats here).
  SparseMatrix<double> a{rows_of(g.matrix), cols_of(g.matrix), {}};
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        if constexpr (!std::is_same_v<T, Complex>)
          for (const auto& e : m.entries) {
            double x = 0;
            if constexpr (std::is_same_v<T, double>) x = e.value;
            else x = e.value.get_d();
            if (!std::isfinite(x) || x < 0)
              throw RefusedError("edge probabilities by the inverse Kasteleyn matrix need nonnegative weights within double range");
            a.entries.push_back({e.row, e.col, x});
          }
      },
      g.matrix);
  if (!g.symmetric && a.rows != a.cols)
    throw RefusedError("the graph has no perfect matching, so no edge has a probability of lying in one");
  const CountOptions budgeted = with_memory_budget(options);
  const double bytes = budgeted.max_memory > 0 ? budgeted.max_memory : std::numeric_limits<double>::infinity();
  const engines::PlanarEdgeProbabilities got =
      g.symmetric ? engines::pfaffian_edge_probabilities(a, bytes) : engines::kasteleyn_edge_probabilities(a, bytes);
  if (!got.ok)
    throw RefusedError("--marginals --log takes the inverse Kasteleyn (or Pfaffian) matrix of planar graphs: " + got.why);
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto& e = a.entries[i];
    if (g.symmetric && e.row >= e.col) continue;
    EdgeProbability p;
    p.u = e.row, p.v = e.col;
    p.p.value = got.p[i];
    p.p.abs_error = got.abs_error[i];
    p.p.error_estimated = got.error_estimated;
    report.edges.push_back(std::move(p));
  }
  report.total = count_quietly(g.matrix, g.symmetric, options);  // as its logarithm (options.log)
  report.notes.push_back(std::string("every edge from the selected inverse of the ") +
                         (g.symmetric ? "Pfaffian-oriented" : "Kasteleyn") + " matrix (floats; estimated errors)");
}

}  // namespace matchcount::detail
