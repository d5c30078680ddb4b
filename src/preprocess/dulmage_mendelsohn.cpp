// Fine Dulmage-Mendelsohn decomposition through strongly connected components.
//
// With a perfect matching M, orient every matching edge row->column and every other entry
// column->row. A directed cycle alternates between matching and non-matching entries, and
// exchanging along it gives another perfect matching; an entry lies in some perfect matching
// iff it is a matching edge or closes such a cycle. Contracting each matched pair (r, M(r))
// to one vertex leaves a digraph on rows: r -> s when A(r, M(s)) != 0. Its strongly connected
// components are the fine blocks; entries between components are in no perfect matching.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <stdexcept>

#include "matchcount/decompose.hpp"

namespace matchcount {

FineDecomposition fine_dulmage_mendelsohn(const Pattern& p, const Matching& m) {
  if (p.rows != p.cols || !m.perfect())
    throw std::invalid_argument("fine_dulmage_mendelsohn needs a square matrix with a perfect matching");
  const int n = p.rows;
  using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Digraph g(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    for (int k = p.start[r]; k < p.start[r + 1]; ++k) {
      const int s = m.row_of_col[p.column[k]];
      if (s != r) boost::add_edge(static_cast<std::size_t>(r), static_cast<std::size_t>(s), g);
    }
  std::vector<int> component(static_cast<std::size_t>(n));
  const int count = n == 0 ? 0 : static_cast<int>(boost::strong_components(g, component.data()));

  FineDecomposition d;
  d.block_of_row = component;
  d.block_of_col.assign(static_cast<std::size_t>(n), -1);
  d.rows_of_block.resize(static_cast<std::size_t>(count));
  d.cols_of_block.resize(static_cast<std::size_t>(count));
  for (int r = 0; r < n; ++r) {
    d.block_of_col[m.col_of_row[r]] = component[r];
    d.rows_of_block[component[r]].push_back(r);
  }
  for (int c = 0; c < n; ++c) d.cols_of_block[d.block_of_col[c]].push_back(c);
  for (int r = 0; r < n; ++r)
    for (int k = p.start[r]; k < p.start[r + 1]; ++k)
      if (d.block_of_col[p.column[k]] != component[r]) ++d.deleted_entries;
  return d;
}

}  // namespace matchcount
