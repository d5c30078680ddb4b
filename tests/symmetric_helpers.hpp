// Random symmetric matrices for the hafnian engine tests (CPU and GPU).
#pragma once

#include <cmath>
#include <random>

#include "matchcount/matrix.hpp"

namespace matchcount::test::symmetric_helpers {

/// A symmetric n x n matrix from value(i, j) for i >= j (diagonal included).
template <class T, class F>
inline SparseMatrix<T> symmetric(int n, F value) {
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      const T v = value(i, j);
      if (v == T(0)) continue;
      a.entries.push_back({i, j, v});
      if (i != j) a.entries.push_back({j, i, v});
    }
  a.normalize();
  return a;
}

inline SparseMatrix<Integer> random_01(int n, double p, bool loops, std::mt19937_64& rng) {
  std::bernoulli_distribution edge(p);
  return symmetric<Integer>(n, [&](int i, int j) { return (i != j || loops) && edge(rng) ? 1 : 0; });
}

inline SparseMatrix<Integer> random_int(int n, int lo, int hi, std::mt19937_64& rng, double density = 1.0) {
  std::uniform_int_distribution<int> v(lo, hi);
  std::bernoulli_distribution keep(density);
  return symmetric<Integer>(n, [&](int, int) { return keep(rng) ? v(rng) : 0; });
}

template <class To>
SparseMatrix<To> as(const SparseMatrix<Integer>& a) {
  SparseMatrix<To> b;
  b.rows = a.rows, b.cols = a.cols;
  for (const auto& e : a.entries) b.entries.push_back({e.row, e.col, To(e.value.get_d())});
  return b;
}

/// b scaled by unit 2^-k on edges and unit 2^-(k/2) on loops: every vertex scales by 2^-(k/2),
/// so with unit 1 the (loop) hafnian is haf(b) 2^-(k n / 2): exactly representable inputs
/// with an exact value (exact_scaled).
template <class T>
inline SparseMatrix<T> scaled(const SparseMatrix<Integer>& b, int k, T unit = T(1)) {
  SparseMatrix<T> a;
  a.rows = a.cols = b.rows;
  for (const auto& e : b.entries)
    a.entries.push_back({e.row, e.col, unit * std::ldexp(e.value.get_d(), e.row == e.col ? -k / 2 : -k)});
  return a;
}

/// h 2^-(k n / 2) as a double: the hafnian of scaled(b, k) for h = haf(b).
inline double exact_scaled(const Integer& h, int n, int k) {
  long e = 0;
  const double d = mpz_get_d_2exp(&e, h.get_mpz_t());
  return std::ldexp(d, static_cast<int>(e) - k / 2 * n);
}

}  // namespace matchcount::test::symmetric_helpers
