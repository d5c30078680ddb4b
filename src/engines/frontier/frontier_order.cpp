// Row orders for the frontier engine: natural, reverse Cuthill-McKee on the bipartite
// row-column graph and greedy minimum-frontier, on the pattern and on its transpose; the
// one with the least predicted work wins.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "engines/common.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/frontier_orders.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using Adj = AdjacencyLists;

/// Cuthill-McKee over the bipartite graph (vertex r < n a row, n + c a column), started from
/// a pseudo-peripheral vertex of each component (components taken by their least-degree rows);
/// returns the rows in visiting order.
std::vector<int> bipartite_cuthill_mckee(const Adj& rows, const Adj& cols, int n) {
  Adj graph(std::size_t(2 * n));
  for (std::size_t r = 0; r < std::size_t(n); ++r)
    for (int c : rows[r]) graph[r].push_back(n + c);
  std::copy(cols.begin(), cols.end(), graph.begin() + n);
  std::vector<int> order;
  for (int v : cuthill_mckee(graph, by_degree(rows, std::size_t(n))))
    if (v < n) order.push_back(v);
  return order;
}

/// Greedy minimum frontier: next the row (among those touching an open column, or the least
/// degree unprocessed one) after which the fewest columns are open; ties by fewer new columns.
/// Empty when the frontier grows beyond kFrontierMaxWidth.
std::vector<int> greedy_order(const Adj& rows, const Adj& cols, int n, int start) {
  std::vector<int> rem(static_cast<std::size_t>(n));
  const std::vector<int> by_deg = by_degree(rows, std::size_t(n));
  std::vector<char> state(static_cast<std::size_t>(n), 0), done(static_cast<std::size_t>(n), 0), in_cand(static_cast<std::size_t>(n), 0);
  for (int c = 0; c < n; ++c) rem[std::size_t(c)] = int(cols[std::size_t(c)].size());
  std::vector<int> order, cand;
  std::size_t next_low = 0;
  int open = 0;
  for (int k = 0; k < n; ++k) {
    int pick = k == 0 ? start : -1;
    if (pick < 0) {
      int best_delta = std::numeric_limits<int>::max(), best_new = 0;
      std::size_t keep = 0;
      for (int r : cand) {
        if (done[std::size_t(r)]) continue;
        cand[keep++] = r;
        int delta = 0, fresh = 0;
        for (int c : rows[std::size_t(r)]) {
          if (state[std::size_t(c)] == 0 && rem[std::size_t(c)] > 1) ++delta, ++fresh;
          else if (state[std::size_t(c)] == 1 && rem[std::size_t(c)] == 1) --delta;
        }
        if (delta < best_delta || (delta == best_delta && (fresh < best_new || (fresh == best_new && r < pick))))
          best_delta = delta, best_new = fresh, pick = r;
      }
      cand.resize(keep);
    }
    if (pick < 0) pick = next_least_degree(by_deg, done, next_low);
    done[std::size_t(pick)] = 1;
    order.push_back(pick);
    for (int c : rows[std::size_t(pick)]) {
      int left = --rem[std::size_t(c)];
      if (state[std::size_t(c)] == 0) {
        state[std::size_t(c)] = left > 0 ? 1 : 2;
        if (left == 0) continue;
        ++open;
        for (int r : cols[std::size_t(c)])
          if (!done[std::size_t(r)] && !in_cand[std::size_t(r)]) in_cand[std::size_t(r)] = 1, cand.push_back(r);
      } else if (state[std::size_t(c)] == 1 && left == 0) {
        state[std::size_t(c)] = 2, --open;
      }
    }
    if (open > kFrontierMaxWidth) return {};
  }
  return order;
}

}  // namespace

FrontierPlan frontier_profile(const Adj& rows, int n, std::vector<int> order) {
  FrontierPlan plan;
  plan.row_order = std::move(order);
  std::vector<int> first(static_cast<std::size_t>(n), -1), last(static_cast<std::size_t>(n), -1);
  for (int k = 0; k < n; ++k)
    for (int c : rows[std::size_t(plan.row_order[std::size_t(k)])]) {
      if (first[std::size_t(c)] < 0) first[std::size_t(c)] = k;
      last[std::size_t(c)] = k;
    }
  std::vector<int> opens(std::size_t(n) + 1), closes(std::size_t(n) + 1), ends(std::size_t(n) + 1);
  for (int c = 0; c < n; ++c) {
    if (first[std::size_t(c)] < 0) continue;
    ++ends[std::size_t(last[std::size_t(c)])];
    if (last[std::size_t(c)] > first[std::size_t(c)])
      ++opens[std::size_t(first[std::size_t(c)])], ++closes[std::size_t(last[std::size_t(c)])];
  }
  int w = 0, closed = 0;
  double states = 1;
  plan.peak_states = 1;
  for (int k = 0; k < n; ++k) {
    auto d = double(rows[std::size_t(plan.row_order[std::size_t(k)])].size());
    w += opens[std::size_t(k)] - closes[std::size_t(k)];
    closed += ends[std::size_t(k)];
    // Once the frontier has outgrown the keys only the width is wanted: C(w, p) costs O(w),
    // which over every row of a wide order would cost n times the width.
    const double next = std::max(w, plan.width) > kFrontierMaxWidth ? 0.0 : std::min(binomial(w, k + 1 - closed), states * d);
    add_profile_step(plan, w, kFrontierMaxWidth, states, next, states * d + next);
    states = next;
  }
  mark_unrunnable_if_wider(plan, kFrontierMaxWidth);
  return plan;
}

FrontierPlan plan_frontier(const std::vector<std::pair<int, int>>& pattern_rc, int n) {
  auto best = no_plan<FrontierPlan>();
  for (bool transposed : {false, true}) {
    Adj rows(static_cast<std::size_t>(n)), cols(static_cast<std::size_t>(n));
    for (auto [r, c] : pattern_rc) {
      if (transposed) std::swap(r, c);
      rows[std::size_t(r)].push_back(c), cols[std::size_t(c)].push_back(r);
    }
    auto consider = [&](std::vector<int> order) {
      if (int(order.size()) != n) return;  // a greedy order that outgrew the key width
      FrontierPlan p = frontier_profile(rows, n, std::move(order));
      p.transposed = transposed;
      if (cheaper(p, best)) best = std::move(p);
    };
    std::vector<int> natural(static_cast<std::size_t>(n));
    std::iota(natural.begin(), natural.end(), 0);
    consider(natural);
    if (n == 0) return best;
    std::vector<int> cm = bipartite_cuthill_mckee(rows, cols, n);
    consider({cm.rbegin(), cm.rend()});
    // Greedy from a least-degree row and from both ends of the Cuthill-McKee order.
    std::vector<int> starts = {least_degree(rows), cm.front(), cm.back()};
    if (n > 20000) starts.resize(1);
    sort_unique(starts);
    for (int s : starts) consider(greedy_order(rows, cols, n, s));
  }
  return best;
}

std::vector<FrontierStep> frontier_steps(const std::vector<std::vector<std::pair<int, int>>>& rows,
                                         const std::vector<int>& order, int n) {
  std::vector<int> last(static_cast<std::size_t>(n), -1), pos(static_cast<std::size_t>(n), -1);
  for (int k = 0; k < n; ++k)
    for (auto [c, e] : rows[std::size_t(order[std::size_t(k)])]) last[std::size_t(c)] = k;
  std::vector<int> layout;  // open columns by bit position
  std::vector<FrontierStep> steps(static_cast<std::size_t>(n));
  int used = 0, closed = 0;
  double states = 1;
  for (int k = 0; k < n; ++k) {
    const auto& row = rows[std::size_t(order[std::size_t(k)])];
    FrontierStep& st = steps[std::size_t(k)];
    FrontierKey closing = 0;
    int new_closing = 0, only_col = -1;
    std::vector<int> fresh;
    for (auto [c, e] : row) {
      bool closes = last[std::size_t(c)] == k;
      if (pos[std::size_t(c)] >= 0 && closes) closing |= FrontierKey{1} << pos[std::size_t(c)];
      if (pos[std::size_t(c)] < 0 && closes) ++new_closing, only_col = c;
      if (pos[std::size_t(c)] < 0 && !closes) fresh.push_back(c);
    }
    closed += std::popcount(closing) + new_closing;
    std::vector<int> next;
    for (std::size_t b = 0; b < layout.size(); ++b)
      if (closing >> b & 1) st.close_asc.push_back(int(b)), pos[std::size_t(layout[b])] = -2;
      else next.push_back(layout[b]);
    st.kept = int(next.size());
    next.insert(next.end(), fresh.begin(), fresh.end());
    if (int(next.size()) > kFrontierMaxWidth)
      throw RefusedError("frontier: the row order has frontier width " + std::to_string(next.size()) + " > " + std::to_string(kFrontierMaxWidth));
    for (std::size_t b = 0; b < next.size(); ++b) pos[std::size_t(next[b])] = int(b);
    for (auto [c, e] : row) {
      if (new_closing > 1 || (new_closing == 1 && c != only_col)) continue;  // leaves a column unused
      FrontierMove m;
      m.entry = e;
      for (std::size_t b = 0; b < layout.size(); ++b)
        if (layout[b] == c) m.cbit = FrontierKey{1} << b;
      m.fixed = closing & ~m.cbit;
      if (pos[std::size_t(c)] >= 0) m.add = FrontierKey{1} << pos[std::size_t(c)];
      st.moves.push_back(m);
    }
    for (auto [c, e] : row)
      if (pos[std::size_t(c)] == -1) pos[std::size_t(c)] = -2;  // opened and closed here
    layout = std::move(next);
    ++used;
    // predicted work as in frontier_profile
    st.open = int(layout.size()), st.used = used - closed;
    double d = double(row.size()), bound = binomial(int(layout.size()), used - closed);
    double fresh_states = std::min(bound, states * d);
    st.predicted = states * d + fresh_states;
    states = fresh_states;
  }
  return steps;
}

}  // namespace matchcount::engines
