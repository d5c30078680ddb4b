// Random symmetric matrices for the hafnian engine tests (CPU and GPU).
#pragma once

#include <cmath>
#include <cstdint>
#include <variant>
#include <random>
#include <vector>

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

/// k random symmetric n x n matrices stacked row-major in re (and in im when cplx; empty
/// otherwise), entries uniform in (-0.3, 0.3), imaginary parts too: the GPU batch tests' stacks.
inline void symmetric_stack(int n, int k, bool cplx, std::mt19937_64& rng, std::vector<double>& re, std::vector<double>& im) {
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  re.assign(static_cast<std::size_t>(k * n * n), 0.0);
  im.assign(cplx ? re.size() : 0, 0.0);
  for (int b = 0; b < k; ++b)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        const double x = u(rng), y = u(rng);
        for (const int at : {b * n * n + i * n + j, b * n * n + j * n + i}) {
          re[static_cast<std::size_t>(at)] = x;
          if (cplx) im[static_cast<std::size_t>(at)] = y;
        }
      }
}

/// Matrix b of a stack of n x n matrices (re, and im unless it is empty), every entry kept,
/// as the CPU engines take it.
inline SparseMatrix<Complex> stack_matrix(const std::vector<double>& re, const std::vector<double>& im, int n, int b) {
  SparseMatrix<Complex> m{n, n, {}};
  for (int e = 0; e < n * n; ++e) {
    const std::size_t at = static_cast<std::size_t>(b * n * n + e);
    m.entries.push_back({e / n, e % n, Complex(re[at], im.empty() ? 0.0 : im[at])});
  }
  return m;
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
