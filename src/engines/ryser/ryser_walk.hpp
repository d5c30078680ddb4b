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
// sums are combined depend only on n, so results do not depend on the thread count, nor on
// whether the walk was interrupted and resumed from a checkpoint.
#pragma once

#include <algorithm>
#include <bit>

#include "engines/common.hpp"
#include "engines/common.hpp"
#include "runtime/thread_walk.hpp"

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
///
/// Blocks are the walk's work units (run_units: threads, checkpoints, MPI ranks); `tag` names
/// the walk in opt.journal.
template <class Policy>
typename Policy::Sum gray_walk(const Policy& pol, int m, const GrayPlan& plan, const EngineOptions& opt,
                               const std::string& tag) {
  using Sum = typename Policy::Sum;
  constexpr int L = Policy::lanes;
  const int k = plan.k;
  const std::uint64_t chunk = std::uint64_t{1} << k;
  const v4d alternate{1.0, -1.0, 1.0, -1.0};
  const int threads = thread_count(opt, std::ldexp(double(m), m));
  // The sum of block b's 2^k * L iterations, with a thread's state st.
  auto walk_block = [&](typename Policy::State& st, std::uint64_t b) {
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
    return pol.finish(st);
  };

  return runtime::run_units<Sum>(plan.blocks, threads, opt, tag, pol.finish(pol.make_state()), [&] { return pol.make_state(); },
                        walk_block, [&](Sum& total, const Sum& b) { pol.combine(total, b); });
}

}  // namespace matchcount::engines
