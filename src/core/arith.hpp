// Modular arithmetic for the exact engines: primes just below 2^50, a proven bound on |perm|
// and CRT reconstruction. (The engines' FP64 modular multiplication is internal:
// src/core/modmul.hpp.)
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// Deterministic Miller-Rabin for 64-bit integers.
bool is_prime(std::uint64_t n);
/// The k largest primes below 2^50, largest first (cached; all lie in (2^49, 2^50)).
std::vector<std::uint64_t> top_primes(std::size_t k);
/// A proven upper bound on |perm(a)|: the least of the products of the row and of the column
/// absolute sums and, for 0-1 matrices, Bregman's bound prod_i (r_i!)^(1/r_i) rounded up.
Integer permanent_bound(const SparseMatrix<Integer>& a);
/// A proven upper bound on |haf(a)| (loops: |lhaf(a)|) of a symmetric matrix with both
/// triangles stored: prod_i (d_i + f_i), where d_i = |a_ii| with loops (else 0) and f_i bounds
/// the i-th factor of haf^2 <= perm: sqrt(r_i) for the off-diagonal absolute row sum r_i, or
/// Bregman's (r_i!)^(1/(2 r_i)) when every off-diagonal entry is 0 or +-1. (Expanding lhaf over
/// the set S of loops used, |haf(A[V\S])| <= prod_{i not in S} f_i, since a row sum of a
/// principal submatrix is at most the whole row's.) Rounded up in fixed point.
Integer hafnian_bound(const SparseMatrix<Integer>& a, bool loops);
/// Primes (largest first, as doubles) whose product exceeds 2*bound+1, so that a symmetric
/// residue modulo their product determines any integer of absolute value <= bound.
std::vector<double> choose_primes(const Integer& bound);
/// The integer x with |x| <= (M-1)/2, M = prod primes, and x = residues[i] mod primes[i].
/// Residues must lie in [0, primes[i]).
Integer crt_symmetric(const std::vector<std::uint64_t>& residues,
                      const std::vector<std::uint64_t>& primes);
/// The same with one more modulus, 2^64: x = low64 mod 2^64 too, |x| <= M/2, M = 2^64 prod
/// primes (odd primes; none: low64 read as a signed 64-bit integer).
Integer crt_symmetric_2_64(std::uint64_t low64, const std::vector<std::uint64_t>& residues,
                           const std::vector<std::uint64_t>& primes);
/// a^e mod p and the inverse of a mod prime p (0 < a < p).
std::uint64_t pow_mod(std::uint64_t a, std::uint64_t e, std::uint64_t p);
std::uint64_t inv_mod(std::uint64_t a, std::uint64_t p);
/// An exact integer double in (-p, p) as a residue in [0, p).
inline std::uint64_t to_residue(double x, std::uint64_t p) {
  auto v = static_cast<std::int64_t>(x);
  return v < 0 ? static_cast<std::uint64_t>(v + static_cast<std::int64_t>(p))
               : static_cast<std::uint64_t>(v);
}

}  // namespace matchcount
