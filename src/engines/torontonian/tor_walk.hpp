// The torontonian's walk over subsets of modes (private to torontonian.cpp): one thread's
// Cholesky factor, extended by two rows per mode included, depth first.
//
// M = I - O with the rows and columns of mode i at 2i and 2i + 1. A node is a set Z of modes in
// increasing order; rows 0 .. 2|Z| - 1 of L hold the Cholesky factor of M_Z, the rows of mode i
// the solve of M's rows against the factor of the modes before it. Its term is
// (-1)^(n - |Z|) exp(q_Z / 2) / prod diag L, q_Z = |y|^2 for L y = conj(gamma_Z) (the loop
// torontonian; 0 without). A work unit fixes which of the first `fixed` modes are in Z and
// walks every subset of the others.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines::tor {

/// The real type of an arithmetic (double or long double, real or complex).
template <class T> struct RealOf { using type = T; };
template <class R> struct RealOf<std::complex<R>> { using type = R; };
template <class T> using Real = typename RealOf<T>::type;

template <class R> R abs2(R x) { return x * x; }
template <class R> R abs2(const std::complex<R>& x) { return std::norm(x); }
template <class R> R conj_of(R x) { return x; }
template <class R> std::complex<R> conj_of(const std::complex<R>& x) { return std::conj(x); }

/// A unit's sums: the positive and negative terms in double-double, the sum of |terms|, the
/// largest q_Z, and 1 when a pivot was not positive (M not positive definite in floating point).
enum Word { kPosHi, kPosLo, kNegHi, kNegLo, kAbs, kMaxQ, kFailed, kWords };

template <class T>
class Walk {
 public:
  /// m: (2n)^2 entries of M in pair order; v: conj(gamma) in pair order, empty without loops.
  Walk(int modes, const std::vector<T>& m, const std::vector<T>& v, int fixed)
      : n_(modes), d_(2 * modes), m_(m), v_(v), fixed_(fixed),
        l_(static_cast<std::size_t>(d_) * static_cast<std::size_t>(d_)), y_(static_cast<std::size_t>(d_)),
        inv_diag_(static_cast<std::size_t>(d_)) {}

  std::vector<double> run(std::uint64_t unit) {
    sums_.assign(kWords, 0.0);
    int k = 0;
    double inv = 1, q = 0;
    for (int i = 0; i < fixed_; ++i)
      if ((unit >> (fixed_ - 1 - i)) & 1) {
        if (!extend(k, i, inv, q)) return sums_;
        ++k;
      }
    node(k, fixed_ - 1, inv, q);
    return sums_;
  }

 private:
  T& l(int r, int c) { return l_[static_cast<std::size_t>(r) * static_cast<std::size_t>(d_) + static_cast<std::size_t>(c)]; }
  const T& m(int r, int c) const { return m_[static_cast<std::size_t>(r) * static_cast<std::size_t>(d_) + static_cast<std::size_t>(c)]; }

  /// Rows 2k and 2k + 1 of the factor for mode i after the k modes of rows 0 .. 2k - 1; updates
  /// the running 1 / prod diag and q. False when a pivot is not positive.
  bool extend(int k, int i, double& inv, double& q) {
    const int r0 = 2 * k, r1 = r0 + 1;
    const int s0 = 2 * i, s1 = s0 + 1;
    // The source rows of M: mode i's two rows against the columns of the modes in rows 0..2k-1,
    // whose modes are those of the rows (mode_[c / 2]).
    for (int c = 0; c < r0; ++c) {
      const int col = 2 * mode_[static_cast<std::size_t>(c / 2)] + (c % 2);
      T a0 = m(s0, col), a1 = m(s1, col);
      const T* lc = &l(c, 0);
      const T* x0 = &l(r0, 0);
      const T* x1 = &l(r1, 0);
      // Any order of the sum keeps Cholesky's backward error bound, so the loop may be vectorized.
      T acc0{}, acc1{};
      if constexpr (std::is_same_v<T, double>) {
        // Four lanes by hand (the compiler keeps such short reductions scalar).
        typedef double v4 __attribute__((vector_size(32)));
        v4 s0 = {0, 0, 0, 0}, s1 = {0, 0, 0, 0};
        int j = 0;
        for (; j + 4 <= c; j += 4) {
          v4 a, b, w;
          __builtin_memcpy(&w, lc + j, sizeof w);
          __builtin_memcpy(&a, x0 + j, sizeof a);
          __builtin_memcpy(&b, x1 + j, sizeof b);
          s0 += a * w;
          s1 += b * w;
        }
        acc0 = (s0[0] + s0[1]) + (s0[2] + s0[3]);
        acc1 = (s1[0] + s1[1]) + (s1[2] + s1[3]);
        for (; j < c; ++j) acc0 += x0[j] * lc[j], acc1 += x1[j] * lc[j];
      } else {
        for (int j = 0; j < c; ++j) {
          const T cj = conj_of(lc[j]);
          acc0 += x0[j] * cj;
          acc1 += x1[j] * cj;
        }
      }
      a0 -= acc0;
      a1 -= acc1;
      l(r0, c) = a0 * inv_diag_[static_cast<std::size_t>(c)];  // one more rounding than a division
      l(r1, c) = a1 * inv_diag_[static_cast<std::size_t>(c)];
    }
    Real<T> p0 = std::real(m(s0, s0));
    for (int j = 0; j < r0; ++j) p0 -= abs2(l(r0, j));
    if (!(p0 > 0)) return fail();
    const Real<T> d0 = std::sqrt(p0);
    l(r0, r0) = T(d0);
    inv_diag_[static_cast<std::size_t>(r0)] = Real<T>(1) / d0;
    T a10 = m(s1, s0);
    for (int j = 0; j < r0; ++j) a10 -= l(r1, j) * conj_of(l(r0, j));
    l(r1, r0) = a10 / d0;
    Real<T> p1 = std::real(m(s1, s1));
    for (int j = 0; j <= r0; ++j) p1 -= abs2(l(r1, j));
    if (!(p1 > 0)) return fail();
    const Real<T> d1 = std::sqrt(p1);
    l(r1, r1) = T(d1);
    inv_diag_[static_cast<std::size_t>(r1)] = Real<T>(1) / d1;
    inv /= static_cast<double>(d0 * d1);
    if (!v_.empty()) {  // forward solve of the two new entries of y
      T y0 = v_[static_cast<std::size_t>(s0)], y1 = v_[static_cast<std::size_t>(s1)];
      for (int j = 0; j < r0; ++j) y0 -= l(r0, j) * y_[static_cast<std::size_t>(j)];
      y0 /= d0;
      for (int j = 0; j <= r0; ++j) y1 -= l(r1, j) * (j == r0 ? y0 : y_[static_cast<std::size_t>(j)]);
      y1 /= d1;
      y_[static_cast<std::size_t>(r0)] = y0, y_[static_cast<std::size_t>(r1)] = y1;
      q += static_cast<double>(abs2(y0) + abs2(y1));
    }
    if (mode_.size() <= static_cast<std::size_t>(k)) mode_.resize(static_cast<std::size_t>(k) + 1);
    mode_[static_cast<std::size_t>(k)] = i;
    return true;
  }

  bool fail() {
    sums_[kFailed] = 1;
    return false;
  }

  /// The term of Z (k modes, the last `last`) and the subtree of sets adding modes after last.
  void node(int k, int last, double inv, double q) {
    const double t = v_.empty() ? inv : inv * std::exp(0.5 * q);
    add((n_ - k) % 2 ? kNegHi : kPosHi, t);
    sums_[kAbs] += t;
    if (q > sums_[kMaxQ]) sums_[kMaxQ] = q;
    for (int i = last + 1; i < n_; ++i) {
      double inv2 = inv, q2 = q;
      if (!extend(k, i, inv2, q2)) return;
      node(k + 1, i, inv2, q2);
    }
  }

  /// Two-sum into (hi, lo) at word w.
  void add(int w, double x) {
    double& hi = sums_[static_cast<std::size_t>(w)];
    double& lo = sums_[static_cast<std::size_t>(w) + 1];
    const double s = hi + x, bp = s - hi;
    lo += (hi - (s - bp)) + (x - bp);
    hi = s;
  }

  int n_, d_;
  const std::vector<T>& m_;
  const std::vector<T>& v_;
  int fixed_;
  std::vector<T> l_, y_;
  std::vector<Real<T>> inv_diag_;  // 1 / L_rr of each row
  std::vector<int> mode_;
  std::vector<double> sums_;
};

}  // namespace matchcount::engines::tor
