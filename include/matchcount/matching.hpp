// Maximum bipartite matching (Hopcroft-Karp) on the pattern of a matrix.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// The nonzero pattern of a rows x cols matrix, row-wise (CSR without values).
struct Pattern {
  int rows = 0;
  int cols = 0;
  std::vector<int> start;    // rows + 1 offsets into `column`
  std::vector<int> column;   // column indices, ascending within a row

  template <class T>
  static Pattern of(const SparseMatrix<T>& m) {
    Pattern p;
    p.rows = m.rows;
    p.cols = m.cols;
    p.start.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    for (const auto& e : m.entries) ++p.start[static_cast<std::size_t>(e.row) + 1];
    for (int r = 0; r < m.rows; ++r) p.start[r + 1] += p.start[r];
    p.column.resize(m.entries.size());
    std::vector<int> next(p.start.begin(), p.start.end() - 1);
    for (const auto& e : m.entries) p.column[next[e.row]++] = e.col;
    return p;
  }
};

struct Matching {
  std::vector<int> col_of_row;  // -1 when the row is unmatched
  std::vector<int> row_of_col;  // -1 when the column is unmatched
  int size = 0;
  bool perfect() const {
    return size == static_cast<int>(col_of_row.size()) && size == static_cast<int>(row_of_col.size());
  }
};

/// Maximum-cardinality matching in O(E sqrt(V)), iterative (no recursion depth limits).
Matching hopcroft_karp(const Pattern& p);

}  // namespace matchcount
