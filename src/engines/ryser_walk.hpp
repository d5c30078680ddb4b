// The dense Gray-code walk of Ryser's formula (Nijenhuis-Wilf form), shared by the number
// policies of the ryser engine.
//
// The 2^m Gray-code iterations (m = n-1 columns) are cut into aligned chunks of 2^k; a block
// of L = 4V consecutive chunks is walked by L SIMD lanes in lock-step. Iteration
// g = c*2^k + t of chunk c has Gray code G(g) = (G(c) << k) ^ G(t) ^ ((c&1) << (k-1)), so at
// local step t every lane flips column ctz(t) in the same direction (bit ctz(t) of G(t)),
// except column k-1 at t = 2^(k-1), whose new bit is 1 ^ (c&1): lanes alternate +,-,+,-.
// The sign (-1)^|S| = (-1)^(g&1) = (-1)^(t&1) is shared by all lanes.
//
// Blocks go to OpenMP threads dynamically but their number and the order in which their
// sums are combined depend only on n, so results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <bit>

#include "common.hpp"

namespace matchcount::engines {

struct GrayPlan {
  int k = 0;               // chunk = 2^k iterations
  std::uint64_t blocks = 0;
};

constexpr int kMinChunkBits = 2;  // small so that the SIMD path is tested at small n
constexpr int kMaxChunkBits = 16;  // bounds the drift of the running sums in double mode

/// The chunking for m Gray bits and L lanes; blocks == 0 when m is too small for lanes.
inline GrayPlan gray_plan(int m, int lanes) {
  int log_l = std::countr_zero(static_cast<unsigned>(lanes));
  GrayPlan g;
  if (m - log_l < kMinChunkBits) return g;
  g.k = std::clamp(m - log_l - 8, kMinChunkBits, kMaxChunkBits);  // aim at >= 256 blocks
  g.blocks = std::uint64_t{1} << (m - log_l - g.k);
  return g;
}

/// Walks all 2^m iterations with the policy; returns the combined Sum.
/// Policy: lanes, State make_state(), start(State&, const uint64_t* masks) (sets the lanes'
/// row sums for the subsets `masks` and adds their terms), step(State&, int j, v4d dir,
/// bool odd) (column j added with direction dir per lane, term added with sign -1 if odd),
/// Sum finish(const State&), combine(Sum&, const Sum&).
template <class Policy>
typename Policy::Sum gray_walk(const Policy& pol, int m, const GrayPlan& plan,
                               const EngineOptions& opt) {
  constexpr int L = Policy::lanes;
  const int k = plan.k;
  const std::uint64_t chunk = std::uint64_t{1} << k;
  // Block sums are kept for one window of blocks at a time (2^61 iterations would otherwise
  // need 2^41 of them); every block is still combined in block order.
  constexpr std::uint64_t kWindow = 4096;
  std::vector<typename Policy::Sum> sums(std::min(plan.blocks, kWindow));
  typename Policy::Sum total{};
  Progress progress(opt, plan.blocks);
  const v4d alternate{1.0, -1.0, 1.0, -1.0};
#pragma omp parallel num_threads(thread_count(opt, std::ldexp(double(m), m)))
  {
    auto st = pol.make_state();
    for (std::uint64_t base = 0; base < plan.blocks; base += kWindow) {
      const std::uint64_t count = std::min(kWindow, plan.blocks - base);
#pragma omp for schedule(dynamic)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
        const std::uint64_t b = base + static_cast<std::uint64_t>(i);
        std::uint64_t masks[L];
        for (int l = 0; l < L; ++l) {
          std::uint64_t g0 = (b * L + static_cast<std::uint64_t>(l)) << k;
          masks[l] = g0 ^ (g0 >> 1);
        }
        pol.start(st, masks);
        for (std::uint64_t t = 1; t < chunk; ++t) {
          int j = std::countr_zero(t);
          double d = ((t ^ (t >> 1)) >> j) & 1 ? 1.0 : -1.0;
          pol.step(st, j, j == k - 1 ? alternate : v4d{d, d, d, d}, t & 1);
        }
        sums[static_cast<std::size_t>(i)] = pol.finish(st);
        progress.tick();
      }
#pragma omp single
      for (std::uint64_t i = 0; i < count; ++i) pol.combine(total, sums[static_cast<std::size_t>(i)]);
    }
  }
  return total;
}

}  // namespace matchcount::engines
