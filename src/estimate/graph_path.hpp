// One sample of the sequential estimators of the hafnian of a nonnegative symmetric matrix
// (perfect matchings of a general graph), written for the host and the device alike: no
// allocation, scratch arrays bound from outside (Strided), every random number from the
// sample's own Philox stream, so a sample is a pure function of (seed, block, sample index).
//
// A sample covers the vertices two at a time: vertex v takes a remaining neighbour u with
// probability p_u > 0 on every candidate, and the sample is multiplied by a_vu / p_u. Whatever
// the vertex order and the probabilities (as long as they depend only on the choices made so
// far), E = sum_u p_u (a_vu / p_u) haf(rest) = haf(A) by induction, as for the permanent.
//  - Rasmussen: the lowest remaining vertex, p_u proportional to a_vu.
//  - Scaling: p_u proportional to a_vu d_u, d the symmetric Sinkhorn scaling of the remaining
//    graph (D A D towards doubly stochastic; a few sweeps every `scale_interval` steps).
//  - The "+" variants take the remaining vertex of smallest degree and leave out the edges
//    that lie in no perfect matching of the rest: each sample keeps a perfect matching M of
//    the remaining graph; a neighbour u is possible iff G - v - u has a perfect matching,
//    i.e. iff u is even in Edmonds' search from M(v) in G - v (one search per step, with
//    blossoms, stopping once every candidate is found; reset over the vertices it touched).
//    Taking u != M(v) flips M along the search's even path from M(v) to u. A "+" sample of a
//    graph with a perfect matching never dies. A cheap test (certify) runs first and leaves the
//    search to the steps it cannot settle; the live sets, and so the samples, are the same.
// Every step draws one uniform, also when v has a single candidate (the GPU must match).
#pragma once

#include <cmath>
#include <cstddef>

#include "estimate/philox.hpp"
#include "estimate/sample_path.hpp"
#include "estimate/sample_sums.hpp"

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
};

/// A graph sample's scratch arrays (see Workspace in sample_path.hpp for the layout rule).
struct GraphWorkspace {
  Strided<int> deg;       // remaining neighbours of each vertex
  Strided<int> flags;     // kGone, the search's kEven, kBlossom, kTouched, kWanted, certify's kOuter2, kInner2
  Strided<int> next, prev, head;  // "+": remaining vertices in lists by degree
  Strided<int> mate, parent, base, mark, queue, touched;  // "+": the matching and its search
  Strided<int> back;      // "+": the cheap test's tree from the candidate (certify)
  Strided<int> ok;        // "+": whether edge k of the vertex to cover is possible
  Strided<double> scale;  // scaling methods

  static constexpr std::size_t ints(int n, int max_degree, Method m) {
    return is_plus(m) ? 12 * std::size_t(n) + 2 * std::size_t(max_degree) + 1 : 2 * std::size_t(n);
  }
  static constexpr std::size_t doubles(int n, Method m) { return is_scaling(m) ? std::size_t(n) : 0; }
  MC_HD static GraphWorkspace bind(int* ib, double* db, std::size_t stride, int n, int max_degree, Method m) {
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
    if (is_scaling(m)) w.scale = {db, stride};
    return w;
  }
};

template <Method M>
class GraphPath {
 public:
  static constexpr int kGone = 1, kEven = 2, kBlossom = 4, kTouched = 8, kWanted = 16, kOuter2 = 32, kInner2 = 64;

  MC_HD GraphPath(const GraphView& g, const GraphWorkspace& w, const SampleParams& p) : g_(g), w_(w), p_(p) {}
  /// false: the full search only (tests compare the two; the live sets, and so the samples,
  /// are the same).
  MC_HD void use_cheap_test(bool on) { cheap_ = on; }
  /// Steps whose candidates the cheap test settled, and steps that fell back to the full search.
  MC_HD int certified_steps() const { return certified_; }
  MC_HD int full_searches() const { return full_; }
  /// The sample's current perfect matching of the remaining graph ("+"; -1 for covered vertices).
  MC_HD int partner(int x) const { return w_.mate[x]; }
  MC_HD void rebind(const GraphWorkspace& w) { w_ = w; }

  MC_HD void start() {
    const int n = g_.n;
    covered_ = 0, steps_ = 0, last_scale_ = 0, cursor_ = 0, min_ = 0, stamp_ = 0, dead_ = false;
    certified_ = 0, full_ = 0, shown_ = -1;
    for (int v = 0; v < n; ++v) {
      w_.deg[v] = g_.start[v + 1] - g_.start[v];
      w_.flags[v] = 0;
      dead_ = dead_ || w_.deg[v] == 0;
    }
    if constexpr (is_plus(M)) {
      if (!g_.mate0) dead_ = true;
      for (int d = 0; d <= g_.max_degree; ++d) w_.head[d] = -1;
      for (int v = 0; v < n; ++v) {
        w_.mate[v] = g_.mate0 ? g_.mate0[v] : -1;
        w_.parent[v] = -1, w_.base[v] = v, w_.mark[v] = 0;
        link(v);
      }
    }
    if constexpr (is_scaling(M))
      for (int v = 0; v < n; ++v) w_.scale[v] = g_.scale0[v];
  }

  /// The vertex to cover next (kDone when all are, kDead when the sample is 0, kRescale when
  /// the scaling methods want rescale() first). "+": its possible edges are marked in ok.
  MC_HD Step next() {
    if (dead_) return {kDead};
    if (covered_ == g_.n) return {kDone};
    if constexpr (is_scaling(M))
      if (steps_ - last_scale_ >= p_.scale_interval) return {kRescale};
    int v;
    if constexpr (is_plus(M)) {
      while (w_.head[min_] < 0) ++min_;
      v = w_.head[min_];
      mark_possible(v);
    } else {
      while (w_.flags[cursor_] & kGone) ++cursor_;
      v = cursor_;
    }
    return {v};
  }

  /// Calls f(u, probability, factor) for every candidate partner of v (f returns true to
  /// stop); false when v has none.
  template <class F>
  MC_HD bool for_each_choice(int v, F&& f) const {
    double total = 0.0;
    int count = 0;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
      if (choice(v, k)) total += weight(k), ++count;
    if (count == 0) return false;
    // Scaled weights that under- or overflow fall back to the weights themselves (any
    // positive probabilities keep the estimator unbiased).
    const bool fallback = is_scaling(M) && !(total > 0.0 && total < INFINITY);
    const bool plain = !is_scaling(M) || fallback;
    if (fallback) {
      total = 0.0;
      for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
        if (choice(v, k)) total += g_.val[k];
    }
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k) {
      if (!choice(v, k)) continue;
      const double wk = plain ? g_.val[k] : weight(k);
      if (f(g_.adj[k], wk / total, g_.val[k] * (total / wk))) break;
    }
    return true;
  }

  /// Draws v's partner with a uniform u in [0, 1); col -1 when v has none.
  MC_HD Step draw(int v, double u) const {
    Step s{v, -1, 0.0};
    double acc = 0.0;
    for_each_choice(v, [&](int w, double p, double factor) {
      s.col = w, s.value = factor;  // the last one also catches rounding at the top end
      acc += p;
      return u < acc;
    });
    return s;
  }

  /// Covers v and u by their edge; false when that leaves a vertex with no neighbour.
  MC_HD bool assign(int v, int u) {
    if constexpr (is_plus(M)) {
      // next() left the search from M(v) in G - v standing; u is even in it. Unless u = M(v),
      // M moves along the even path from M(v) to u: flipping it matches M(v) and leaves u out.
      if (w_.mate[u] >= 0) {
        if (shown_ >= 0) {  // the cheap test's path; the search stands for the last candidate only
          if (shown_ != u) reset_search(), certify(root_, u);  // same state: the same path again
          splice(u);
        }
        w_.flags[u] |= kGone;
        augment(w_.mate[u]);
      }
      reset_search();
      w_.mate[v] = w_.mate[u] = -1;
    }
    ++steps_;
    covered_ += 2;
    return remove_pair(v, u);
  }

  /// Symmetric Sinkhorn sweeps over the remaining vertices: d_v <- sqrt(d_v / sum_u a_vu d_u)
  /// (the damped fixed point of d_v sum_u a_vu d_u = 1). A sum that is 0 or not finite leaves
  /// that scale as it was: scales only need to stay positive.
  MC_HD void rescale() {
    for (int it = 0; it < p_.scale_iterations; ++it)
      for (int v = 0; v < g_.n; ++v) {
        if (w_.flags[v] & kGone) continue;
        double s = 0.0;
        for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
          if (!(w_.flags[g_.adj[k]] & kGone)) s += g_.val[k] * w_.scale[g_.adj[k]];
        if (s > 0.0 && s < INFINITY) w_.scale[v] = ::sqrt(w_.scale[v] / s);
      }
    last_scale_ = steps_;
  }

 private:
  MC_HD bool choice(int v, int k) const {
    if (w_.flags[g_.adj[k]] & kGone) return false;
    if constexpr (is_plus(M)) return w_.ok[k - g_.start[v]] != 0;
    return true;
  }
  MC_HD double weight(int k) const {
    if constexpr (is_scaling(M)) return g_.val[k] * w_.scale[g_.adj[k]];
    return g_.val[k];
  }

  /// Takes the covered v and u out; false when one of their remaining neighbours is left
  /// with none.
  MC_HD bool remove_pair(int v, int u) {
    if constexpr (is_plus(M)) unlink(v), unlink(u);
    w_.flags[v] |= kGone, w_.flags[u] |= kGone;
    bool alive = true;
    for (int side = 0; side < 2; ++side) {
      const int x = side == 0 ? v : u;
      for (int k = g_.start[x]; k < g_.start[x + 1]; ++k) {
        const int y = g_.adj[k];
        if (w_.flags[y] & kGone) continue;
        if constexpr (is_plus(M)) unlink(y);
        alive = alive && --w_.deg[y] > 0;
        if constexpr (is_plus(M)) {
          link(y);
          if (w_.deg[y] < min_) min_ = w_.deg[y];
        }
      }
    }
    dead_ = dead_ || !alive;
    return alive;
  }

  // "+": lists of remaining vertices by degree.
  MC_HD void link(int v) {
    const int d = w_.deg[v];
    w_.prev[v] = -1;
    w_.next[v] = w_.head[d];
    if (w_.head[d] >= 0) w_.prev[w_.head[d]] = v;
    w_.head[d] = v;
  }
  MC_HD void unlink(int v) {
    const int d = w_.deg[v];
    if (w_.prev[v] >= 0) w_.next[w_.prev[v]] = w_.next[v];
    else w_.head[d] = w_.next[v];
    if (w_.next[v] >= 0) w_.prev[w_.next[v]] = w_.prev[v];
  }

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
  /// the full search decides. No budget: capped at 8 sqrt(n) vertices the test fell back on 4%
  /// of the steps at n = 10^4 and the sample took 40x longer; uncapped it falls back only where
  /// a candidate is dead or needs a blossom (0.2% to 0.8% of the steps, docs/benchmarks.md).
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
  SampleParams p_;
  int covered_ = 0, steps_ = 0, last_scale_ = 0, cursor_ = 0, min_ = 0, stamp_ = 0, ntouched_ = 0;
  // "+": the cheap test, its last proven candidate (-1: the full search stands) and path.
  bool cheap_ = true;
  int root_ = -1, shown_ = -1, meet_even_ = -1, meet_outer_ = -1, certified_ = 0, full_ = 0;
  bool dead_ = false;
};

/// One graph sample by one thread (0 when the path dies).
template <Method M>
MC_HD WideValue run_graph_sample(GraphPath<M>& path, SampleRng& rng) {
  path.start();
  WideValue x;
  for (;;) {
    Step s = path.next();
    if (s.row == kDone) return x;
    if (s.row == kRescale) {
      path.rescale();
      continue;
    }
    if (s.row == kDead) break;
    s = path.draw(s.row, rng.uniform());
    if (s.col < 0) break;
    x.mul(s.value);
    if (!path.assign(s.row, s.col)) break;
  }
  return {0.0, 0};
}

}  // namespace matchcount::estimate
