// Ctrl-C during a count. Python's own SIGINT handler only sets a flag that the interpreter
// looks at between bytecodes, which never comes while C++ counts with the GIL released. So for
// the length of a count we install a handler that asks the count to stop through a Checkpoint
// (the one mechanism the library has for stopping walks: they save and throw Interrupted within
// a unit of work), and restore Python's afterwards. A second Ctrl-C, for an engine that does not
// stop early, ends the process as the CLI's second signal does.
#pragma once

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "matchcount/checkpoint.hpp"

namespace matchcount::py {

class StopToken {
 public:
  /// `user_path` non-empty: the user's checkpoint file (kept on a stop, as in the CLI).
  /// Otherwise, with `wanted`, a private file that exists only between a stop and the
  /// destructor.
  StopToken(const std::string& user_path, double every_seconds, bool wanted);
  ~StopToken();
  StopToken(const StopToken&) = delete;
  StopToken& operator=(const StopToken&) = delete;
  Checkpoint* checkpoint() { return checkpoint_.get(); }
  /// Asks the count to stop (from a progress callback that raised, or the signal handler).
  void request_stop(int signal) noexcept;
  bool stop_requested() const { return stopped_.load() != 0; }

 private:
  std::unique_ptr<Checkpoint> checkpoint_;
  void remove_private_file();
  std::filesystem::path private_file_;  // empty for the user's checkpoint
  std::atomic<int> stopped_{0};
};

/// The "signal" a count is stopped with at its max_seconds cap (the CLI's, apps/cli_limits.hpp):
/// the Interrupted it causes is a BudgetError, not a KeyboardInterrupt.
constexpr int kDeadlineSignal = SIGALRM;

/// Asks the count to stop through `token` when `seconds` have passed since its construction,
/// unless cancelled (or destroyed) first. A count without a checkpoint to stop through (too
/// small, rectangular) runs to its end: nothing is left to save, and its value stands.
class Deadline {
 public:
  Deadline(double seconds, StopToken* token);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  void cancel();

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

/// Installs the SIGINT handler for its lifetime (only when `active`: the main thread, with
/// Python's handler in place). signalled() tells whether Ctrl-C came.
class SigintGuard {
 public:
  SigintGuard(bool active, StopToken* token);
  ~SigintGuard();
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;
  bool signalled() const;
  /// Puts Python's handler back (idempotent; the destructor calls it too).
  void restore();

 private:
  bool active_ = false;
  bool signalled_ = false;  // kept by restore()
  struct sigaction old_ {};
};

}  // namespace matchcount::py
