// Real matrices whose rows are integer rows times one scale each: perm(A) = prod_i c_i *
// perm(B) with B an integer matrix, counted exactly. An n x n all-a matrix is the common
// case (B = all ones); the float walks would lose about 1e-10 of relative accuracy on it at
// n = 40 through cancellation, the exact count loses nothing and costs about the same.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

struct IntegerRows {
  SparseMatrix<Integer> b;
  /// A = diag(scale) * b, exactly.
  std::vector<double> scale;
};

/// The split of `a`, or nullopt when some row is not a multiple of small integers (|b| <=
/// 2^20) or when perm(b) could need more than `max_bits` bits (then the exact count would
/// cost far more than the float walk).
std::optional<IntegerRows> integer_rows(const SparseMatrix<double>& a, double max_bits = 300);

/// Real matrices only (complex ones are counted in floating point throughout).
template <class M>
std::optional<IntegerRows> integer_rows_of(const M& m) {
  if constexpr (std::is_same_v<M, SparseMatrix<double>>) return integer_rows(m);
  else return std::nullopt;
}

/// prod scale_i * v, rounded from an exact-exponent product (no overflow on the way).
double scaled_product(const std::vector<double>& scale, const Integer& v);

/// Counts A = diag(scale) * b exactly through `count` (the pipeline's integer count) and stores
/// prod scale_i * perm(b) in the report with its bound: the rounding of the scaled product,
/// and the rounding of the decimals the entries were read from, ((1 + u)^n - 1) * perm(|A|)
/// (perm(|A|) = prod |scale_i| perm(|b|); perm(|b|) is a second exact count when b has a
/// negative entry).
using CountIntegers = std::function<Integer(const SparseMatrix<Integer>&, const CountOptions&, CountReport&)>;
void count_integer_rows(const IntegerRows& split, const CountOptions& options, CountReport& report,
                        const CountIntegers& count);

/// Divides each row, then each column, of an integer matrix by the gcd of its entries and
/// returns the product G of the divisors: perm(A) = G * perm(A / ...), with smaller entries
/// (fewer CRT primes).
Integer extract_content(SparseMatrix<Integer>& a);

}  // namespace matchcount::detail
