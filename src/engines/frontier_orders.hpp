// What the frontier engines' order planners share (private to src/engines): Cuthill-McKee over
// adjacency lists (the bipartite frontier passes its row-column graph, the graph frontier its
// graph) and the choice of the best plan among the orders tried.
//
// A plan here is FrontierPlan or GraphFrontierPlan: a width (the largest frontier), a cost
// (the predicted work) and peak_states (the most states held at once).
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <vector>

namespace matchcount::engines {

/// adj[v]: the neighbours of vertex v.
using AdjacencyLists = std::vector<std::vector<int>>;

namespace frontier_orders_detail {

/// Breadth-first search from s over the vertices not yet ordered (done == 0), neighbours in
/// order of increasing degree; returns the visit order, with each vertex's level in `level`.
/// `dist` (all -1) is scratch, left all -1.
inline std::vector<int> bfs(const AdjacencyLists& adj, int s, const std::vector<char>& done, std::vector<int>& dist,
                            std::vector<int>* level = nullptr) {
  std::vector<int> queue{s};
  dist[std::size_t(s)] = 0;
  for (std::size_t h = 0; h < queue.size(); ++h) {
    const int v = queue[h];
    const std::size_t first = queue.size();
    for (int u : adj[std::size_t(v)])
      if (!done[std::size_t(u)] && dist[std::size_t(u)] < 0) dist[std::size_t(u)] = dist[std::size_t(v)] + 1, queue.push_back(u);
    // By degree, stably: an insertion sort for the few neighbours of a sparse graph (a stable
    // sort per vertex allocates a buffer, which dominated planning blocks of 10^6 rows).
    const auto degree = [&](int x) { return adj[std::size_t(x)].size(); };
    if (queue.size() - first > 32) {
      std::stable_sort(queue.begin() + std::ptrdiff_t(first), queue.end(), [&](int x, int y) { return degree(x) < degree(y); });
    } else {
      for (std::size_t i = first + 1; i < queue.size(); ++i) {
        const int x = queue[i];
        std::size_t j = i;
        for (; j > first && degree(queue[j - 1]) > degree(x); --j) queue[j] = queue[j - 1];
        queue[j] = x;
      }
    }
  }
  if (level) level->clear();
  for (int v : queue) {
    if (level) level->push_back(dist[std::size_t(v)]);
    dist[std::size_t(v)] = -1;
  }
  return queue;
}

/// A pseudo-peripheral vertex of s's component (George-Liu: restart from a least-degree vertex
/// of the last level while the depth grows).
inline int peripheral(const AdjacencyLists& adj, int s, const std::vector<char>& done, std::vector<int>& dist) {
  std::vector<int> level;
  int depth = -1;
  for (int iter = 0; iter < 8; ++iter) {
    const std::vector<int> q = bfs(adj, s, done, dist, &level);
    const int d = level.back();
    if (d <= depth) break;
    depth = d;
    int far = q.back();
    for (std::size_t i = q.size(); i-- > 0 && level[i] == d;)
      if (adj[std::size_t(q[i])].size() < adj[std::size_t(far)].size()) far = q[i];
    s = far;
  }
  return s;
}

}  // namespace frontier_orders_detail

/// The first `count` vertices by increasing degree (ties in vertex order): a counting sort.
inline std::vector<int> by_degree(const AdjacencyLists& adj, std::size_t count) {
  std::size_t top = 0;
  for (std::size_t v = 0; v < count; ++v) top = std::max(top, adj[v].size());
  std::vector<std::size_t> start(top + 2, 0);
  for (std::size_t v = 0; v < count; ++v) ++start[adj[v].size() + 1];
  for (std::size_t d = 0; d <= top; ++d) start[d + 1] += start[d];
  std::vector<int> order(count);
  for (std::size_t v = 0; v < count; ++v) order[start[adj[v].size()]++] = int(v);
  return order;
}

/// Cuthill-McKee: the components of the seeds (the first seed not yet ordered starts the next
/// component), each searched from a pseudo-peripheral vertex; returns the vertices in visiting
/// order. Seeds by increasing degree start each component near its end.
inline std::vector<int> cuthill_mckee(const AdjacencyLists& adj, const std::vector<int>& seeds) {
  std::vector<char> done(adj.size(), 0);
  std::vector<int> dist(adj.size(), -1), order;
  for (int r : seeds) {
    if (done[std::size_t(r)]) continue;
    const int s = frontier_orders_detail::peripheral(adj, r, done, dist);
    for (int v : frontier_orders_detail::bfs(adj, s, done, dist)) done[std::size_t(v)] = 1, order.push_back(v);
  }
  return order;
}

/// The greedy orders' pick when no candidate touches the frontier: the first vertex of `by_deg`
/// (vertices by increasing degree) not yet done, searched from `next`, which it advances.
inline int next_least_degree(const std::vector<int>& by_deg, const std::vector<char>& done, std::size_t& next) {
  while (done[std::size_t(by_deg[next])]) ++next;
  return by_deg[next];
}

/// A least-degree vertex (the first of them); adj must not be empty.
inline int least_degree(const AdjacencyLists& adj) {
  return int(std::min_element(adj.begin(), adj.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); }) -
             adj.begin());
}

/// Sorts `v` and drops repeats (start vertices of the greedy orders, adjacency lists).
inline void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

/// The plan to start a search with: every order found beats it.
template <class Plan>
Plan no_plan() {
  Plan p;
  p.cost = p.peak_states = std::numeric_limits<double>::infinity();
  p.width = std::numeric_limits<int>::max();
  return p;
}

/// Whether `a` beats `b`: less predicted work, then a narrower frontier.
template <class Plan>
bool cheaper(const Plan& a, const Plan& b) {
  return a.cost != b.cost ? a.cost < b.cost : a.width < b.width;
}

/// Adds one step of an order to its profile: after it the frontier is w wide, `before` and
/// `after` states are held around it, and it does `work`. Once the frontier has outgrown
/// max_width the plan cannot run and only its width is wanted.
template <class Plan>
void add_profile_step(Plan& plan, int w, int max_width, double before, double after, double work) {
  plan.width = std::max(plan.width, w);
  if (plan.width > max_width) return;
  plan.cost += work;
  plan.peak_states = std::max(plan.peak_states, before + after);
}

/// A profile whose frontier outgrew the state keys cannot run: its cost and peak become
/// infinite (its width stays, for messages).
template <class Plan>
void mark_unrunnable_if_wider(Plan& plan, int max_width) {
  if (plan.width > max_width) plan.cost = plan.peak_states = std::numeric_limits<double>::infinity();
}

}  // namespace matchcount::engines
