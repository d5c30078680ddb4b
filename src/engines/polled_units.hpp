// Units of a walk on OpenMP threads, with a stop poll, for walks that keep no checkpoint and
// share no units over MPI (the marginals' minors); runtime/thread_walk.hpp's run_units is the
// executor of the counts' walks, with both.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "matchcount/checkpoint.hpp"

namespace matchcount::engines {

/// Walks units 0 .. units - 1 on `threads` threads: each thread makes its state (make()), walks
/// the units it takes (walk(state, u)) and folds its state into the result under a lock
/// (fold(state)). `stop` is polled between units on the calling thread, where Python checks its
/// signals, and once more at the end, as that thread may have found no unit to walk:
/// Interrupted(what) when it says so.
template <class Make, class Walk, class Fold>
void polled_units(std::uint64_t units, int threads, const std::function<bool()>& stop, const char* what, Make make,
                  Walk walk, Fold fold) {
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stopped{false};
#pragma omp parallel num_threads(threads)
  {
    auto state = make();
    for (std::uint64_t u; !stopped.load() && (u = next.fetch_add(1)) < units;) {
      if (stop && omp_get_thread_num() == 0 && stop()) stopped = true;
      if (!stopped.load()) walk(state, u);
    }
#pragma omp critical
    fold(state);
  }
  if (stopped || (stop && stop())) throw Interrupted(2, what);
}

}  // namespace matchcount::engines
