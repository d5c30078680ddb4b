// Fine Dulmage-Mendelsohn decomposition of a square matrix with a perfect matching.
#pragma once

#include <cstddef>
#include <vector>

#include "matchcount/matching.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount {

/// Rows and columns grouped into square blocks. An entry whose row and column lie in
/// different blocks is in no perfect matching, so perm(A) = product of perm(block).
struct FineDecomposition {
  std::vector<int> block_of_row;
  std::vector<int> block_of_col;
  std::vector<std::vector<int>> rows_of_block;  // ascending
  std::vector<std::vector<int>> cols_of_block;  // ascending
  std::size_t deleted_entries = 0;
  int blocks() const { return static_cast<int>(rows_of_block.size()); }
};

/// Requires a perfect matching `m` of the square pattern `p`. Orients matching edges
/// row->column and the other entries column->row; the strongly connected components
/// (BGL's Tarjan) of this digraph, each row taken with its matched column, are the blocks.
FineDecomposition fine_dulmage_mendelsohn(const Pattern& p, const Matching& m);

/// The blocks as separate square matrices (entries between blocks dropped).
template <class T>
std::vector<SparseMatrix<T>> split_blocks(const SparseMatrix<T>& a, const FineDecomposition& d) {
  const int nb = d.blocks();
  std::vector<SparseMatrix<T>> out(static_cast<std::size_t>(nb));
  std::vector<int> local_row(static_cast<std::size_t>(a.rows)), local_col(static_cast<std::size_t>(a.cols));
  for (int b = 0; b < nb; ++b) {
    out[b].rows = out[b].cols = static_cast<int>(d.rows_of_block[b].size());
    for (std::size_t i = 0; i < d.rows_of_block[b].size(); ++i) local_row[d.rows_of_block[b][i]] = static_cast<int>(i);
    for (std::size_t j = 0; j < d.cols_of_block[b].size(); ++j) local_col[d.cols_of_block[b][j]] = static_cast<int>(j);
  }
  // Sized first: a large block's entries would otherwise grow to twice their size.
  std::vector<std::size_t> count(static_cast<std::size_t>(nb), 0);
  for (const auto& e : a.entries)
    if (d.block_of_row[e.row] == d.block_of_col[e.col]) ++count[static_cast<std::size_t>(d.block_of_row[e.row])];
  for (int b = 0; b < nb; ++b) out[b].entries.reserve(count[static_cast<std::size_t>(b)]);
  for (const auto& e : a.entries) {
    const int b = d.block_of_row[e.row];
    if (b == d.block_of_col[e.col]) out[b].entries.push_back({local_row[e.row], local_col[e.col], e.value});
  }
  return out;  // entries stay sorted: rows keep their relative order within a block
}

}  // namespace matchcount
