// FrontierTables (graph_frontier_tables.hpp). Every table entry counts the perfect matchings
// of an induced subgraph, at most prod_v sqrt(R_v) (haf^2 <= perm <= the product of row sums
// R_v), so tables of ceil(bits / 64) limbs hold them and every partial sum of a pull.
#include "engines/graph_frontier/graph_frontier_tables.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "engines/graph_frontier/cuda/graph_pull.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;
using graph_frontier_detail::GraphStep;

void add_to(u64* d, const u64* s, int n) {
  u64 carry = 0;
  for (int i = 0; i < n; ++i) {
    const u128 t = u128(d[i]) + s[i] + carry;
    d[i] = u64(t), carry = u64(t >> 64);
  }
}

void add_mul(u64* d, const u64* s, u64 w, int n) {
  u64 carry = 0;
  for (int i = 0; i < n; ++i) {
    const u128 t = u128(s[i]) * w + d[i] + carry;
    d[i] = u64(t), carry = u64(t >> 64);
  }
}

/// x < y on n limbs.
bool less(const u64* x, const u64* y, int n) {
  for (int i = n - 1; i >= 0; --i)
    if (x[i] != y[i]) return x[i] < y[i];
  return false;
}

void subtract(u64* x, const u64* y, int n) {
  u64 borrow = 0;
  for (int i = 0; i < n; ++i) {
    const u128 t = u128(x[i]) - y[i] - borrow;
    x[i] = u64(t), borrow = u64(t >> 64) ? 1 : 0;
  }
}

/// A uniform integer below `total` (n limbs, nonzero), by rejection from its bit length.
void uniform_below(std::mt19937_64& rng, const u64* total, int n, u64* out) {
  int top = n - 1;
  while (top > 0 && total[top] == 0) --top;
  const int bits = 64 - __builtin_clzll(total[top]);
  const u64 mask = bits == 64 ? ~u64{0} : (u64{1} << bits) - 1;
  do {
    for (int i = 0; i < n; ++i) out[i] = i < top ? rng() : i == top ? rng() & mask : 0;
  } while (!less(out, total, n));
}

GraphFrontierPlan plan_of(const SparseMatrix<Integer>& a) {
  std::vector<std::pair<int, int>> pattern;
  for (const auto& e : a.entries)
    if (e.row != e.col) pattern.emplace_back(e.row, e.col);
  return plan_graph_frontier(pattern, a.rows);
}

/// Limbs for every table entry: prod_v sqrt(R_v), plus a bit.
int limbs_for(const SparseMatrix<Integer>& a) {
  std::vector<double> row(static_cast<std::size_t>(a.rows), 0.0);
  for (const auto& e : a.entries)
    if (e.row != e.col) row[static_cast<std::size_t>(e.row)] += e.value.get_d();
  double bits = 2;
  for (double r : row) bits += 0.5 * std::log2(std::max(1.0, r)) * (1 + 1e-12);
  return std::max(1, static_cast<int>(std::ceil(bits / 64)));
}

Integer integer_of(const u64* x, int n) {
  Integer v;
  mpz_import(v.get_mpz_t(), static_cast<std::size_t>(n), -1, sizeof(u64), 0, 0, x);
  return v;
}

/// acc (2n + 1 limbs) += x * y (n limbs each).
void add_product(u64* acc, const u64* x, const u64* y, int n) {
  for (int i = 0; i < n; ++i) {
    if (x[i] == 0) continue;
    u64 carry = 0;
    int j = 0;
    for (; j < n; ++j) {
      const u128 t = u128(x[i]) * y[j] + acc[i + j] + carry;
      acc[i + j] = u64(t), carry = u64(t >> 64);
    }
    for (int k = i + j; carry && k < 2 * n + 1; ++k) {
      const u128 t = u128(acc[k]) + carry;
      acc[k] = u64(t), carry = u64(t >> 64);
    }
  }
}

}  // namespace

Integer FrontierTables::total() const {
  if (dead_) return 0;
  return integer_of(tables_.back().data(), limbs_);
}

std::vector<Integer> FrontierTables::edge_weights() const {
  const int L = limbs_, W = 2 * L + 1;
  std::vector<std::vector<u64>> through(weight_.size());  // per entry, W limbs (allocated when used)
  if (dead_) return std::vector<Integer>(weight_.size(), Integer(0));
  // back: the weight of completing each state of table k + 1 (the last table: 1).
  std::vector<u64> back(static_cast<std::size_t>(L), 0), prev, wb(static_cast<std::size_t>(L) + 1);
  back[0] = 1;
  for (std::size_t k = pulls_.size(); k-- > 0;) {
    const Pull& p = pulls_[k];
    const std::vector<u64>& fwd = tables_[k];
    prev.assign(fwd.size(), 0);
    for (gpu::PullState t = 0; t < p.step.states; ++t) {
      const u64* b = back.data() + t * static_cast<u64>(L);
      if (std::all_of(b, b + L, [](u64 x) { return x == 0; })) continue;
      gpu::graph_pull(p.step, p.moved.data(), p.back.data(), t, [&](gpu::PullState o, int entry) {
        u64* dst = prev.data() + o * static_cast<u64>(L);
        if (entry < 0) {
          add_to(dst, b, L);
          return;
        }
        std::fill(wb.begin(), wb.end(), 0);
        add_mul(wb.data(), b, weight_[static_cast<std::size_t>(entry)], L);  // w * back fits: it is a count
        add_to(dst, wb.data(), L);
        auto& acc = through[static_cast<std::size_t>(entry)];
        if (acc.empty()) acc.assign(static_cast<std::size_t>(W), 0);
        add_product(acc.data(), fwd.data() + o * static_cast<u64>(L), wb.data(), L);
      });
    }
    back.swap(prev);
  }
  std::vector<Integer> out;
  for (const auto& acc : through) out.push_back(acc.empty() ? Integer(0) : integer_of(acc.data(), W));
  return out;
}

std::optional<FrontierTables> FrontierTables::make(const SparseMatrix<Integer>& a, double max_bytes) {
  FrontierTables t;
  for (const auto& e : a.entries) {
    if (e.row != e.col && (e.value < 0 || !e.value.fits_ulong_p())) return std::nullopt;
    t.weight_.push_back(e.row == e.col ? 0 : e.value.get_ui()), t.other_.push_back(e.col);
  }
  const GraphFrontierPlan plan = plan_of(a);
  t.width_ = plan.width;
  if (plan.width > kGraphFrontierMaxWidth) return std::nullopt;
  t.limbs_ = limbs_for(a);
  // plan.states sums the tables after every vertex: all of them are kept.
  if ((plan.states + 1) * 8.0 * t.limbs_ > max_bytes) return std::nullopt;
  t.order_ = plan.order;
  const std::vector<GraphStep> steps = graph_frontier_steps(a, false, plan);
  if (graph_frontier_detail::graph_steps_dead(steps, false) || a.rows % 2) {
    t.dead_ = true;
    return t;
  }
  for (const GraphStep& st : steps) {
    Pull p;
    p.step = gpu::pull_step(st, false);
    for (auto [j, o] : st.moved) p.moved.push_back({j, o});
    for (auto [o, e] : st.back) p.back.push_back({o, e});
    t.pulls_.push_back(std::move(p));
  }
  t.forward();
  return t;
}

double FrontierTables::predicted_seconds(const SparseMatrix<Integer>& a, double max_bytes) {
  // Calibrated on random graphs of 30-40 vertices (docs/benchmarks.md, "Which matchings: dense
  // graphs"), the tables' threads included.
  constexpr double kFixed = 1e-3, kPerLimbGather = 2.4e-9;
  for (const auto& e : a.entries)
    if (e.row != e.col && (e.value < 0 || !e.value.fits_ulong_p())) return HUGE_VAL;
  const GraphFrontierPlan plan = plan_of(a);
  const int limbs = limbs_for(a);
  if (plan.width > kGraphFrontierMaxWidth || (plan.states + 1) * 8.0 * limbs > max_bytes) return HUGE_VAL;
  return kFixed + kPerLimbGather * plan.cost * limbs;
}

void FrontierTables::forward() {
  const int L = limbs_;
  tables_.assign(1, std::vector<u64>(static_cast<std::size_t>(L), 0));
  tables_[0][0] = 1;
  for (const Pull& p : pulls_) {
    const std::vector<u64>& old = tables_.back();
    std::vector<u64> next(static_cast<std::size_t>(p.step.states) * static_cast<std::size_t>(L), 0);
    const auto states = static_cast<std::int64_t>(p.step.states);
#pragma omp parallel for schedule(static) if (states > 4096)
    for (std::int64_t i = 0; i < states; ++i) {
      u64* d = next.data() + i * L;
      gpu::graph_pull(p.step, p.moved.data(), p.back.data(), gpu::PullState(i), [&](gpu::PullState o, int entry) {
        const u64* s = old.data() + o * static_cast<u64>(L);
        if (entry < 0) add_to(d, s, L);
        else add_mul(d, s, weight_[static_cast<std::size_t>(entry)], L);
      });
    }
    tables_.push_back(std::move(next));
  }
  const std::vector<u64>& last = tables_.back();
  dead_ = std::all_of(last.begin(), last.begin() + L, [](u64 x) { return x == 0; });
}

std::vector<std::pair<int, int>> FrontierTables::draw(std::uint64_t seed) const {
  std::mt19937_64 rng(seed);
  const int L = limbs_;
  std::vector<std::pair<int, int>> pairs;
  std::vector<u64> r(static_cast<std::size_t>(L) + 1), term(static_cast<std::size_t>(L) + 1);
  gpu::PullState state = 0;  // in the last table (an empty frontier)
  for (std::size_t k = pulls_.size(); k-- > 0;) {
    const Pull& p = pulls_[k];
    const std::vector<u64>& old = tables_[k];
    const u64* value = tables_[k + 1].data() + state * static_cast<u64>(L);
    uniform_below(rng, value, L, r.data());
    r[static_cast<std::size_t>(L)] = 0;
    // The sources in the DP's order; the draw falls in one of their weights.
    bool chosen = false;
    gpu::graph_pull(p.step, p.moved.data(), p.back.data(), state, [&](gpu::PullState o, int entry) {
      if (chosen) return;
      std::fill(term.begin(), term.end(), 0);
      const u64* s = old.data() + o * static_cast<u64>(L);
      if (entry < 0) add_to(term.data(), s, L);
      else add_mul(term.data(), s, weight_[static_cast<std::size_t>(entry)], L);
      if (less(r.data(), term.data(), L)) {
        chosen = true, state = o;
        if (entry >= 0) {
          const int v = order_[k], u = other_[static_cast<std::size_t>(entry)];
          pairs.emplace_back(std::min(u, v), std::max(u, v));
        }
        return;
      }
      subtract(r.data(), term.data(), L);
    });
    if (!chosen) throw std::logic_error("FrontierTables: a draw beyond its state's value");
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace matchcount::engines
