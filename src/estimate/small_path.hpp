// The Rasmussen and Rasmussen+ sample path for blocks of at most 64 rows: the used rows and
// columns are two 64-bit masks held in registers, degrees are popcounts of the rows' and
// columns' patterns, and a 0-1 block needs no values at all (a row's mass is its count of
// available columns). Same protocol as Path (sample_path.hpp), same estimator: only the data
// structure differs, so CPU and GPU run the same draws.
#pragma once

#include <cstdint>

#include "sample_path.hpp"

namespace matchcount::estimate {

/// A block of n <= 64 rows as bit patterns (and values unless every entry is 1).
struct SmallBlock {
  int n = 0;
  bool unit = true;                       // every entry is 1: val is not read
  const std::uint64_t* rows = nullptr;    // rows[i]: bit j set when a_ij != 0
  const std::uint64_t* cols = nullptr;    // cols[j]: bit i set when a_ij != 0
  const double* val = nullptr;            // val[i * n + j] (dense), unless unit
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
    if constexpr (is_plus(M))
      for (int j = 0; j < b_.n; ++j) {
        const int d = popcount64(b_.cols[j]);
        dead_ = dead_ || d == 0;
        if (d == 1) forced_ |= std::uint64_t{1} << j;
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
      return {best};
    }
  }

  template <class F>
  MC_HD bool for_each_choice(int r, F&& f) const {
    const std::uint64_t avail = b_.rows[r] & ~used_cols_;
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
    const std::uint64_t avail = b_.rows[r] & ~used_cols_;
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

  MC_HD bool assign(int r, int c) {
    ++step_;
    used_rows_ |= std::uint64_t{1} << r;
    used_cols_ |= std::uint64_t{1} << c;
    if constexpr (is_plus(M)) {
      // r's other columns lost a row: one left forces it, none kills the sample.
      for (std::uint64_t a = b_.rows[r] & ~used_cols_; a; a &= a - 1) {
        const int j = lowest_bit(a);
        const int d = popcount64(b_.cols[j] & ~used_rows_);
        if (d == 0) return false;
        if (d == 1) forced_ |= std::uint64_t{1} << j;
      }
    }
    return true;
  }

 private:
  MC_HD std::uint64_t mask() const { return b_.n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b_.n) - 1; }

  SmallBlock b_;
  std::uint64_t used_rows_ = 0, used_cols_ = 0, forced_ = 0;
  int step_ = 0;
  bool dead_ = false;
};

}  // namespace matchcount::estimate
