// The slots of a GPU SkipPer job from a plan (private to gpu_skipper*.cpp).
//
// Rows touched by the local columns (L) take the Nijenhuis-Wilf shift, doubled so integers
// stay integers: y_i = 2 sum_{j in S} a_ij - sum_j a_ij. They are never structurally zero,
// and their values are centred, which keeps float cancellation down. The other rows (H) are
// constant within a chunk: in the plain form y_i = sum_{j in S} a_ij, zero whenever S misses
// the row (the jumps), in the halved form doubled NW rows like L. perm(A) is
//   plain:  (-1)^n       2^-|L|    sum over S of all n columns     (-1)^|S| prod_i y_i
//   halved: (-1)^(n-1)   2^-(n-1)  sum over S of the n-1 others    (-1)^|S| prod_i y_i
// (the identity perm(A) = sum_S (-1)^(n-|S|) prod_i (x_i + sum_{j in S} a_ij) holds for any
// shifts x_i; the halved form pairs each S with its complement and keeps the fixed column in).
#pragma once

#include <algorithm>

#include "engines/sparse/gpu_skipper.hpp"

namespace matchcount::engines {

/// `conv(v, out)` writes the W doubles of a value of T (exact integers, residues, floats).
/// `groups` lists the rows of each constant slot (at least one slot, possibly empty).
template <class T, class Conv>
gpu::SkipJob skip_layout(const SparseMatrix<T>& a, const SkipPlan& p, const std::vector<std::vector<int>>& groups,
                         int W, Conv conv) {
  const int n = a.rows;
  const auto at = [n](int i, int j) { return static_cast<std::size_t>(i) * n + j; };
  std::vector<T> d = a.dense(), r(static_cast<std::size_t>(n), T(0));
  for (const auto& e : a.entries) r[static_cast<std::size_t>(e.row)] += e.value;
  std::vector<int> bit_of_col(static_cast<std::size_t>(n), -1);
  for (int b = 0; b < p.bits; ++b) bit_of_col[static_cast<std::size_t>(p.col_of_bit[static_cast<std::size_t>(b)])] = b;

  gpu::SkipJob job;
  job.n = n;
  job.bits = p.bits;
  job.k = p.k;
  job.task_bits = p.task_bits;
  job.rows_l = static_cast<int>(p.l_rows.size());
  job.local.assign(static_cast<std::size_t>(p.k) * job.rows_l * W, 0.0);
  double buf[2];
  auto put = [&](std::vector<double>& v, const T& x) {
    conv(x, buf);
    v.insert(v.end(), buf, buf + W);
  };
  // One sum: the row's base and its entries on the high bits (local ones go to `local`).
  auto add_sum = [&](int i, bool nw, int slot) {
    T base(0);
    if (nw) base -= r[static_cast<std::size_t>(i)];
    if (p.halved) base += T(2) * d[at(i, p.fixed_col)];
    put(job.sum_base, base);
    for (int j = 0; j < n; ++j) {
      const T& v = d[at(i, j)];
      const int b = bit_of_col[static_cast<std::size_t>(j)];
      if (v == T(0) || b < 0) continue;
      T x = v;
      if (nw) x *= 2;
      if (b < p.k) {
        conv(x, buf);
        for (int w = 0; w < W; ++w) job.local[(static_cast<std::size_t>(b) * job.rows_l + slot) * W + w] = buf[w];
      } else {
        job.entry_bit.push_back(b);
        put(job.entry_val, x);
      }
    }
    // Entries in increasing Gray bit, the order in which the baked start (a switch over the
    // set bits) adds them: float start values then have the same bits in every kernel.
    const std::size_t first = static_cast<std::size_t>(job.sum_entry.back()), last = job.entry_bit.size();
    std::vector<std::size_t> order(last - first);
    for (std::size_t q = 0; q < order.size(); ++q) order[q] = first + q;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return job.entry_bit[x] < job.entry_bit[y]; });
    std::vector<int> bits;
    std::vector<double> vals;
    for (std::size_t q : order) {
      bits.push_back(job.entry_bit[q]);
      vals.insert(vals.end(), job.entry_val.begin() + static_cast<long>(q * W), job.entry_val.begin() + static_cast<long>((q + 1) * W));
    }
    std::copy(bits.begin(), bits.end(), job.entry_bit.begin() + static_cast<long>(first));
    std::copy(vals.begin(), vals.end(), job.entry_val.begin() + static_cast<long>(first * W));
    job.sum_entry.push_back(static_cast<int>(job.entry_bit.size()));
  };
  job.sum_entry.push_back(0);
  job.slot_sum.push_back(0);
  int sums = 0;
  for (std::size_t s = 0; s < p.l_rows.size(); ++s) {
    add_sum(p.l_rows[s], true, static_cast<int>(s));
    job.slot_sum.push_back(++sums);
  }
  job.sign_slot = job.rows_l;
  for (const auto& g : groups) {
    job.const_mask |= std::uint64_t{1} << (job.slot_sum.size() - 1);
    for (int i : g) add_sum(i, p.halved, -1), ++sums;
    job.slot_sum.push_back(sums);
  }
  if (!p.halved)
    for (int i : p.h_rows) {
      std::uint64_t m = 0;
      for (const auto& e : a.entries)
        if (e.row == i) m |= std::uint64_t{1} << bit_of_col[static_cast<std::size_t>(e.col)];
      job.dead_mask.push_back(m);
    }
  return job;
}

}  // namespace matchcount::engines
