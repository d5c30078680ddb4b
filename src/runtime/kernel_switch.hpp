// A kernel built on a thread of its own while a walk runs with the kernel it has, and the
// switch to it between runs (docs/gpu.md, "Kernels: generic and specialised"). This holds the
// order of events only: what a build is (NVRTC and the kernel cache) and what adopting one means
// (loading it on a device, checking its resources) are the caller's functions, so the states
// are the same for every method and can be tested without a device. (Also read by nvcc: C++17.)
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace matchcount::runtime {

/// What one build yields: a binary (empty: none, `why` says why), the time spent building it
/// and whether it was built now (false: read from a cache).
struct Built {
  std::string binary;
  double seconds = 0;
  bool built_now = false;
  std::string why;
};

/// A kernel of type K obtained in the background: `build` runs at once on a thread of its own;
/// the first poll after it ends hands its result to `adopt`, on the polling thread (the one
/// that owns a device), which makes a kernel of it, asks for another build first (started at
/// once, also in the background: a variant the first one's resources call for), or gives up.
/// Workers poll between their runs and never wait for a build.
template <class K>
class KernelSwitch {
 public:
  using Build = std::function<Built()>;
  /// What adopting a build gives: a kernel to switch to; else another build to run first;
  /// else nothing (the switch fails: why).
  struct Step {
    std::optional<K> use;
    Build next;
    std::string why;
  };
  using Adopt = std::function<Step(const Built&)>;
  enum class State { Building, Ready, Failed, Unused };

  KernelSwitch(Build build, Adopt adopt) : adopt_(std::move(adopt)) { start(std::move(build)); }
  /// Waits for a build in flight: its thread must not outlive the objects the build reads.
  ~KernelSwitch() { finish(); }
  KernelSwitch(const KernelSwitch&) = delete;
  KernelSwitch& operator=(const KernelSwitch&) = delete;

  /// The kernel once a build has been adopted; nullopt while building or after a failure.
  /// Any thread, any number of them: one adopts (under the lock), the others then share it.
  std::optional<K> poll() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ != State::Building || !done()) return state_ == State::Ready ? kernel_ : std::nullopt;
    const Built b = collect();
    Step s;
    try {
      s = adopt_(b);
    } catch (const std::exception& e) {
      s = Step{std::nullopt, nullptr, e.what()};
    } catch (...) {
      s = Step{std::nullopt, nullptr, "the kernel could not be adopted"};
    }
    if (s.use) {
      kernel_ = std::move(s.use);
      state_ = State::Ready;
    } else if (s.next) {
      start(std::move(s.next));
    } else {
      why_ = s.why.empty() ? b.why : s.why;
      state_ = State::Failed;
    }
    return kernel_;
  }

  /// The walk is over: waits for a build in flight (so that its cache file is complete and no
  /// thread is left) without adopting it.
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ != State::Building) return;
    const Built b = collect();
    state_ = b.binary.empty() ? State::Failed : State::Unused;
    if (b.binary.empty()) why_ = b.why;
  }

  State state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_;
  }
  /// Seconds spent in builds so far (builds in flight not counted).
  double seconds() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seconds_;
  }
  /// Whether some build compiled now (rather than reading a cache).
  bool built_now() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return built_now_;
  }
  /// Why it failed (State::Failed).
  std::string why() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return why_;
  }

 private:
  void start(Build build) {
    state_ = State::Building;
    // std::async's future joins its thread when destroyed or read: no detached thread.
    future_ = std::async(std::launch::async, [b = std::move(build)] { return b(); });
  }
  bool done() const { return future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  /// The finished build's result (waits for it), its time counted; an exception is a failure.
  Built collect() {
    Built b;
    try {
      b = future_.get();
    } catch (const std::exception& e) {
      b = Built{{}, 0, false, e.what()};
    } catch (...) {
      b = Built{{}, 0, false, "the build failed"};
    }
    seconds_ += b.seconds;
    built_now_ = built_now_ || b.built_now;
    return b;
  }

  mutable std::mutex mutex_;
  Adopt adopt_;
  std::future<Built> future_;
  State state_ = State::Building;
  std::optional<K> kernel_;
  double seconds_ = 0;
  bool built_now_ = false;
  std::string why_;
};

}  // namespace matchcount::runtime
