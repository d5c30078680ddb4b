// A proven upper bound on |perm(A)|, used to choose how many primes the CRT needs.
#include <map>
#include <utility>
#include <vector>

#include "core/arith.hpp"

namespace matchcount {

namespace {

// Fixed-point bits for Bregman's factors: each factor is over-estimated by < 2^-kFrac.
constexpr unsigned long kFrac = 64;

// ceil(2^kFrac * (r!)^(1/r)) as an exact integer: floor of the r-th root plus one.
Integer bregman_factor(unsigned long r) {
  Integer f, root;
  mpz_fac_ui(f.get_mpz_t(), r);
  mpz_mul_2exp(f.get_mpz_t(), f.get_mpz_t(), kFrac * r);
  if (mpz_root(root.get_mpz_t(), f.get_mpz_t(), r) == 0) root += 1;  // inexact root: round up
  return root;
}

// ceil(2^kFrac * sqrt(x)) for x >= 0.
Integer fixed_sqrt_up(const Integer& x) {
  Integer scaled = x, root;
  mpz_mul_2exp(scaled.get_mpz_t(), scaled.get_mpz_t(), 2 * kFrac);
  mpz_sqrt(root.get_mpz_t(), scaled.get_mpz_t());
  if (root * root != scaled) root += 1;
  return root;
}

// The product of `factors` by a balanced tree: one factor at a time would take time quadratic
// in the product's length, which large blocks' line sums make long.
Integer product_of(std::vector<Integer> factors) {
  if (factors.empty()) return 1;
  while (factors.size() > 1) {
    std::vector<Integer> next((factors.size() + 1) / 2);
    for (std::size_t k = 0; k < next.size(); ++k)
      next[k] = 2 * k + 1 < factors.size() ? Integer(factors[2 * k] * factors[2 * k + 1]) : factors[2 * k];
    factors = std::move(next);
  }
  return factors[0];
}

}  // namespace

Integer hafnian_bound(const SparseMatrix<Integer>& a, bool loops) {
  const std::size_t n = static_cast<std::size_t>(a.rows);
  std::vector<Integer> diag(n), row(n);
  bool unit = true;
  for (const auto& e : a.entries) {
    if (e.row == e.col) {
      if (loops) diag[static_cast<std::size_t>(e.row)] = abs(e.value);
      continue;
    }
    row[static_cast<std::size_t>(e.row)] += abs(e.value);
    if (abs(e.value) != 1) unit = false;
  }
  // Each factor in fixed point with kFrac fraction bits, rounded up: (d_i << kFrac) + f_i.
  std::map<unsigned long, Integer> bregman_half;  // ceil(2^kFrac (r!)^(1/(2r))) by r
  std::vector<Integer> factors;
  factors.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Integer f;
    if (unit) {
      const unsigned long r = row[i].get_ui();
      auto it = bregman_half.find(r);
      if (it == bregman_half.end()) {
        // sqrt of ceil(2^(2 kFrac) (r!)^(1/r)): bregman_factor works with kFrac bits, so
        // scale it to 2 kFrac first (exactly, by shifting) and take the root rounded up.
        Integer b = r == 0 ? Integer(1) << kFrac : bregman_factor(r);
        mpz_mul_2exp(b.get_mpz_t(), b.get_mpz_t(), kFrac);
        Integer root;
        mpz_sqrt(root.get_mpz_t(), b.get_mpz_t());
        if (root * root != b) root += 1;
        it = bregman_half.emplace(r, root).first;
      }
      f = it->second;
    } else {
      f = fixed_sqrt_up(row[i]);
    }
    Integer factor = diag[i];
    mpz_mul_2exp(factor.get_mpz_t(), factor.get_mpz_t(), kFrac);
    factors.push_back(factor + f);
  }
  const Integer prod = product_of(std::move(factors));
  Integer bound;
  mpz_cdiv_q_2exp(bound.get_mpz_t(), prod.get_mpz_t(), kFrac * n);
  return bound;
}

Integer permanent_bound(const SparseMatrix<Integer>& a) {
  std::vector<Integer> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
  bool zero_one = true;
  for (const auto& e : a.entries) {
    row[static_cast<std::size_t>(e.row)] += abs(e.value);
    col[static_cast<std::size_t>(e.col)] += abs(e.value);
    if (e.value != 1) zero_one = false;
  }
  const Integer by_rows = product_of(row), by_cols = product_of(col);
  Integer best = by_rows < by_cols ? by_rows : by_cols;
  if (zero_one && best != 0) {
    // Bregman (Minc's conjecture): perm <= prod_i (r_i!)^(1/r_i) for 0-1 matrices, and the
    // same over columns (perm A = perm A^T). Each factor is rounded up in fixed point, so
    // the product divided by 2^(kFrac*n), rounded up, is a true bound.
    std::map<unsigned long, Integer> factor;
    for (const auto* sums : {&row, &col}) {
      std::vector<Integer> factors;
      factors.reserve(sums->size());
      for (const auto& r : *sums) {
        unsigned long d = r.get_ui();
        auto it = factor.find(d);
        if (it == factor.end()) it = factor.emplace(d, bregman_factor(d)).first;
        factors.push_back(it->second);
      }
      const Integer prod = product_of(std::move(factors));
      Integer bregman;
      mpz_cdiv_q_2exp(bregman.get_mpz_t(), prod.get_mpz_t(), kFrac * sums->size());
      if (bregman < best) best = bregman;
    }
  }
  return best;
}

}  // namespace matchcount
