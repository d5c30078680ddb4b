// A Python progress callback called from the library's worker threads: at most every
// `every` seconds, never two at once, with the GIL taken for the call. An exception in the
// callback stops the count and is raised in its place.
#pragma once

#include <nanobind/nanobind.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include "interrupt.hpp"

namespace matchcount::py {

namespace nb = nanobind;

class ProgressRelay {
 public:
  ProgressRelay(nb::object callback, double every, StopToken* stop)
      : callback_(std::move(callback)), every_(every), stop_(stop) {}
  bool active() const { return !callback_.is_none(); }

  /// Calls the callback with `arg` (made under the GIL by `make`) when due. Any thread; the
  /// caller does not hold the GIL. `last`: the final report, always made.
  template <class Make>
  void report(Make&& make, bool last) {
    if (!active() || failed_.load()) return;
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;  // another thread is reporting: this one is not needed
    const auto now = Clock::now();
    if (!last && started_ && std::chrono::duration<double>(now - last_).count() < every_) return;
    started_ = true;
    last_ = now;
    nb::gil_scoped_acquire gil;
    try {
      callback_(make());
    } catch (nb::python_error& e) {
      error_.emplace(std::move(e));
      failed_ = true;
      if (stop_) stop_->request_stop(2);
    }
  }
  void report(double fraction) {
    report([fraction] { return nb::float_(fraction); }, fraction >= 1.0);
  }
  /// With the GIL: raises the callback's exception, if it raised one.
  void rethrow() {
    if (error_) {
      nb::python_error e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }
  bool failed() const { return failed_.load(); }

 private:
  using Clock = std::chrono::steady_clock;
  nb::object callback_;
  double every_;
  StopToken* stop_;
  std::mutex mutex_;
  bool started_ = false;
  Clock::time_point last_{};
  std::atomic<bool> failed_{false};
  std::optional<nb::python_error> error_;
};

}  // namespace matchcount::py
