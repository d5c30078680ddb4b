// Engines for the permanent of a rectangular m x n matrix with m <= n: the sum over injective
// maps from rows to columns of the product of entries (Sage's and SymPy's definition).
//
// - rect-ryser: Ryser's rectangular formula
//     perm(A) = sum_{X subset of columns, |X| <= m} (-1)^(m-|X|) C(n-|X|, m-|X|) prod_i sum_{j in X} a_ij,
//   the subsets walked depth first (a child adds one column to its parent's row sums: O(m) a
//   subset), in work units of the subsets below a prefix of the walk.
// - rect-dp: a dynamic program over the columns whose states are the sets of rows already
//   used: f_j(S) = f_{j-1}(S) + sum_{i in S} a_ij f_{j-1}(S - i), perm(A) = f_n(all rows);
//   n 2^m states, no cancellation, memory 2^m values.
//
// Both take exact counts modulo primes (CRT in GMP), doubles and complex doubles with an
// absolute error bound. Private to src/ (the pipeline and the tests use it).
#pragma once

#include <cstddef>
#include <string>

#include "engines/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::engines {

/// Subsets the rect-ryser walk visits for an m x n matrix: sum_{k <= m} C(n, k).
double rect_subsets(int m, int n);
/// rect-ryser refuses more subsets than this (about a quarter of a day of a core at the modelled rate).
constexpr double kRectRyserMaxSubsets = 1e13;
/// rect-dp refuses tables larger than this (two tables of 2^m values, more for error bounds).
constexpr double kRectDpMaxBytes = 4.0 * (1ull << 30);

/// A proven bound on |perm(A)| for m <= n: the product of the rows' absolute sums (the
/// column-sum and Bregman bounds of square matrices do not hold when columns stay unused).
Integer rect_bound(const SparseMatrix<Integer>& a);

/// Predicted seconds on `threads` cores (0: all); infinity when the engine would refuse.
/// `primes` is the number of CRT primes (0 for floats), `complex` for complex entries.
double rect_ryser_seconds(int m, int n, std::size_t primes, bool complex, int threads);
double rect_dp_seconds(int m, int n, std::size_t nnz, std::size_t primes, bool complex, int threads);
/// Bytes of the rect-dp tables.
double rect_dp_bytes(int m, bool exact, bool complex);

/// Rectangular permanents of m x n matrices, m <= n (std::invalid_argument otherwise).
/// RefusedError when the walk or the tables are beyond the limits above.
Integer rect_ryser(const SparseMatrix<Integer>& a, const EngineOptions& opt);
Approx<double> rect_ryser(const SparseMatrix<double>& a, const EngineOptions& opt);
Approx<Complex> rect_ryser(const SparseMatrix<Complex>& a, const EngineOptions& opt);
Integer rect_dp(const SparseMatrix<Integer>& a, const EngineOptions& opt);
Approx<double> rect_dp(const SparseMatrix<double>& a, const EngineOptions& opt);
Approx<Complex> rect_dp(const SparseMatrix<Complex>& a, const EngineOptions& opt);

}  // namespace matchcount::engines
