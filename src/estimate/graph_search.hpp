// The live-edge search of the "+" graph samplers (graph_path.hpp), for the host and the
// device alike: which remaining neighbours u of the vertex v to cover leave G - v - u a
// perfect matching. A sample keeps a perfect matching M of the remaining graph; a cheap test
// (two alternating trees joined by an edge) proves most candidates, and Edmonds' search from
// M(v), with blossoms, decides the rest. Kept apart from the path that draws the samples:
// the search does not depend on the sampling method.
#pragma once

#include <cstddef>

#include "estimate/sample_path.hpp"

namespace matchcount::estimate {

/// A symmetric block as adjacency lists with weights (no diagonal), wherever it lives.
struct GraphView {
  int n = 0;
  int max_degree = 0;
  const int* start = nullptr;  // n + 1 offsets into adj and val
  const int* adj = nullptr;
  const double* val = nullptr;
  /// Symmetric Sinkhorn scaling of the whole graph (scaling methods start from it).
  const double* scale0 = nullptr;
  /// A perfect matching, vertex -> partner ("+" methods); null when the graph has none.
  const int* mate0 = nullptr;
  /// Bethe scaling (SampleParams::bethe): the slot of each edge's reverse (adj[rev[k]] is the
  /// vertex whose list holds k), and the belief-propagation messages of the whole graph (slot
  /// k of v's list: the message from adj[k] to v); null otherwise.
  const int* rev = nullptr;
  const double* msg0 = nullptr;
};

/// A graph sample's scratch arrays (see Workspace in sample_path.hpp for the layout rule).
struct GraphWorkspace {
  Strided<int> deg;       // remaining neighbours of each vertex
  Strided<int> flags;     // kGone, the search's kEven, kBlossom, kTouched, kWanted, certify's kOuter2, kInner2
  Strided<int> next, prev, head;  // "+": remaining vertices in lists by degree
  Strided<int> mate, parent, base, mark, queue, touched;  // "+": the matching and its search
  Strided<int> back;      // "+": the cheap test's tree from the candidate (certify)
  Strided<int> ok;        // "+": whether edge k of the vertex to cover is possible
  Strided<int> region;    // scaling methods: the vertices a local rescale sweeps
  Strided<double> scale;  // scaling methods (Bethe scaling: each vertex's term of the Bethe free energy)
  Strided<double> msg;    // Bethe scaling: the message into each adjacency slot (GraphView::msg0)

  static constexpr std::size_t ints(int n, int max_degree, Method m) {
    return (is_plus(m) ? 12 * std::size_t(n) + 2 * std::size_t(max_degree) + 1 : 2 * std::size_t(n)) +
           (is_scaling(m) ? std::size_t(n) : 0);
  }
  /// `edges`: the adjacency slots (2 x edges) for the Bethe scaling's messages, else 0.
  static constexpr std::size_t doubles(int n, Method m, std::size_t edges = 0) {
    return is_scaling(m) ? std::size_t(n) + edges : 0;
  }
  MC_HD static GraphWorkspace bind(int* ib, double* db, std::size_t stride, int n, int max_degree, Method m,
                                   std::size_t edges = 0) {
    GraphWorkspace w;
    const std::size_t un = static_cast<std::size_t>(n);
    std::size_t at = 0;
    auto take = [&](std::size_t count) {
      Strided<int> a{ib + at * stride, stride};
      at += count;
      return a;
    };
    w.deg = take(un), w.flags = take(un);
    if (is_plus(m)) {
      w.next = take(un), w.prev = take(un), w.mate = take(un), w.parent = take(un), w.base = take(un);
      w.mark = take(un), w.queue = take(un), w.touched = take(un), w.back = take(un);
      w.head = take(std::size_t(max_degree) + 1);
      w.ok = take(std::size_t(max_degree));
    }
    if (is_scaling(m)) w.region = take(un), w.scale = {db, stride};
    if (is_scaling(m) && edges > 0) w.msg = {db + un * stride, stride};
    return w;
  }
};

/// The graph, a sample's scratch arrays and the "+" methods' live-edge search over them.
class GraphSearch {
 public:
  static constexpr int kGone = 1, kEven = 2, kBlossom = 4, kTouched = 8, kWanted = 16, kOuter2 = 32, kInner2 = 64,
                       kRegion = 128;

  MC_HD GraphSearch(const GraphView& g, const GraphWorkspace& w) : g_(g), w_(w) {}
  /// false: the full search only (tests compare the two; the live sets, and so the samples,
  /// are the same).
  MC_HD void use_cheap_test(bool on) { cheap_ = on; }
  /// Steps whose candidates the cheap test settled, and steps that fell back to the full search.
  MC_HD int certified_steps() const { return certified_; }
  MC_HD int full_searches() const { return full_; }
  /// The sample's current perfect matching of the remaining graph ("+"; -1 for covered vertices).
  MC_HD int partner(int x) const { return w_.mate[x]; }
  MC_HD void rebind(const GraphWorkspace& w) { w_ = w; }

 protected:

  /// Marks ok[k] for every remaining neighbour u of v with a perfect matching of G - v - u,
  /// and leaves v out, M(v) unmatched and the search standing for assign().
  /// In G - v with M - vM(v), M(v) is the only unmatched vertex; G - v - u has a perfect
  /// matching iff some maximum matching of G - v misses u, iff u is even (outer) in Edmonds'
  /// search from M(v) (Gallai-Edmonds). One search answers for every u, and stops once every
  /// candidate is found even (only the dead candidates make it explore all it can reach).
  MC_HD void mark_possible(int v) {
    const int a = w_.mate[v];
    w_.flags[v] |= kGone;
    w_.mate[a] = -1;
    root_ = a, shown_ = -1;
    // First the cheap test: a is always possible; every other candidate proven by a path.
    bool cheap = cheap_;
    for (int k = g_.start[v]; cheap && k < g_.start[v + 1]; ++k) {
      const int u = g_.adj[k];
      if (!(w_.flags[u] & kGone) && u != a) reset_search(), cheap = certify(a, u);
    }
    if (cheap) {
      for (int k = g_.start[v]; k < g_.start[v + 1]; ++k) w_.ok[k - g_.start[v]] = !(w_.flags[g_.adj[k]] & kGone);
      ++certified_;
      return;
    }
    reset_search();
    shown_ = -1, ++full_;
    int wanted = 0;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
      if (!(w_.flags[g_.adj[k]] & kGone)) w_.flags[g_.adj[k]] |= kWanted, ++wanted;
    search(a, wanted);
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k) {
      const int u = g_.adj[k];
      w_.ok[k - g_.start[v]] = !(w_.flags[u] & kGone) && (w_.flags[u] & kEven);
      w_.flags[u] &= ~kWanted;
    }
  }
  /// The cheap test: is u possible (u != root, matched)? True when it finds an even alternating
  /// path from the root to u, i.e. a perfect matching of G - v - u (flip M along it): two
  /// alternating trees without blossoms, from the root (even vertices: kEven, odd ones have a
  /// parent) and back from u over M(u) (kOuter2 vertices end such a path with a matching edge,
  /// linked by back[]), the smaller grown by one vertex at a time. A non-matching edge from an
  /// even vertex to an outer one joins them into a walk from the root to u; it proves u when
  /// the two tree paths share no vertex. On an expander each tree needs about sqrt(n) vertices
  /// where the one-sided search needs a share of n. False (proves nothing) when the trees run
  /// out without a disjoint meeting (a dead candidate, or a path that needs a blossom); then
  /// the full search decides. No budget: a capped tree leaves many more steps to the full
  /// search and costs more overall; uncapped it falls back only where a candidate is dead or
  /// needs a blossom (docs/benchmarks.md).
  /// Both queues live in `queue` (the root's from the front, u's from the back): a tree with
  /// one unmatched root has at most (r + 1) / 2 even vertices of r, u's at most r / 2 outer
  /// ones, so the two never meet.
  MC_HD bool certify(int root, int u) {
    const int m = w_.mate[u];
    int h1 = 0, t1 = 0, h2 = g_.n - 1, t2 = g_.n - 1, n1 = 1, n2 = 2;
    touch(root), touch(u), touch(m);
    w_.flags[root] |= kEven, w_.flags[u] |= kInner2, w_.flags[m] |= kOuter2;
    w_.back[m] = u;
    w_.queue[t1++] = root, w_.queue[t2--] = m;
    while (h1 < t1 || h2 > t2) {
      const bool from_root = h1 < t1 && (h2 == t2 || n1 <= n2);
      const int x = from_root ? w_.queue[h1++] : w_.queue[h2--];
      for (int k = g_.start[x]; k < g_.start[x + 1]; ++k) {
        const int y = g_.adj[k];
        if ((w_.flags[y] & kGone) || y == w_.mate[x]) continue;
        if (from_root) {
          if ((w_.flags[y] & kOuter2) && meet(x, y, u)) return true;
          if ((w_.flags[y] & kEven) || w_.parent[y] >= 0 || w_.mate[y] < 0) continue;
          const int z = w_.mate[y];
          w_.parent[y] = x, w_.flags[z] |= kEven, w_.queue[t1++] = z, n1 += 2;
          touch(y), touch(z);
        } else {
          if ((w_.flags[y] & kEven) && meet(y, x, u)) return true;
          if ((w_.flags[y] & (kInner2 | kOuter2)) || w_.mate[y] < 0) continue;
          const int z = w_.mate[y];
          w_.back[y] = x, w_.back[z] = y, w_.flags[y] |= kInner2, w_.flags[z] |= kOuter2;
          w_.queue[t2--] = z, n2 += 2;
          touch(y), touch(z);
        }
      }
    }
    return false;
  }
  /// Even y (root's tree) and outer w (u's tree) joined by a non-matching edge: true, and the
  /// path kept for splice(), when the two tree paths are disjoint.
  MC_HD bool meet(int y, int w, int u) {
    ++stamp_;
    for (int x = y;;) {  // y, M(y), parent(M(y)), ... up to the root
      w_.mark[x] = stamp_;
      const int o = w_.mate[x];
      if (o < 0) break;
      w_.mark[o] = stamp_;
      x = w_.parent[o];
    }
    for (int x = w;; x = w_.back[x]) {
      if (w_.mark[x] == stamp_) return false;
      if (x == u) break;
    }
    shown_ = u, meet_even_ = y, meet_outer_ = w;
    return true;
  }
  /// Turns certify()'s path into parent links as the full search leaves them (each vertex
  /// entered by a non-matching edge points to the even vertex before it), so augment(M(u))
  /// flips M along it.
  MC_HD void splice(int u) {
    for (int x = meet_outer_, e = meet_even_;;) {
      w_.parent[x] = e;
      e = w_.back[x];
      if (e == u) break;
      x = w_.back[e];
    }
  }
  // Edmonds' search from `root` (blossoms contracted by their base; the parent links let every
  // even vertex x reach the root by x, mate[x], parent[mate[x]], ...), touching only the
  // vertices it reaches.
  MC_HD void touch(int x) {
    if (!(w_.flags[x] & kTouched)) w_.flags[x] |= kTouched, w_.touched[ntouched_++] = x;
  }
  MC_HD int lca(int a, int b) {
    ++stamp_;
    for (;;) {
      a = w_.base[a];
      w_.mark[a] = stamp_;
      if (w_.mate[a] < 0) break;
      a = w_.parent[w_.mate[a]];
    }
    for (;;) {
      b = w_.base[b];
      if (w_.mark[b] == stamp_) return b;
      b = w_.parent[w_.mate[b]];
    }
  }
  MC_HD void mark_path(int v, int b, int child) {
    while (w_.base[v] != b) {
      w_.flags[w_.base[v]] |= kBlossom;
      w_.flags[w_.base[w_.mate[v]]] |= kBlossom;
      w_.parent[v] = child;
      child = w_.mate[v];
      v = w_.parent[w_.mate[v]];
    }
  }
  /// Labels x even; false once the last of `wanted` kWanted vertices is.
  MC_HD bool label_even(int x, int& wanted) {
    w_.flags[x] |= kEven;
    return !((w_.flags[x] & kWanted) && --wanted == 0);
  }
  /// Searches from `root`: returns the unmatched vertex reached, or -1 when there is none or
  /// (wanted > 0) once `wanted` vertices marked kWanted are labelled even.
  MC_HD int search(int root, int wanted = 0) {
    ntouched_ = 0;
    int head = 0, tail = 0;
    touch(root);
    if (!label_even(root, wanted)) return -1;
    w_.queue[tail++] = root;
    bool done = false;
    while (head < tail) {
      const int v = w_.queue[head++];
      for (int k = g_.start[v]; k < g_.start[v + 1]; ++k) {
        const int to = g_.adj[k];
        if ((w_.flags[to] & kGone) || w_.base[v] == w_.base[to] || w_.mate[v] == to) continue;
        if (to == root || (w_.mate[to] >= 0 && w_.parent[w_.mate[to]] >= 0)) {  // to is even: a blossom
          const int b = lca(v, to);
          mark_path(v, b, to);
          mark_path(to, b, v);
          for (int i = 0; i < ntouched_; ++i) {
            const int x = w_.touched[i];
            if (!(w_.flags[w_.base[x]] & kBlossom)) continue;
            w_.base[x] = b;
            if (!(w_.flags[x] & kEven)) {
              if (!label_even(x, wanted)) done = true;
              w_.queue[tail++] = x;
            }
          }
          for (int i = 0; i < ntouched_; ++i) w_.flags[w_.touched[i]] &= ~kBlossom;
          if (done) return -1;
        } else if (w_.parent[to] < 0) {
          w_.parent[to] = v;
          touch(to);
          if (w_.mate[to] < 0) return to;
          const int m = w_.mate[to];
          touch(m);
          if (!label_even(m, wanted)) return -1;
          w_.queue[tail++] = m;
        }
      }
    }
    return -1;
  }
  MC_HD void augment(int t) {
    while (t >= 0) {
      const int p = w_.parent[t], next = w_.mate[p];
      w_.mate[t] = p, w_.mate[p] = t;
      t = next;
    }
  }
  MC_HD void reset_search() {
    for (int i = 0; i < ntouched_; ++i) {
      const int x = w_.touched[i];
      w_.parent[x] = -1, w_.base[x] = x;
      w_.flags[x] &= ~(kEven | kBlossom | kTouched | kOuter2 | kInner2);
    }
    ntouched_ = 0;
  }

  GraphView g_;
  GraphWorkspace w_;
  int stamp_ = 0, ntouched_ = 0;
  // The cheap test, its last proven candidate (-1: the full search stands) and path.
  bool cheap_ = true;
  int root_ = -1, shown_ = -1, meet_even_ = -1, meet_outer_ = -1, certified_ = 0, full_ = 0;
};

}  // namespace matchcount::estimate
