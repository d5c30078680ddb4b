// The sparse Gray-code walk shared by SpaRyser and SkipPer.
//
// Plain Ryser form over all n columns: perm = (-1)^n sum_S (-1)^|S| prod_i y_i(S) with
// y_i(S) = sum_{j in S} a_ij. A Gray step only touches the rows of the flipped column (CSC),
// and active[i] = |S cap supp(row i)| tells which rows are structurally zero: the product is
// only formed when no row is. Row sums of structurally zero rows are reset to exactly 0, so
// rounding drift cannot build up across them.
//
// SkipPer: while row i is structurally zero, every term is 0 until one of its columns flips.
// Column (Gray bit) j flips at the iterations g with ctz(g) == j, so the walk jumps straight
// to the latest of the zero rows' next flips, applying the columns whose Gray bits differ.
// Jumps never pass the end of the current chunk.
//
// The 2^n iterations are cut into 2^min(n,10) chunks, the walk's work units (src/runtime/thread_walk.hpp:
// threads, checkpoints and MPI ranks); chunk sums are combined in chunk order, so results do
// not depend on threads, ranks or interruptions.
#pragma once

#include <algorithm>
#include <bit>

#include "engines/common.hpp"
#include "engines/common.hpp"
#include "runtime/thread_walk.hpp"

namespace matchcount::engines {

/// The matrix by Gray bit: bit j is matrix column col_of_bit[j]; entries ptr[j]..ptr[j+1]
/// of row[] / entry[] are its nonzeros (entry[] indexes the source matrix's entries).
struct SparseLayout {
  int n = 0;
  std::vector<int> col_of_bit, ptr, row, entry;
  std::vector<std::vector<int>> row_bits;  // Gray bits of each row's support
};

template <class T>
SparseLayout make_layout(const SparseMatrix<T>& a, const std::vector<int>& col_of_bit) {
  SparseLayout lay;
  lay.n = a.rows;
  lay.col_of_bit = col_of_bit;
  std::vector<int> bit_of_col(static_cast<std::size_t>(a.cols));
  for (int j = 0; j < a.cols; ++j) bit_of_col[static_cast<std::size_t>(col_of_bit[static_cast<std::size_t>(j)])] = j;
  lay.ptr.assign(static_cast<std::size_t>(a.cols) + 1, 0);
  for (const auto& e : a.entries) ++lay.ptr[static_cast<std::size_t>(bit_of_col[static_cast<std::size_t>(e.col)]) + 1];
  for (int j = 0; j < a.cols; ++j) lay.ptr[static_cast<std::size_t>(j) + 1] += lay.ptr[static_cast<std::size_t>(j)];
  lay.row.resize(a.entries.size());
  lay.entry.resize(a.entries.size());
  std::vector<int> fill(lay.ptr.begin(), lay.ptr.end() - 1);
  lay.row_bits.resize(static_cast<std::size_t>(a.rows));
  for (std::size_t k = 0; k < a.entries.size(); ++k) {
    const auto& e = a.entries[k];
    int bit = bit_of_col[static_cast<std::size_t>(e.col)];
    auto pos = static_cast<std::size_t>(fill[static_cast<std::size_t>(bit)]++);
    lay.row[pos] = e.row;
    lay.entry[pos] = static_cast<int>(k);
    lay.row_bits[static_cast<std::size_t>(e.row)].push_back(bit);
  }
  return lay;
}

/// Values of the layout's entries in walk order (vals[pos] = f(a.entries[entry[pos]].value)).
template <class V, class T, class F>
std::vector<V> layout_values(const SparseLayout& lay, const SparseMatrix<T>& a, F&& f) {
  std::vector<V> out(lay.entry.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = f(a.entries[static_cast<std::size_t>(lay.entry[k])].value);
  return out;
}

constexpr int kSparseChunkLog = 10;
/// log2 of the walk's chunks (its work units) for n Gray bits: 2^min(n,10).
inline int sparse_units_log(int n) { return std::min(n, kSparseChunkLog); }

/// The smallest g' > g at which Gray bit j flips (ctz(g') == j).
inline std::uint64_t next_flip(std::uint64_t g, int j) {
  std::uint64_t step = std::uint64_t{2} << j;
  std::uint64_t x = (g & ~(step - 1)) | (std::uint64_t{1} << j);
  return x > g ? x : x + step;
}

/// Policy: State make_state(), reset(State&), update(State&, pos, row, sign),
/// zero(State&, row), term(State&, bool odd), Sum finish(const State&), combine(Sum&, Sum).
/// The chunks are the walk's work units (run_units: threads, checkpoints, MPI ranks); `tag`
/// names the walk in opt.journal.
template <bool Skip, class Policy>
typename Policy::Sum sparse_walk(const SparseLayout& lay, const Policy& pol, const EngineOptions& opt,
                                 const std::string& tag) {
  using Sum = typename Policy::Sum;
  const int n = lay.n;
  const int k = n - sparse_units_log(n);
  const std::uint64_t chunks = std::uint64_t{1} << (n - k), chunk = std::uint64_t{1} << k;
  // A thread's walk: the policy's state, and per row the number of its columns in the subset.
  struct Walker {
    typename Policy::State st;
    LineVector<int> active;
  };
  auto walk_chunk = [&](Walker& w, std::uint64_t c) {
    // Locals in the hot loop: the compiler would re-read w's members after every store of
    // the policy, since those might alias them.
    auto& st = w.st;
    int* active = w.active.data();
    int zero_rows = n;
    auto apply = [&](int j, bool add) {
      for (int pos = lay.ptr[static_cast<std::size_t>(j)]; pos < lay.ptr[static_cast<std::size_t>(j) + 1]; ++pos) {
        int i = lay.row[static_cast<std::size_t>(pos)];
        int& act = active[i];
        if (add) {
          pol.update(st, pos, i, true);
          if (act++ == 0) --zero_rows;
        } else if (--act == 0) {
          ++zero_rows;
          pol.zero(st, i);
        } else {
          pol.update(st, pos, i, false);
        }
      }
    };
    std::uint64_t g = c << k, end = g + chunk;
    pol.reset(st);
    std::fill(active, active + n, 0);
    for (std::uint64_t s = g ^ (g >> 1); s; s &= s - 1) apply(std::countr_zero(s), true);
    for (;;) {
      if (zero_rows == 0) {
        pol.term(st, g & 1);
      } else if constexpr (Skip) {
        std::uint64_t to = g + 1;
        for (int i = 0; i < n; ++i) {
          if (active[i] != 0) continue;
          std::uint64_t first = ~std::uint64_t{0};
          for (int j : lay.row_bits[static_cast<std::size_t>(i)]) first = std::min(first, next_flip(g, j));
          to = std::max(to, first);
        }
        if (to >= end) break;
        std::uint64_t now = g ^ (g >> 1), then = to ^ (to >> 1);
        for (std::uint64_t d = now ^ then; d; d &= d - 1) {
          int j = std::countr_zero(d);
          apply(j, then >> j & 1);
        }
        g = to;
        continue;
      }
      if (++g == end) break;
      int j = std::countr_zero(g);
      apply(j, (g ^ (g >> 1)) >> j & 1);
    }
    return pol.finish(st);
  };
  const int threads = thread_count(opt, std::ldexp(double(lay.row.size()), n));
  return runtime::run_units<Sum>(
      chunks, threads, opt, tag, pol.finish(pol.make_state()),
      [&] { return Walker{pol.make_state(), LineVector<int>(static_cast<std::size_t>(n))}; }, walk_chunk,
      [&](Sum& total, const Sum& b) { pol.combine(total, b); });
}

}  // namespace matchcount::engines
