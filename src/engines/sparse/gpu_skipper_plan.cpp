// Planning of the GPU SkipPer walk (docs/gpu.md, "SkipPer on the GPU"): which columns are
// walked inside a chunk, in which order the others lie on the Gray bits, the form (plain with
// jumps, or halved Nijenhuis-Wilf), and the slot layout of the job for exact integers.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "engines/common.hpp"
#include "engines/sparse/gpu_skipper.hpp"
#include "engines/sparse/gpu_skipper_layout.hpp"
#include "core/tuning.hpp"

namespace matchcount::engines {
namespace {

/// Deterministic samples (splitmix64), so that plans do not change from run to run.
struct SplitMix {
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

/// One candidate layout: columns of the local bits (fewest rows touched), then the others.
SkipPlan layout(const std::vector<std::vector<int>>& support, const std::vector<std::vector<int>>& rows_of_col, int n,
                bool halved, int fixed_col, int k) {
  SkipPlan p;
  p.halved = halved;
  p.bits = halved ? n - 1 : n;
  p.k = k;
  p.fixed_col = halved ? fixed_col : -1;
  std::vector<char> used(static_cast<std::size_t>(n)), touched(static_cast<std::size_t>(n));
  if (halved) used[static_cast<std::size_t>(fixed_col)] = 1;
  // Local columns, greedily: each adds the fewest rows not touched yet (ties: the denser
  // column, whose entries then cost nothing new). Rows no local column touches are constant
  // in a chunk: one product per chunk instead of one factor per step.
  std::vector<int> local;
  for (int t = 0; t < k; ++t) {
    int best = -1, best_new = n + 1, best_deg = -1;
    for (int j = 0; j < n; ++j) {
      if (used[static_cast<std::size_t>(j)]) continue;
      int fresh = 0;
      for (int i : rows_of_col[static_cast<std::size_t>(j)]) fresh += !touched[static_cast<std::size_t>(i)];
      const int deg = static_cast<int>(rows_of_col[static_cast<std::size_t>(j)].size());
      if (fresh < best_new || (fresh == best_new && deg > best_deg)) best = j, best_new = fresh, best_deg = deg;
    }
    used[static_cast<std::size_t>(best)] = 1;
    local.push_back(best);
    for (int i : rows_of_col[static_cast<std::size_t>(best)]) touched[static_cast<std::size_t>(i)] = 1;
  }
  // The sparsest local column on bit 0, which flips in half of the steps.
  std::stable_sort(local.begin(), local.end(), [&](int x, int y) {
    return rows_of_col[static_cast<std::size_t>(x)].size() < rows_of_col[static_cast<std::size_t>(y)].size();
  });
  // The others SkipOrd-style: rows by increasing degree hand their columns to the highest free
  // bits, so a sparse row is zero over long runs of subsets, skipped in one jump.
  std::vector<int> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int x, int y) {
    return support[static_cast<std::size_t>(x)].size() < support[static_cast<std::size_t>(y)].size();
  });
  std::vector<int> top_down;
  for (int r : rows)
    for (int c : support[static_cast<std::size_t>(r)])
      if (!used[static_cast<std::size_t>(c)]) used[static_cast<std::size_t>(c)] = 1, top_down.push_back(c);
  for (int c = 0; c < n; ++c)
    if (!used[static_cast<std::size_t>(c)]) used[static_cast<std::size_t>(c)] = 1, top_down.push_back(c);
  p.col_of_bit = local;
  p.col_of_bit.insert(p.col_of_bit.end(), top_down.rbegin(), top_down.rend());
  for (int i = 0; i < n; ++i) (touched[static_cast<std::size_t>(i)] ? p.l_rows : p.h_rows).push_back(i);
  return p;
}

/// Fraction of chunks in which every constant row has a column in the subset (skip form),
/// from 4096 random subsets of the high bits; and the predicted operations.
void cost(SkipPlan& p, const std::vector<std::vector<int>>& support, int n) {
  std::vector<int> bit_of_col(static_cast<std::size_t>(n), -1);
  for (int b = 0; b < p.bits; ++b) bit_of_col[static_cast<std::size_t>(p.col_of_bit[static_cast<std::size_t>(b)])] = b;
  p.live = 1.0;
  if (!p.halved && !p.h_rows.empty()) {
    std::vector<std::uint64_t> masks;
    for (int i : p.h_rows) {
      std::uint64_t m = 0;
      for (int c : support[static_cast<std::size_t>(i)]) m |= std::uint64_t{1} << bit_of_col[static_cast<std::size_t>(c)];
      masks.push_back(m);
    }
    const std::uint64_t high = (p.bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p.bits) - 1) &
                               ~((std::uint64_t{1} << p.k) - 1);
    SplitMix rng;
    const int samples = 4096;
    int live = 0;
    for (int s = 0; s < samples; ++s) {
      const std::uint64_t set = rng.next() & high;
      live += std::all_of(masks.begin(), masks.end(), [&](std::uint64_t m) { return (set & m) != 0; });
    }
    p.live = (live + 0.5) / (samples + 1.0);
  }
  // Per step: one factor per local row and one for the constants, the entries of the flipped
  // column (column b flips in 2^-(b+1) of the steps), and about 6 of bookkeeping (TwoSum or
  // modular sum). Per chunk: a fixed cost of 12000 FP64-operation slots (calibrated in
  // docs/benchmarks.md, "GPU: SkipPer on one H100", chunk length; the threads of a warp start
  // their chunks at different subsets, so the baked start's switch diverges), plus the jump
  // tests (a few per row that can be zero).
  double updates = 0, entries = 0;
  for (int i = 0; i < n; ++i)
    for (int c : support[static_cast<std::size_t>(i)]) {
      const int b = bit_of_col[static_cast<std::size_t>(c)];
      if (b >= 0 && b < p.k) updates += std::ldexp(1.0, -(b + 1));
      else entries += 1;
    }
  const double walked = p.live * std::ldexp(1.0, p.bits);
  const double per_step = double(p.l_rows.size()) + 1 + updates + 6;
  const double dead = p.halved ? 0.0 : double(p.h_rows.size());
  const double per_chunk = 12000 + 5.0 * (p.bits - p.k) + entries / 2 + 2 * double(p.h_rows.size()) + 6 * dead;
  p.ops = walked * per_step + walked * std::ldexp(1.0, -p.k) * per_chunk;
}

}  // namespace

SkipChoice SkipChoice::from_env() {
  const tuning::Tuning& t = tuning::tuning();
  SkipChoice c;
  c.mode = t.skipper_mode;
  c.k = t.skipper_k;
  c.task_bits = t.skipper_task_bits;
  return c;
}

SkipPlan plan_skipper(const std::vector<std::vector<int>>& support, int n, const SkipChoice& choice) {
  std::vector<std::vector<int>> rows_of_col(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int c : support[static_cast<std::size_t>(i)]) rows_of_col[static_cast<std::size_t>(c)].push_back(i);
  int densest = 0;  // the halved form's fixed column, as gpu-ryser's Nijenhuis-Wilf column
  for (int j = 1; j < n; ++j)
    if (rows_of_col[static_cast<std::size_t>(j)].size() > rows_of_col[static_cast<std::size_t>(densest)].size()) densest = j;
  SkipPlan best;
  best.ops = -1;
  for (int mode = 1; mode <= 2; ++mode) {
    if (choice.mode != 0 && choice.mode != mode) continue;
    const bool halved = mode == 2;
    const int bits = halved ? n - 1 : n;
    if (bits < 1) continue;
    const int k_lo = choice.k > 0 ? std::min(choice.k, bits) : std::min(4, bits);
    const int k_hi = choice.k > 0 ? std::min(choice.k, bits) : std::min(12, bits);
    for (int k = k_lo; k <= k_hi; ++k) {
      SkipPlan p = layout(support, rows_of_col, n, halved, densest, k);
      cost(p, support, n);
      if (best.ops < 0 || p.ops < best.ops) best = std::move(p);
    }
  }
  // Tasks: at least 2^21 (a few per thread of a large GPU, so that they balance) and about
  // 2^16 walked steps each; at most every chunk its own task.
  const double walked = best.live * std::ldexp(1.0, best.bits);
  int tb = std::max(21, static_cast<int>(std::ceil(std::log2(std::max(1.0, walked / 65536.0)))));
  if (choice.task_bits >= 0) tb = choice.task_bits;
  best.task_bits = std::clamp(tb, 0, best.bits - best.k);
  return best;
}

IntegerWalk integer_walk(const SparseMatrix<Integer>& a, const SkipChoice& choice) {
  const int n = a.rows;
  std::vector<std::vector<int>> support(static_cast<std::size_t>(n));
  for (const auto& e : a.entries) support[static_cast<std::size_t>(e.row)].push_back(e.col);
  IntegerWalk w;
  w.plan = plan_skipper(support, n, choice);
  const SkipPlan& p = w.plan;
  std::vector<Integer> d = a.dense(), r(static_cast<std::size_t>(n)), bound(static_cast<std::size_t>(n));
  for (const auto& e : a.entries) {
    r[static_cast<std::size_t>(e.row)] += e.value;
    bound[static_cast<std::size_t>(e.row)] += abs(e.value);
  }
  // Constant slots: consecutive rows of H whose bounds multiply to < 2^49, so that their
  // product is an exact double below every prime (at least one slot: it carries the sign).
  const Integer limit = Integer(1) << 49;
  std::vector<std::vector<int>> groups(1);
  Integer prod = 1;
  for (int i : p.h_rows) {
    if (!groups.back().empty() && prod * bound[static_cast<std::size_t>(i)] >= limit) groups.emplace_back(), prod = 1;
    groups.back().push_back(i);
    prod *= bound[static_cast<std::size_t>(i)];
  }
  w.job = skip_layout(a, p, groups, 1, [&](const Integer& v, double* out) { out[0] = v.get_d(); });
  w.job.kind = gpu::WalkKind::ModShared;
  // Fold the exact products wherever the next slot's bound would pass 2^49.
  std::vector<Integer> slot_bound;
  for (int i : p.l_rows) slot_bound.push_back(bound[static_cast<std::size_t>(i)]);
  for (const auto& g : groups) {
    Integer b = 1;
    for (int i : g) b *= bound[static_cast<std::size_t>(i)];
    slot_bound.push_back(b);
  }
  prod = 1;
  for (std::size_t s = 0; s < slot_bound.size(); ++s) {
    if (s > 0 && prod * slot_bound[s] >= limit) w.job.fold_mask |= std::uint64_t{1} << (s - 1), prod = 1;
    prod *= slot_bound[s];
  }
  for (std::size_t g = 0; g < p.l_rows.size(); g += 8) {
    Integer b = 1;
    for (std::size_t s = g; s < std::min(g + 8, p.l_rows.size()); ++s) b *= slot_bound[s];
    w.job.every8_ok = w.job.every8_ok && b < limit;
  }
  w.negate = p.bits % 2 == 1;
  w.shift = p.halved ? n - 1 : static_cast<int>(p.l_rows.size());
  return w;
}

}  // namespace matchcount::engines
