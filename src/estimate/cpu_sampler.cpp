// The CPU sampler (OpenMP over fixed batches of samples, merged in batch order so the result
// does not depend on the thread count) and the exact enumeration of sample paths for tests.
#include <omp.h>

#include <algorithm>
#include <functional>

#include "runner.hpp"

namespace matchcount::estimate {
namespace {

constexpr std::uint64_t kBatch = 256;

/// A sample path with its own scratch arrays (contiguous, stride 1).
template <Method M>
struct HostPath {
  int n;
  std::vector<int> ints;
  std::vector<double> doubles;
  Path<M> path;
  HostPath(const BlockView& b, const SampleParams& p)
      : n(b.n), ints(Workspace::ints(b.n, b.max_degree)), doubles(Workspace::doubles(b.n)),
        path(b, Workspace::bind(ints.data(), doubles.data(), 1, b.n), p) {}
  HostPath(const HostPath& o) : n(o.n), ints(o.ints), doubles(o.doubles), path(o.path) {
    path.rebind(Workspace::bind(ints.data(), doubles.data(), 1, n));
  }
  HostPath& operator=(const HostPath&) = delete;
};

template <Method M>
SampleSums run_batches(const BlockData& block, const SamplerConfig& cfg, std::uint64_t first, std::uint64_t count) {
  const BlockView view = block.view();
  const std::uint64_t batches = (count + kBatch - 1) / kBatch;
  std::vector<SampleSums> part(batches);
  const int threads = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    HostPath<M> hp(view, cfg.params);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(batches); ++b) {
      const std::uint64_t lo = first + static_cast<std::uint64_t>(b) * kBatch;
      const std::uint64_t hi = std::min(lo + kBatch, first + count);
      for (std::uint64_t s = lo; s < hi; ++s) {
        SampleRng rng(cfg.seed, cfg.block_id, s);
        part[b].add(run_sample(hp.path, rng));
      }
    }
  }
  SampleSums total;
  for (const auto& p : part) total.merge(p);
  return total;
}

class CpuSampler final : public Sampler {
 public:
  CpuSampler(const BlockData& block, const SamplerConfig& cfg) : block_(block), cfg_(cfg) {}
  SampleSums run(std::uint64_t first, std::uint64_t count) override {
    switch (cfg_.method) {
      case Method::Rasmussen: return run_batches<Method::Rasmussen>(block_, cfg_, first, count);
      case Method::RasmussenPlus: return run_batches<Method::RasmussenPlus>(block_, cfg_, first, count);
      case Method::Scaling: return run_batches<Method::Scaling>(block_, cfg_, first, count);
      case Method::ScalingPlus: return run_batches<Method::ScalingPlus>(block_, cfg_, first, count);
    }
    return {};
  }
  std::string device() const override { return "cpu"; }

 private:
  const BlockData& block_;
  SamplerConfig cfg_;
};

// Depth-first over every choice: E = sum over paths of probability * product of factors.
template <Method M>
double expectation_from(const HostPath<M>& at, double weight) {
  HostPath<M> hp(at);
  const Step s = hp.path.next();
  if (s.row == kDone) return weight;
  if (s.row == kDead) return 0.0;
  if (s.col >= 0) return hp.path.assign(s.row, s.col) ? expectation_from(hp, weight * s.value) : 0.0;
  double total = 0.0;
  hp.path.for_each_choice(s.row, [&](int c, double p, double factor) {
    HostPath<M> child(hp);
    if (child.path.assign(s.row, c)) total += p * expectation_from(child, weight * factor);
    return false;
  });
  return total;
}

template <Method M>
double expectation(const BlockData& block, const SamplerConfig& cfg) {
  HostPath<M> hp(block.view(), cfg.params);
  hp.path.start();
  return expectation_from(hp, 1.0);
}

}  // namespace

std::unique_ptr<Sampler> make_cpu_sampler(const BlockData& block, const SamplerConfig& config) {
  return std::make_unique<CpuSampler>(block, config);
}

double path_expectation(const BlockData& block, const SamplerConfig& config) {
  switch (config.method) {
    case Method::Rasmussen: return expectation<Method::Rasmussen>(block, config);
    case Method::RasmussenPlus: return expectation<Method::RasmussenPlus>(block, config);
    case Method::Scaling: return expectation<Method::Scaling>(block, config);
    case Method::ScalingPlus: return expectation<Method::ScalingPlus>(block, config);
  }
  return 0.0;
}

}  // namespace matchcount::estimate
