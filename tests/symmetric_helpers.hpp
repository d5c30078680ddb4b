// Random symmetric matrices for the hafnian engine tests (CPU and GPU).
#pragma once

#include <cmath>
#include <cstdint>
#include <variant>
#include <random>

#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

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

/// A random graph on n vertices with weights in [0.5, 2.5): each pair an edge with
/// probability p, and with `spanning_path` also every pair (u, u + 1), which keeps most sample
/// paths alive. `salt` picks the stream (tests that predate this helper keep their graphs).
inline SparseMatrix<double> random_weighted_graph(int n, double p, std::uint64_t seed, bool spanning_path = false,
                                                  std::uint64_t salt = 1) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + salt;
  auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  SparseMatrix<double> a;
  a.rows = a.cols = n;
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v)
      if ((spanning_path && v == u + 1) || next() < p) {
        const double w = 0.5 + 2 * next();
        a.entries.push_back({u, v, w});
        a.entries.push_back({v, u, w});
      }
  a.normalize();
  return a;
}

/// The hafnian of a double matrix by the CPU pipeline (the estimators' exact reference).
inline double exact_hafnian(const SparseMatrix<double>& a) {
  CountOptions o;
  o.device = DevicePolicy::Cpu;
  return std::get<double>(count_hafnian(AnyMatrix(a), false, o).value.value);
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
