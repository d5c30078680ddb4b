// The errors of a float block's entries (EngineOptions::entry_error), in the forms the engines'
// bounds use: per line, the sum of the absolute errors (the Ryser-type walks, whose row sums
// move by at most that) or the largest relative error (engines that bound through perm(|A|):
// every term of the permanent is a product of one entry per row and per column).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "engines/engine.hpp"

namespace matchcount::engines {

/// e(v) of every entry, in the order of a.entries (all 0 when the entries are exact).
template <class T>
std::vector<double> entry_errors(const SparseMatrix<T>& a, const EngineOptions& opt) {
  std::vector<double> e(a.entries.size(), 0.0);
  if (opt.entry_error)
    for (std::size_t k = 0; k < e.size(); ++k) e[k] = opt.entry_error(Complex(a.entries[k].value));
  return e;
}

/// Per row (`by_col` false) or column: the sum of the entries' absolute errors.
template <class T>
std::vector<double> line_error_sums(const SparseMatrix<T>& a, const EngineOptions& opt, bool by_col = false) {
  std::vector<double> s(static_cast<std::size_t>(by_col ? a.cols : a.rows), 0.0);
  if (!opt.entry_error) return s;
  const std::vector<double> e = entry_errors(a, opt);
  for (std::size_t k = 0; k < e.size(); ++k)
    s[static_cast<std::size_t>(by_col ? a.entries[k].col : a.entries[k].row)] += e[k];
  for (double& x : s) x *= 1 + 1e-12;  // the sums' own roundings
  return s;
}

/// Per row (`by_col` false) or column: the largest e(v) / |v| (infinite for a zero entry that
/// carries an error, which the pipeline never hands over).
template <class T>
std::vector<double> line_relative_errors(const SparseMatrix<T>& a, const EngineOptions& opt, bool by_col = false) {
  std::vector<double> r(static_cast<std::size_t>(by_col ? a.cols : a.rows), 0.0);
  if (!opt.entry_error) return r;
  const std::vector<double> e = entry_errors(a, opt);
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (e[k] == 0) continue;
    const double m = std::abs(a.entries[k].value);
    double& x = r[static_cast<std::size_t>(by_col ? a.entries[k].col : a.entries[k].row)];
    x = std::max(x, m > 0 ? e[k] / m * (1 + 1e-15) : std::numeric_limits<double>::infinity());
  }
  return r;
}

/// The largest (sum of row i's entries' errors) / (row i's absolute sum): the relative error
/// of every row sum of a Ryser-type walk.
template <class T>
double row_sum_relative_error(const SparseMatrix<T>& a, const EngineOptions& opt) {
  if (!opt.entry_error) return 0;
  const std::vector<double> e = line_error_sums(a, opt);
  std::vector<double> r(e.size(), 0.0);
  for (const auto& x : a.entries) r[static_cast<std::size_t>(x.row)] += std::abs(x.value);
  double most = 0;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e[i] > 0) most = std::max(most, r[i] > 0 ? e[i] / r[i] : std::numeric_limits<double>::infinity());
  return most;
}

/// The largest e(v) / |v| over the entries (0 when they are exact).
template <class T>
double max_relative_error(const SparseMatrix<T>& a, const EngineOptions& opt) {
  if constexpr (std::is_same_v<T, Integer>) {
    return 0;  // integers are exact (the --log path)
  } else {
    double most = 0;
    for (double x : line_relative_errors(a, opt)) most = std::max(most, x);
    return most;
  }
}

/// prod (1 + eta_i) - 1, rounded up: from logarithms, since 1 + eta would round eta ~ u away.
inline double product_excess(const std::vector<double>& eta, double power = 1) {
  double s = 0;
  for (double x : eta) s += std::log1p(x);
  return std::expm1(power * s) * (1 + 1e-12);
}

/// How much further than perm(|A|) * (this) the permanent of the exact entries may lie from
/// that of the given ones: each term is a product of one entry per row and column, so its
/// relative change is at most prod_i (1 + eta_i) - 1, the least of the row and column forms.
template <class T>
double relative_perturbation(const SparseMatrix<T>& a, const EngineOptions& opt) {
  if (!opt.entry_error) return 0;
  return std::min(product_excess(line_relative_errors(a, opt, false)),
                  product_excess(line_relative_errors(a, opt, true)));
}

/// The same for a hafnian (a symmetric block, both triangles stored): every vertex lies in one
/// factor of a (loop) perfect matching, so each term moves by at most prod_i (1 + eta_i)^(1/2) - 1
/// of itself (an edge's eta is at most both its vertices'), prod_i (1 + eta_i) - 1 with loops.
template <class T>
double symmetric_perturbation(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt) {
  if (!opt.entry_error) return 0;
  return product_excess(line_relative_errors(a, opt), loops ? 1.0 : 0.5);
}

}  // namespace matchcount::engines
