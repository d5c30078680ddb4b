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
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

#include "common.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"

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

/// Sums as checkpoint words: every Sum of the policies is made of doubles.
template <class Sum>
std::vector<std::uint64_t> sum_words(const Sum& s) {
  if constexpr (std::is_same_v<Sum, std::vector<double>>) {
    std::vector<std::uint64_t> w(s.size());
    std::memcpy(w.data(), s.data(), s.size() * sizeof(double));
    return w;
  } else {
    static_assert(std::is_trivially_copyable_v<Sum> && sizeof(Sum) % 8 == 0);
    std::vector<std::uint64_t> w(sizeof(Sum) / 8);
    std::memcpy(w.data(), &s, sizeof(Sum));
    return w;
  }
}
template <class Sum>
Sum sum_from_words(const std::vector<std::uint64_t>& w) {
  Sum s{};
  if constexpr (std::is_same_v<Sum, std::vector<double>>) {
    s.resize(w.size());
    std::memcpy(s.data(), w.data(), w.size() * sizeof(double));
  } else {
    std::memcpy(static_cast<void*>(&s), w.data(), std::min(w.size() * 8, sizeof(Sum)));
  }
  return s;
}

/// Tests may slow every block down by this many microseconds (MATCHCOUNT_TEST_BLOCK_DELAY_US)
/// to interrupt a walk at leisure.
std::uint64_t test_block_delay_us();

/// Walks all 2^m iterations with the policy; returns the combined Sum.
/// Policy: lanes, State make_state(), start(State&, const uint64_t* masks) (sets the lanes'
/// row sums for the subsets `masks` and adds their terms), step(State&, int j, v4d dir,
/// bool odd) (column j added with direction dir per lane, term added with sign -1 if odd),
/// Sum finish(const State&), combine(Sum&, const Sum&).
///
/// Blocks are the walk's work units: threads take them in order, and their sums are combined
/// into the total strictly in block order (blocks that finish early wait in `pending`), so the
/// total after the first b blocks is well defined. That prefix, with its total, is what a
/// checkpoint saves (`tag` names the walk in opt.journal), so a resumed walk gives the same
/// bits as one that ran through.
template <class Policy>
typename Policy::Sum gray_walk(const Policy& pol, int m, const GrayPlan& plan, const EngineOptions& opt,
                               const std::string& tag) {
  using Sum = typename Policy::Sum;
  constexpr int L = Policy::lanes;
  const int k = plan.k;
  const std::uint64_t chunk = std::uint64_t{1} << k;
  const v4d alternate{1.0, -1.0, 1.0, -1.0};
  const int threads = thread_count(opt, std::ldexp(double(m), m));
  const std::uint64_t delay_us = test_block_delay_us();
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
    if (delay_us) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    return pol.finish(st);
  };

  cluster::WalkTeam* team = opt.team;
  if (team && !team->leader()) {  // MPI: blocks from rank 0, their sums back to it
    team->join(tag, plan.blocks);
#pragma omp parallel num_threads(threads)
    {
      auto st = pol.make_state();
      while (const auto run = team->take(1))
        for (std::uint64_t b = run->begin; b < run->end; ++b) team->give({b, b + 1}, sum_words(walk_block(st, b)));
    }
    return pol.finish(pol.make_state());  // rank 0 has the total
  }

  const std::size_t words = sum_words(pol.finish(pol.make_state())).size();
  WalkLedger ledger(opt.journal, tag, plan.blocks, words, opt.progress);
  const auto& saved = ledger.state().done;
  if (saved.size() > 1 || (saved.size() == 1 && saved[0].begin != 0))
    throw InputError("checkpoint", 0, "the saved state of walk " + tag + " is not a prefix of its blocks");
  std::uint64_t frontier = saved.empty() ? 0 : saved[0].end;  // blocks [0, frontier) are in total
  Sum total = frontier ? sum_from_words<Sum>(ledger.state().sum) : Sum{};
  std::atomic<std::uint64_t> next{frontier};
  std::mutex mutex;
  std::map<std::uint64_t, Sum> pending;
  // Block b's sum joins the total in block order.
  auto hand_in = [&](std::uint64_t b, Sum s) {
    std::lock_guard<std::mutex> lock(mutex);
    if (b != frontier) {
      pending.emplace(b, std::move(s));
      return;
    }
    const std::uint64_t first = frontier;
    pol.combine(total, s);
    for (++frontier; !pending.empty() && pending.begin()->first == frontier; ++frontier) {
      pol.combine(total, pending.begin()->second);
      pending.erase(pending.begin());
    }
    ledger.done({first, frontier}, [&] { return sum_words(total); });
  };
  // MPI: rank 0 hands blocks to the other ranks from the same counter as its threads.
  std::thread server;
  if (team)
    server = std::thread([&] {
      team->serve(
          tag, plan.blocks,
          [&](std::uint64_t want) -> std::optional<UnitRange> {
            const std::uint64_t b = next.fetch_add(want, std::memory_order_relaxed);
            if (b >= plan.blocks) return std::nullopt;
            return UnitRange{b, std::min(b + want, plan.blocks)};
          },
          [&](UnitRange r, const std::vector<std::uint64_t>& w) { hand_in(r.begin, sum_from_words<Sum>(w)); },
          [&] { return ledger.stopping(); });
    });
#pragma omp parallel num_threads(threads)
  {
    auto st = pol.make_state();
    while (!ledger.stopping()) {
      const std::uint64_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= plan.blocks) break;
      hand_in(b, walk_block(st, b));
    }
  }
  if (server.joinable()) server.join();  // every block handed out has come back
  if (team && opt.stats) opt.stats->note = ranks_note(team->units_by_rank());
  if (frontier < plan.blocks) ledger.interrupted(sum_words(total));
  ledger.finished(sum_words(total));
  return total;
}

}  // namespace matchcount::engines
