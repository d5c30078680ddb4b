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
//    With SampleParams::bethe, p_u is proportional to a_vu r_uv instead, r the belief-
//    propagation messages of the perfect matchings of the remaining graph (the Bethe
//    approximation): r_uv = 1 / sum_{w != v} a_uw r_wu, the Sinkhorn update with u's edge to
//    v left out (the cavity). Then a_vu r_uv / sum_w a_vw r_wv is BP's estimate of the chance
//    that vu lies in a uniform perfect matching, exact on trees and close on sparse graphs
//    without short cycles, where the Sinkhorn scaling is not.
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

#include "estimate/graph_search.hpp"
#include "estimate/philox.hpp"
#include "estimate/sample_path.hpp"
#include "estimate/sample_sums.hpp"

namespace matchcount::estimate {

template <Method M>
class GraphPath : public GraphSearch {
 public:
  MC_HD GraphPath(const GraphView& g, const GraphWorkspace& w, const SampleParams& p) : GraphSearch(g, w), p_(p) {
    use_cheap_test(p.cheap_test);
  }

  MC_HD void start() {
    const int n = g_.n;
    scale_product_ = WideValue{};
    covered_ = 0, steps_ = 0, last_scale_ = 0, last_local_ = 0, cursor_ = 0, min_ = 0, stamp_ = 0, dead_ = false;
    certified_ = 0, full_ = 0, shown_ = -1, last_v_ = -1, last_u_ = -1;
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
    if constexpr (is_scaling(M)) {
      if (p_.bethe) {
        for (int k = 0; k < g_.start[n]; ++k) w_.msg[k] = g_.msg0[k];
        bethe_log_ = 0.0;
        if (p_.track_scales)
          for (int v = 0; v < n; ++v) bethe_log_ += (w_.scale[v] = bethe_term(v));
        return;
      }
      for (int v = 0; v < n; ++v) {
        w_.scale[v] = g_.scale0[v];
        if (p_.track_scales) scale_product_.mul(g_.scale0[v]);
      }
    }
  }

  /// The vertex to cover next (kDone when all are, kDead when the sample is 0, kRescale when
  /// the scaling methods want rescale() first). "+": its possible edges are marked in ok.
  MC_HD Step next() {
    if (dead_) return {kDead};
    if (covered_ == g_.n) return {kDone};
    if constexpr (is_scaling(M))
      if (steps_ - last_scale_ >= p_.scale_interval || (p_.scale_radius > 0 && steps_ > last_local_)) return {kRescale};
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
    double total = 0.0, least = INFINITY;
    int count = 0;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
      if (choice(v, k)) total += weight(k), least = least < weight(k) ? least : weight(k), ++count;
    if (count == 0) return false;
    // Scaled weights that under- or overflow fall back to the weights themselves (any
    // positive probabilities keep the estimator unbiased; a zero one would not).
    const bool fallback = is_scaling(M) && !(total > 0.0 && total < INFINITY && least > 0.0);
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
    last_v_ = v, last_u_ = u;
    return remove_pair(v, u);
  }

  /// An estimate of ln haf(remaining graph), up to a constant common to the paths of a
  /// population (0 for the methods without scaling; with track_scales on). Sinkhorn: haf of
  /// the rest is haf(D A D) / prod d_v with D A D near doubly stochastic, so -sum ln d_v,
  /// kept as a running product (a ratio per scale update) since graph_smc.hpp asks for it
  /// after every step of every path. Bethe: the Bethe free energy, a sum of vertex terms
  /// (bethe_term) kept up to date over the vertices whose messages change.
  MC_HD double log_rest() const {
    if (p_.bethe) return bethe_log_;
    return -(::log(scale_product_.m) + static_cast<double>(scale_product_.e) * 0.69314718055994530942);
  }

  /// Symmetric Sinkhorn sweeps over the remaining vertices: d_v <- sqrt(d_v / sum_u a_vu d_u)
  /// (the damped fixed point of d_v sum_u a_vu d_u = 1). A sum that is 0 or not finite leaves
  /// that scale as it was: scales only need to stay positive. Between the full rescales
  /// (every scale_interval steps), scale_radius r > 0 sweeps after each step the vertices
  /// within r edges of the pair just covered, the rest held fixed: covering a pair moves the
  /// fixed point most near it, and on a sparse graph a full sweep costs n where the region
  /// costs a constant. The Bethe scaling sweeps its messages over the same vertices instead
  /// (bethe_vertex), and with track_scales refreshes the vertex terms one edge further.
  MC_HD void rescale() {
    last_local_ = steps_;
    if (steps_ - last_scale_ < p_.scale_interval) {
      // Bethe: the vertex terms change one edge beyond the messages that do.
      const bool terms = p_.bethe && p_.track_scales;
      int inner = 0;
      const int size = collect_region(p_.scale_radius + terms, inner);
      if (!terms) inner = size;
      for (int it = 0; it < p_.scale_iterations; ++it)
        for (int i = 0; i < inner; ++i) update_vertex(w_.region[i]);
      for (int i = 0; i < size; ++i) {
        const int x = w_.region[i];
        w_.flags[x] &= ~kRegion;
        if (terms) {
          const double t = bethe_term(x);
          bethe_log_ += t - w_.scale[x];
          w_.scale[x] = t;
        }
      }
      return;
    }
    for (int it = 0; it < p_.scale_iterations; ++it)
      for (int v = 0; v < g_.n; ++v)
        if (!(w_.flags[v] & kGone)) update_vertex(v);
    if (p_.bethe && p_.track_scales) {
      bethe_log_ = 0.0;
      for (int v = 0; v < g_.n; ++v)
        if (!(w_.flags[v] & kGone)) bethe_log_ += (w_.scale[v] = bethe_term(v));
    }
    last_scale_ = steps_;
  }

 private:
  MC_HD void update_vertex(int v) {
    if (p_.bethe) bethe_vertex(v);
    else rescale_vertex(v);
  }
  /// v's messages to its remaining neighbours u: r_vu = 1 / sum_{w != u} a_vw r_wv. The sums
  /// leaving out one neighbour are taken as prefix + suffix (the prefixes parked in the
  /// outgoing slots), not as the total minus a term, which cancels to nothing when one
  /// message dominates. A vertex with a single neighbour sends it kBetheCap (it must take
  /// that edge), and messages stay within [1 / kBetheCap, kBetheCap], so every weight is
  /// positive and finite.
  MC_HD void bethe_vertex(int v) {
    double prefix = 0.0;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
      if (!(w_.flags[g_.adj[k]] & kGone)) w_.msg[g_.rev[k]] = prefix, prefix += g_.val[k] * w_.msg[k];
    double suffix = 0.0;
    for (int k = g_.start[v + 1] - 1; k >= g_.start[v]; --k) {
      if (w_.flags[g_.adj[k]] & kGone) continue;
      double& out = w_.msg[g_.rev[k]];
      const double t = out + suffix;
      suffix += g_.val[k] * w_.msg[k];
      out = t > 1.0 / kBetheCap ? (t < kBetheCap ? 1.0 / t : 1.0 / kBetheCap) : kBetheCap;
    }
  }
  /// v's term of the Bethe free energy of the remaining graph, ln sum_u a_vu r_uv minus half
  /// of sum_u ln(1 + a_vu r_uv r_vu) (each edge's term is shared by its two ends); the sum
  /// over the remaining vertices is ln of the Bethe estimate of haf (a regular graph of
  /// degree d gives ((d - 1)^(d - 1) / d^(d - 2))^(n / 2) at the fixed point). 0 where that
  /// is not finite (a vertex with no neighbour left: its path is dead).
  MC_HD double bethe_term(int v) const {
    double s = 0.0, e = 1.0, logs = 0.0;
    bool split = false;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k) {
      if (w_.flags[g_.adj[k]] & kGone) continue;
      const double x = g_.val[k] * w_.msg[k], f = 1.0 + x * w_.msg[g_.rev[k]];
      s += x;
      if (e < 1e100 && f < 1e100) e *= f;  // one log a vertex unless the products grow huge
      else logs += ::log(e), e = f, split = true;
    }
    // e >= 1, so s / sqrt(e) cannot overflow where s does not.
    const double t = split ? ::log(s) - 0.5 * (::log(e) + logs) : ::log(s / ::sqrt(e));
    return t > -INFINITY && t < INFINITY ? t : 0.0;  // any finite twist keeps Z unbiased
  }
  MC_HD void rescale_vertex(int v) {
    double s = 0.0;
    for (int k = g_.start[v]; k < g_.start[v + 1]; ++k)
      if (!(w_.flags[g_.adj[k]] & kGone)) s += g_.val[k] * w_.scale[g_.adj[k]];
    if (s > 0.0 && s < INFINITY) {
      const double d = ::sqrt(w_.scale[v] / s);
      if (p_.track_scales) scale_product_.mul(d / w_.scale[v]);
      w_.scale[v] = d;
    }
  }
  /// The remaining vertices within `radius` edges of the last pair covered, breadth first in
  /// adjacency order (so the sweep order, and the sample, is a function of the graph state);
  /// `inner` gets how many of them lie within radius - 1.
  MC_HD int collect_region(int radius, int& inner) {
    int size = 0, head = 0;
    for (int side = 0; side < 2; ++side) {
      const int x = side == 0 ? last_v_ : last_u_;
      for (int k = g_.start[x]; k < g_.start[x + 1]; ++k) {
        const int y = g_.adj[k];
        if (!(w_.flags[y] & (kGone | kRegion))) w_.flags[y] |= kRegion, w_.region[size++] = y;
      }
    }
    inner = 0;
    for (int depth = 1; depth < radius; ++depth) {
      const int end = inner = size;
      for (; head < end; ++head) {
        const int x = w_.region[head];
        for (int k = g_.start[x]; k < g_.start[x + 1]; ++k) {
          const int y = g_.adj[k];
          if (!(w_.flags[y] & (kGone | kRegion))) w_.flags[y] |= kRegion, w_.region[size++] = y;
        }
      }
    }
    return size;
  }
  MC_HD bool choice(int v, int k) const {
    if (w_.flags[g_.adj[k]] & kGone) return false;
    if constexpr (is_plus(M)) return w_.ok[k - g_.start[v]] != 0;
    return true;
  }
  MC_HD double weight(int k) const {
    if constexpr (is_scaling(M)) return g_.val[k] * (p_.bethe ? w_.msg[k] : w_.scale[g_.adj[k]]);
    return g_.val[k];
  }

  /// Takes the covered v and u out; false when one of their remaining neighbours is left
  /// with none.
  MC_HD bool remove_pair(int v, int u) {
    if constexpr (is_plus(M)) unlink(v), unlink(u);
    w_.flags[v] |= kGone, w_.flags[u] |= kGone;
    if (is_scaling(M) && p_.track_scales) {
      if (p_.bethe) bethe_log_ -= w_.scale[v] + w_.scale[u], w_.scale[v] = w_.scale[u] = 0.0;
      else scale_product_.mul(1.0 / (w_.scale[v] * w_.scale[u]));
    }
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
  SampleParams p_;
  int covered_ = 0, steps_ = 0, last_scale_ = 0, last_local_ = 0, cursor_ = 0, min_ = 0;
  int last_v_ = -1, last_u_ = -1;  // the pair covered last (a local rescale's centre)
  WideValue scale_product_;        // prod d_v over the remaining vertices (scaling methods)
  double bethe_log_ = 0.0;         // the sum of the remaining vertices' Bethe terms
  static constexpr double kBetheCap = 1e100;
  bool dead_ = false;
};

/// One graph sample by one thread (0 when the path dies; abandoned_sample() once `stop()`).
template <Method M, class Stop = NoStop>
MC_HD WideValue run_graph_sample(GraphPath<M>& path, SampleRng& rng, const Stop& stop = Stop{}) {
  path.start();
  WideValue x;
  for (;;) {
    if (stop()) return abandoned_sample();  // a time cap: the round ends before this sample
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
