// What the CPU and GPU hafnian walks share on the host (private to the hafnian engines): the
// small primes of the exact walks, and the vertex orders and error estimate of the float walks.
#pragma once

#include <vector>

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

/// Float walks: the same hafnian walked in kFloatWalks vertex orders (haf P A P^T = haf A),
/// whose roundings differ; their mean is the value and their spread the error estimate.
constexpr int kFloatWalks = 4;

/// The kFloatWalks vertex orders of an n-vertex block: order[w][i] is the vertex at position i
/// of walk w (walk 0 the given order; the others change the pairs and their elimination order).
std::vector<std::vector<int>> float_orders(int n);

/// Value and error estimate from the walks' values: the mean, and 6.5 s + 4u|mean| with s the
/// sample standard deviation (|.| of complex deviations). For independent, normally
/// distributed rounding errors the mean's error lies within 6.5 s with probability 0.999
/// (Student's t with 3 degrees of freedom is 12.92 at 0.9995, times the mean's s / 2).
template <class T>
Approx<T> float_estimate(const std::vector<T>& walks);


}  // namespace matchcount::engines::haf
