// The Rasmussen and Rasmussen+ sample path for blocks of at most 64 rows: the used rows and
// columns are two 64-bit masks held in registers, degrees are popcounts of the rows' and
// columns' patterns, and a 0-1 block needs no values at all (a row's mass is its count of
// available columns). Same protocol as Path (sample_path.hpp), same estimator: only the data
// structure differs, so CPU and GPU run the same draws.
//
// Rasmussen+ leaves out the entries in no perfect matching of the rest as Path does (the
// reasoning is in live_matching.hpp), with the search as bit operations: the set T of rows
// that can reach row r grows by cols[M(t)] for each t taken from it (one AND and OR per row),
// and stops as soon as it holds the rows M^-1(c) of all of r's candidate columns c, which on
// dense blocks is after the first step. The order of those steps is kept (ord_), so the path
// that moves M when r takes c != M(r) is found again without storing parents per row.
// While every remaining row and column has at least (k + 1) / 2 of the k remaining lines,
// the rest has a perfect matching whatever r takes (Hall: min degree >= half the side), so
// the search is skipped and only the path to the drawn column is looked for (dense blocks
// need the full search only in their last few rows).
#pragma once

#include <cstdint>

#include "estimate/sample_path.hpp"

namespace matchcount::estimate {

/// A block of n <= 64 rows as bit patterns (and values unless every entry is 1).
struct SmallBlock {
  int n = 0;
  bool unit = true;                       // every entry is 1: val is not read
  const std::uint64_t* rows = nullptr;    // rows[i]: bit j set when a_ij != 0
  const std::uint64_t* cols = nullptr;    // cols[j]: bit i set when a_ij != 0
  const double* val = nullptr;            // val[i * n + j] (dense), unless unit
  const int* match0 = nullptr;            // a perfect matching, row -> column; null: none
};

MC_HD int popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}
MC_HD int lowest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

template <Method M>
class SmallPath {
  static_assert(!is_scaling(M), "scaling methods sample large and small blocks with Path");

 public:
  MC_HD explicit SmallPath(const SmallBlock& b) : b_(b) {}

  MC_HD void start() {
    used_rows_ = used_cols_ = forced_ = 0;
    step_ = 0;
    dead_ = false;
    if constexpr (is_plus(M)) {
      if (!b_.match0) {
        dead_ = true;
        return;
      }
      for (int i = 0; i < b_.n; ++i) {
        const int j = b_.match0[i];
        m_[i] = static_cast<std::uint8_t>(j), minv_[j] = static_cast<std::uint8_t>(i);
      }
      col_low_ = 64;
      for (int j = 0; j < b_.n; ++j) {
        const int d = popcount64(b_.cols[j]);
        col_low_ = d < col_low_ ? d : col_low_;
        dead_ = dead_ || d == 0;
        if (d == 1) forced_ |= std::uint64_t{1} << j;
      }
    }
  }

  MC_HD Step next() {
    if (dead_) return {kDead};
    if (step_ == b_.n) return {kDone};
    if constexpr (!is_plus(M)) {
      return {step_};
    } else {
      while (forced_) {  // a column left with one unused row gives it to that row
        const int c = lowest_bit(forced_);
        forced_ &= forced_ - 1;
        if (used_cols_ >> c & 1) continue;
        const std::uint64_t r = b_.cols[c] & ~used_rows_;
        if (popcount64(r) != 1) continue;
        const int row = lowest_bit(r);
        return {row, c, b_.unit ? 1.0 : b_.val[row * b_.n + c]};
      }
      int best = -1, best_deg = 65;  // the unused row with the fewest available columns
      for (std::uint64_t left = ~used_rows_ & mask(); left; left &= left - 1) {
        const int i = lowest_bit(left);
        const int d = popcount64(b_.rows[i] & ~used_cols_);
        if (d < best_deg) best = i, best_deg = d;
      }
      if (best_deg == 0) return {kDead};
      return possible_choices(best, best_deg);
    }
  }

  template <class F>
  MC_HD bool for_each_choice(int r, F&& f) const {
    const std::uint64_t avail = choices(r);
    if (!avail) return false;
    if (b_.unit) {
      const double k = popcount64(avail);
      for (std::uint64_t a = avail; a; a &= a - 1)
        if (f(lowest_bit(a), 1.0 / k, k)) break;
      return true;
    }
    double total = 0.0;
    for (std::uint64_t a = avail; a; a &= a - 1) total += b_.val[r * b_.n + lowest_bit(a)];
    for (std::uint64_t a = avail; a; a &= a - 1) {
      const double v = b_.val[r * b_.n + lowest_bit(a)];
      if (f(lowest_bit(a), v / total, total)) break;
    }
    return true;
  }

  MC_HD Step draw(int r, double u) const {
    const std::uint64_t avail = choices(r);
    if (!avail) return {r, -1, 0.0};
    if (b_.unit) {  // the t-th available column, t uniform
      const int k = popcount64(avail);
      int t = static_cast<int>(u * k);
      std::uint64_t a = avail;
      for (; t > 0 && (a & (a - 1)); --t) a &= a - 1;
      return {r, lowest_bit(a), static_cast<double>(k)};
    }
    Step s{r, -1, 0.0};
    double acc = 0.0;
    for_each_choice(r, [&](int c, double p, double factor) {
      s.col = c, s.value = factor;
      acc += p;
      return u < acc;
    });
    return s;
  }

  /// SmallPath never asks for a rescale (Rasmussen methods only).
  template <class Sync>
  MC_HD void rescale(int, int, Sync&&) {}
  MC_HD void rescaled() {}

  /// Always ready to place (advance() asks: cooperative Paths may not be).
  MC_HD static constexpr bool ready(const Step&) { return true; }
  MC_HD bool assign(int r, int c) {
    ++step_;
    if constexpr (is_plus(M))
      if (c != m_[r]) {
        if (!searched_) grow(r, bit(minv_[c]));
        move_matching(r, c);
      }
    used_rows_ |= std::uint64_t{1} << r;
    used_cols_ |= std::uint64_t{1} << c;
    if constexpr (is_plus(M)) {
      // r's other columns lost a row: one left forces it, none kills the sample.
      for (std::uint64_t a = b_.rows[r] & ~used_cols_; a; a &= a - 1) {
        const int j = lowest_bit(a);
        const int d = popcount64(b_.cols[j] & ~used_rows_);
        if (d == 0) return false;
        if (d == 1) forced_ |= std::uint64_t{1} << j;
        col_low_ = d < col_low_ ? d : col_low_;  // the other columns kept their degrees
      }
    }
    return true;
  }

 private:
  MC_HD static std::uint64_t bit(int i) { return std::uint64_t{1} << i; }
  MC_HD double value(int r, int c) const { return b_.unit ? 1.0 : b_.val[r * b_.n + c]; }
  /// The columns row r may take: its available ones, for "+" the possible ones of next().
  MC_HD std::uint64_t choices(int r) const {
    if constexpr (is_plus(M)) return allowed_;
    else return b_.rows[r] & ~used_cols_;
  }

  // "+": row r (with deg available columns, the fewest of any row) to place; its possible
  // columns into allowed_, or the only one as a forced step.
  MC_HD Step possible_choices(int r, int deg) {
    const std::uint64_t avail = b_.rows[r] & ~used_cols_;
    const int own = m_[r];
    if (deg == 1) return {r, own, value(r, own)};
    const int left = b_.n - step_, low = deg < col_low_ ? deg : col_low_;
    searched_ = 2 * low < left + 1;
    allowed_ = avail;
    if (!searched_) return {r};  // Hall: every column is possible
    std::uint64_t want = 0;  // rows M^-1(c) of the candidates c != M(r)
    for (std::uint64_t a = avail & ~bit(own); a; a &= a - 1) want |= bit(minv_[lowest_bit(a)]);
    const std::uint64_t reach = grow(r, want);
    for (std::uint64_t bad = want & ~reach; bad; bad &= bad - 1) allowed_ &= ~bit(m_[lowest_bit(bad)]);
    if (allowed_ == bit(own)) return {r, own, value(r, own)};
    return {r};
  }
  // The rows that can reach r (r's column can be handed on to them), grown from r until they
  // hold `want` or are complete; the rows expanded, in order, go to ord_.
  MC_HD std::uint64_t grow(int r, std::uint64_t want) {
    const std::uint64_t open = ~used_rows_ & mask();
    std::uint64_t reach = bit(r), frontier = reach;
    nexp_ = 0;
    while ((want & ~reach) && frontier) {
      const int t = lowest_bit(frontier);
      frontier &= frontier - 1;
      ord_[nexp_++] = static_cast<std::uint8_t>(t);
      const std::uint64_t add = b_.cols[m_[t]] & open & ~reach;
      reach |= add, frontier |= add;
    }
    return reach;
  }
  // r takes c: M^-1(c) takes the column of the row whose expansion reached it (the first in
  // ord_ whose column holds it), that row the next one's, and so on up to r. Parents lie
  // earlier in ord_ than their children, so the scan reads only rows not yet moved.
  MC_HD void move_matching(int r, int c) {
    for (int cur = minv_[c]; cur != r;) {
      int k = 0;
      while (!(b_.cols[m_[ord_[k]]] >> cur & 1)) ++k;
      const int t = ord_[k];
      m_[cur] = m_[t], minv_[m_[cur]] = static_cast<std::uint8_t>(cur);
      cur = t;
    }
    m_[r] = static_cast<std::uint8_t>(c), minv_[c] = static_cast<std::uint8_t>(r);
  }

  MC_HD std::uint64_t mask() const { return b_.n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b_.n) - 1; }

  SmallBlock b_;
  std::uint64_t used_rows_ = 0, used_cols_ = 0, forced_ = 0;
  int step_ = 0;
  bool dead_ = false;
  // "+": a perfect matching of the remainder (row -> column and back), the possible columns
  // of the row next() returned, and the order of its search.
  std::uint64_t allowed_ = 0;
  int nexp_ = 0, col_low_ = 0;  // col_low_: at most the fewest unused rows of an untaken column
  bool searched_ = false;       // allowed_ came from a search (ord_ holds it)
  std::uint8_t m_[64], minv_[64], ord_[64];
};

}  // namespace matchcount::estimate
