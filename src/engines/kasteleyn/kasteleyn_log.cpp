// Logarithms of permanents of planar blocks (kasteleyn_log_permanent, kasteleyn.hpp): the
// engine's Kasteleyn signing, a perfect matching moved onto the diagonal, and the sparse LU
// log-determinant of the signed matrix.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engines/common.hpp"
#include "engines/kasteleyn/kasteleyn.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::engines {
template <class T>
planar::LogDet kasteleyn_log_permanent(const SparseMatrix<T>& a, double max_bytes, planar::Ordering ordering,
                                       double given_error) {
  const int n = a.rows;
  const std::vector<signed char> sign = kasteleyn_signing(pattern_of(a), n);
  if (sign.empty()) throw not_planar_error(n, a.nnz());
  const Matching m = hopcroft_karp(Pattern::of(a));
  if (!m.perfect()) return planar::LogDet::exact_zero();  // the permanent is exactly 0
  // K(r, j) = s * a(r, c) for the row j matched to column c: the matching lies on the diagonal,
  // and every perfect matching enters det K with the sign of that diagonal's term.
  SparseMatrix<double> k;
  k.rows = k.cols = n;
  k.entries.reserve(a.entries.size());
  double entry_error = given_error;
  int matching_sign = 1;
  for (std::size_t e = 0; e < a.entries.size(); ++e) {
    const auto& x = a.entries[e];
    const double v = planar::entry_double(x.value);
    if (!std::isfinite(v))
      throw RefusedError("kasteleyn: an entry of this " + std::to_string(n) + " x " + std::to_string(n) +
                         " block is beyond the range of double precision, which its log-determinant needs");
    entry_error = std::max(entry_error, planar::entry_rounding(x.value));
    const int j = m.row_of_col[std::size_t(x.col)];
    k.entries.push_back({x.row, j, sign[e] * v});
    if (j == x.row) matching_sign *= sign[e];
  }
  k.normalize();
  planar::LogDetOptions lo;
  lo.entry_error = entry_error, lo.max_bytes = max_bytes, lo.ordering = ordering;
  lo.diagonal_pivots = true;  // the matching on the diagonal: pivots that keep the factors small
  planar::LogDet r = planar::sparse_log_det(k, lo);
  r.sign *= matching_sign;
  return r;
}

template planar::LogDet kasteleyn_log_permanent(const SparseMatrix<Integer>&, double, planar::Ordering, double);
template planar::LogDet kasteleyn_log_permanent(const SparseMatrix<double>&, double, planar::Ordering, double);

}  // namespace matchcount::engines
