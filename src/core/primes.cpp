// Primes below 2^50, modular powers and CRT reconstruction.
#include <mutex>
#include <stdexcept>

#include "core/arith.hpp"

namespace matchcount {

namespace {
__extension__ typedef unsigned __int128 u128;

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(static_cast<u128>(a) * b % m);
}
}  // namespace

std::uint64_t pow_mod(std::uint64_t a, std::uint64_t e, std::uint64_t p) {
  std::uint64_t r = 1 % p;
  a %= p;
  for (; e; e >>= 1, a = mulmod(a, a, p))
    if (e & 1) r = mulmod(r, a, p);
  return r;
}

// Extended Euclid: about 30 divisions against pow_mod's 100 multiplications (the Kasteleyn
// engine inverts every pivot, n per prime).
std::uint64_t inv_mod(std::uint64_t a, std::uint64_t p) {
  std::int64_t t = 0, nt = 1, r = static_cast<std::int64_t>(p), nr = static_cast<std::int64_t>(a % p);
  while (nr != 0) {
    const std::int64_t q = r / nr, t2 = t - q * nt, r2 = r - q * nr;
    t = nt, nt = t2, r = nr, nr = r2;
  }
  return static_cast<std::uint64_t>(t < 0 ? t + static_cast<std::int64_t>(p) : t);
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t q : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37})
    if (n % q == 0) return n == q;
  std::uint64_t d = n - 1;
  int s = 0;
  for (; d % 2 == 0; d /= 2) ++s;
  // These twelve bases decide primality for every n < 3.3e24.
  for (std::uint64_t a : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    std::uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s && composite; ++r) {
      x = mulmod(x, x, n);
      if (x == n - 1) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

std::vector<std::uint64_t> top_primes(std::size_t k) {
  static std::mutex mutex;
  static std::vector<std::uint64_t> cache;
  std::lock_guard lock(mutex);
  std::uint64_t next = cache.empty() ? (std::uint64_t{1} << 50) - 1 : cache.back() - 2;
  while (cache.size() < k) {
    if (next < (std::uint64_t{1} << 49)) throw std::length_error("top_primes: too many primes");
    if (is_prime(next)) cache.push_back(next);
    next -= 2;
  }
  return {cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(k)};
}

std::vector<double> choose_primes(const Integer& bound) {
  Integer need = 2 * abs(bound) + 1, product = 1;
  std::vector<double> out;
  for (std::size_t k = 1; product <= need; ++k) {
    // Grow the cached list in steps; each prime adds about 50 bits.
    std::uint64_t p = top_primes(k).back();
    out.push_back(static_cast<double>(p));
    product *= Integer(static_cast<unsigned long>(p));
  }
  return out;
}

Integer crt_symmetric(const std::vector<std::uint64_t>& residues,
                      const std::vector<std::uint64_t>& primes) {
  if (residues.size() != primes.size()) throw std::invalid_argument("crt_symmetric: sizes differ");
  // Garner's mixed-radix form: x = c0 + c1 p0 + c2 p0 p1 + ...; all steps stay in uint64.
  Integer x = 0, modulus = 1;
  for (std::size_t i = 0; i < primes.size(); ++i) {
    std::uint64_t p = primes[i];
    std::uint64_t x_mod_p = mpz_fdiv_ui(x.get_mpz_t(), p);
    std::uint64_t m_mod_p = mpz_fdiv_ui(modulus.get_mpz_t(), p);
    std::uint64_t diff = (residues[i] % p + p - x_mod_p) % p;
    std::uint64_t c = mulmod(diff, inv_mod(m_mod_p, p), p);
    x += modulus * Integer(static_cast<unsigned long>(c));
    modulus *= Integer(static_cast<unsigned long>(p));
  }
  if (2 * x > modulus) x -= modulus;
  return x;
}

Integer crt_symmetric_2_64(std::uint64_t low64, const std::vector<std::uint64_t>& residues,
                           const std::vector<std::uint64_t>& primes) {
  Integer x = crt_symmetric(residues, primes), P = 1;
  for (std::uint64_t p : primes) P *= Integer(static_cast<unsigned long>(p));
  if (x < 0) x += P;  // x in [0, P)
  // x + P t = low64 (mod 2^64): t = (low64 - x) / P, P odd, so invertible modulo 2^64.
  const Integer two64 = Integer(1) << 64;
  Integer inv, t = Integer(static_cast<unsigned long>(low64)) - x;
  mpz_invert(inv.get_mpz_t(), P.get_mpz_t(), two64.get_mpz_t());
  t *= inv;
  mpz_fdiv_r_2exp(t.get_mpz_t(), t.get_mpz_t(), 64);
  x += P * t;
  const Integer M = P * two64;
  if (2 * x > M) x -= M;
  return x;
}

}  // namespace matchcount
