// The floating-point side that the planar engines share (kasteleyn: det K' by banded LU;
// pfaffian: Pf K' by banded skew-symmetric elimination): both scale by powers of two, keep
// the product of their pivots as mantissa and exponent, and estimate the rounding error
// normwise, from the factors and a condition estimate ||K'^-1||_1. The elimination and its
// backward-error bound stay with each engine; the pieces here are the same for both.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::engines::planar {

/// conj(x) for complex x, x for real x.
template <class T>
T conj_of(const T& x) {
  if constexpr (std::is_same_v<T, Complex>) return std::conj(x);
  else return x;
}
/// x * 2^e, exactly (each part of a complex x).
template <class T>
T scaled(const T& x, int e) {
  if constexpr (std::is_same_v<T, Complex>) return Complex(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
  else return std::ldexp(x, e);
}

/// ||x||_1.
template <class T>
double norm1(const std::vector<T>& x) {
  double s = 0;
  for (const T& v : x) s += std::abs(v);
  return s;
}

/// An estimate of ||A^-1||_1 from a factorization of the n x n matrix A without zero pivots
/// (Hager's method as in LAPACK's xLACON, with its alternating test vector): a lower bound, in
/// practice within a small factor. `Factors<T>` has `n`, `solve(x)` (x := A^-1 x) and
/// `solve_adjoint(x)` (x := A^-H x).
template <class T, template <class> class Factors>
double inverse_norm1(const Factors<T>& f) {
  const auto n = std::size_t(f.n);
  std::vector<T> x(n, T(1.0 / double(n)));
  double est = 0;
  std::size_t jprev = n;
  for (int it = 0; it < 5; ++it) {
    f.solve(x);
    const double s = norm1(x);
    if (it > 0 && s <= est) break;
    est = s;
    for (T& v : x) v = std::abs(v) > 0 ? v / std::abs(v) : T(1);
    f.solve_adjoint(x);
    std::size_t j = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (std::abs(x[i]) > std::abs(x[j])) j = i;
    if (jprev < n && std::abs(x[j]) <= std::abs(x[jprev])) break;
    jprev = j;
    std::fill(x.begin(), x.end(), T(0));
    x[j] = T(1);
  }
  for (std::size_t i = 0; i < n; ++i)
    x[i] = T((i % 2 ? -1.0 : 1.0) * (1.0 + (n > 1 ? double(i) / double(n - 1) : 0.0)));
  f.solve(x);
  return std::max(est, 2 * norm1(x) / (3 * double(n)));
}

/// A product of pivots (a determinant or a Pfaffian) as mantissa times 2^exponent, the
/// mantissa renormalized after every factor: thousands of pivots neither overflow nor
/// underflow on the way, and only the final value leaves double range (as inf or 0, which
/// the pipeline refuses or reports).
template <class T>
class PivotProduct {
 public:
  /// The sign of the row or vertex interchanges (and of the matching) times 2^exponent, the
  /// exponent undoing the scaling of the matrix.
  PivotProduct(bool negative, long exponent) : mant_(T(negative ? -1.0 : 1.0)), ex_(exponent) {}

  /// Times pivot d; a zero pivot (the matrix singular in floating point) is left out here and
  /// counted by the caller for zero_with_error.
  void multiply(const T& d) {
    if (d == T(0)) return;
    int e = 0;
    mant_ *= d;
    std::frexp(std::abs(mant_), &e);
    mant_ = scaled(mant_, -e), ex_ += e;
  }

  /// 0 with the error of perturbing each of `zero_pivots` zero pivots by `pivot_error`: the
  /// product of the other pivots times pivot_error^zero_pivots. Both results' errors rest on
  /// the condition estimate and first-order terms, so they are marked estimates
  /// (Approx::estimated).
  Approx<T> zero_with_error(int zero_pivots, double pivot_error) const {
    double err = std::abs(mant_);
    for (int k = 0; k < zero_pivots; ++k) err *= pivot_error;
    return {T(0), up(err, ex_), true};
  }
  /// The product with relative error `rel` (an infinite error when rel is not finite).
  Approx<T> with_relative_error(double rel) const {
    T value;
    if constexpr (std::is_same_v<T, Complex>) value = Complex(up(mant_.real(), ex_), up(mant_.imag(), ex_));
    else value = up(mant_, ex_);
    return {value, std::isfinite(rel) ? rel * std::abs(value) : std::numeric_limits<double>::infinity(), true};
  }

 private:
  /// x * 2^e; e clamped to what ldexp takes as an int (far beyond double range either way).
  static double up(double x, long e) { return std::ldexp(x, int(std::clamp(e, -100000L, 100000L))); }

  T mant_;
  long ex_;
};

}  // namespace matchcount::engines::planar
