// A proven upper bound on |perm(A)|, used to choose how many primes the CRT needs.
#include <map>

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

}  // namespace

Integer permanent_bound(const SparseMatrix<Integer>& a) {
  std::vector<Integer> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
  bool zero_one = true;
  for (const auto& e : a.entries) {
    row[static_cast<std::size_t>(e.row)] += abs(e.value);
    col[static_cast<std::size_t>(e.col)] += abs(e.value);
    if (e.value != 1) zero_one = false;
  }
  Integer by_rows = 1, by_cols = 1;
  for (const auto& r : row) by_rows *= r;
  for (const auto& c : col) by_cols *= c;
  Integer best = by_rows < by_cols ? by_rows : by_cols;
  if (zero_one && best != 0) {
    // Bregman (Minc's conjecture): perm <= prod_i (r_i!)^(1/r_i) for 0-1 matrices, and the
    // same over columns (perm A = perm A^T). Each factor is rounded up in fixed point, so
    // the product divided by 2^(kFrac*n), rounded up, is a true bound.
    std::map<unsigned long, Integer> factor;
    for (const auto* sums : {&row, &col}) {
      Integer prod = 1;
      for (const auto& r : *sums) {
        unsigned long d = r.get_ui();
        auto it = factor.find(d);
        if (it == factor.end()) it = factor.emplace(d, bregman_factor(d)).first;
        prod *= it->second;
      }
      Integer bregman;
      mpz_cdiv_q_2exp(bregman.get_mpz_t(), prod.get_mpz_t(), kFrac * sums->size());
      if (bregman < best) best = bregman;
    }
  }
  return best;
}

}  // namespace matchcount
