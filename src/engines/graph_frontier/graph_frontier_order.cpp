// Vertex orders for the graph frontier DP (natural, reverse Cuthill-McKee and greedy minimum
// frontier from several starts; the one with the least predicted work wins) and the DP's steps
// along an order.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>

#include "engines/frontier_orders.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/graph_frontier/graph_frontier_run.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using Adj = AdjacencyLists;

/// States of a table over a frontier of w vertices (loop-free: one bit is implied by parity).
double table_states(int w) { return w <= 1 ? 1.0 : std::ldexp(1.0, w - 1); }

/// Greedy minimum frontier: next the vertex (among the unprocessed neighbours of the
/// frontier, else a least-degree unprocessed one) after which the frontier is smallest; ties by
/// more processed neighbours (they close sooner), then by fewer unprocessed ones, then by
/// `prefer` (a rank, e.g. a position in another order). Empty when the frontier outgrows the
/// key width.
std::vector<int> greedy_order(const Adj& adj, int n, int start, const std::vector<int>& prefer) {
  std::vector<int> rem(static_cast<std::size_t>(n)), order, cand;
  const std::vector<int> by_deg = by_degree(adj, std::size_t(n));
  std::vector<char> done(std::size_t(n), 0), in_cand(std::size_t(n), 0);
  for (int v = 0; v < n; ++v) rem[std::size_t(v)] = int(adj[std::size_t(v)].size());
  std::size_t next_low = 0;
  int open = 0;
  order.reserve(std::size_t(n));
  for (int k = 0; k < n; ++k) {
    int pick = k == 0 ? start : -1;
    if (pick < 0) {
      int best_delta = std::numeric_limits<int>::max(), best_back = -1, best_rem = 0;
      std::size_t keep = 0;
      for (int c : cand) {
        if (done[std::size_t(c)]) continue;
        cand[keep++] = c;
        int closes = 0, back = int(adj[std::size_t(c)].size()) - rem[std::size_t(c)];
        for (int u : adj[std::size_t(c)])
          if (done[std::size_t(u)] && rem[std::size_t(u)] == 1) ++closes;
        const int delta = (rem[std::size_t(c)] > 0 ? 1 : 0) - closes;
        const bool better = delta != best_delta ? delta < best_delta
                            : back != best_back ? back > best_back
                            : rem[std::size_t(c)] != best_rem ? rem[std::size_t(c)] < best_rem
                                                              : prefer[std::size_t(c)] < prefer[std::size_t(pick)];
        if (pick < 0 || better) best_delta = delta, best_back = back, best_rem = rem[std::size_t(c)], pick = c;
      }
      cand.resize(keep);
    }
    if (pick < 0) pick = next_least_degree(by_deg, done, next_low);
    done[std::size_t(pick)] = 1;
    order.push_back(pick);
    if (rem[std::size_t(pick)] > 0) ++open;
    for (int u : adj[std::size_t(pick)]) {
      --rem[std::size_t(u)];
      if (done[std::size_t(u)]) {
        if (rem[std::size_t(u)] == 0) --open;
      } else if (!in_cand[std::size_t(u)]) {
        in_cand[std::size_t(u)] = 1, cand.push_back(u);
      }
    }
    if (open > kGraphFrontierMaxWidth) return {};
  }
  return order;
}

}  // namespace

GraphFrontierPlan graph_frontier_profile(const Adj& adj, std::vector<int> order) {
  const std::size_t n = adj.size();
  GraphFrontierPlan plan;
  plan.order = std::move(order);
  std::vector<int> pos(n), closes(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) pos[std::size_t(plan.order[k])] = int(k);
  std::vector<int> last(n, -1);
  for (std::size_t v = 0; v < n; ++v)
    for (int u : adj[v]) last[v] = std::max(last[v], pos[std::size_t(u)]);
  for (std::size_t v = 0; v < n; ++v)
    if (last[v] > pos[v]) ++closes[std::size_t(last[v])];  // v was in the frontier until then
  int w = 0;
  double before = 1;
  plan.peak_states = 1;
  for (std::size_t k = 0; k < n; ++k) {
    const int v = plan.order[k];
    int back = 0;
    for (int u : adj[std::size_t(v)]) back += pos[std::size_t(u)] < int(k);
    w += (last[std::size_t(v)] > int(k) ? 1 : 0) - closes[k];
    const double after = table_states(w);
    add_profile_step(plan, w, kGraphFrontierMaxWidth, before, after, after * (1 + back));
    plan.states += after;
    before = after;
  }
  mark_unrunnable_if_wider(plan, kGraphFrontierMaxWidth);
  return plan;
}

GraphFrontierPlan plan_graph_frontier(const std::vector<std::pair<int, int>>& pattern, int n) {
  auto best = no_plan<GraphFrontierPlan>();
  Adj adj(std::size_t(std::max(n, 0)));
  for (auto [u, v] : pattern)
    if (u != v) adj[std::size_t(u)].push_back(v);
  for (auto& l : adj) sort_unique(l);
  auto consider = [&](std::vector<int> order) {
    if (int(order.size()) != n) return;  // a greedy order that outgrew the key width
    GraphFrontierPlan p = graph_frontier_profile(adj, std::move(order));
    if (cheaper(p, best)) best = std::move(p);
  };
  std::vector<int> natural(std::size_t(std::max(n, 0)));
  std::iota(natural.begin(), natural.end(), 0);
  consider(natural);
  if (n == 0) return best;
  // A complete graph looks the same in every order: no search (small dense blocks, as in
  // batches, would pay more for it than for their count).
  if (std::all_of(adj.begin(), adj.end(), [n](const std::vector<int>& l) { return int(l.size()) == n - 1; })) return best;
  std::vector<int> cm = cuthill_mckee(adj, by_degree(adj, std::size_t(n))), rank(static_cast<std::size_t>(n));
  consider({cm.rbegin(), cm.rend()});
  // Greedy from a least-degree vertex, both ends of the Cuthill-McKee order and, for small
  // graphs (where planning is cheap beside the DP), starts spread over that order; ties go by
  // the natural numbering (rows of a lattice) or by the Cuthill-McKee rank.
  for (int k = 0; k < n; ++k) rank[std::size_t(cm[std::size_t(k)])] = k;
  std::vector<int> starts = {least_degree(adj), cm.front(), cm.back(), 0, n - 1};
  const int spread = n > 20000 ? 0 : n > 2000 ? 4 : 16;
  for (int i = 1; i < spread; ++i) starts.push_back(cm[std::size_t(i) * std::size_t(n) / std::size_t(spread)]);
  if (n > 20000) starts.resize(1);
  sort_unique(starts);
  for (int s : starts) {
    consider(greedy_order(adj, n, s, natural));
    if (n <= 20000) consider(greedy_order(adj, n, s, rank));
  }
  return best;
}

namespace graph_frontier_detail {

std::vector<GraphStep> graph_steps(const std::vector<std::vector<std::pair<int, int>>>& nbrs,
                                   const std::vector<int>& loop_entry, const std::vector<int>& order, bool loops) {
  const std::size_t n = nbrs.size();
  std::vector<int> pos(n), last(n, -1), slot(n, -1);
  for (std::size_t k = 0; k < n; ++k) pos[std::size_t(order[k])] = int(k);
  for (std::size_t v = 0; v < n; ++v)
    for (auto [u, e] : nbrs[v]) last[v] = std::max(last[v], pos[std::size_t(u)]);
  std::vector<int> layout, holes;  // layout: the vertex in each frontier slot (-1: free)
  std::vector<GraphStep> steps(n);
  for (std::size_t k = 0; k < n; ++k) {
    const int v = order[k];
    GraphStep& st = steps[k];
    st.old_w = int(layout.size());
    holes.clear();
    for (auto [u, e] : nbrs[std::size_t(v)]) {
      if (pos[std::size_t(u)] >= int(k)) continue;
      st.back.emplace_back(slot[std::size_t(u)], e);
      if (last[std::size_t(u)] == int(k)) holes.push_back(slot[std::size_t(u)]);  // v was u's last neighbour
    }
    std::vector<int> next = layout;
    for (int h : holes) next[std::size_t(h)] = -1;
    std::sort(holes.begin(), holes.end(), std::greater<>());  // smallest last
    if (last[std::size_t(v)] > int(k)) {
      if (holes.empty()) next.push_back(v);
      else next[std::size_t(holes.back())] = v, holes.pop_back();
    }
    // Fill the remaining free slots from the top: the frontier stays in slots 0..w-1.
    while (!holes.empty()) {
      if (next.back() < 0) {
        holes.erase(std::find(holes.begin(), holes.end(), int(next.size()) - 1));
      } else {
        next[std::size_t(holes.back())] = next.back();
        holes.pop_back();
      }
      next.pop_back();
    }
    if (int(next.size()) > kGraphFrontierMaxWidth)
      throw RefusedError("graph-frontier: the vertex order has frontier width " + std::to_string(next.size()) + " > " +
                         std::to_string(kGraphFrontierMaxWidth));
    st.new_w = int(next.size());
    for (std::size_t j = 0; j < next.size(); ++j) {
      const int u = next[j], o = slot[std::size_t(u)];
      if (u == v) st.vslot = int(j);
      else if (o == int(j)) st.same |= State{1} << j;
      else st.moved.emplace_back(int(j), o);
    }
    for (int u : layout) slot[std::size_t(u)] = -1;
    for (std::size_t j = 0; j < next.size(); ++j) slot[std::size_t(next[j])] = int(j);
    layout = std::move(next);
    st.parity = int((k + 1) & 1);
    st.loop = loops ? loop_entry[std::size_t(v)] : -1;
    const int states_log = loops ? st.new_w : std::max(st.new_w - 1, 0);
    st.predicted = std::ldexp(1.0, states_log) * double(1 + st.back.size());
  }
  return steps;
}

}  // namespace graph_frontier_detail
}  // namespace matchcount::engines
