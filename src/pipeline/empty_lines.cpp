// Empty lines settled before the pipeline's per-line arrays (empty_lines.hpp).
#include "pipeline/empty_lines.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/missing_lines.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::detail {
namespace {

/// The sorted distinct row (or column) indices that hold an entry.
template <class T>
std::vector<int> used(const SparseMatrix<T>& a, bool rows) {
  std::vector<int> out;
  out.reserve(a.entries.size());
  for (const auto& e : a.entries) out.push_back(rows ? e.row : e.col);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}


int index_in(const std::vector<int>& sorted, int x) {
  return static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin());
}

/// `a` with its rows (and columns) renumbered into `rows` (`cols`) in order; `keep_rows`
/// (`keep_cols`) false leaves that side as it is. `min_cols` pads the columns with empty ones.
template <class T>
SparseMatrix<T> restrict_to(const SparseMatrix<T>& a, const std::vector<int>* rows, const std::vector<int>* cols,
                            int min_rows = 0, int min_cols = 0) {
  SparseMatrix<T> out;
  out.rows = std::max(rows ? static_cast<int>(rows->size()) : a.rows, min_rows);
  out.cols = std::max(cols ? static_cast<int>(cols->size()) : a.cols, min_cols);
  out.entries.reserve(a.entries.size());
  for (const auto& e : a.entries)
    out.entries.push_back({rows ? index_in(*rows, e.row) : e.row, cols ? index_in(*cols, e.col) : e.col, e.value});
  return out;  // renumbering in order keeps the (row, col) order of the entries
}

template <class T>
void set_zero(CountReport& report) {
  if constexpr (std::is_same_v<T, double>) report.value.value = 0.0;
  else if constexpr (std::is_same_v<T, Complex>) report.value.value = Complex(0.0);
  else if constexpr (std::is_same_v<T, Rational>) report.value.value = Rational(0);
  else report.value.value = Integer(0);
}

std::string shape(int m, int n) { return std::to_string(m) + "x" + std::to_string(n); }

template <class T>
bool settle(const SparseMatrix<T>& a, const CountOptions& options, CountReport& report,
            std::optional<AnyMatrix>& smaller) {
  const std::vector<int> rows = used(a, true), cols = used(a, false);
  const bool full_rows = static_cast<int>(rows.size()) == a.rows, full_cols = static_cast<int>(cols.size()) == a.cols;
  const int shorter = std::min(a.rows, a.cols);
  const bool rectangular = a.rows != a.cols;
  // The shorter side (either side when square) has a line without entries: the count is 0.
  const bool zero = rectangular ? (a.rows < a.cols ? !full_rows : !full_cols) : !(full_rows && full_cols);
  // Without preprocessing the engine's guards give the 0 (and the report its run), unless the
  // dimensions are what would cost.
  const bool huge = static_cast<std::size_t>(std::max(a.rows, a.cols)) > 4 * a.entries.size() + 1024;
  if (zero && (options.preprocess || huge)) {
    const auto t0 = std::chrono::steady_clock::now();
    const int matched = options.preprocess ? hopcroft_karp(Pattern::of(restrict_to(a, &rows, &cols))).size : 0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (options.preprocess) report.matching_size = matched;
    if (rectangular) {
      report.notes.push_back(shape(a.rows, a.cols) + ": the rectangular permanent, the sum over injective maps from "
                             "the shorter side into the longer one of the products of their entries");
      if (a.rows > a.cols) report.notes.push_back("more rows than columns: the permanent of the transpose");
      if (options.preprocess)
        report.notes.push_back("a maximum matching has " + std::to_string(matched) + " of " + std::to_string(shorter) +
                               " rows: no injective map has a nonzero product, the permanent is 0");
    } else if (options.preprocess) {
      report.notes.push_back("no perfect matching: a maximum matching has " + std::to_string(matched) + " of " +
                             std::to_string(a.rows) + " rows");
      for (const char* stage : {"matching", "decompose", "reduce", "engines"})
        report.stage_seconds.push_back({stage, stage[0] == 'm' ? seconds : 0.0});
    }
    set_zero<T>(report);
    report.explained = options.explain;
    return true;
  }
  // Only when the empty lines of the longer side are what would cost: otherwise the
  // rectangular path drops them itself, and its messages keep the file's line numbers.
  if (rectangular) {
    const bool wide = a.rows < a.cols;
    const std::size_t used_long = wide ? cols.size() : rows.size();
    const std::size_t longer = static_cast<std::size_t>(std::max(a.rows, a.cols));
    if (longer > 4 * (a.entries.size() + static_cast<std::size_t>(shorter)) + 1024) {
      const int keep = std::max(static_cast<int>(used_long), shorter + 1);
      smaller = wide ? AnyMatrix(restrict_to(a, nullptr, &cols, 0, keep))
                     : AnyMatrix(restrict_to(a, &rows, nullptr, keep, 0));
    }
  }
  return false;
}

}  // namespace

bool settle_empty_lines(const AnyMatrix& input, const CountOptions& options, CountReport& report,
                        std::optional<AnyMatrix>& smaller) {
  return std::visit([&](const auto& m) { return settle(m, options, report, smaller); }, input);
}

template <class T>
bool settle_isolated_vertices(const SparseMatrix<T>& a, bool loops, const CountOptions& options, CountReport& report) {
  if (static_cast<std::size_t>(a.rows) <= 4 * a.entries.size() + 1024) return false;
  const std::vector<int> vertices = used(a, true);  // symmetric: the rows are every vertex with an entry
  int isolated = 0, first = -1;
  missing_lines(a.rows, vertices, isolated, first);
  if (isolated == 0) return false;  // (cannot happen past the size test; kept for safety)
  SparseMatrix<T> c = restrict_to(a, &vertices, &vertices);
  std::size_t edges = 0;
  for (const auto& e : c.entries) edges += e.row < e.col;
  report.graph.vertices = a.rows;
  report.graph.edges = edges;
  const bool named = options.vertex_names.size() == static_cast<std::size_t>(a.rows);
  const std::string name = named ? options.vertex_names[static_cast<std::size_t>(first)] : std::to_string(first + 1);
  report.graph.witness = "vertex " + name + " has no edge" + (loops ? " and no loop" : "") + " (" +
                         std::to_string(isolated) + (isolated == 1 ? " vertex has" : " vertices have") + " none)";
  if (!loops && options.preprocess) {
    std::erase_if(c.entries, [](const Entry<T>& e) { return e.row == e.col; });
    report.matching_size = edmonds_matching(GraphPattern::of(c)).size;
    report.notes.push_back("no perfect matching: a maximum matching has " + std::to_string(report.matching_size) +
                           " edges for " + std::to_string(a.rows) + " vertices; " + report.graph.witness);
  } else {
    report.notes.push_back(report.graph.witness + ": the " + (loops ? "loop hafnian" : "hafnian") + " is 0");
  }
  set_zero<T>(report);
  report.explained = options.explain;
  return true;
}

template bool settle_isolated_vertices(const SparseMatrix<Integer>&, bool, const CountOptions&, CountReport&);
template bool settle_isolated_vertices(const SparseMatrix<Rational>&, bool, const CountOptions&, CountReport&);
template bool settle_isolated_vertices(const SparseMatrix<double>&, bool, const CountOptions&, CountReport&);
template bool settle_isolated_vertices(const SparseMatrix<Complex>&, bool, const CountOptions&, CountReport&);

}  // namespace matchcount::detail
