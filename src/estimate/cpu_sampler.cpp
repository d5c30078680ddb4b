// The CPU sampler (OpenMP over fixed batches of samples, merged in batch order so the result
// does not depend on the thread count) and the exact enumeration of sample paths for tests.
#include <algorithm>
#include <chrono>
#include <functional>
#include <type_traits>

#include "estimate/cpu_batches.hpp"
#include "estimate/runner.hpp"

namespace matchcount::estimate {
namespace {

/// A sample path with its own scratch arrays (contiguous, stride 1).
template <Method M>
struct HostPath {
  int n, d;
  std::vector<int> ints;
  std::vector<double> doubles;
  Path<M> path;
  template <class Stop = NoStop>
  WideValue sample(SampleRng& rng, const Stop& stop = Stop{}) {
    return run_sample(path, rng, stop);
  }
  HostPath(const BlockView& b, const SampleParams& p)
      : n(b.n), d(b.max_degree), ints(Workspace::ints(b.n, b.max_degree, M)), doubles(Workspace::doubles(b.n, M)),
        path(b, Workspace::bind(ints.data(), doubles.data(), 1, b.n, b.max_degree, M), p) {}
  HostPath(const HostPath& o) : n(o.n), d(o.d), ints(o.ints), doubles(o.doubles), path(o.path) {
    path.rebind(Workspace::bind(ints.data(), doubles.data(), 1, n, d, M));
  }
  HostPath& operator=(const HostPath&) = delete;
};

/// SmallPath keeps its state in the object: copies are independent.
template <Method M>
struct SmallHolder {
  SmallPath<M> path;
  template <class Stop = NoStop>
  WideValue sample(SampleRng& rng, const Stop& stop = Stop{}) {
    return run_sample(path, rng, stop);
  }
};

/// Calls f(holder factory) with the path kind that runs this block and method.
template <Method M, class F>
decltype(auto) with_path(const BlockData& block, const SamplerConfig& cfg, F&& f) {
  if constexpr (!is_scaling(M))
    if (uses_small_path(block, cfg)) {
      const SmallBlock sb = block.small_view();
      return f([sb] { return SmallHolder<M>{SmallPath<M>(sb)}; });
    }
  const BlockView view = block.view();
  const SampleParams params = cfg.params;
  return f([view, params] { return HostPath<M>(view, params); });
}


class CpuSampler final : public BatchSampler {
 public:
  CpuSampler(const BlockData& block, const SamplerConfig& cfg) : block_(block), cfg_(cfg) {}

 private:
  std::vector<SampleSums> batches(std::uint64_t first, std::uint64_t count, Clock::time_point deadline) override {
    return with_sequential_method(cfg_.method, [&](auto m) {
      return with_path<decltype(m)::value>(block_, cfg_, [&](auto make) {
        return run_batches(cfg_, batch_samples(block_.n), first, count, make, deadline, stop_);
      });
    });
  }

  const BlockData& block_;
  SamplerConfig cfg_;
};

// Depth-first over every choice: E = sum over paths of probability * product of factors;
// paths that end in a dead end (a sample of 0) are counted in `dead`.
template <class H>
double expectation_from(const H& at, double weight, std::uint64_t& dead) {
  H hp(at);
  Step s = hp.path.next();
  if (s.row == kRescale) {
    hp.path.rescale(0, 1, [] {});
    hp.path.rescaled();
    s = hp.path.next();
  }
  if (s.row == kDone) return weight;
  if (s.row == kDead) return ++dead, 0.0;
  if (s.col >= 0) {
    if (hp.path.assign(s.row, s.col)) return expectation_from(hp, weight * s.value, dead);
    return ++dead, 0.0;
  }
  double total = 0.0;
  const bool any = hp.path.for_each_choice(s.row, [&](int c, double p, double factor) {
    H child(hp);
    if (child.path.assign(s.row, c)) total += p * expectation_from(child, weight * factor, dead);
    else ++dead;
    return false;
  });
  if (!any) ++dead;
  return total;
}

}  // namespace

std::unique_ptr<Sampler> make_cpu_sampler(const BlockData& block, const SamplerConfig& config) {
  return std::make_unique<CpuSampler>(block, config);
}

double path_expectation(const BlockData& block, const SamplerConfig& config, std::uint64_t* dead_paths) {
  std::uint64_t dead = 0;
  const double e = with_sequential_method(config.method, [&](auto m) {
    return with_path<decltype(m)::value>(block, config, [&](auto make) {
      auto holder = make();
      holder.path.start();
      return expectation_from(holder, 1.0, dead);
    });
  });
  if (dead_paths) *dead_paths = dead;
  return e;
}

}  // namespace matchcount::estimate
