// Fine Dulmage-Mendelsohn decomposition through strongly connected components.
//
// With a perfect matching M, orient every matching edge row->column and every other entry
// column->row. A directed cycle alternates between matching and non-matching entries, and
// exchanging along it gives another perfect matching; an entry lies in some perfect matching
// iff it is a matching edge or closes such a cycle. Contracting each matched pair (r, M(r))
// to one vertex leaves a digraph on rows: r -> s when A(r, M(s)) != 0. Its strongly connected
// components are the fine blocks; entries between components are in no perfect matching.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "matchcount/decompose.hpp"

namespace matchcount {
namespace {

/// Tarjan's strongly connected components of the digraph r -> s = row_of_col[c] over the
/// entries (r, c), s != r, with an explicit stack (a block of 10^6 rows makes deep searches)
/// and arrays per row only. Vertices and edges are taken in the order Boost's
/// strong_components takes them, so components get the same numbers (in the order their
/// roots finish). Returns the number of components.
int strong_components(const Pattern& p, const Matching& m, std::vector<int>& component) {
  const int n = p.rows;
  std::vector<int> index(static_cast<std::size_t>(n), -1), low(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  std::vector<int> open, frames;  // open: Tarjan's stack; frames: the search's path
  std::vector<char> on_open(static_cast<std::size_t>(n), 0);
  component.assign(static_cast<std::size_t>(n), -1);
  int counter = 0, count = 0;
  auto discover = [&](int v) {
    index[v] = low[v] = counter++;
    next[v] = p.start[v];
    open.push_back(v), on_open[v] = 1;
    frames.push_back(v);
  };
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    discover(root);
    while (!frames.empty()) {
      const int v = frames.back();
      if (next[v] < p.start[v + 1]) {
        const int w = m.row_of_col[p.column[next[v]++]];
        if (w == v) continue;
        if (index[w] < 0) discover(w);
        else if (on_open[w]) low[v] = std::min(low[v], index[w]);
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) low[frames.back()] = std::min(low[frames.back()], low[v]);
      if (low[v] == index[v]) {
        int w;
        do {
          w = open.back();
          open.pop_back();
          on_open[w] = 0;
          component[w] = count;
        } while (w != v);
        ++count;
      }
    }
  }
  return count;
}

}  // namespace

FineDecomposition fine_dulmage_mendelsohn(const Pattern& p, const Matching& m) {
  if (p.rows != p.cols || !m.perfect())
    throw std::invalid_argument("fine_dulmage_mendelsohn needs a square matrix with a perfect matching");
  const int n = p.rows;
  std::vector<int> component;
  const int count = strong_components(p, m, component);

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
