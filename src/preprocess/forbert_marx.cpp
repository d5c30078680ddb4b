// Forbert-Marx reduction rules (Forbert & Marx, "Calculation of the permanent of a sparse
// positive matrix", Comput. Phys. Commun. 150 (2003)). Rows and columns are handled by one
// code path: side 0 treats rows as the lines being reduced, side 1 columns (perm(A) =
// perm(A^T)), so every rule is written once.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/tracked.hpp"
#include "matchcount/reduce.hpp"

namespace matchcount {
namespace {

/// The block while the rules run, as entry lists per row and per column. Each entry is a slot
/// on both sides naming the line across and a value shared by the two slots (values in one
/// pool, so an integer is stored once). A line that goes away is not erased from the lines
/// across it: its generation is raised, which makes every slot naming it stale, and stale
/// slots are dropped whenever a line is read or has grown to twice its live entries. So a
/// removal costs the removed line's entries, however dense the lines across, and a block of
/// 10^6 rows takes a few dozen bytes per entry.
template <class T>
class WorkMatrix {
 public:
  explicit WorkMatrix(const SparseMatrix<T>& a) : n_(a.rows) {
    const auto n = static_cast<std::size_t>(n_);
    for (int side = 0; side < 2; ++side) {
      lines_[side].resize(n);
      alive_[side].assign(n, 1);
      gen_[side].assign(n, 0);
      degree_[side].assign(n, 0);
    }
    for (const auto& e : a.entries) ++degree_[0][std::size_t(e.row)], ++degree_[1][std::size_t(e.col)];
    for (int side = 0; side < 2; ++side)
      for (std::size_t i = 0; i < n; ++i) lines_[side][i].reserve(std::size_t(degree_[side][i])), degree_[side][i] = 0;
    values_.reserve(a.entries.size());
    for (const auto& e : a.entries) set_side(0, e.row, e.col, e.value);
  }

  int size() const { return n_; }
  std::size_t degree(int side, int line) const { return std::size_t(degree_[side][std::size_t(line)]); }
  bool alive(int side, int line) const { return alive_[side][std::size_t(line)] != 0; }

  /// The live entries of a line, (index across, value), by increasing index.
  std::vector<std::pair<int, T>> line(int side, int i) {
    std::vector<std::pair<int, T>> out;
    for (const Slot& s : live(side, i)) out.emplace_back(s.other, values_[std::size_t(s.value)]);
    return out;
  }

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
    std::vector<std::pair<int, T>> combined;
    for (const Slot& s : live(other, j)) combined.emplace_back(s.other, beta * values_[std::size_t(s.value)]);
    for (const Slot& s : live(other, k)) combined.emplace_back(s.other, alpha * values_[std::size_t(s.value)]);
    std::stable_sort(combined.begin(), combined.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    remove_line(other, j, touched);
    remove_line(other, k, touched);
    alive_[other][std::size_t(j)] = 1;  // slot j now holds the combined line
    for (std::size_t t = 0; t < combined.size();) {
      T v = combined[t].second;
      std::size_t u = t + 1;
      for (; u < combined.size() && combined[u].first == combined[t].first; ++u) v += combined[u].second;
      if (v != T(0)) set_side(other, j, combined[t].first, v);
      t = u;
    }
    touched.push_back({other, j});
    --n_;
  }

  SparseMatrix<T> to_matrix() {
    SparseMatrix<T> m;
    m.rows = m.cols = n_;
    std::vector<int> col_index(alive_[1].size(), -1);
    int next = 0;
    for (std::size_t c = 0; c < alive_[1].size(); ++c)
      if (alive_[1][c]) col_index[c] = next++;
    std::size_t count = 0;
    for (std::size_t r = 0; r < alive_[0].size(); ++r) count += alive_[0][r] ? std::size_t(degree_[0][r]) : 0;
    m.entries.reserve(count);
    int row = 0;
    for (std::size_t r = 0; r < alive_[0].size(); ++r) {
      if (!alive_[0][r]) continue;
      for (const Slot& s : live(0, int(r))) m.entries.push_back({row, col_index[std::size_t(s.other)], values_[std::size_t(s.value)]});
      ++row;
    }
    return m;  // rows in order, each sorted by column: normalized
  }

 private:
  struct Slot {
    int other;  // the line across
    int gen;    // its generation when the entry was made
    int value;  // index into values_
  };

  bool is_live(int side, const Slot& s) const {
    return alive_[1 - side][std::size_t(s.other)] && gen_[1 - side][std::size_t(s.other)] == s.gen;
  }
  /// Drops the stale slots of a line.
  void compact(int side, int i) {
    auto& l = lines_[side][std::size_t(i)];
    std::erase_if(l, [&](const Slot& s) { return !is_live(side, s); });
  }
  /// The line's live slots by increasing index across (the order the rules see, as a map had).
  const std::vector<Slot>& live(int side, int i) {
    compact(side, i);
    auto& l = lines_[side][std::size_t(i)];
    std::sort(l.begin(), l.end(), [](const Slot& x, const Slot& y) { return x.other < y.other; });
    return l;
  }
  void set_side(int side, int i, int j, const T& v) {
    int id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      values_[std::size_t(id)] = v;
    } else {
      id = int(values_.size());
      values_.push_back(v);
    }
    add_slot(side, i, {j, gen_[1 - side][std::size_t(j)], id});
    add_slot(1 - side, j, {i, gen_[side][std::size_t(i)], id});
  }
  void add_slot(int side, int i, const Slot& s) {
    auto& l = lines_[side][std::size_t(i)];
    l.push_back(s);
    ++degree_[side][std::size_t(i)];
    if (l.size() > 2 * std::size_t(degree_[side][std::size_t(i)]) + 8) compact(side, i);
  }
  void remove_line(int side, int i, std::vector<std::pair<int, int>>& touched) {
    for (const Slot& s : live(side, i)) {
      --degree_[1 - side][std::size_t(s.other)];
      free_.push_back(s.value);  // the slot across is stale from here on
      touched.push_back({1 - side, s.other});
    }
    std::vector<Slot>().swap(lines_[side][std::size_t(i)]);
    alive_[side][std::size_t(i)] = 0;
    ++gen_[side][std::size_t(i)];
    degree_[side][std::size_t(i)] = 0;
  }

  int n_;
  std::vector<std::vector<Slot>> lines_[2];  // [0]: rows, [1]: columns
  std::vector<char> alive_[2];
  std::vector<int> gen_[2], degree_[2];
  std::vector<T> values_;
  std::vector<int> free_;  // indices of values_ no live slot holds
};

/// Whether some line has 0, 1 or 2 entries (else no rule applies).
template <class T>
bool has_short_line(const SparseMatrix<T>& a) {
  std::vector<int> degree(2 * static_cast<std::size_t>(a.rows), 0);
  for (const auto& e : a.entries) ++degree[static_cast<std::size_t>(e.row)], ++degree[static_cast<std::size_t>(a.rows + e.col)];
  return std::any_of(degree.begin(), degree.end(), [](int d) { return d <= 2; });
}

/// The rules on the working matrix of an n x n block until none applies.
template <class T>
Reduced<T> reduce_work(WorkMatrix<T>& w, int n, ReduceStats& stats) {
  Reduced<T> out;
  std::vector<std::pair<int, int>> pending;  // lines whose degree may have dropped to <= 2
  for (int side = 0; side < 2; ++side)
    for (int i = 0; i < n; ++i) pending.push_back({side, i});
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
    const auto entries = w.line(side, i);
    auto it = entries.begin();
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

}  // namespace

// Without a line of 0, 1 or 2 entries no rule applies, and the working matrix is not built: a
// block of 10^6 rows would hold a copy of itself in it.
template <class T>
Reduced<T> reduce_lines(const SparseMatrix<T>& a, ReduceStats& stats) {
  if (!a.square()) throw std::invalid_argument("reduce_lines needs a square matrix");
  if (!has_short_line(a)) {
    Reduced<T> out;
    out.rest = a;
    return out;
  }
  WorkMatrix<T> w(a);
  return reduce_work(w, a.rows, stats);
}

template <class T>
Reduced<T> reduce_lines(SparseMatrix<T>&& a, ReduceStats& stats) {
  if (!a.square()) throw std::invalid_argument("reduce_lines needs a square matrix");
  Reduced<T> out;
  if (!has_short_line(a)) {
    out.rest = std::move(a);
    return out;
  }
  const int n = a.rows;
  WorkMatrix<T> w(a);
  a = SparseMatrix<T>{};  // the working matrix holds it now
  return reduce_work(w, n, stats);
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
  template Reduced<T> reduce_lines<T>(SparseMatrix<T>&&, ReduceStats&);      \
  template bool branch_on_sparse_line<T>(const SparseMatrix<T>&, int, Branch<T>&);
MATCHCOUNT_INSTANTIATE(Integer)
MATCHCOUNT_INSTANTIATE(double)
MATCHCOUNT_INSTANTIATE(Complex)
// Float counts reduce on values with error bounds (core/tracked.hpp, src/pipeline/entry_errors.hpp).
MATCHCOUNT_INSTANTIATE(Tracked<double>)
MATCHCOUNT_INSTANTIATE(Tracked<Complex>)
#undef MATCHCOUNT_INSTANTIATE

}  // namespace matchcount
