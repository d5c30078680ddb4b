// Forbert-Marx reduction rules (Forbert & Marx, "Calculation of the permanent of a sparse
// positive matrix", Comput. Phys. Commun. 150 (2003)). Rows and columns are handled by one
// code path: side 0 treats rows as the lines being reduced, side 1 columns (perm(A) =
// perm(A^T)), so every rule is written once.
#include <map>
#include <stdexcept>
#include <vector>

#include "matchcount/reduce.hpp"

namespace matchcount {
namespace {

template <class T>
class WorkMatrix {
 public:
  explicit WorkMatrix(const SparseMatrix<T>& a) : n_(a.rows) {
    for (auto& side : lines_) side.resize(static_cast<std::size_t>(n_));
    alive_[0].assign(static_cast<std::size_t>(n_), true);
    alive_[1].assign(static_cast<std::size_t>(n_), true);
    for (const auto& e : a.entries) set(e.row, e.col, e.value);
  }

  int size() const { return n_; }
  std::size_t degree(int side, int line) const { return lines_[side][line].size(); }
  bool alive(int side, int line) const { return alive_[side][line]; }
  const std::map<int, T>& line(int side, int i) const { return lines_[side][i]; }

  /// Removes line i of `side` and line j of the other side with all their entries.
  void remove_pair(int side, int i, int j, std::vector<std::pair<int, int>>& touched) {
    remove_line(side, i, touched);
    remove_line(1 - side, j, touched);
    --n_;
  }

  /// Line i (of `side`) has entries alpha at j and beta at k: replace the cross lines j, k by
  /// beta*line_j + alpha*line_k (kept in slot j) and drop line i and slot k.
  void merge(int side, int i, int j, const T& alpha, int k, const T& beta,
             std::vector<std::pair<int, int>>& touched) {
    const int other = 1 - side;
    remove_line(side, i, touched);
    std::map<int, T> combined;
    for (const auto& [r, v] : lines_[other][j]) combined[r] += beta * v;
    for (const auto& [r, v] : lines_[other][k]) combined[r] += alpha * v;
    remove_line(other, j, touched);
    remove_line(other, k, touched);
    alive_[other][j] = true;  // slot j now holds the combined line
    for (const auto& [r, v] : combined)
      if (v != T(0)) set_side(other, j, r, v);
    touched.push_back({other, j});
    --n_;
  }

  SparseMatrix<T> to_matrix() const {
    SparseMatrix<T> m;
    m.rows = m.cols = n_;
    std::vector<int> col_index(alive_[1].size(), -1);
    int next = 0;
    for (std::size_t c = 0; c < alive_[1].size(); ++c)
      if (alive_[1][c]) col_index[c] = next++;
    int row = 0;
    for (std::size_t r = 0; r < alive_[0].size(); ++r) {
      if (!alive_[0][r]) continue;
      for (const auto& [c, v] : lines_[0][r]) m.entries.push_back({row, col_index[c], v});
      ++row;
    }
    m.normalize();
    return m;
  }

 private:
  void set(int r, int c, const T& v) { set_side(0, r, c, v); }
  void set_side(int side, int i, int j, const T& v) {
    lines_[side][i][j] = v;
    lines_[1 - side][j][i] = v;
  }
  void remove_line(int side, int i, std::vector<std::pair<int, int>>& touched) {
    for (const auto& [j, v] : lines_[side][i]) {
      lines_[1 - side][j].erase(i);
      touched.push_back({1 - side, j});
    }
    lines_[side][i].clear();
    alive_[side][i] = false;
  }

  int n_;
  std::vector<std::map<int, T>> lines_[2];  // [0]: row -> (col -> value), [1]: col -> (row -> value)
  std::vector<bool> alive_[2];
};

}  // namespace

template <class T>
Reduced<T> reduce_lines(const SparseMatrix<T>& a, ReduceStats& stats) {
  if (!a.square()) throw std::invalid_argument("reduce_lines needs a square matrix");
  WorkMatrix<T> w(a);
  Reduced<T> out;
  std::vector<std::pair<int, int>> pending;  // lines whose degree may have dropped to <= 2
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < a.rows; ++i) pending.push_back({side, i});
  std::vector<std::pair<int, int>> touched;
  while (!pending.empty()) {
    const auto [side, i] = pending.back();
    pending.pop_back();
    if (!w.alive(side, i)) continue;
    const std::size_t d = w.degree(side, i);
    if (d == 0) {
      out.zero = true;
      out.factor = T(0);
      out.changed = true;
      return out;
    }
    if (d > 2) continue;
    touched.clear();
    auto it = w.line(side, i).begin();
    const int j = it->first;
    const T alpha = it->second;
    if (d == 1) {
      out.factor *= alpha;
      w.remove_pair(side, i, j, touched);
      ++stats.lines_multiplied_out;
    } else {
      ++it;
      const int k = it->first;
      const T beta = it->second;  // copies: merge() clears the line these live in
      w.merge(side, i, j, alpha, k, beta, touched);
      ++stats.merges;
    }
    out.changed = true;
    pending.insert(pending.end(), touched.begin(), touched.end());
  }
  out.rest = w.to_matrix();
  return out;
}

template <class T>
bool branch_on_sparse_line(const SparseMatrix<T>& a, int max_degree, Branch<T>& out) {
  const int n = a.rows;
  std::vector<int> row_degree(static_cast<std::size_t>(n), 0), col_degree(static_cast<std::size_t>(n), 0);
  for (const auto& e : a.entries) {
    ++row_degree[e.row];
    ++col_degree[e.col];
  }
  // The sparsest line, rows before columns on ties.
  int best_side = -1, best_line = -1, best_degree = max_degree + 1;
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < n; ++i) {
      const int d = side == 0 ? row_degree[i] : col_degree[i];
      if (d >= 3 && d < best_degree) best_side = side, best_line = i, best_degree = d;
    }
  if (best_side < 0) return false;
  // Expand the entry whose cross line is densest: its minor loses the most entries.
  const Entry<T>* pick = nullptr;
  int pick_cross = -1;
  for (const auto& e : a.entries) {
    if ((best_side == 0 ? e.row : e.col) != best_line) continue;
    const int cross = best_side == 0 ? col_degree[e.col] : row_degree[e.row];
    if (cross > pick_cross) pick = &e, pick_cross = cross;
  }
  const int pr = pick->row, pc = pick->col;
  out.weight = pick->value;
  out.minor = SparseMatrix<T>{};
  out.minor.rows = out.minor.cols = n - 1;
  out.rest = SparseMatrix<T>{};
  out.rest.rows = out.rest.cols = n;
  for (const auto& e : a.entries) {
    if (e.row == pr && e.col == pc) continue;
    out.rest.entries.push_back(e);
    if (e.row != pr && e.col != pc)
      out.minor.entries.push_back({e.row - (e.row > pr), e.col - (e.col > pc), e.value});
  }
  return true;
}

#define MATCHCOUNT_INSTANTIATE(T)                                              \
  template Reduced<T> reduce_lines<T>(const SparseMatrix<T>&, ReduceStats&); \
  template bool branch_on_sparse_line<T>(const SparseMatrix<T>&, int, Branch<T>&);
MATCHCOUNT_INSTANTIATE(Integer)
MATCHCOUNT_INSTANTIATE(double)
MATCHCOUNT_INSTANTIATE(Complex)
#undef MATCHCOUNT_INSTANTIATE

}  // namespace matchcount
