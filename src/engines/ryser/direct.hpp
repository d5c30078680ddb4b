// Plain Ryser over all 2^n subsets with no Gray code and no tricks: the small-n path of the
// ryser engine, kept obviously correct. perm = (-1)^n sum_S (-1)^|S| prod_i sum_{j in S} a_ij.
#pragma once

#include <bit>

#include "engines/common.hpp"

namespace matchcount::engines {

template <class T>
struct DirectSum;

template <>
struct DirectSum<Integer> {
  Integer s = 0;
  void add(const Integer& t, double) { s += t; }
};
template <>
struct DirectSum<double> {
  DDSum s;
  void add(double t, double bound, double dev) { s.add(t), s.abs += bound, s.dev += dev; }
};
template <>
struct DirectSum<Complex> {
  DDSum re, im;
  void add(Complex t, double bound, double dev) { re.add(t.real()), im.add(t.imag()), re.abs += bound, re.dev += dev; }
};

/// Returns the sum of signed terms (to be multiplied by (-1)^n) in a DirectSum whose abs
/// field holds sum_S prod_i sum_{j in S} |a_ij|, which bounds the rounding error of each
/// term (relative error <= 2n u) in the float cases, and whose dev field the terms' deviations
/// when row i's entries are off by at most row_error[i] in all (row_grid.hpp):
/// sum_S prod_i (sum_{j in S} |a_ij| + row_error[i]) - prod_i sum_{j in S} |a_ij|.
template <class T>
DirectSum<T> ryser_direct(const SparseMatrix<T>& a, const std::vector<double>& row_error = {}) {
  const int n = a.rows;
  std::vector<T> d = a.dense();
  std::vector<double> mag(d.size());
  for (std::size_t k = 0; k < d.size(); ++k) {
    if constexpr (std::is_same_v<T, Integer>) mag[k] = 0;
    else mag[k] = std::abs(d[k]);
  }
  DirectSum<T> out;
  for (std::uint64_t s = 1; s < (std::uint64_t{1} << n); ++s) {
    T prod = 1;
    double bound = 1, perturbed = 1;
    for (int i = 0; i < n; ++i) {
      T y = 0;
      double yb = 0;
      for (int j = 0; j < n; ++j)
        if (s >> j & 1) y += d[static_cast<std::size_t>(i * n + j)], yb += mag[static_cast<std::size_t>(i * n + j)];
      prod *= y;
      bound *= yb;
      perturbed *= yb + (row_error.empty() ? 0.0 : row_error[static_cast<std::size_t>(i)]);
    }
    if (std::popcount(s) & 1) prod = -prod;
    if constexpr (std::is_same_v<T, Integer>) out.add(prod, bound);
    else out.add(prod, bound, perturbed - bound);
  }
  return out;
}

}  // namespace matchcount::engines
