#include "engines/hafnian/haf_setup.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <cstdint>

#include "core/arith.hpp"
#include "engines/entry_errors.hpp"
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
  return primes_for_bound((a.rows + 1) / 2, hafnian_bound(a, loops));
}

std::vector<double> primes_for_bound(int m, const Integer& bound) {
  const Integer need = 2 * abs(bound) + 1;
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

std::vector<std::vector<int>> float_orders(int n) {
  int k = 2;  // a multiplier coprime to n: i -> k i mod n permutes the positions
  while (n > 1 && std::gcd(k, n) != 1) ++k;
  std::vector<std::vector<int>> order(kFloatWalks, std::vector<int>(static_cast<std::size_t>(n)));
  for (int i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(i);
    order[0][at] = i;
    order[1][at] = n - 1 - i;
    order[2][at] = static_cast<int>(static_cast<long>(k) * i % n);
    order[3][at] = static_cast<int>((static_cast<long>(k) * (n - 1 - i) + 1) % n);
  }
  return order;
}

template <class T>
Approx<T> float_estimate(const std::vector<T>& walks, double excess) {
  T mean{};
  for (int w = 0; w < kSpreadWalks; ++w) mean += walks[static_cast<std::size_t>(w)];
  mean /= static_cast<double>(kSpreadWalks);
  double squares = 0;
  for (int w = 0; w < kSpreadWalks; ++w) squares += std::norm(walks[static_cast<std::size_t>(w)] - mean);
  // The walks' values are doubles: a spread below their spacing q is not seen (walks can agree
  // to the bit and share an error of a few ulps), so s counts at least the spacing's own noise,
  // q / sqrt 12 (docs/engines.md, "Dense hafnian").
  double largest = 0;
  for (int w = 0; w < kSpreadWalks; ++w) largest = std::max(largest, std::abs(walks[static_cast<std::size_t>(w)]));
  const double q = largest > 0 ? std::nextafter(largest, HUGE_VAL) - largest : 0.0;
  const double s = std::sqrt(squares / static_cast<double>(kSpreadWalks - 1) + q * q / 12);
  const double moved = excess > 0 ? excess * 2 * std::abs(walks[kSpreadWalks]) : 0.0;
  // A statistical estimate (the spread of the walks), not a bound: marked so (Approx::estimated).
  return {mean, 18.3 * s + 4 * 0x1p-53 * std::abs(mean) + moved + 0x1p-1074, true};
}

template <class T>
double hafnian_excess(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt) {
  return symmetric_perturbation(a, loops, opt);
}

template Approx<double> float_estimate(const std::vector<double>&, double);
template Approx<Complex> float_estimate(const std::vector<Complex>&, double);
template double hafnian_excess(const SparseMatrix<double>&, bool, const EngineOptions&);
template double hafnian_excess(const SparseMatrix<Complex>&, bool, const EngineOptions&);

}  // namespace matchcount::engines::haf
