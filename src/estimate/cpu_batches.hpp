// The CPU's way of running a round of samples: OpenMP threads over fixed batches, merged in
// batch order so that the sums do not depend on the thread count. Shared by the permanent and
// the graph samplers.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "estimate/runner.hpp"

namespace matchcount::estimate {

/// The sums of each batch of samples first .. first + count - 1, in order. Batches that start
/// after `deadline` are skipped (never batch 0), and only the batches before the first one
/// skipped are returned, so the samples returned are always a prefix of the round.
/// `make()` gives one thread's sampler: an object with WideValue sample(SampleRng&).
template <class Make>
std::vector<SampleSums> run_batches(const SamplerConfig& cfg, std::uint64_t batch, std::uint64_t first,
                                    std::uint64_t count, Make make, std::chrono::steady_clock::time_point deadline) {
  const std::uint64_t batches = (count + batch - 1) / batch;
  std::vector<SampleSums> part(batches);
  std::vector<char> skipped(batches, 0);
  const bool capped = deadline != std::chrono::steady_clock::time_point::max();
  const int threads = cfg.threads > 0 ? cfg.threads : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  {
    auto holder = make();
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
        part[b].add(holder.sample(rng));
      }
    }
  }
  // A thread may start a batch after another thread skipped an earlier one: keep the prefix.
  const auto first_skipped = std::find(skipped.begin(), skipped.end(), 1) - skipped.begin();
  part.resize(static_cast<std::size_t>(first_skipped));
  return part;
}

}  // namespace matchcount::estimate
