// The determinant estimators of the hafnian (Godsil-Gutman, Barvinok; the complex variant of
// Karmarkar, Karp, Lipton, Lovasz and Luby): a random skew-symmetric W with
// w_uv = x_uv sqrt(a_uv) = -w_vu for every edge u < v, the x independent with E x = 0 and
// E |x|^2 = 1. Then |det W| = |Pf W|^2, and in E[Pf W conj(Pf W)] = sum over pairs of perfect
// matchings only equal pairs survive, each with weight prod a_e: E |det W| = haf(A).
//  - GodsilGutman: x = +-1;  GodsilGutmanComplex: x in {1, i, -1, -i} (E x^2 = 0 as well,
//    which lowers the variance);  Barvinok: x standard normal.
// Each sample is an O(n^3) LU factorisation in doubles, so these are for small dense blocks.
// Host code: a GPU port would batch the factorisations. The draws: one uniform per edge in
// adjacency order (u < v), two for a normal (Box-Muller), from the sample's Philox stream.
#pragma once

#include <cmath>
#include <complex>
#include <utility>
#include <vector>

#include "estimate/graph_path.hpp"

namespace matchcount::estimate {

/// |det| of the n x n matrix a (row-major; overwritten) by LU with partial pivoting.
template <class Scalar>
WideValue abs_determinant(std::vector<Scalar>& a, int n) {
  WideValue det;
  const auto un = static_cast<std::size_t>(n);
  for (std::size_t k = 0; k < un; ++k) {
    std::size_t pivot = k;
    double best = std::abs(a[k * un + k]);
    for (std::size_t i = k + 1; i < un; ++i)
      if (std::abs(a[i * un + k]) > best) best = std::abs(a[i * un + k]), pivot = i;
    if (!(best > 0.0)) return {0.0, 0};
    if (pivot != k)
      for (std::size_t j = k; j < un; ++j) std::swap(a[k * un + j], a[pivot * un + j]);
    const Scalar p = a[k * un + k];
    det.mul(best);
    for (std::size_t i = k + 1; i < un; ++i) {
      const Scalar f = a[i * un + k] / p;
      if (f == Scalar(0)) continue;
      for (std::size_t j = k + 1; j < un; ++j) a[i * un + j] -= f * a[k * un + j];
    }
  }
  return det;
}

/// One sample of a determinant estimator; `scratch` holds the n x n matrix.
template <class Scalar>
WideValue determinant_sample(const GraphView& g, Method m, SampleRng& rng, std::vector<Scalar>& scratch) {
  const auto un = static_cast<std::size_t>(g.n);
  scratch.assign(un * un, Scalar(0));
  for (int v = 0; v < g.n; ++v)
    for (int k = g.start[v]; k < g.start[v + 1]; ++k) {
      const int u = g.adj[k];
      if (u <= v) continue;
      Scalar x;
      if (m == Method::Barvinok) {
        const double r = std::sqrt(-2.0 * std::log(1.0 - rng.uniform())), t = 6.283185307179586 * rng.uniform();
        x = Scalar(r * std::cos(t));
      } else if constexpr (std::is_same_v<Scalar, std::complex<double>>) {
        constexpr Scalar kRoots[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        x = kRoots[static_cast<int>(rng.uniform() * 4.0) & 3];
      } else {
        x = rng.uniform() < 0.5 ? Scalar(-1) : Scalar(1);
      }
      const Scalar w = x * std::sqrt(g.val[k]);
      scratch[static_cast<std::size_t>(v) * un + u] = w;
      scratch[static_cast<std::size_t>(u) * un + v] = -w;
    }
  return abs_determinant(scratch, g.n);
}

}  // namespace matchcount::estimate
