// What the CPU and GPU hafnian walks share on the host (private to the hafnian engines): the
// small primes of the exact walks, and the vertex orders and error estimate of the float walks.
#pragma once

#include <cmath>
#include <vector>

#include "engines/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::engines::haf {

/// Prime bits for half-degree m: a coefficient sums at most 2m + 1 terms of symmetric
/// residues below p/2 + 1 in size (modreduce's range), each product exact in FP64, and the
/// sum must stay below 2^52 for one modreduce.
int prime_bits(int m);

/// Primes below 2^prime_bits(m) (m = ceil(n/2)), largest first, whose product exceeds
/// 2 hafnian_bound(a, loops) + 1. RefusedError when more than 4096 would be needed.
std::vector<double> primes_for(const SparseMatrix<Integer>& a, bool loops);
/// The same for any bound on |value| of a walk of half-degree m.
std::vector<double> primes_for_bound(int m, const Integer& bound);

/// Float walks: the same hafnian walked in kFloatWalks vertex orders (haf P A P^T = haf A),
/// whose roundings differ. The first kSpreadWalks walk A: their mean is the value and their
/// spread the estimate of the arithmetic's error. The last walks |A| (the moduli of the
/// entries): haf(|A|) bounds what entries that carry errors (EngineOptions::entry_error: the
/// decimals' rounding, preprocessing's roundings) move the hafnian by, for no walk sees those.
constexpr int kFloatWalks = 4;
constexpr int kSpreadWalks = 3;

/// The kFloatWalks vertex orders of an n-vertex block: order[w][i] is the vertex at position i
/// of walk w (walk 0 the given order; the others change the pairs and their elimination order).
std::vector<std::vector<int>> float_orders(int n);

/// Entry (i, j) of walk w's matrix, from the dense row-major block: a_{o(i) o(j)} for the order
/// o of walk w, its modulus for the last walk.
template <class T>
T walk_entry(const std::vector<T>& dense, int n, const std::vector<std::vector<int>>& orders, int w, int i, int j) {
  const auto& o = orders[static_cast<std::size_t>(w)];
  const T x = dense[static_cast<std::size_t>(o[static_cast<std::size_t>(i)]) * static_cast<std::size_t>(n) +
                    static_cast<std::size_t>(o[static_cast<std::size_t>(j)])];
  return w < kSpreadWalks ? x : T(std::abs(x));
}

/// Value and error estimate from the walks' values: the mean m of the spread walks, and
/// 18.3 s + 4u|m| with s their sample standard deviation (|.| of complex deviations; at least
/// the noise q / sqrt 12 of the values' spacing q, which a spread below it cannot show): for
/// independent, normally distributed rounding errors the mean's error lies within 18.3 s with
/// probability 0.999 (Student's t with 2 degrees of freedom is 31.6 at 0.9995, times the
/// mean's s / sqrt 3). Plus `excess` * 2 haf(|A|) (the last walk, doubled for its own
/// roundings): entries off by eta_i of their size move each matching's product by at most
/// excess = prod_i (1 + eta_i)^(1/2) - 1 of itself (each vertex is in one factor; a loop
/// hafnian's loops take the whole power: hafnian_excess).
template <class T>
Approx<T> float_estimate(const std::vector<T>& walks, double excess);

/// `excess` of float_estimate for a block counted with `opt`.
template <class T>
double hafnian_excess(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt);

}  // namespace matchcount::engines::haf
