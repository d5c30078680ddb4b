// What the GPU hafnian walks share (private to the hafnian engines): gpu_hafnian.cpp's binary
// walk and gpu_hafnian_repeated.cpp's walk over repeated pair types build their jobs, run them
// and read their fixed-point sums the same way.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "engines/engine.hpp"
#include "engines/gpu_common.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/haf_setup.hpp"

namespace matchcount::engines::gpu_haf {

/// The fixed-point exponent of a float walk of half-size m: every partial sum is below
/// 2^(q+510). A leaf is at most its walk over |A|, at most C(m + |P| - 1, m) rho^m <= 4^m rho^m
/// (each b coefficient counts walks of k edges, at most rho^k, rho = walk_rho), and the
/// leaves' weights sum to at most 2^m in absolute value (2^m leaves of weight 1; a repeated
/// walk's binomials sum to 2^mult per type); the margin covers rounding.
inline int fixed_exponent(int m, double rho) { return static_cast<int>(std::ceil(m * (3 + std::log2(rho)))) + 8 - 510; }

/// rho of fixed_exponent: the largest off-diagonal row sum of |A|, plus with loops (largest
/// |loop| + 1)^2. A pair of loops closes a structure as one edge does (the closing polynomial
/// b_uv + x d_u d_v), with the weight of two loops: a matching of loops alone is worth
/// |loop|^N = (|loop|^2)^m, which the row sums need not bound.
inline double walk_rho(double max_row, double max_loop, bool loops) {
  return std::max(1.0, max_row + (loops ? (max_loop + 1) * (max_loop + 1) : 0.0));
}

/// A job for a block of n0 vertices (padded to even) with the options' devices, journal and team.
gpu::HafJob base_job(int n0, bool loops, const EngineOptions& opt);

/// Runs the job; the stats note says `what`, the frames and the devices' shares.
gpu::HafResult run_noted(const gpu::HafJob& job, const EngineOptions& opt, const std::string& what);

/// The value of a float channel's words at w (fixed point times 2^q): kLimbs words, or
/// 2 kLimbs (re, then im) for a complex channel.
template <class T>
T fixed_value(const std::uint64_t* w, long q) {
  if constexpr (std::is_same_v<T, Complex>) return T(scaled(fixed_at(w), q), scaled(fixed_at(w + kLimbs), q));
  else return scaled(fixed_at(w), q);
}

/// A float group's channel c of the walk's words as a value.
template <class T>
T channel_value(const gpu::HafResult& r, std::size_t c, std::size_t words, long q) {
  return fixed_value<T>(&r.words[c * words], q);
}

/// Whether exact walks take one channel in the integers modulo 2^64 (MATCHCOUNT_HAF_RING: the
/// default) beside their primes, or primes alone.
bool exact_ring();

/// The primes of an exact walk of half-size m: with the ring, those whose product P makes
/// 2^64 P exceed 2 bound + 1 (P > 2 (bound / 2^64 + 1) + 1 does; none while bound < 2^62);
/// without it, all the bound needs.
inline std::vector<double> exact_primes(int m, const Integer& bound, bool ring) {
  if (!ring) return haf::primes_for_bound(m, bound);
  if (bound < (Integer(1) << 62)) return {};
  return haf::primes_for_bound(m, (bound >> 64) + 1);
}

/// x modulo 2^64 in two's complement, its 64 bits in a double's place: a Z64 channel's value.
inline double z64_bits(const Integer& x) {
  Integer low;
  mpz_fdiv_r_2exp(low.get_mpz_t(), x.get_mpz_t(), 64);
  return std::bit_cast<double>(static_cast<std::uint64_t>(mpz_getlimbn(low.get_mpz_t(), 0)));
}

/// The group of one walk modulo 2^64 over n vertices (padded to even), integer entries
/// entry(i, j), i >= j.
gpu::HafGroup z64_group(int n, bool loops, const std::function<Integer(int, int)>& entry);

/// x's residue modulo p in (-p/2, p/2]: a Mod channel's value.
inline double symmetric_residue(const Integer& x, double p) {
  const double v = residue_of(x, p);
  return v > p / 2 ? v - p : v;
}

/// The group of walks modulo each of `primes`, one channel a prime, over n vertices as
/// z64_group's.
gpu::HafGroup prime_group(int n, bool loops, const std::vector<double>& primes,
                          const std::function<Integer(int, int)>& entry);

/// Whether the channel modulo 2^64 walks beside the first prime (the default) or alone
/// (MATCHCOUNT_HAF_PAIRS=single, MATCHCOUNT_HAF_RING=z64alone).
bool ring_beside_prime();

/// An exact job's groups {z64_group, prime_group} as one HafArith::Z64Mod group of the same
/// channels in the same order, whose channel modulo 2^64 walks beside the first prime (on the
/// integer units beside the FP64 units, one 16-byte load for both), or HafArith::Z64Big where
/// the prime group is big_prime's alone; unchanged unless ring_beside_prime().
void ring_beside_first_prime(gpu::HafJob& job);

/// The prime of a HafArith::Z64Big group for an exact count of half-size m and bound: the
/// largest prime below gpu::haf_big_prime_limit(m), where it alone covers what the ring leaves
/// (2^64 P > 2 bound + 1) and exact_primes would take two primes or more; 0 otherwise, or
/// without the ring beside a prime, or with MATCHCOUNT_HAF_RING=z64small. One walk of 16-byte
/// values then carries every bit (docs/gpu.md, "Numbers").
double big_prime(int m, const Integer& bound);

/// The count from an exact run's words: with the ring, the sum modulo 2^64 first; then a
/// residue a prime of `primes`.
Integer exact_count(const std::vector<std::uint64_t>& words, const std::vector<double>& primes, bool ring);

/// A float block's value from its walks (haf::kFloatWalks of them): the engine's estimate
/// (float_estimate) plus the truncation of each of its 2^(m-1) leaf pairs' values to a
/// multiple of 2^q, for half-size m.
template <class T>
Approx<T> float_block_value(const std::vector<T>& walks, double excess, int m, long q) {
  Approx<T> e = haf::float_estimate(walks, excess);
  e.abs_error += std::ldexp(1.0, static_cast<int>(m + q));
  return e;
}

/// The float walks a block needs: the walk of |A| only bounds what errors in the entries move
/// (float_estimate's excess), so without them the spread walks alone.
inline int float_walks_for(double excess) { return excess > 0 ? haf::kFloatWalks : haf::kSpreadWalks; }

/// The groups of a float block's first `walks` walks (haf::kSpreadWalks, or haf::kFloatWalks
/// with the walk of |A|); append(g, first, last, W) adds walks first .. last - 1 to g as
/// channels of W doubles an entry. Real walks make one group. Complex walks make two: the
/// spread walks as complex channels, and the walk of |A|, whose imaginary parts are zero, as a
/// real channel (one multiply-add a product instead of four).
template <class T, class Append>
std::vector<gpu::HafGroup> float_groups(Append append, int walks = haf::kFloatWalks) {
  std::vector<gpu::HafGroup> groups(1);
  if constexpr (std::is_same_v<T, Complex>) {
    groups[0].arith = gpu::HafArith::Complex;
    append(groups[0], 0, haf::kSpreadWalks, 2);
    if (walks > haf::kSpreadWalks) {
      groups.emplace_back();
      groups[1].arith = gpu::HafArith::Real;
      append(groups[1], haf::kSpreadWalks, haf::kFloatWalks, 1);
    }
  } else {
    groups[0].arith = gpu::HafArith::Real;
    append(groups[0], 0, walks, 1);
  }
  return groups;
}

/// The fixed-point exponent (fixed_exponent) of a block's lane root (HafLaneJob's layout, W
/// doubles a value) for an n0 x n0 block: its row sums taken as a sparse block's entries are.
int lane_fixed_exponent(const double* root, int n0, bool loops, int W);

/// Writes `count` blocks' lane roots on every core, block b's at roots + b * per by fill(b,
/// root) (write_lane_root); returns the batch's fixed-point exponent, its largest block's
/// (lane_fixed_exponent), or 0 without `exponent` (an expansion sums no fixed point).
template <class Fill>
int write_lane_roots(std::size_t count, int n0, bool loops, int W, std::size_t per, double* roots, Fill fill,
                     bool exponent = true) {
  int q = exponent ? std::numeric_limits<int>::min() : 0;
#pragma omp parallel for reduction(max : q) schedule(static)
  for (long long i = 0; i < static_cast<long long>(count); ++i) {
    double* root = roots + static_cast<std::size_t>(i) * per;
    fill(static_cast<std::size_t>(i), root);
    if (exponent) q = std::max(q, lane_fixed_exponent(root, n0, loops, W));
  }
  return q;
}

/// HafLaneJob's orders of an n0 x n0 block: the first `walks` of haf::float_orders, each with
/// the padding vertex of an odd block last.
std::vector<int> lane_orders(int n0, int walks);

/// Whether a batch of n-vertex (even) float blocks is expanded along the first vertex
/// (run_hafnian_enum) rather than walked one walk a thread: from kExpandMinN vertices, below
/// which the vertex orders share most of their products' roundings and their spread misses
/// them, up to where it was faster on an H200 (docs/benchmarks.md, "Batches of small hafnians
/// by expansion"): 14 vertices, loop hafnians, whose expansion has more terms, 12.
/// MATCHCOUNT_HAF_BATCH=lanes never, =expand wherever it can (2 to 16 vertices).
constexpr int kExpandMinN = 8, kExpandMaxN = 14, kExpandMaxLoopN = 12;
bool expansion_takes(int n, bool loops);

/// Float (loop) hafnians of `count` n0 x n0 blocks (n0 + n0 % 2 <= gpu::kHafLaneMaxN), by
/// expansion where expansion_takes says so (float_estimate of its values), else one
/// walk a thread (run_hafnian_lanes): block b's root at b * root_values * W of `roots` (a
/// gpu::LaneRootBuffer's, written by write_lane_roots), q the fixed-point exponent of the
/// batch's largest, excess[b] float_estimate's excess for block b (empty: none). The walk of
/// |A| runs only where some block has an excess (float_walks_for). Values as
/// float_block_value gives them.
template <class T>
std::vector<Approx<T>> lane_hafnians(int n0, bool loops, std::size_t count, const double* roots, int q,
                                     const std::vector<double>& excess);

/// The walks' values, in walk order, from a run of float_groups' groups of `walks` walks
/// (fixed point times 2^q); the walk of |A|, where it was not walked, reads 0.
template <class T>
std::vector<T> float_walk_values(const gpu::HafResult& r, long q, int walks = haf::kFloatWalks) {
  std::vector<T> values(haf::kFloatWalks, T{});
  const std::uint64_t* w = r.words.data();
  for (int c = 0; c < walks; ++c) {
    if constexpr (std::is_same_v<T, Complex>) {
      if (c < haf::kSpreadWalks) {
        values[static_cast<std::size_t>(c)] = fixed_value<Complex>(w, q);
        w += 2 * kLimbs;
        continue;
      }
    }
    values[static_cast<std::size_t>(c)] = T(fixed_value<double>(w, q));
    w += kLimbs;
  }
  return values;
}

}  // namespace matchcount::engines::gpu_haf
