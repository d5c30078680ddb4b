// Sequential Monte Carlo over the graph sample paths (graph_path.hpp): one estimate is a
// population of N particles, each a sample path, stepped together one vertex pair at a time
// and resampled when their weights grow uneven. A sequential importance sample's relative
// variance grows exponentially with the number of steps on lattices (every step multiplies in
// a small independent error); resampling keeps the population on the paths that carry the
// weight, so the variance of the estimate grows about linearly in steps / N instead.
//
// Unbiased: with Z = the product, over resampling events, of the population's mean weight,
// times the final mean weight, E[Z] = haf(A) for any resampling scheme whose expected offspring
// are proportional to the weights (Del Moral 2004, Prop. 7.4.1); systematic resampling is one.
// An estimate is a pure function of (seed, block, index): its particles draw, in particle
// order, one uniform per step each from the one stream of the estimate, and each resampling
// draws one more. Independent estimates give the error bar, as independent samples do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "estimate/graph_path.hpp"

namespace matchcount::estimate {

/// A graph path with its own scratch arrays (contiguous, stride 1); copies are independent.
template <Method M>
struct GraphHolder {
  int n, d;
  std::size_t slots;  // Bethe messages (SampleParams::bethe), else 0
  std::vector<int> ints;
  std::vector<double> doubles;
  GraphPath<M> path;
  GraphHolder(const GraphView& g, const SampleParams& p)
      : n(g.n), d(g.max_degree), slots(p.bethe ? static_cast<std::size_t>(g.start[g.n]) : 0),
        ints(GraphWorkspace::ints(g.n, g.max_degree, M)), doubles(GraphWorkspace::doubles(g.n, M, slots)),
        path(g, GraphWorkspace::bind(ints.data(), doubles.data(), 1, g.n, g.max_degree, M, slots), p) {}
  GraphHolder(const GraphHolder& o)
      : n(o.n), d(o.d), slots(o.slots), ints(o.ints), doubles(o.doubles), path(o.path) {
    path.rebind(GraphWorkspace::bind(ints.data(), doubles.data(), 1, n, d, M, slots));
  }
  /// Becomes a copy of o (same graph) without allocating.
  void copy_from(const GraphHolder& o) {
    std::copy(o.ints.begin(), o.ints.end(), ints.begin());
    std::copy(o.doubles.begin(), o.doubles.end(), doubles.begin());
    path = o.path;
    path.rebind(GraphWorkspace::bind(ints.data(), doubles.data(), 1, n, d, M, slots));
  }
  GraphHolder& operator=(const GraphHolder&) = delete;
  template <class Stop = NoStop>
  WideValue sample(SampleRng& rng, const Stop& stop = Stop{}) {
    return run_graph_sample(path, rng, stop);
  }
};

/// Takes one step of a path: covers the next vertex; false when the path died (weight 0) or
/// was already complete (`done`).
template <Method M>
bool graph_step(GraphPath<M>& path, SampleRng& rng, WideValue& weight, bool& done) {
  Step s = path.next();
  while (s.row == kRescale) {
    path.rescale();
    s = path.next();
  }
  if (s.row == kDone) return done = true, true;
  if (s.row == kDead) return false;
  s = path.draw(s.row, rng.uniform());
  if (s.col < 0) return false;
  weight.mul(s.value);
  return path.assign(s.row, s.col);
}

/// x times e^y, y of any size (the factor kept as a power of two and a remainder).
inline void mul_exp(WideValue& x, double y) {
  const double k = std::floor(y / 0.69314718055994530942);
  x.mul(std::exp(y - k * 0.69314718055994530942));
  x.e += static_cast<long long>(k);
}

/// One SMC estimate of the hafnian per sample() call, over `particles` paths. The populations
/// are resampled by their weights twisted by exp(log_rest()), the Sinkhorn or Bethe estimate
/// of what the rest of each path will multiply in: the plain weights of the scaling methods
/// swing from step to step and swing back later (a cheap partner now, expensive ones after),
/// and resampling on them selects noise. The twist telescopes (its final value is 1), so the
/// estimate stays unbiased: Z = exp(R_0) x the product of the mean twisted weights.
template <Method M>
class GraphSmc {
 public:
  GraphSmc(const GraphView& g, const SampleParams& p, int particles)
      : now_(static_cast<std::size_t>(particles), GraphHolder<M>(g, tracking(p))),
        weight_(now_.size()), twisted_(now_.size()), base_(now_.size()), offspring_(now_.size()) {}

  template <class Stop = NoStop>
  WideValue sample(SampleRng& rng, const Stop& stop = Stop{}) {
    const std::size_t count = now_.size();
    for (std::size_t i = 0; i < count; ++i) now_[i].path.start(), weight_[i] = WideValue{};
    const double r0 = now_[0].path.log_rest();
    for (std::size_t i = 0; i < count; ++i) base_[i] = r0;
    WideValue z;  // exp(R_0) x the product of the mean twisted weights at the resamplings
    mul_exp(z, r0);
    for (;;) {
      if (stop()) return abandoned_sample();  // a time cap: the round ends before this sample
      bool done = false;
      for (std::size_t i = 0; i < count; ++i) {
        if (weight_[i].m == 0.0) continue;  // died earlier
        bool finished = false;
        if (!graph_step(now_[i].path, rng, weight_[i], finished)) weight_[i] = {0.0, 0};
        done = done || finished;
        twisted_[i] = weight_[i];
        if (weight_[i].m > 0.0) mul_exp(twisted_[i], (finished ? 0.0 : now_[i].path.log_rest()) - base_[i]);
      }
      // Every live path covers two vertices a step, so all finish at the same step.
      const Mean m = mean_weight();
      if (m.sum == 0.0) return {0.0, 0};
      if (done) return times(z, m);
      if (m.ess < 0.5 * static_cast<double>(count)) {
        z = times(z, m);
        resample(m, rng.uniform());
      }
    }
  }

 private:
  static SampleParams tracking(SampleParams p) {
    p.track_scales = true;
    return p;
  }
  struct Mean {
    double sum = 0;  // sum of twisted w_i / 2^top
    long long top = 0;
    double ess = 0;  // (sum w)^2 / sum w^2
  };
  bool live(std::size_t i) const { return weight_[i].m > 0.0; }
  Mean mean_weight() const {
    Mean m;
    bool any = false;
    for (std::size_t i = 0; i < twisted_.size(); ++i)
      if (live(i)) {
        int k;
        std::frexp(twisted_[i].m, &k);
        const long long e = twisted_[i].e + k;
        if (!any || e > m.top) m.top = e;
        any = true;
      }
    if (!any) return m;
    double sq = 0;
    for (std::size_t i = 0; i < twisted_.size(); ++i)
      if (live(i)) {
        const double x = scaled(twisted_[i], m.top);
        m.sum += x, sq += x * x;
      }
    m.ess = m.sum * m.sum / sq;
    return m;
  }
  static double scaled(const WideValue& w, long long top) {
    const long long shift = w.e - top;
    return shift < -2000 ? 0.0 : std::ldexp(w.m, static_cast<int>(shift));
  }
  /// z times the population's mean twisted weight (sum / N, then the common power of two).
  WideValue times(WideValue z, const Mean& m) const {
    z.mul(m.sum / static_cast<double>(twisted_.size()));
    z.e += m.top;
    return z;
  }
  /// Systematic resampling: particle i of the new population copies the live particle whose
  /// cumulative weight interval holds (u + i) / N of the total; every weight restarts at 1,
  /// and the twist at the copied path's own. In place: a particle drawn at least once stays
  /// in its slot and its further copies go to the slots of those not drawn (the order of a
  /// population does not matter), so only those are copied.
  void resample(const Mean& m, double u) {
    const std::size_t count = now_.size();
    std::fill(offspring_.begin(), offspring_.end(), 0);
    double acc = 0;
    std::size_t j = 0, last = 0;  // the live particle reached, the last live one
    for (std::size_t k = 0; k < count; ++k)
      if (live(k)) last = k;
    while (!live(j)) ++j;
    double upper = scaled(twisted_[j], m.top);
    for (std::size_t i = 0; i < count; ++i) {
      const double target = (u + static_cast<double>(i)) / static_cast<double>(count) * m.sum;
      while (j < last && upper <= target) {
        acc = upper;
        do ++j;
        while (!live(j));
        upper = acc + scaled(twisted_[j], m.top);
      }
      ++offspring_[j];
    }
    std::size_t free = 0;  // the next slot of a particle not drawn
    for (std::size_t k = 0; k < count; ++k)
      for (std::size_t c = 1; c < offspring_[k]; ++c) {
        while (offspring_[free] != 0) ++free;
        now_[free++].copy_from(now_[k]);
      }
    for (std::size_t i = 0; i < count; ++i)
      weight_[i] = WideValue{}, base_[i] = now_[i].path.log_rest();
  }

  std::vector<GraphHolder<M>> now_;
  std::vector<WideValue> weight_, twisted_;  // since the last resampling; a dead path's weight is 0
  std::vector<double> base_;                 // log_rest() at the last resampling
  std::vector<std::size_t> offspring_;  // copies of each particle at a resampling
};

}  // namespace matchcount::estimate
