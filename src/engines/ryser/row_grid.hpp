// Float Ryser-type walks (dense Ryser, SpaRyser, SkipPer) with a bound that holds.
//
// A walk's term is prod_i y_i(S), y_i a signed sum of row i's entries kept up to date over
// thousands of Gray steps. Two things make the computed sum differ from the permanent of the
// numbers the user meant: the roundings of the walk, and entries that are not those numbers
// (decimals rounded to double, values computed by preprocessing: EngineOptions::entry_error).
//
// - Exact row sums. Each row is scaled by a power of two to a sum of |entries| in [1, 2) and its
//   entries rounded to multiples of 2^-52 (2^-51 when that sum rounds up to 2): every signed
//   partial sum of the row is then a multiple of the grid below 2^53 of them, so the walk's
//   additions are exact however long it runs, and no drift of y has to be bounded. The grid
//   moves an entry by at most half its spacing, which is added to the row's error like an
//   input error.
// - The terms' perturbation. With every y_i(S) within E_i of its exact value, a term is off by
//   at most prod_i (|y_i| + E_i) - prod_i |y_i| <= |p| ((1 + E/m)^n - 1), where E = max_i E_i
//   and m = min_i |y_i(S)|, which the walk tracks at the cost of a min per row; when E/m is not
//   small (a row sum near 0) the lane's product of (|y_i| + E_i) is formed instead. Summed over
//   the walk this is the `dev` of the walk's DDSum. No model of cancellation is involved: a sum
//   of signed terms is bounded by the sum of its terms' bounds.
// - The products round by (n - 1) u each (complex: 3u per multiplication), counted against
//   sum |p|, and the compensated sums add u |value| and second-order terms.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engines/common.hpp"
#include "engines/entry_errors.hpp"

namespace matchcount::engines {

/// The error of each row sum of a gridded block (in the block's scaled units) and their largest.
struct RowErrors {
  std::vector<double> err;
  double max = 0;
  int n = 0;
  bool exact() const { return max == 0; }
};

/// A block prepared for a Ryser-type walk: rows scaled and rounded to their grid. The entries
/// keep the order of the input's (a zero on the grid stays an entry, so layouts by entry index
/// agree); perm(a) = 2^shift perm(b) for the exact entries.
template <class T>
struct GriddedRows {
  SparseMatrix<T> b;
  RowErrors rows;
  long shift = 0;
};

template <class T>
GriddedRows<T> grid_rows(const SparseMatrix<T>& a, const EngineOptions& opt) {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const auto n = static_cast<std::size_t>(a.rows);
  GriddedRows<T> out;
  out.b = a;
  out.rows.n = a.rows;
  out.rows.err.assign(n, 0.0);
  const std::vector<double> input = line_error_sums(a, opt);
  std::vector<double> r(n, 0.0);
  auto size = [](const T& v) { return std::abs(std::real(v)) + std::abs(std::imag(v)); };
  for (const auto& e : a.entries) r[static_cast<std::size_t>(e.row)] += size(e.value);
  std::vector<int> exponent(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (r[i] > 0) exponent[i] = std::ilogb(r[i]);
  // Scale and round; a row whose rounded sum reaches 2 takes the coarser grid (sums below 4).
  std::vector<int> coarse(n, 0);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> sum(n, 0.0), moved(n, 0.0);
    for (std::size_t k = 0; k < a.entries.size(); ++k) {
      const auto i = static_cast<std::size_t>(a.entries[k].row);
      const T v = a.entries[k].value * std::ldexp(1.0, -exponent[i]);
      const double g = std::ldexp(1.0, -52 + coarse[i]);
      auto snap = [g](double x) { return std::nearbyint(x / g) * g; };
      T w;
      if constexpr (std::is_same_v<T, Complex>) w = Complex(snap(v.real()), snap(v.imag()));
      else w = snap(v);
      out.b.entries[k].value = w;
      sum[i] += size(w);
      moved[i] += size(w - v);
    }
    if (pass == 0) {
      bool again = false;
      for (std::size_t i = 0; i < n; ++i)
        if (sum[i] >= 2) coarse[i] = 1, again = true;
      if (again) continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      out.rows.err[i] = (moved[i] + std::ldexp(input[i], -exponent[i])) * (1 + 4 * double(n) * u);
      out.rows.max = std::max(out.rows.max, out.rows.err[i]);
      out.shift += exponent[i];
    }
    break;
  }
  return out;
}

/// s * 2^e for each part apart (one ldexp of a scalar could underflow where the parts do not).
inline Complex scaled_sum(double re, double im, long e) {
  const int k = static_cast<int>(std::clamp(e, -100000L, 100000L));
  return {std::ldexp(re, k), std::ldexp(im, k)};
}

/// The bound for one lane's term when E/m is not small: prod_i (|y_i| + E_i) - prod_i |y_i| from
/// the lane's |y_i|, rounded up.
inline double term_deviation(const double* abs_y, const RowErrors& rows) {
  double q = 1, p = 1;
  for (int i = 0; i < rows.n; ++i) q *= abs_y[i] + rows.err[static_cast<std::size_t>(i)], p *= abs_y[i];
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  return (q - p) + 4 * (rows.n + 1) * u * q;
}

/// |p| ((1 + x)^n - 1) for x = E / m, or -1 when x is not small enough for its first-order
/// form (the caller then takes term_deviation): (1 + x)^n - 1 <= n x (1 + 2 n x) for n x <= 1e-3.
inline double small_deviation(double abs_p, double m, const RowErrors& rows) {
  const double t = rows.n * (rows.max / m);
  if (!(t <= 1e-3)) return -1;
  return abs_p * t * (1 + 2 * t);
}

/// The walk's bound from its sums, for a Ryser-type walk over `terms` terms of n-factor products
/// (the permanent is `scale` times the walk's sum): the terms' deviations, the products'
/// roundings against sum |p| (`mult` u per multiplication: 1 real, 3 complex), and the
/// compensated sums' second-order terms for `merges` double-double merges of chunks of `chunk`
/// terms each.
inline double walk_bound(double value, double abs_sum, double dev, int n, double mult, double scale, double merges,
                         double chunk) {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const double rounding = (mult * (n + 1) + 2) * u + (chunk * u) * (chunk * u) + (merges * u) * (merges * u);
  const double a = abs_sum * (1 + 2 * chunk * u);  // sum |p| was added naively within a chunk
  return (std::max(dev, 0.0) * (1 + 4 * (n + 2) * u) + rounding * (a + std::max(dev, 0.0))) * std::fabs(scale) +
         2 * u * std::abs(value);
}

}  // namespace matchcount::engines
