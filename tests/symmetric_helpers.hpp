// Random symmetric matrices for the hafnian engine tests (CPU and GPU).
#pragma once

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

}  // namespace matchcount::test::symmetric_helpers
