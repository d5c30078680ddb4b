// Maximum matchings of general graphs and the edges in no perfect matching, both built on one
// Edmonds search (BlossomSearch below).
//
// The search grows an alternating tree from one exposed root, with blossom bases in a
// union-find and, for paths, the parent links of the classical array implementation: an odd
// vertex points to the even vertex it was reached from, and shrinking a blossom points the even
// vertices of its two paths across the bridge, so that from every even vertex w the walk
// w, M(w), p[M(w)], ... is an even alternating path to the root. Per-search state is reset
// through the list of vertices the search touched, so a search costs what it explores, and
// searches on lattices stay local.
//
// Matching: a greedy start, then one search per exposed vertex. A search that fails leaves a
// Hungarian tree whose vertices can be deleted for good (no augmenting path will ever use them,
// Edmonds), so failures cost each vertex once. When the matching is not perfect, Boost's
// Edmonds implementation runs once more on it: it confirms that no augmenting path is left,
// and the labels of its last search are the Gallai-Edmonds decomposition, whose A(G) is the
// Tutte witness (G - A(G) has |A(G)| + n - 2|M| odd components).
//
// Dead edges: uv outside M lies in some perfect matching iff G - u - v has one, i.e. iff the
// search from r = M(u) in G - u (matching M - ur, r the only exposed vertex) reaches v as an
// even vertex (v in D(G - u)); then ur, the path r ~> v and vu close an M-alternating cycle.
//  - Every success marks the edges of that cycle allowed (exchanging M along it gives a perfect
//    matching through them); a search stops once every undecided neighbour of u is reached.
//  - A search that runs to its end labels A(G - u): X = {u} + A(G - u) is a barrier (G - X has
//    |X| odd components), every perfect matching pairs X with those components, so the edges
//    inside X and from X to the unreached vertices (the even components, C(G - u)) are dead.
//  - Dead edges are left out of later searches: the perfect matchings stay the same.
//  - Before any search, vertices of degree 1 and 2 give barriers of one and two vertices
//    directly (local_rules), which takes most of the dead edges of sparse lattices.
// A search that fails explores all of D(G - u), so graphs with many dead edges that no local
// rule finds cost up to one whole-graph search per vertex; the budget bounds that.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <stdexcept>

#include "matchcount/graph_matching.hpp"

namespace matchcount {
namespace {

class BlossomSearch {
 public:
  BlossomSearch(const GraphPattern& g, std::vector<int>& mate) : mate_(mate) {
    const auto n = static_cast<std::size_t>(g.n);
    start.assign(n + 1, 0);
    for (int v = 0; v < g.n; ++v) start[v + 1] = start[v] + g.adj[v].size();
    nbr.reserve(start[n]);
    for (const auto& list : g.adj) nbr.insert(nbr.end(), list.begin(), list.end());
    parent_.assign(n, -1);
    base_.resize(n);
    for (std::size_t v = 0; v < n; ++v) base_[v] = static_cast<int>(v);
    even_.assign(n, 0);
    stamp_.assign(n, 0);
  }

  /// Grows the tree from `root` (matched vertices keep their partners from `mate`, the root
  /// counts as exposed). The policy says which edges to skip (`skip(slot, to)`), may stop the
  /// search before a vertex is scanned (`stop(v)`), and hears of every new even vertex
  /// (`reached(w)`). Returns an exposed vertex reached (an augmenting path ends there), or -1.
  template <class Policy>
  int grow(int root, Policy& policy) {
    root_ = root;
    queue_.clear();
    make_even(root, policy);
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const int v = queue_[head];
      if (policy.stop(v)) return -1;
      for (std::size_t k = start[v]; k < start[v + 1]; ++k) {
        const int to = nbr[k];
        if (policy.skip(k, to) || mate(v) == to || find(v) == find(to)) continue;
        if (even_[to]) {
          shrink(v, to, policy);
        } else if (parent_[to] < 0) {
          parent_[to] = v;
          touched_.push_back(to);
          if (mate(to) < 0) return to;
          make_even(mate(to), policy);
        }
      }
    }
    return -1;
  }

  /// Exchanges the matching along the path from the root to the exposed vertex `to`.
  void augment(int to) {
    for (int v = to; v >= 0;) {
      const int p = parent_[v], next = mate(p);
      mate_[v] = p;
      mate_[p] = v;
      v = next;
    }
  }

  /// Calls edge(x, y) for the non-matching edges of the even alternating path from w to the root.
  template <class Edge>
  void path_to_root(int w, Edge edge) const {
    for (std::size_t steps = 0; w != root_; ++steps) {
      if (steps > parent_.size()) throw std::logic_error("BlossomSearch: broken alternating path");
      const int x = mate(w);
      edge(x, parent_[x]);
      w = parent_[x];
    }
  }

  bool even(int v) const { return even_[v]; }
  bool odd(int v) const { return !even_[v] && parent_[v] >= 0; }
  const std::vector<int>& touched() const { return touched_; }

  /// Forgets the last search.
  void clear() {
    for (int v : touched_) {
      parent_[v] = -1;
      even_[v] = 0;
      base_[v] = v;
    }
    touched_.clear();
  }

  std::vector<std::size_t> start;  // the graph in CSR form
  std::vector<int> nbr;

 private:
  int mate(int v) const { return v == root_ ? -1 : mate_[v]; }

  int find(int v) {
    int top = v;
    while (base_[top] != top) top = base_[top];
    while (base_[v] != top) {
      const int next = base_[v];
      base_[v] = top;
      v = next;
    }
    return top;
  }

  template <class Policy>
  void make_even(int w, Policy& policy) {
    even_[w] = 1;
    touched_.push_back(w);
    queue_.push_back(w);
    policy.reached(w);
  }

  /// The first base on both tree paths up from a and b, walking the two alternately so that
  /// the cost is that of the blossom found, not of the depth of the tree.
  int lowest_common_base(int a, int b) {
    ++clock_;
    a = find(a), b = find(b);
    for (;;) {
      if (a >= 0) {
        if (stamp_[a] == clock_) return a;
        stamp_[a] = clock_;
        a = mate(a) < 0 ? -1 : find(parent_[mate(a)]);
      }
      std::swap(a, b);
    }
  }

  /// Points the even vertices on the path from v up to base b across the bridge, collecting
  /// the bases and the odd vertices that join the blossom.
  void mark_path(int v, int b, int child) {
    while (find(v) != b) {
      const int w = mate(v);
      joined_.push_back(find(v));
      joined_.push_back(find(w));
      if (!even_[w]) odd_joined_.push_back(w);
      parent_[v] = child;
      child = w;
      v = parent_[w];
    }
  }

  /// The edge v-to closes a blossom: its odd vertices become even. Bases merge only after
  /// both paths are marked, as the walks compare bases with b.
  template <class Policy>
  void shrink(int v, int to, Policy& policy) {
    const int b = lowest_common_base(v, to);
    joined_.clear();
    odd_joined_.clear();
    mark_path(v, b, to);
    mark_path(to, b, v);
    for (int x : joined_)
      if (x != b) base_[x] = b;
    for (int x : odd_joined_)
      if (!even_[x]) make_even(x, policy);
  }

  std::vector<int>& mate_;
  int root_ = -1;
  std::vector<int> parent_, base_;
  std::vector<char> even_;
  std::vector<int> queue_, touched_, joined_, odd_joined_;
  std::vector<unsigned> stamp_;
  unsigned clock_ = 0;
};

/// A maximum matching: greedy (lowest-degree partner first), then augmenting searches.
std::vector<int> maximum_matching(const GraphPattern& g) {
  std::vector<int> mate(static_cast<std::size_t>(g.n), -1);
  for (int v = 0; v < g.n; ++v) {
    if (mate[v] >= 0) continue;
    int best = -1;
    for (int w : g.adj[v])
      if (mate[w] < 0 && (best < 0 || g.adj[w].size() < g.adj[best].size())) best = w;
    if (best >= 0) mate[v] = best, mate[best] = v;
  }
  struct Policy {
    std::vector<char> deleted;
    bool skip(std::size_t, int to) const { return deleted[to]; }
    bool stop(int) const { return false; }
    void reached(int) const {}
  } policy{std::vector<char>(static_cast<std::size_t>(g.n), 0)};
  BlossomSearch search(g, mate);
  for (int r = 0; r < g.n; ++r) {
    if (mate[r] >= 0 || policy.deleted[r]) continue;
    const int end = search.grow(r, policy);
    if (end >= 0) search.augment(end);
    else
      for (int v : search.touched()) policy.deleted[v] = 1;  // a Hungarian tree
    search.clear();
  }
  return mate;
}

/// Boost's last search on a maximum matching: its odd labels are A(G).
std::vector<int> gallai_edmonds_barrier(const GraphPattern& g, std::vector<int>& mate) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  Graph bg(static_cast<std::size_t>(g.n));
  for (int v = 0; v < g.n; ++v)
    for (int w : g.adj[v])
      if (v < w) boost::add_edge(static_cast<std::size_t>(v), static_cast<std::size_t>(w), bg);
  const Vertex none = boost::graph_traits<Graph>::null_vertex();
  std::vector<Vertex> boost_mate(static_cast<std::size_t>(g.n));
  for (int v = 0; v < g.n; ++v) boost_mate[v] = mate[v] < 0 ? none : static_cast<Vertex>(mate[v]);
  const auto index = boost::get(boost::vertex_index, bg);
  boost::edmonds_augmenting_path_finder<Graph, Vertex*, decltype(index)> augmentor(bg, boost_mate.data(), index);
  while (augmentor.augment_matching()) {
  }
  augmentor.get_current_matching(boost_mate.data());
  for (int v = 0; v < g.n; ++v) mate[v] = boost_mate[v] == none ? -1 : static_cast<int>(boost_mate[v]);
  std::vector<int> state(static_cast<std::size_t>(g.n));
  augmentor.get_vertex_state_map(state.data());
  std::vector<int> barrier;
  for (int v = 0; v < g.n; ++v)
    if (state[v] == boost::graph::detail::V_ODD) barrier.push_back(v);
  return barrier;
}

/// Odd components of g without `removed` (counted, so that the witness holds by construction).
int odd_components(const GraphPattern& g, const std::vector<int>& removed) {
  std::vector<char> seen(static_cast<std::size_t>(g.n), 0);
  for (int v : removed) seen[v] = 1;
  std::vector<int> stack;
  int odd = 0;
  for (int s = 0; s < g.n; ++s) {
    if (seen[s]) continue;
    seen[s] = 1;
    stack.assign(1, s);
    int size = 0;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      ++size;
      for (int w : g.adj[v])
        if (!seen[w]) seen[w] = 1, stack.push_back(w);
    }
    odd += size & 1;
  }
  return odd;
}

enum : unsigned char { kUnknown = 0, kAllowed = 1, kDead = 2 };

/// Decides every edge, one search per vertex with undecided edges (see the top of the file).
class DeadEdgeFinder {
 public:
  DeadEdgeFinder(const GraphPattern& g, const std::vector<int>& mate, double budget)
      : mate_(mate), search_(g, mate_), budget_(budget) {
    state_.assign(search_.nbr.size(), kUnknown);
    target_.assign(static_cast<std::size_t>(g.n), 0);
    for (int v = 0; v < g.n; ++v) set(v, mate_[v], kAllowed);
  }

  DeadEdges run() {
    DeadEdges out;
    local_rules();
    const int n = static_cast<int>(mate_.size());
    for (u_ = 0; u_ < n && out.complete; ++u_) {
      targets_ = 0;
      for (std::size_t k = search_.start[u_]; k < search_.start[u_ + 1]; ++k)
        if (state_[k] == kUnknown) target_[search_.nbr[k]] = 1, ++targets_;
      if (targets_ == 0) continue;
      search_.grow(mate_[u_], *this);
      if (visits_ > budget_) out.complete = false;
      else if (targets_ > 0) mark_barrier();
      search_.clear();
      for (std::size_t k = search_.start[u_]; k < search_.start[u_ + 1]; ++k) target_[search_.nbr[k]] = 0;
    }
    for (int u = 0; u < n; ++u)
      for (std::size_t k = search_.start[u]; k < search_.start[u + 1]; ++k)
        if (state_[k] == kDead && u < search_.nbr[k]) out.edges.push_back({u, search_.nbr[k]});
    return out;
  }

  // The policy of the search from M(u) in G - u.
  bool skip(std::size_t slot, int to) const { return to == u_ || state_[slot] == kDead; }
  bool stop(int v) {
    visits_ += static_cast<double>(search_.start[v + 1] - search_.start[v]);
    return targets_ == 0 || visits_ > budget_;
  }
  void reached(int w) {
    if (!target_[w]) return;
    target_[w] = 0;
    --targets_;
    set(u_, w, kAllowed);
    search_.path_to_root(w, [&](int x, int y) { set(x, y, kAllowed); });
  }

 private:
  std::size_t slot(int v, int w) const {
    const auto first = search_.nbr.begin() + static_cast<std::ptrdiff_t>(search_.start[v]);
    const auto last = search_.nbr.begin() + static_cast<std::ptrdiff_t>(search_.start[v + 1]);
    return static_cast<std::size_t>(std::lower_bound(first, last, w) - search_.nbr.begin());
  }
  void set(int v, int w, unsigned char s) { state_[slot(v, w)] = state_[slot(w, v)] = s; }

  /// The barriers that a vertex of low degree makes, found without searching; degrees count
  /// the edges not known to be dead, and each dead edge found may lower two of them:
  ///  - a vertex w with one edge wu: {u} is a barrier ({w} is an odd component of G - u), so
  ///    every other edge at u is dead;
  ///  - a vertex w with two edges wu, wv: {u, v} is a barrier, so the edge uv is dead.
  void local_rules() {
    const int n = static_cast<int>(mate_.size());
    std::vector<int> degree(static_cast<std::size_t>(n)), queue;
    for (int v = 0; v < n; ++v) {
      degree[v] = static_cast<int>(search_.start[v + 1] - search_.start[v]);
      if (degree[v] <= 2) queue.push_back(v);
    }
    const auto kill = [&](int x, int y) {
      set(x, y, kDead);
      for (int z : {x, y})
        if (--degree[z] <= 2) queue.push_back(z);
    };
    const auto live = [&](int v, int skip) {  // the first edge at v not dead and not to `skip`
      for (std::size_t k = search_.start[v]; k < search_.start[v + 1]; ++k)
        if (state_[k] != kDead && search_.nbr[k] != skip) return search_.nbr[k];
      return -1;
    };
    while (!queue.empty()) {
      const int w = queue.back();
      queue.pop_back();
      if (degree[w] == 1) {
        const int u = live(w, -1);
        for (std::size_t k = search_.start[u]; k < search_.start[u + 1]; ++k)
          if (state_[k] != kDead && search_.nbr[k] != w) kill(u, search_.nbr[k]);
      } else if (degree[w] == 2) {
        const int u = live(w, -1), v = live(w, u);
        const std::size_t k = slot(u, v);
        if (k < search_.start[u + 1] && search_.nbr[k] == v && state_[k] != kDead) kill(u, v);
      }
    }
  }

  /// After a search to the end: the undecided edges at u, and those inside the barrier
  /// {u} + odd vertices or from it to an unreached vertex, are dead.
  void mark_barrier() {
    const auto unreached = [&](int v) { return v != u_ && !search_.even(v) && !search_.odd(v); };
    for (std::size_t k = search_.start[u_]; k < search_.start[u_ + 1]; ++k)
      if (state_[k] == kUnknown) set(u_, search_.nbr[k], kDead);
    for (int x : search_.touched()) {
      if (!search_.odd(x)) continue;
      visits_ += static_cast<double>(search_.start[x + 1] - search_.start[x]);
      for (std::size_t k = search_.start[x]; k < search_.start[x + 1]; ++k) {
        const int y = search_.nbr[k];
        if (state_[k] == kUnknown && (y == u_ || search_.odd(y) || unreached(y))) set(x, y, kDead);
      }
    }
  }

  std::vector<int> mate_;
  BlossomSearch search_;
  double budget_, visits_ = 0;
  std::vector<unsigned char> state_;  // per adjacency slot
  std::vector<char> target_;          // the undecided neighbours of u
  int u_ = 0, targets_ = 0;
};

}  // namespace

GraphMatching edmonds_matching(const GraphPattern& g) {
  GraphMatching m;
  m.mate = maximum_matching(g);
  if (std::find(m.mate.begin(), m.mate.end(), -1) != m.mate.end()) {
    m.barrier = gallai_edmonds_barrier(g, m.mate);
    m.odd_components = odd_components(g, m.barrier);
  }
  for (int v = 0; v < g.n; ++v) m.size += m.mate[v] > v;
  return m;
}

DeadEdges edges_in_no_perfect_matching(const GraphPattern& g, const GraphMatching& m, double budget) {
  if (static_cast<int>(m.mate.size()) != g.n || !m.perfect())
    throw std::invalid_argument("edges_in_no_perfect_matching needs a perfect matching of the graph");
  for (int v = 0; v < g.n; ++v) {
    const int w = m.mate[v];
    if (w < 0 || w >= g.n || m.mate[w] != v || !std::binary_search(g.adj[v].begin(), g.adj[v].end(), w))
      throw std::invalid_argument("edges_in_no_perfect_matching: mate is not a perfect matching of the graph");
  }
  if (budget < 0) {
    double slots = 0;
    for (const auto& list : g.adj) slots += static_cast<double>(list.size());
    budget = std::max(kDeadEdgeVisitsFloor, kDeadEdgeVisitsPerSlot * slots);
  }
  return DeadEdgeFinder(g, m.mate, budget).run();
}

}  // namespace matchcount
