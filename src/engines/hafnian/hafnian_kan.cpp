// Kan's moment formula for repeated-row hafnians (hafnian_repeated.hpp): the choice for
// patterns of few modes with many photons each, where prod (r_i + 1) terms over the modes cost
// less than the pair walk's leaves over N vertices.
//
// For the homogeneous degree-N part P_N of exp(x^T A x / 2 + mu . x), the coefficient of
// prod x_i^r_i times prod r_i! is the (loop) hafnian of A repeated r (each expanded matching is
// a product of the x's); the centred finite-difference identity for homogeneous polynomials of
// degree N = |r| gives it as
//   sum over 0 <= nu <= r of (-1)^|nu| prod C(r_i, nu_i) P_N(r/2 - nu)
// (Kan, "From moments of sum to moments of product", J. Multivariate Anal. 2008). With
// H = r - 2 nu, Q = H^T A H and S = mu . H (integers for integer input),
//   P_N = sum_j Q^j S^(N-2j) / (2^(N+j) j! (N-2j)!)   (without loops only j = N/2).
// Exact values sum the terms times 2^(N+M) N! (M = floor(N/2)) in GMP and divide once. Floats
// carry a bound that holds: each term is a polynomial in the entries evaluated with at most K
// roundings on any path, so its error is below gamma_K times the same evaluation on |A|, |mu|
// and |H| (Higham, Accuracy and Stability, 3.3), and the signed sum is kept in double-double.
#include <cmath>
#include <complex>
#include <vector>

#include "engines/common.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"

namespace matchcount::engines {
namespace {

/// Calls f(H, weight sign, binomial product as double) for every nu in mixed radix, with
/// binomials from `binom` (binom[i][k] = C(r_i, k)).
template <class F>
void for_each_nu(const std::vector<std::uint64_t>& rpt, F f) {
  const std::size_t n = rpt.size();
  std::vector<std::uint64_t> nu(n, 0);
  std::vector<long> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<long>(rpt[i]);
  int parity = 0;
  for (;;) {
    f(h, nu, parity);
    std::size_t i = 0;
    while (i < n && nu[i] == rpt[i]) {
      parity ^= static_cast<int>(nu[i] & 1);
      nu[i] = 0, h[i] = static_cast<long>(rpt[i]);
      ++i;
    }
    if (i == n) return;
    ++nu[i], h[i] -= 2, parity ^= 1;
  }
}

/// x^e by squaring (std::pow of a complex base goes through exp and log, and 0^0 is 1 here).
template <class T>
T ipow(T x, int e) {
  T r = 1;
  for (; e > 0; e >>= 1, x *= x)
    if (e & 1) r *= x;
  return r;
}

std::uint64_t photons(const std::vector<std::uint64_t>& rpt) {
  std::uint64_t n = 0;
  for (auto r : rpt) n += r;
  return n;
}

}  // namespace

double kan_terms(const std::vector<std::uint64_t>& rpt) {
  double t = 1;
  for (auto r : rpt) t *= double(r) + 1;
  return t;
}

Integer hafnian_kan(const RepeatedHafnian<Integer>& in) {
  const int n = in.n;
  const auto N = static_cast<unsigned long>(photons(in.rpt));
  const unsigned long M = N / 2;
  std::vector<std::vector<Integer>> binom(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (std::uint64_t k = 0; k <= in.rpt[static_cast<std::size_t>(i)]; ++k) {
      Integer b;
      mpz_bin_uiui(b.get_mpz_t(), static_cast<unsigned long>(in.rpt[static_cast<std::size_t>(i)]), static_cast<unsigned long>(k));
      binom[static_cast<std::size_t>(i)].push_back(b);
    }
  // c_j = 2^(M-j) N! / (j! (N-2j)!) for the loop terms; without loops only j = M (N even).
  std::vector<Integer> coef(M + 1);
  for (unsigned long j = 0; j <= M; ++j) {
    Integer nf, jf, rf;
    mpz_fac_ui(nf.get_mpz_t(), N), mpz_fac_ui(jf.get_mpz_t(), j), mpz_fac_ui(rf.get_mpz_t(), N - 2 * j);
    coef[j] = (nf / (jf * rf)) << static_cast<mp_bitcnt_t>(M - j);
  }
  Integer total = 0, q, s, term, w, power;
  for_each_nu(in.rpt, [&](const std::vector<long>& h, const std::vector<std::uint64_t>& nu, int parity) {
    q = 0, s = 0;
    for (int i = 0; i < n; ++i) {
      if (h[static_cast<std::size_t>(i)] == 0) continue;
      Integer row = 0;
      for (int k = 0; k < n; ++k)
        row += in.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)] * h[static_cast<std::size_t>(k)];
      q += row * h[static_cast<std::size_t>(i)];
      if (in.loops) s += in.mu[static_cast<std::size_t>(i)] * h[static_cast<std::size_t>(i)];
    }
    w = 1;
    for (int i = 0; i < n; ++i) w *= binom[static_cast<std::size_t>(i)][static_cast<std::size_t>(nu[static_cast<std::size_t>(i)])];
    if (!in.loops) {
      mpz_pow_ui(term.get_mpz_t(), q.get_mpz_t(), M);
      term *= coef[M];
    } else {  // sum_j c_j Q^j S^(N-2j), Horner in Q / S^2 from the top: sum_j c_j Q^j S^(N-2j)
      term = 0, power = 1;  // power = Q^j
      Integer spow;
      for (unsigned long j = 0; j <= M; ++j) {
        mpz_pow_ui(spow.get_mpz_t(), s.get_mpz_t(), N - 2 * j);
        term += coef[j] * power * spow;
        power *= q;
      }
    }
    if (parity) total -= w * term;
    else total += w * term;
  });
  // total = hafnian * 2^(N+M) N! (loops) or * 2^(N+M) N! with c_M = 2^0 N!/(M! 0!) folded in.
  Integer denominator;
  mpz_fac_ui(denominator.get_mpz_t(), N);
  denominator <<= static_cast<mp_bitcnt_t>(N + M);
  if (!mpz_divisible_p(total.get_mpz_t(), denominator.get_mpz_t()))
    throw std::logic_error("hafnian_kan: the moment sum is not a multiple of its denominator");
  return Integer(total / denominator);
}

template <class T>
Approx<T> hafnian_kan_float(const RepeatedHafnian<T>& in) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  const int n = in.n;
  const auto N = static_cast<int>(photons(in.rpt));
  const int M = N / 2;
  // Terms in double with their majorants; log-gamma keeps the factorials in range.
  std::vector<double> coef(static_cast<std::size_t>(M) + 1);  // 1 / (2^(N+j) j! (N-2j)!)
  for (int j = 0; j <= M; ++j)
    coef[static_cast<std::size_t>(j)] =
        std::exp(-(N + j) * std::log(2.0) - std::lgamma(j + 1.0) - std::lgamma(N - 2.0 * j + 1));
  // C(r_i, k) as the doubles nearest them (exact from GMP, then rounded once).
  std::vector<std::vector<double>> binom(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (std::uint64_t k = 0; k <= in.rpt[static_cast<std::size_t>(i)]; ++k) {
      Integer b;
      mpz_bin_uiui(b.get_mpz_t(), static_cast<unsigned long>(in.rpt[static_cast<std::size_t>(i)]), static_cast<unsigned long>(k));
      binom[static_cast<std::size_t>(i)].push_back(b.get_d());  // truncated: within 2u
    }
  DDSum re, im;
  double majorant = 0;
  for_each_nu(in.rpt, [&](const std::vector<long>& h, const std::vector<std::uint64_t>& nu, int parity) {
    T q = 0, s = 0;
    double qa = 0, sa = 0;
    for (int i = 0; i < n; ++i) {
      const double hi = static_cast<double>(h[static_cast<std::size_t>(i)]);
      if (hi == 0) continue;
      T row = 0;
      double rowa = 0;
      for (int k = 0; k < n; ++k) {
        const T a = in.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)];
        row += a * static_cast<double>(h[static_cast<std::size_t>(k)]);
        rowa += std::abs(a) * std::fabs(static_cast<double>(h[static_cast<std::size_t>(k)]));
      }
      q += row * hi, qa += rowa * std::fabs(hi);
      if (in.loops) s += in.mu[static_cast<std::size_t>(i)] * hi, sa += std::abs(in.mu[static_cast<std::size_t>(i)]) * std::fabs(hi);
    }
    double w = 1;
    for (int i = 0; i < n; ++i) w *= binom[static_cast<std::size_t>(i)][static_cast<std::size_t>(nu[static_cast<std::size_t>(i)])];
    T p = 0;
    double pa = 0;
    for (int j = in.loops ? 0 : M; j <= M; ++j) {
      const double c = coef[static_cast<std::size_t>(j)];
      p += c * ipow(q, j) * ipow(s, N - 2 * j);
      pa += c * ipow(qa, j) * ipow(sa, N - 2 * j);
    }
    const T t = (parity ? -w : w) * p;
    re.add(std::real(t));
    if constexpr (cplx) im.add(std::imag(t));
    majorant += w * pa;
  });
  T value;
  if constexpr (cplx) value = Complex(re.value(), im.value());
  else value = re.value();
  // K roundings on a term's longest path: the n^2 products and sums of Q (and of S), the powers
  // (by squaring), the coefficient (lgamma and exp: 4u), the weight (n binomials within 2u each
  // and their product), plus the entries' own rounding (u each, N of them a matching).
  const double K = (n * n + 4.0) * (N + 2) + 8.0 * n + 16 + N;
  const double gamma = std::expm1(K * (cplx ? 4 : 1) * 0x1p-53 * 1.01);
  const double error = gamma * majorant * (1 + 1e-12) + 0x1p-100 * majorant * kan_terms(in.rpt) +
                       2 * 0x1p-53 * std::abs(value);
  return {value, error, false};
}

Approx<double> hafnian_kan(const RepeatedHafnian<double>& in) { return hafnian_kan_float(in); }
Approx<Complex> hafnian_kan(const RepeatedHafnian<Complex>& in) { return hafnian_kan_float(in); }

}  // namespace matchcount::engines
