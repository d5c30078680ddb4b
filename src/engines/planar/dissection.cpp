// The nested-dissection plan (dissection.hpp): separators from breadth-first levels, the tree
// of fronts, their boundaries and where every entry and every Schur complement lands.
#include "engines/planar/dissection.hpp"

#include <algorithm>
#include <numeric>

namespace matchcount::engines::planar {
namespace {

/// Components of at most this many vertices are one front, not dissected further: their
/// fronts are small, and a separator of a few vertices saves less than a node costs.
constexpr int kLeaf = 16;

/// The symmetric pattern without its diagonal, as adjacency lists (CSR).
struct Graph {
  std::vector<int> start, adj;
  int degree(int v) const { return start[std::size_t(v) + 1] - start[std::size_t(v)]; }
};

Graph symmetric_graph(int n, const std::vector<std::pair<int, int>>& rc) {
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(2 * rc.size());
  for (auto [r, c] : rc)
    if (r != c) arcs.emplace_back(r, c), arcs.emplace_back(c, r);
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  Graph g;
  g.start.assign(std::size_t(n) + 1, 0);
  for (auto [u, v] : arcs) ++g.start[std::size_t(u) + 1], g.adj.push_back(v);
  std::partial_sum(g.start.begin(), g.start.end(), g.start.begin());
  return g;
}

/// The separator tree: nodes in postorder, each with its own vertices (which take
/// consecutive positions) and its children.
struct Tree {
  std::vector<int> pos;                  // vertex -> elimination position
  std::vector<std::vector<int>> pivots;  // node -> its vertices
  std::vector<std::vector<int>> kids;    // node -> its children
};

/// Recursive dissection: nodes are numbered as they complete, children first (postorder),
/// and their vertices take the next positions then.
class Builder {
 public:
  Builder(const Graph& g, int n) : g_(g), stamp_(std::size_t(n), 0), level_(std::size_t(n), 0) {
    tree_.pos.assign(std::size_t(n), -1);
  }

  /// Every component of the graph as a tree of its own.
  Tree all() {
    std::fill(stamp_.begin(), stamp_.end(), 1);  // 1: not yet in a tree (build's stamps start at 8)
    std::vector<int> comp;
    for (int v = 0; v < int(tree_.pos.size()); ++v)
      if (stamp_[std::size_t(v)] == 1) {
        collect(v, 1, comp);
        build(comp);
      }
    return std::move(tree_);
  }

 private:
  Tree tree_;
  const Graph& g_;
  std::vector<int> stamp_, level_;
  int fresh_ = 4;

  /// The component of v among the vertices of stamp s, into `out`; their stamp becomes s - 1.
  void collect(int v, int s, std::vector<int>& out) {
    out.assign(1, v);
    stamp_[std::size_t(v)] = s - 1;  // visited
    for (std::size_t i = 0; i < out.size(); ++i)
      for (int e = g_.start[std::size_t(out[i])]; e < g_.start[std::size_t(out[i]) + 1]; ++e) {
        const int w = g_.adj[std::size_t(e)];
        if (stamp_[std::size_t(w)] == s) stamp_[std::size_t(w)] = s - 1, out.push_back(w);
      }
  }
  /// Breadth-first levels from `root` over the vertices of stamp s (their stamp becomes s + 1);
  /// `order` in visiting order, so levels ascend. Returns the last level.
  int levels(int root, int s, std::vector<int>& order) {
    order.assign(1, root);
    stamp_[std::size_t(root)] = s + 1, level_[std::size_t(root)] = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int u = order[i];
      for (int e = g_.start[std::size_t(u)]; e < g_.start[std::size_t(u) + 1]; ++e) {
        const int w = g_.adj[std::size_t(e)];
        if (stamp_[std::size_t(w)] != s) continue;
        stamp_[std::size_t(w)] = s + 1, level_[std::size_t(w)] = level_[std::size_t(u)] + 1;
        order.push_back(w);
      }
    }
    for (int v : order) stamp_[std::size_t(v)] = s;
    return level_[std::size_t(order.back())];
  }
  int finish(std::vector<int> own, std::vector<int> children) {
    for (int v : own) tree_.pos[std::size_t(v)] = next_++;
    tree_.pivots.push_back(std::move(own));
    tree_.kids.push_back(std::move(children));
    return int(tree_.pivots.size()) - 1;
  }
  int next_ = 0;

  /// A node for the connected vertex set `comp` and its subtree.
  int build(std::vector<int> comp) {
    if (comp.size() <= std::size_t(kLeaf)) return finish(std::move(comp), {});
    fresh_ += 4;
    const int s = fresh_;  // stamps: s in comp, s + 1 levelled, s - 1 collected, 0 free
    for (int v : comp) stamp_[std::size_t(v)] = s;
    // A pseudo-peripheral root (George-Liu): restart from a least-degree vertex of the last
    // level while the depth grows, so that levels are long thin slices.
    int root = *std::min_element(comp.begin(), comp.end(), [&](int a, int b) { return g_.degree(a) < g_.degree(b); });
    std::vector<int> order;
    int depth = levels(root, s, order);
    for (int round = 0; round < 6; ++round) {
      int best = order.back();
      for (auto it = order.rbegin(); it != order.rend() && level_[std::size_t(*it)] == depth; ++it)
        if (g_.degree(*it) < g_.degree(best)) best = *it;
      std::vector<int> again;
      const int d = levels(best, s, again);
      if (d <= depth) break;
      root = best, depth = d, order.swap(again);
    }
    // The level of the median vertex, short of the last so that both sides are nonempty; its
    // vertices without a neighbour one level further do not separate and join the near side.
    const int cut = std::min(level_[std::size_t(order[order.size() / 2])], depth - 1);
    std::vector<int> sep;
    for (int v : order) {
      if (level_[std::size_t(v)] != cut) continue;
      bool far = false;
      for (int e = g_.start[std::size_t(v)]; e < g_.start[std::size_t(v) + 1] && !far; ++e) {
        const int w = g_.adj[std::size_t(e)];
        far = stamp_[std::size_t(w)] == s && level_[std::size_t(w)] == cut + 1;
      }
      if (far) sep.push_back(v);
    }
    for (int v : sep) stamp_[std::size_t(v)] = 0;
    std::vector<std::vector<int>> parts;
    for (int v : order)
      if (stamp_[std::size_t(v)] == s) {
        parts.emplace_back();
        collect(v, s, parts.back());
      }
    for (int v : comp)
      if (stamp_[std::size_t(v)] != 0) stamp_[std::size_t(v)] = 0;
    comp = {};
    order = {};
    std::vector<int> children;
    for (auto& part : parts) children.push_back(build(std::move(part)));
    return finish(std::move(sep), std::move(children));
  }
};

}  // namespace

namespace {

/// The separator tree of the graph with each pair {v, mate[v]} contracted to one vertex (a
/// minor of a planar graph is planar), its pairs then expanded: v and its mate take consecutive
/// positions in the same node.
Tree paired(int n, const std::vector<std::pair<int, int>>& rc, const std::vector<int>& mate) {
  std::vector<int> pair_of(std::size_t(n), -1), first;
  for (int v = 0; v < n; ++v)
    if (pair_of[std::size_t(v)] < 0) {
      pair_of[std::size_t(v)] = pair_of[std::size_t(mate[std::size_t(v)])] = int(first.size());
      first.push_back(v);
    }
  const int pairs = int(first.size());
  std::vector<std::pair<int, int>> contracted;
  contracted.reserve(rc.size());
  for (auto [r, c] : rc) contracted.emplace_back(pair_of[std::size_t(r)], pair_of[std::size_t(c)]);
  const Tree small = Builder(symmetric_graph(pairs, contracted), pairs).all();
  Tree b;
  b.pos.resize(std::size_t(n));
  b.pivots.resize(small.pivots.size());
  b.kids = small.kids;
  for (std::size_t t = 0; t < small.pivots.size(); ++t)
    for (int q : small.pivots[t]) {
      const int v = first[std::size_t(q)];
      b.pivots[t].push_back(v), b.pivots[t].push_back(mate[std::size_t(v)]);
    }
  for (int q = 0; q < pairs; ++q) {
    const int v = first[std::size_t(q)], at = 2 * small.pos[std::size_t(q)];
    b.pos[std::size_t(v)] = at, b.pos[std::size_t(mate[std::size_t(v)])] = at + 1;
  }
  return b;
}

}  // namespace

Dissection dissect(int n, const std::vector<std::pair<int, int>>& rc, const std::vector<int>* mate) {
  Dissection d;
  d.n = n;
  const Graph g = symmetric_graph(n, rc);
  const Tree b = mate ? paired(n, rc, *mate) : Builder(g, n).all();
  d.pos = b.pos;
  const int nodes = int(b.pivots.size());
  std::vector<int> node_of(static_cast<std::size_t>(n));
  d.nodes.resize(static_cast<std::size_t>(nodes));
  for (int t = 0; t < nodes; ++t) {
    Dissection::Node& x = d.nodes[std::size_t(t)];
    x.begin = b.pivots[std::size_t(t)].empty() ? 0 : b.pos[std::size_t(b.pivots[std::size_t(t)][0])];
    x.end = x.begin + int(b.pivots[std::size_t(t)].size());
    for (int v : b.pivots[std::size_t(t)]) node_of[std::size_t(v)] = t;
    x.child = int(d.children.size()), x.child_len = int(b.kids[std::size_t(t)].size());
    for (int c : b.kids[std::size_t(t)]) d.children.push_back(c), d.nodes[std::size_t(c)].parent = t;
  }
  // Entries go to the node of their earlier vertex; the other vertex is that node's own or in
  // its boundary.
  std::vector<std::vector<std::pair<int, int>>> per_node(static_cast<std::size_t>(nodes));
  for (std::size_t k = 0; k < rc.size(); ++k) {
    const auto [r, c] = rc[k];
    const int first = b.pos[std::size_t(r)] < b.pos[std::size_t(c)] ? r : c;
    per_node[std::size_t(node_of[std::size_t(first)])].emplace_back(int(k), 0);
  }
  // Boundaries: vertices after the node next to its subtree, that is next to its own vertices
  // or in a child's boundary (children come first: postorder), each sorted by position.
  std::vector<std::vector<int>> bnd(static_cast<std::size_t>(nodes));
  std::vector<int> mark(std::size_t(n), -1), local(std::size_t(n), 0);
  for (int t = 0; t < nodes; ++t) {
    Dissection::Node& x = d.nodes[std::size_t(t)];
    std::vector<int>& out = bnd[std::size_t(t)];
    auto add = [&](int w) {
      if (b.pos[std::size_t(w)] >= x.end && mark[std::size_t(w)] != t) mark[std::size_t(w)] = t, out.push_back(w);
    };
    for (int v : b.pivots[std::size_t(t)])
      for (int e = g.start[std::size_t(v)]; e < g.start[std::size_t(v) + 1]; ++e) add(g.adj[std::size_t(e)]);
    for (int k = 0; k < x.child_len; ++k)
      for (int w : bnd[std::size_t(d.children[std::size_t(x.child + k)])]) add(w);
    std::sort(out.begin(), out.end(), [&](int u, int v) { return b.pos[std::size_t(u)] < b.pos[std::size_t(v)]; });
    x.bnd_len = int(out.size());
    // Indices in this front: own vertices first, then the boundary.
    const int s = x.end - x.begin, S = Dissection::stride(x.front());
    for (int v : b.pivots[std::size_t(t)]) local[std::size_t(v)] = b.pos[std::size_t(v)] - x.begin;
    for (std::size_t i = 0; i < out.size(); ++i) local[std::size_t(out[i])] = s + int(i);
    d.max_front = std::max(d.max_front, x.front());
    // Offsets are ints: a front of more than 46,340 rows (over 16 GiB, beyond any limit the
    // engines allow, which refuse it from scratch_bytes) gets none.
    for (auto& [k, off] : per_node[std::size_t(t)])
      off = S > 46340 ? 0 : local[std::size_t(rc[std::size_t(k)].first)] * S + local[std::size_t(rc[std::size_t(k)].second)];
    for (int k = 0; k < x.child_len; ++k) {
      const int c = d.children[std::size_t(x.child + k)];
      d.nodes[std::size_t(c)].bnd = int(d.rel.size());
      for (int w : bnd[std::size_t(c)]) d.rel.push_back(local[std::size_t(w)]);
      bnd[std::size_t(c)] = {};
    }
  }
  for (int t = 0; t < nodes; ++t) {
    Dissection::Node& x = d.nodes[std::size_t(t)];
    x.entry = int(d.entries.size());
    for (auto e : per_node[std::size_t(t)]) d.entries.push_back(e);
    x.entry_end = int(d.entries.size());
  }
  // Work and the Schur complements' stack, in the order det_mod_dissection runs.
  double stack = 0;
  for (const Dissection::Node& x : d.nodes) {
    const double s = x.end - x.begin, F = x.front(), m = x.bnd_len;
    double work = F * Dissection::stride(int(F));  // clearing the front
    for (double k = 0; k < s; ++k) work += (F - k - 1) * (F - k - 1);
    for (int k = 0; k < x.child_len; ++k) {
      const double mc = d.nodes[std::size_t(d.children[std::size_t(x.child + k)])].bnd_len;
      work += mc * mc, stack -= mc * mc;
    }
    stack += m * m;
    d.stack_peak = std::max(d.stack_peak, stack);
    d.updates += work;
  }
  return d;
}

}  // namespace matchcount::engines::planar
