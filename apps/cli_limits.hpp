// Pieces of the matchcount program (cli_main.cpp) that keep its promises about limits and
// messages: every error is one line whatever bytes a file name or value holds, a count stops
// at its --max-seconds cap, and a lost MPI rank is named in one line after the save.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <limits>

#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/memory.hpp"

namespace matchcount::cli {

/// `text` with control characters written as escapes (\n, \r, \t, \xNN), so that a message
/// quoting a file name or a value stays on one line.
inline std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

/// --max-memory SIZE: a size as parse_memory_size reads it ("200M", "8G", "1.5GiB"), or "none"
/// or 0 for no budget; anything else is a usage error naming the option.
inline CLI::Validator memory_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text == "none" || parse_memory_size(text)) return "";
        return "must be a size such as 200M, 8G or 1.5GiB (none or 0: no budget), not '" + one_line(text) + "'";
      },
      "SIZE");
}

/// The budget in bytes of a --max-memory value that memory_size() accepted: infinity for none
/// or 0.
inline double memory_budget_of(const std::string& text) {
  const double bytes = text == "none" ? 0.0 : parse_memory_size(text).value_or(0.0);
  return bytes > 0 ? bytes : std::numeric_limits<double>::infinity();
}

/// The "signal" a Checkpoint is stopped with when the --max-seconds cap is reached; the
/// Interrupted it causes is reported as a refusal (exit code 3), not as a signal.
constexpr int kDeadlineSignal = SIGALRM;

/// Stops an exact count at its time cap. With a checkpoint the count is asked to stop as a
/// signal asks it (the walk saves and throws Interrupted); a count that has not stopped a
/// minute later, or one without a checkpoint (nothing to save), ends the process with one line
/// and exit code 3. cancel() before printing the value: after it the timer does nothing.
class DeadlineTimer {
 public:
  DeadlineTimer(double seconds, Checkpoint* checkpoint, std::string cap_text)
      : checkpoint_(checkpoint), cap_(std::move(cap_text)) {
    thread_ = std::thread([this, seconds] { watch(seconds); });
  }
  ~DeadlineTimer() {
    cancel();
    thread_.join();
  }
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  void cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    wake_.notify_all();
  }

 private:
  void watch(double seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto until = [&](double s) {
      return wake_.wait_for(lock, std::chrono::duration<double>(s), [this] { return done_; });
    };
    if (until(seconds)) return;
    if (checkpoint_) {
      checkpoint_->request_stop(kDeadlineSignal);
      if (until(60)) return;
    }
    // Still holding the lock: the main thread cannot print a value after this line.
    const std::string line = "matchcount: error: the time cap --max-seconds " + cap_ + " was reached; the count " +
                             (checkpoint_ ? "did not stop within a minute (the last periodic save stands)"
                                          : "stopped (--checkpoint FILE saves progress to resume)") + "\n";
    if (::write(STDERR_FILENO, line.data(), line.size()) < 0) {}
    _exit(3);
  }

  Checkpoint* checkpoint_;
  std::string cap_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

/// MPI, rank 0: a rank lost mid-walk stops the count as SIGTERM does, so that it saves the
/// checkpoint before the launcher ends the job (docs/usage.md, "Several hosts"). Returns
/// `checkpoint`, which must outlive the count.
inline Checkpoint* stop_when_a_rank_is_lost(Checkpoint* checkpoint) {
  cluster::on_rank_lost([checkpoint] { checkpoint->request_stop(SIGTERM); });
  return checkpoint;
}

/// The line and exit status of a count that stopped with its progress saved in
/// `checkpoint_file`: the lost MPI rank that stopped it (cluster::kLostRankStatus), else the
/// signal (128 + signal).
inline int report_interrupted(const Interrupted& e, const std::string& checkpoint_file) {
  if (const std::string lost = cluster::lost_ranks(); !lost.empty()) {
    std::cerr << "matchcount: error: "
              << one_line(lost + "; progress is saved in " + checkpoint_file + ": run the same command again to resume")
              << "\n";
    return cluster::kLostRankStatus;
  }
  std::cerr << "matchcount: " << one_line(e.what()) << "\n";
  return 128 + e.signal();
}

}  // namespace matchcount::cli
