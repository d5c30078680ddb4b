// What the CPU and GPU hafnian walks share on the host (private to the hafnian engines): the
// small primes of the exact walks and the rounding model of the float walks.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines::haf {

/// Prime bits for half-degree m: a coefficient sums at most 2m + 1 terms of symmetric
/// residues below p/2 + 1 in size (modreduce's range), each product exact in FP64, and the
/// sum must stay below 2^52 for one modreduce.
int prime_bits(int m);

/// Primes below 2^prime_bits(m) (m = ceil(n/2)), largest first, whose product exceeds
/// 2 hafnian_bound(a, loops) + 1. RefusedError when more than 4096 would be needed.
std::vector<double> primes_for(const SparseMatrix<Integer>& a, bool loops);

/// Rounding steps along any path from an input to the result, for the float bound
/// |error| <= gamma_K * (walk of |A|): per level a coefficient sums at most 2m + 2 rounded
/// terms after its product, along the g chain and along the entries feeding it.
inline double rounding_steps(int m) { return (2.0 * m + 4) * (m + 3) + 16; }

}  // namespace matchcount::engines::haf
