// ln|det A| of a large sparse real matrix by a sparse LU factorization (SuiteSparse's UMFPACK,
// fill-reducing orderings), with a bound on its rounding error. The planar engines call it on
// their Kasteleyn or Pfaffian matrix when a count is wanted as its logarithm (CountOptions::log):
// the exact integer of a 10^6-site lattice has hundreds of thousands of digits, its logarithm
// is one double. Private to src/engines.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "matchcount/matrix.hpp"

namespace matchcount::engines::planar {

/// A block's entry as the double the factorization takes, and the relative error of that
/// conversion (mpz_get_d truncates: within two units of the last place, exact below 2^53).
inline double entry_double(double v) { return v; }
inline double entry_double(const Integer& v) { return v.get_d(); }
inline double entry_rounding(double) { return 0; }
inline double entry_rounding(const Integer& v) {
  return mpz_sizeinbase(v.get_mpz_t(), 2) > 53 ? std::numeric_limits<double>::epsilon() : 0;
}

/// Whether this build has the sparse LU (SuiteSparse's UMFPACK was found at configure time).
bool sparse_lu_available();

/// ln|det A|, the sign of det A and the bound on the error of the logarithm.
struct LogDet {
  int sign = 0;  // +1 or -1; 0 when A is singular in floating point (a zero pivot)
  double log_abs = -std::numeric_limits<double>::infinity();
  /// Bound on |computed log_abs - ln|det A||, to first order in the rounding errors; infinite
  /// when the first-order bound is too large to be trusted (sparse_logdet.cpp says how).
  double error = std::numeric_limits<double>::infinity();
  /// What the factorization did: the fill-reducing ordering ("metis", "amd" or "colamd"),
  /// entries of L + U, floating-point operations, peak bytes, pivots off the diagonal (under
  /// diagonal pivots), seconds of the ordering and symbolic analysis, of the numeric
  /// factorization and of the error bound.
  std::string ordering;
  double lu_entries = 0, flops = 0, peak_bytes = 0, off_diagonal_pivots = 0;
  double analyse_seconds = 0, factor_seconds = 0, error_seconds = 0;

  /// A count that is exactly 0 (no perfect matching): ln 0 with no error.
  static LogDet exact_zero() {
    LogDet zero;
    zero.error = 0;
    return zero;
  }
  /// The two factors of the error bound: the estimated largest |entry| of the inverse of the
  /// row-scaled A, and the bound on the entries of the backward error E summed.
  double max_inverse = 0, backward = 0;
};

/// Predicted seconds of a log-count of a planar block of n rows and nnz entries on one core:
/// the signing (planarity, embedding, faces, a perfect matching) per row, and the
/// factorization with its error bound, whose work on planar graphs in nested-dissection order
/// grows as the 1.5th power of the size (constants fitted on grids and triangular lattices of
/// 250^2 to 2000^2 sites, within 40%: docs/benchmarks.md, "Sparse LU log-determinants").
constexpr double kLogDetPerRow = 2e-6, kLogDetFactor = 3e-9, kLogDetFixed = 1e-4;
inline double log_det_seconds(int n, std::size_t nnz) {
  return kLogDetFixed + kLogDetPerRow * n + kLogDetFactor * std::pow(double(nnz), 1.5);
}
/// Predicted peak bytes of the same: about log2(n) entries of L + U per entry of the block in
/// nested-dissection order, kLogDetBytesPerEntry bytes each with the copies around them
/// (docs/benchmarks.md, "Sparse LU log-determinants").
constexpr double kLogDetBytesPerEntry = 40;
inline double log_det_bytes(int n, std::size_t nnz) {
  return kLogDetBytesPerEntry * double(nnz) * std::log2(std::max(2.0, double(n)));
}

/// The fill-reducing ordering: METIS's nested dissection from kMetisFromRows rows, AMD (COLAMD
/// under partial pivoting) below (Auto), or either by name (benchmarks, tests). METIS fills
/// less at every size, but below this its ordering costs more time than the fill it saves
/// (docs/benchmarks.md, "Sparse LU log-determinants").
enum class Ordering { Auto, Amd, Metis };
constexpr int kMetisFromRows = 200000;

struct LogDetOptions {
  /// A bound on the relative error of the entries themselves (0 when they are exact, the unit
  /// roundoff when they were rounded to doubles); it joins the backward error.
  double entry_error = 0;
  /// The memory budget: a factorization predicted beyond it is refused (RefusedError).
  double max_bytes = std::numeric_limits<double>::infinity();
  Ordering ordering = Ordering::Auto;
  /// How pivots are chosen. true: on the diagonal where UMFPACK's symmetric threshold allows,
  /// in an order of A + A^T (the matrix should have a zero-free diagonal, a perfect matching
  /// moved onto it). false: threshold partial pivoting (kPartialPivotThreshold) in a column
  /// order of A^T A. Kasteleyn matrices of grids keep a bound 7 to 100 times smaller with
  /// diagonal pivots; Pfaffian matrices grow under them (a bound 10^3 to 10^5 times larger) and
  /// take partial pivoting (docs/benchmarks.md, "Sparse LU log-determinants").
  bool diagonal_pivots = true;
};
/// The partial pivoting threshold: a pivot at least this fraction of its column's largest
/// entry (UMFPACK's default is 0.1; 0.5 bounded the triangular lattices' error 30 times
/// tighter at the same time and fill).
constexpr double kPartialPivotThreshold = 0.5;

/// ln|det A| of the square matrix `a` (entries as given: every position once, no zeros).
/// RefusedError when the predicted memory exceeds the budget or the build has no sparse LU.
LogDet sparse_log_det(const SparseMatrix<double>& a, const LogDetOptions& options = {});

}  // namespace matchcount::engines::planar
