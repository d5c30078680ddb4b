// Hopcroft-Karp: phases of a BFS that layers the rows by alternating-path distance from the
// free rows, then a DFS along the layers that augments vertex-disjoint shortest paths.
// The DFS keeps an explicit stack so that long paths (grids with 10^5 vertices) cannot
// overflow the call stack.
#include <climits>

#include "matchcount/matching.hpp"

namespace matchcount {

Matching hopcroft_karp(const Pattern& p) {
  const int rows = p.rows;
  Matching m;
  m.col_of_row.assign(static_cast<std::size_t>(rows), -1);
  m.row_of_col.assign(static_cast<std::size_t>(p.cols), -1);

  // A greedy start matches most rows of typical inputs before the first phase.
  for (int r = 0; r < rows; ++r)
    for (int k = p.start[r]; k < p.start[r + 1]; ++k)
      if (m.row_of_col[p.column[k]] < 0) {
        m.row_of_col[p.column[k]] = r;
        m.col_of_row[r] = p.column[k];
        ++m.size;
        break;
      }

  constexpr int kUnreached = INT_MAX;
  std::vector<int> dist(static_cast<std::size_t>(rows)), queue(static_cast<std::size_t>(rows));
  std::vector<int> next(static_cast<std::size_t>(rows)), stack;
  for (;;) {
    int head = 0, tail = 0;
    bool reaches_free_column = false;
    for (int r = 0; r < rows; ++r) {
      dist[r] = m.col_of_row[r] < 0 ? 0 : kUnreached;
      if (dist[r] == 0) queue[tail++] = r;
    }
    while (head < tail) {
      const int r = queue[head++];
      for (int k = p.start[r]; k < p.start[r + 1]; ++k) {
        const int owner = m.row_of_col[p.column[k]];
        if (owner < 0) reaches_free_column = true;
        else if (dist[owner] == kUnreached) {
          dist[owner] = dist[r] + 1;
          queue[tail++] = owner;
        }
      }
    }
    if (!reaches_free_column) break;

    for (int r = 0; r < rows; ++r) next[r] = p.start[r];
    for (int root = 0; root < rows; ++root) {
      if (m.col_of_row[root] >= 0) continue;
      stack.assign(1, root);
      while (!stack.empty()) {
        const int r = stack.back();
        if (next[r] == p.start[r + 1]) {  // dead end: never try this row again in this phase
          dist[r] = kUnreached;
          stack.pop_back();
          if (!stack.empty()) ++next[stack.back()];
          continue;
        }
        const int c = p.column[next[r]];
        const int owner = m.row_of_col[c];
        if (owner < 0) {  // free column: flip the path held on the stack
          for (int s : stack) {
            const int col = p.column[next[s]];
            m.col_of_row[s] = col;
            m.row_of_col[col] = s;
          }
          ++m.size;
          break;
        }
        if (dist[owner] == dist[r] + 1) stack.push_back(owner);
        else ++next[r];
      }
    }
  }
  return m;
}

}  // namespace matchcount
