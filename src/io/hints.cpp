// Zero hints: when a count of 0 comes from an empty line, unequal sides or an unbalanced
// component, say which, so that a surprising 0 explains itself. All checks are linear.
#include <algorithm>
#include <numeric>
#include <string>
#include <variant>
#include <vector>

#include "core/missing_lines.hpp"
#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

/// Rows and columns without an entry: how many, and the first of each.
struct Census {
  int empty_rows = 0, first_empty_row = -1;
  int empty_cols = 0, first_empty_col = -1;
};


/// In time and memory of the entries, not of the dimensions: a file may declare 10^9 rows and
/// list one entry.
Census census(const AnyMatrix& matrix) {
  return std::visit(
      [](const auto& m) {
        std::vector<int> rows, cols;
        rows.reserve(m.entries.size());
        cols.reserve(m.entries.size());
        for (const auto& e : m.entries) {
          rows.push_back(e.row);
          cols.push_back(e.col);
        }
        for (auto* v : {&rows, &cols}) {
          std::sort(v->begin(), v->end());
          v->erase(std::unique(v->begin(), v->end()), v->end());
        }
        Census c;
        missing_lines(m.rows, rows, c.empty_rows, c.first_empty_row);
        missing_lines(m.cols, cols, c.empty_cols, c.first_empty_col);
        return c;
      },
      matrix);
}

std::string plural(long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The name of row/column k, or its 1-based number when there are no names.
std::string name_of(const std::vector<std::string>& names, int k) {
  return static_cast<std::size_t>(k) < names.size() ? names[static_cast<std::size_t>(k)]
                                                     : std::to_string(k + 1);
}

/// A connected component whose row and column counts differ (union-find over rows 0..rows-1
/// and columns rows..rows+cols-1, joined by entries).
struct Unbalanced {
  long how_many = 0;    // such components
  int first = -1;       // the first vertex (rows, then columns) in one
  long rows = 0, cols = 0;  // its counts
};

Unbalanced unbalanced_components(const AnyMatrix& matrix) {
  const int rows = rows_of(matrix), cols = cols_of(matrix);
  const std::size_t n = static_cast<std::size_t>(rows) + static_cast<std::size_t>(cols);
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::visit(
      [&](const auto& m) {
        for (const auto& e : m.entries) {
          const std::size_t a = find(static_cast<std::size_t>(e.row));
          const std::size_t b = find(static_cast<std::size_t>(rows) + static_cast<std::size_t>(e.col));
          if (a != b) parent[a] = b;
        }
      },
      matrix);
  std::vector<long> row_count(n, 0), col_count(n, 0);
  for (std::size_t v = 0; v < n; ++v) ++(v < static_cast<std::size_t>(rows) ? row_count : col_count)[find(v)];
  Unbalanced u;
  for (std::size_t v = 0; v < n; ++v) {
    const std::size_t root = find(v);
    if (row_count[root] == col_count[root]) continue;
    if (root == v) ++u.how_many;
    if (u.first < 0) {
      u.first = static_cast<int>(v);
      u.rows = row_count[root];
      u.cols = col_count[root];
    }
  }
  return u;
}

}  // namespace

void graph_zero_hint(GraphKind kind, bool zeros, ReadResult& result) {
  if (!result.zero_hint.empty()) return;
  const AnyMatrix& m = result.matrix;
  const int rows = rows_of(m), cols = cols_of(m);
  const Census c = census(m);
  const std::string none = zeros ? " of nonzero weight" : "";
  if (kind == GraphKind::Digraph) {
    if (c.empty_rows > 0)
      result.zero_hint = "vertex " + name_of(result.row_names, c.first_empty_row) +
                         " has no outgoing arc" + none + " (" +
                         plural(c.empty_rows, "vertex has", "vertices have") +
                         " none): a cycle cover leaves every vertex once";
    else if (c.empty_cols > 0)
      result.zero_hint = "vertex " + name_of(result.col_names, c.first_empty_col) +
                         " has no incoming arc" + none + " (" +
                         plural(c.empty_cols, "vertex has", "vertices have") +
                         " none): a cycle cover enters every vertex once";
    return;
  }
  const bool bipartite = kind == GraphKind::Bipartite;
  const char* left = bipartite ? "left vertex " : "vertex ";
  const char* right = bipartite ? "right vertex " : "vertex ";
  if (c.empty_rows + c.empty_cols > 0) {
    const std::string first = c.empty_rows > 0 ? left + name_of(result.row_names, c.first_empty_row)
                                               : right + name_of(result.col_names, c.first_empty_col);
    // A symmetric adjacency matrix has a row and a column for each vertex.
    const long lonely = result.symmetric_graph ? c.empty_rows : c.empty_rows + c.empty_cols;
    result.zero_hint = first + " has no edge" + none + " (" + plural(lonely, "vertex has", "vertices have") +
                       " none): a perfect matching covers every vertex";
    return;
  }
  if (rows != cols) {
    result.zero_hint = bipartite ? std::to_string(rows) + " left vertices but " + std::to_string(cols) +
                                       " right vertices: a perfect matching needs equal sides"
                                 : "the colour classes have " + std::to_string(rows) + " and " +
                                       std::to_string(cols) +
                                       " vertices: a perfect matching needs equal classes";
    return;
  }
  const Unbalanced u = unbalanced_components(m);
  if (u.how_many > 0) {
    const std::string first = u.first < rows ? left + name_of(result.row_names, u.first)
                                             : right + name_of(result.col_names, u.first - rows);
    result.zero_hint = "the connected component of " + first + " has " + std::to_string(u.rows) +
                       (bipartite ? " left and " : " and ") + std::to_string(u.cols) +
                       (bipartite ? " right vertices" : " vertices in its colour classes") + " (" +
                       plural(u.how_many, "component is", "components are") +
                       " unbalanced): a perfect matching needs them equal in every component";
  }
}

void matrix_zero_hint(ReadResult& result) {
  if (!result.zero_hint.empty()) return;
  const int rows = rows_of(result.matrix), cols = cols_of(result.matrix);
  const Census c = census(result.matrix);
  if (rows <= cols && c.empty_rows > 0)
    result.zero_hint = "row " + std::to_string(c.first_empty_row + 1) + " has no nonzero entry (" +
                       plural(c.empty_rows, "row has", "rows have") + " none): the permanent is 0";
  else if (cols <= rows && c.empty_cols > 0)
    result.zero_hint = "column " + std::to_string(c.first_empty_col + 1) +
                       " has no nonzero entry (" + plural(c.empty_cols, "column has", "columns have") +
                       " none): the permanent is 0";
}

}  // namespace matchcount::io_detail
