#include "engines/hafnian/haf_setup.hpp"

#include <cmath>
#include <cstdint>

#include "core/arith.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines::haf {
namespace {

/// The k largest primes below 2^bits, largest first.
std::vector<double> small_primes(int bits, std::size_t k) {
  std::vector<double> out;
  for (std::uint64_t c = (std::uint64_t{1} << bits) - 1; out.size() < k && c > 2; c -= 2)
    if (is_prime(c)) out.push_back(static_cast<double>(c));
  if (out.size() < k) throw RefusedError("hafnian: not enough small primes for this bound");
  return out;
}

}  // namespace

int prime_bits(int m) {
  int b = 30;
  while (b > 8) {
    const double r = std::ldexp(1.0, b - 1) + 1;
    if ((2.0 * m + 2) * r * r + r < 0x1p52) break;
    --b;
  }
  return b;
}

std::vector<double> primes_for(const SparseMatrix<Integer>& a, bool loops) {
  const int m = (a.rows + 1) / 2;
  const Integer need = 2 * abs(hafnian_bound(a, loops)) + 1;
  const int bits = prime_bits(m);
  // Each prime exceeds 2^(bits-1): this many always suffice.
  const std::size_t most = mpz_sizeinbase(need.get_mpz_t(), 2) / static_cast<std::size_t>(bits - 1) + 1;
  if (most > 4096) throw RefusedError("hafnian: the bound on |haf| needs more than 4096 primes");
  std::vector<double> all = small_primes(bits, most), out;
  Integer product = 1;
  for (double p : all) {
    if (product > need) break;
    out.push_back(p);
    product *= Integer(static_cast<unsigned long>(p));
  }
  if (product <= need) throw RefusedError("hafnian: the primes found do not cover the bound on |haf|");
  return out;
}

}  // namespace matchcount::engines::haf
