// The CPU's way of running a round of samples: OpenMP threads over fixed batches, merged in
// batch order so that the sums do not depend on the thread count. Shared by the permanent and
// the graph samplers.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include "estimate/runner.hpp"

namespace matchcount::estimate {

/// The stop test of CPU samples under a time cap: true once the clock passes `at`, read every
/// 64th call from the first (a call per step of a path).
struct DeadlineStop {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  mutable unsigned calls = 0;
  bool operator()() const {
    return at != std::chrono::steady_clock::time_point::max() && (calls++ & 63) == 0 &&
           std::chrono::steady_clock::now() >= at;
  }
};

/// The sums of each batch of samples first .. first + count - 1, in order. Batches that start
/// after `deadline` are skipped (never batch 0); a batch still running at `stop` is abandoned
/// mid-sample (batch 0 too: a time cap binds however long one sample is) and keeps the
/// samples it finished. Returned: the batches before the first one skipped or abandoned, then
/// that one's finished samples if it has any, so the samples returned are always a prefix of
/// the round. Only the last part can be short: without a stop the batch sizes never depend on
/// the clock. (A first round can be one batch on one thread: dropped whole, a short cap would
/// leave no sample at all.)
/// `make()` gives one thread's sampler: an object with
/// WideValue sample(SampleRng&, const DeadlineStop&).
template <class Make>
std::vector<SampleSums> run_batches(const SamplerConfig& cfg, std::uint64_t batch, std::uint64_t first,
                                    std::uint64_t count, Make make, std::chrono::steady_clock::time_point deadline,
                                    std::chrono::steady_clock::time_point stop) {
  const std::uint64_t batches = (count + batch - 1) / batch;
  std::vector<SampleSums> part(batches);
  std::vector<char> skipped(batches, 0);
  const bool capped = deadline != std::chrono::steady_clock::time_point::max();
  const int threads = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    auto holder = make();
    const DeadlineStop stop_test{stop};
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(batches); ++b) {
      if (capped && b > 0 && std::chrono::steady_clock::now() > deadline) {
        skipped[static_cast<std::size_t>(b)] = 1;
        continue;
      }
      const std::uint64_t lo = first + static_cast<std::uint64_t>(b) * batch;
      const std::uint64_t hi = std::min(lo + batch, first + count);
      for (std::uint64_t s = lo; s < hi; ++s) {
        SampleRng rng(cfg.seed, cfg.block_id, s);
        const WideValue x = holder.sample(rng, stop_test);
        if (is_abandoned(x)) {
          skipped[static_cast<std::size_t>(b)] = 1;
          break;
        }
        part[b].add(x);
      }
    }
  }
  // A thread may start a batch after another thread skipped an earlier one: keep the prefix.
  // A batch skipped at its start holds no samples; one abandoned holds its finished ones.
  auto kept = static_cast<std::size_t>(std::find(skipped.begin(), skipped.end(), 1) - skipped.begin());
  if (kept < part.size() && part[kept].count > 0) ++kept;
  part.resize(kept);
  return part;
}

/// f(std::integral_constant<Method, m>) for the sequential method m (the four of
/// sample_path.hpp; anything else as ScalingPlus): one instantiation of a path per method.
template <class F>
decltype(auto) with_sequential_method(Method m, F&& f) {
  switch (m) {
    case Method::Rasmussen: return f(std::integral_constant<Method, Method::Rasmussen>{});
    case Method::RasmussenPlus: return f(std::integral_constant<Method, Method::RasmussenPlus>{});
    case Method::Scaling: return f(std::integral_constant<Method, Method::Scaling>{});
    default: return f(std::integral_constant<Method, Method::ScalingPlus>{});
  }
}

/// A CPU sampler: the Sampler calls over one `batches(first, count, deadline)` (run_batches'
/// contract, with stop_ as its stop), written once for the permanent and the graph samplers.
class BatchSampler : public Sampler {
 public:
  using Clock = std::chrono::steady_clock;
  void stop_at(Clock::time_point t) override { stop_ = t; }
  SampleSums run(std::uint64_t first, std::uint64_t count) override {
    return run_until(first, count, Clock::time_point::max());
  }
  std::vector<SampleSums> run_parts(std::uint64_t first, std::uint64_t count) override {
    return batches(first, count, Clock::time_point::max());
  }
  SampleSums run_until(std::uint64_t first, std::uint64_t count, Clock::time_point deadline) override {
    SampleSums total;
    for (const auto& p : batches(first, count, deadline)) total.merge(p);
    return total;
  }
  std::string device() const override { return "cpu"; }

 protected:
  virtual std::vector<SampleSums> batches(std::uint64_t first, std::uint64_t count, Clock::time_point deadline) = 0;
  Clock::time_point stop_ = Clock::time_point::max();
};

}  // namespace matchcount::estimate
