// The hafnian's samplers on the CPU: a general graph's arrays with its symmetric Sinkhorn
// scaling and a perfect matching, the sequential paths (graph_path.hpp) and the determinant
// estimators (determinant_sample.hpp) over the CPU's batches, and the exact enumeration of
// the sequential paths for tests.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <type_traits>

#include "estimate/cpu_batches.hpp"
#include "estimate/determinant_sample.hpp"
#include "estimate/graph_smc.hpp"
#include "estimate/runner.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::estimate {
namespace {

/// Symmetric Sinkhorn: d_v <- sqrt(d_v / sum_u a_vu d_u) until every d_v sum_u a_vu d_u is
/// within 1e-3 of 1 or after scaling_sweeps() (the probabilities only need to be close).
std::vector<double> symmetric_scaling(const GraphData& g) {
  std::vector<double> d(static_cast<std::size_t>(g.n), 1.0);
  const int sweeps = scaling_sweeps(g.adj.size());
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double worst = 0.0;
    for (int v = 0; v < g.n; ++v) {
      double s = 0.0;
      for (int k = g.start[v]; k < g.start[v + 1]; ++k) s += g.val[k] * d[g.adj[k]];
      worst = std::max(worst, std::fabs(s * d[v] - 1.0));
      if (s > 0.0 && std::isfinite(s)) d[v] = std::sqrt(d[v] / s);
    }
    if (worst < 1e-3) break;
  }
  if (!std::all_of(d.begin(), d.end(), [](double x) { return std::isfinite(x) && x > 0; }))
    std::fill(d.begin(), d.end(), 1.0);  // degenerate values: plain weights are still valid
  return d;
}

/// The slot of each edge's reverse: adj[rev[k]] is the vertex whose list holds slot k (lists
/// are sorted, so a binary search finds it).
std::vector<int> reverse_slots(const GraphData& g) {
  std::vector<int> rev(g.adj.size());
  for (int v = 0; v < g.n; ++v)
    for (int k = g.start[v]; k < g.start[v + 1]; ++k) {
      const int u = g.adj[k];
      rev[k] = static_cast<int>(std::lower_bound(g.adj.begin() + g.start[u], g.adj.begin() + g.start[u + 1], v) -
                                g.adj.begin());
    }
  return rev;
}

/// Belief propagation for the perfect matchings of the whole graph: r_vu <- the geometric mean
/// of r_vu and 1 / sum_{w != u} a_vw r_wv (damped: from all ones, undamped messages can swing
/// back and forth), until no message moves by a factor beyond 1e-6 or after 500 sweeps; the paths
/// start from it (graph_path.hpp). Slot k of v's list holds the message from adj[k] to v.
std::vector<double> bethe_messages(const GraphData& g, const std::vector<int>& rev) {
  std::vector<double> r(g.adj.size(), 1.0);
  for (int sweep = 0; sweep < 500; ++sweep) {
    double worst = 0.0;
    for (int v = 0; v < g.n; ++v) {
      double s = 0.0;
      for (int k = g.start[v]; k < g.start[v + 1]; ++k) s += g.val[k] * r[k];
      for (int k = g.start[v]; k < g.start[v + 1]; ++k) {
        const double t = s - g.val[k] * r[k];
        if (!(t > 0.0 && std::isfinite(t))) continue;  // a single neighbour: the paths cap it
        double& out = r[rev[k]];
        const double next = std::sqrt(out / t);
        worst = std::max(worst, std::fabs(std::log(next / out)));
        out = next;
      }
    }
    if (worst < 1e-6) break;
  }
  if (!std::all_of(r.begin(), r.end(), [](double x) { return std::isfinite(x) && x > 1e-100 && x < 1e100; }))
    std::fill(r.begin(), r.end(), 1.0);  // degenerate values: any positive messages are valid
  return r;
}

/// A determinant estimator with its matrix.
template <class Scalar>
struct DeterminantHolder {
  GraphView g;
  Method m;
  std::vector<Scalar> scratch;
  /// A determinant is one elimination, not a walk of steps: the stop is asked before it starts
  /// (a sample stays under a second up to a few thousand vertices).
  template <class Stop = NoStop>
  WideValue sample(SampleRng& rng, const Stop& stop = Stop{}) {
    return stop() ? abandoned_sample() : determinant_sample(g, m, rng, scratch);
  }
};


class GraphCpuSampler final : public BatchSampler {
 public:
  GraphCpuSampler(const GraphData& graph, const SamplerConfig& cfg) : graph_(graph), cfg_(cfg) {}
  std::uint64_t batch_size() const override { return graph_batch_samples(graph_.n, cfg_.particles); }

 private:
  std::vector<SampleSums> batches(std::uint64_t first, std::uint64_t count, Clock::time_point deadline) override {
    const GraphView view = graph_.view();
    const std::uint64_t batch = batch_size();
    const Method m = cfg_.method;
    if (m == Method::GodsilGutmanComplex)
      return run_batches(cfg_, batch, first, count, [&] { return DeterminantHolder<std::complex<double>>{view, m, {}}; },
                         deadline, stop_);
    if (is_determinant(m))
      return run_batches(cfg_, batch, first, count, [&] { return DeterminantHolder<double>{view, m, {}}; }, deadline,
                         stop_);
    const SampleParams params = cfg_.params;
    if (cfg_.particles > 0)  // a sample is a whole population
      return with_sequential_method(m, [&](auto mc) {
        return run_batches(cfg_, batch, first, count,
                           [&] { return GraphSmc<decltype(mc)::value>(view, params, cfg_.particles); }, deadline,
                           stop_);
      });
    return with_sequential_method(m, [&](auto mc) {
      return run_batches(cfg_, batch, first, count, [&] { return GraphHolder<decltype(mc)::value>(view, params); },
                         deadline, stop_);
    });
  }

  const GraphData& graph_;
  SamplerConfig cfg_;
};

// Depth-first over every choice: E = sum over paths of probability * product of factors.
template <class H>
double graph_expectation_from(const H& at, double weight, std::uint64_t& dead) {
  H hp(at);
  Step s = hp.path.next();
  while (s.row == kRescale) {
    hp.path.rescale();
    s = hp.path.next();
  }
  if (s.row == kDone) return weight;
  if (s.row == kDead) return ++dead, 0.0;
  double total = 0.0;
  const bool any = hp.path.for_each_choice(s.row, [&](int u, double p, double factor) {
    H child(hp);
    if (child.path.assign(s.row, u)) total += p * graph_expectation_from(child, weight * factor, dead);
    else ++dead;
    return false;
  });
  if (!any) ++dead;
  return total;
}

}  // namespace

GraphData GraphData::from(const SparseMatrix<double>& a, bool bethe) {
  GraphData g;
  const int n = g.n = a.rows;
  g.start.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& e : a.entries)
    if (e.row != e.col) ++g.start[static_cast<std::size_t>(e.row) + 1];
  for (int v = 0; v < n; ++v) {
    g.max_degree = std::max(g.max_degree, g.start[v + 1]);
    g.start[v + 1] += g.start[v];
  }
  g.adj.resize(static_cast<std::size_t>(g.start[n]));
  g.val.resize(g.adj.size());
  std::vector<int> next(g.start.begin(), g.start.end() - 1);
  for (const auto& e : a.entries)  // sorted by (row, col): each list comes out ascending
    if (e.row != e.col) g.adj[next[e.row]] = e.col, g.val[next[e.row]++] = e.value;
  g.scale0 = symmetric_scaling(g);
  if (bethe) g.rev = reverse_slots(g), g.msg0 = bethe_messages(g, g.rev);
  const GraphMatching m = edmonds_matching(GraphPattern::of(a));
  if (m.perfect()) g.mate0 = m.mate;
  return g;
}

GraphView GraphData::view() const {
  GraphView v;
  v.n = n, v.max_degree = max_degree;
  v.start = start.data(), v.adj = adj.data(), v.val = val.data(), v.scale0 = scale0.data();
  v.mate0 = mate0.empty() ? nullptr : mate0.data();
  v.rev = rev.empty() ? nullptr : rev.data();
  v.msg0 = msg0.empty() ? nullptr : msg0.data();
  return v;
}

std::unique_ptr<Sampler> make_graph_cpu_sampler(const GraphData& graph, const SamplerConfig& config) {
  return std::make_unique<GraphCpuSampler>(graph, config);
}

double graph_path_expectation(const GraphData& graph, const SamplerConfig& config, std::uint64_t* dead_paths) {
  std::uint64_t dead = 0;
  const double e = with_sequential_method(config.method, [&](auto mc) {
    GraphHolder<decltype(mc)::value> holder(graph.view(), config.params);
    holder.path.start();
    return graph_expectation_from(holder, 1.0, dead);
  });
  if (dead_paths) *dead_paths = dead;
  return e;
}

}  // namespace matchcount::estimate
