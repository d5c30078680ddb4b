// The exact shared-prime walk over two low columns (the CPU twin of gpu-ryser's
// src/engines/ryser/cuda/ryser_low_columns.cuh): the Gray code runs over columns 2..n-2 only,
// and each step adds, for its subset T,
//   f(T) = sum_{U subset of {0, 1}} (-1)^|U| prod_i (y_i(T) + sum_{j in U} a2_ji).
// Rows fall into classes by the low columns that touch them (none, column 1 only, column 0
// only, both); a class's product depends only on that part of U, so the rows no low column
// touches are multiplied once for four subsets, and the modular products run once a step:
//   f = R0 (R1[0] (R2[0] R3[0] - R2[1] R3[1]) - R1[2] (R2[0] R3[2] - R2[1] R3[3]))
// (R_c[U]: class c's product for U, U's bit j = column j). Modular products take factors below
// 2^51 with p < 2^50, so every value stays exact (the GPU header's comment has the bounds).
#pragma once

#include <algorithm>
#include <optional>

#include "engines/ryser/ryser_policies.hpp"

namespace matchcount::engines {

/// A block ready for the walk over two low columns: columns permuted so that the two with
/// the fewest entries come first, rows sorted by class (class_start[c] is class c's first
/// row, class_start[4] = n), groups of the fold ending at every class's end.
struct LowColumnBlock {
  SparseMatrix<Integer> a;
  int class_start[5] = {0, 0, 0, 0, 0};
};

/// The block for the walk, or nothing where a low column would be empty (the permanent is
/// then 0 and the plain walk finds it) or the block is too small for chunks of 4 steps.
inline std::optional<LowColumnBlock> low_column_block(const SparseMatrix<Integer>& a) {
  const int n = a.rows;
  if (n < 10) return std::nullopt;
  std::vector<int> count(static_cast<std::size_t>(n));
  for (const auto& e : a.entries) ++count[static_cast<std::size_t>(e.col)];
  std::vector<int> cols(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) cols[static_cast<std::size_t>(j)] = j;
  std::stable_sort(cols.begin(), cols.end(), [&](int x, int y) { return count[static_cast<std::size_t>(x)] < count[static_cast<std::size_t>(y)]; });
  if (count[static_cast<std::size_t>(cols[0])] == 0) return std::nullopt;
  std::vector<int> col_at(static_cast<std::size_t>(n));  // the two sparsest first, the others in order
  col_at[static_cast<std::size_t>(cols[0])] = 0, col_at[static_cast<std::size_t>(cols[1])] = 1;
  for (int j = 0, next = 2; j < n; ++j)
    if (j != cols[0] && j != cols[1]) col_at[static_cast<std::size_t>(j)] = next++;
  std::vector<int> cls(static_cast<std::size_t>(n));  // 2 * (column 0 touches) + (column 1 touches)
  for (const auto& e : a.entries) {
    const int c = col_at[static_cast<std::size_t>(e.col)];
    if (c < 2) cls[static_cast<std::size_t>(e.row)] |= c == 0 ? 2 : 1;
  }
  std::vector<int> order(static_cast<std::size_t>(n)), row_at(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return cls[static_cast<std::size_t>(x)] < cls[static_cast<std::size_t>(y)]; });
  LowColumnBlock out;
  for (int i = 0; i < n; ++i) row_at[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  for (int c = 1; c <= 4; ++c) {
    int i = 0;
    while (i < n && cls[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] < c) ++i;
    out.class_start[c] = i;
  }
  out.a = a;
  for (auto& e : out.a.entries) e.row = row_at[static_cast<std::size_t>(e.row)], e.col = col_at[static_cast<std::size_t>(e.col)];
  out.a.normalize();
  return out;
}

/// The walk's policy (ryser_walk.hpp) over the high columns `in` (columns 2..n-2 of the
/// block, x0 as usual); low[j][i] = a2_ji for the low columns; plan's groups end at every
/// class's end, and group_touch[g] is the low columns (a U mask) touching group g's class;
/// class_groups[c] .. class_groups[c + 1] are class c's groups.
template <int V>
struct ModLowPolicy {
  static constexpr int lanes = 4 * V;
  const DenseInput& in;
  const std::vector<double>* low;  // low[0], low[1]: the two low columns
  const ModPlan& plan;
  const std::vector<int>& group_touch;
  const int* class_groups;  // 5 entries
  struct State {
    std::vector<v4d> y, group;  // group products [g][U][V]
    ModAccumulators<V> acc;
  };
  using Sum = std::vector<double>;
  static int touch(int c) { return ((c >> 1) & 1) | ((c & 1) << 1); }  // class c's low columns as a U mask
  State make_state() const {
    State st;
    st.y.resize(static_cast<std::size_t>(in.n) * V);
    st.group.resize(plan.group_end.size() * 4 * V);
    st.acc.acc.resize(plan.primes.size() * V);
    return st;
  }
  /// y_i += dir * col_i (col null: y as it is) and the group products of every class version.
  template <int T>
  void group_rows(State& st, int from, int to, const double* col, v4d dir, v4d* out) const {
    v4d p[4][V];
    for (int u = 0; u < 4; ++u)
      for (int v = 0; v < V; ++v) p[u][v] = splat(1);
    for (int i = from; i < to; ++i) {
      v4d* y = st.y.data() + static_cast<std::size_t>(i) * V;
      const v4d c = splat(col ? col[i] : 0.0), a0 = splat(low[0][static_cast<std::size_t>(i)]),
                a1 = splat(low[1][static_cast<std::size_t>(i)]);
      for (int v = 0; v < V; ++v) {
        if (col) y[v] = arith::fmadd(dir, c, y[v]);
        p[0][v] *= y[v];
        if constexpr (T & 1) p[1][v] *= y[v] + a0;
        if constexpr (T & 2) p[2][v] *= y[v] + a1;
        if constexpr (T == 3) p[3][v] *= (y[v] + a0) + a1;
      }
    }
    for (int u = 0; u < 4; ++u)
      for (int v = 0; v < V; ++v) out[u * V + v] = p[u][v];
  }
  void products(State& st, const double* col, v4d dir) const {
    int i = 0;
    for (std::size_t g = 0; g < plan.group_end.size(); ++g) {
      v4d* out = st.group.data() + g * 4 * V;
      const int to = plan.group_end[g];
      switch (group_touch[g]) {
        case 0: group_rows<0>(st, i, to, col, dir, out); break;
        case 1: group_rows<1>(st, i, to, col, dir, out); break;
        case 2: group_rows<2>(st, i, to, col, dir, out); break;
        default: group_rows<3>(st, i, to, col, dir, out); break;
      }
      i = to;
    }
  }
  /// f(T) modulo each prime into the lane accumulators.
  void add(State& st, bool odd) const {
    bool has[4];
    for (int c = 0; c < 4; ++c) has[c] = class_groups[c + 1] > class_groups[c];
    for (std::size_t k = 0; k < plan.primes.size(); ++k) {
      const v4d pv = splat(plan.primes[k]), iv = splat(plan.pinv[k]), one = splat(1);
      v4d R[4][4][V];  // R[c][u]: class c's groups multiplied (1 for an empty class)
      for (int c = 0; c < 4; ++c)
        for (int u = 0; u < 4; ++u) {
          if ((u & ~touch(c)) != 0) continue;
          for (int v = 0; v < V; ++v) R[c][u][v] = one;
          for (int g = class_groups[c]; g < class_groups[c + 1]; ++g) {
            const v4d* x = st.group.data() + (static_cast<std::size_t>(g) * 4 + static_cast<std::size_t>(u)) * V;
            for (int v = 0; v < V; ++v) R[c][u][v] = g == class_groups[c] ? x[v] : arith::modmul(R[c][u][v], x[v], pv, iv);
          }
        }
      auto m = [&](bool ha, const v4d& a, bool hb, const v4d& b) { return ha && hb ? arith::modmul(a, b, pv, iv) : ha ? a : b; };
      v4d r[V];
      for (int v = 0; v < V; ++v) {
        const v4d x = m(has[2], R[2][0][v], has[3], R[3][0][v]) - m(has[2], R[2][1][v], has[3], R[3][1][v]);
        const v4d y = m(has[2], R[2][0][v], has[3], R[3][2][v]) - m(has[2], R[2][1][v], has[3], R[3][3][v]);
        v4d br = m(has[1], R[1][0][v], true, x) - m(has[1], R[1][2][v], true, y);
        if (!has[1]) br = arith::modreduce(br, pv, iv);  // x - y: up to 4p
        r[v] = m(has[0], R[0][0][v], true, br);
      }
      st.acc.add(static_cast<int>(k), r, odd, plan.primes[k], plan.pinv[k]);
    }
  }
  void start(State& st, const std::uint64_t* masks) const {
    start_lanes<V>(in, masks, st.y.data(), [](double x) { return x; });
    std::fill(st.acc.acc.begin(), st.acc.acc.end(), splat(0));
    products(st, nullptr, splat(0));
    add(st, false);
  }
  void step(State& st, int j, v4d dir, bool odd) const {
    products(st, in.a2.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(in.n), dir);
    add(st, odd);
  }
  Sum finish(const State& st) const { return st.acc.sums(plan); }
  void combine(Sum& total, const Sum& b) const { combine_mod_sums(total, b, plan); }
};

}  // namespace matchcount::engines
