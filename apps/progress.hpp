// Progress on stderr for the matchcount command: a line rewritten in place on a terminal, or
// whole lines now and then when stderr is a file (a batch job's log), where a carriage return
// would make one endless line.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "matchcount/estimate.hpp"

namespace matchcount::cli {

class ProgressDisplay {
 public:
  enum class Mode { Off, Terminal, Lines };
  /// `line_interval`: seconds between lines in Lines mode.
  ProgressDisplay(Mode mode, double line_interval);

  /// An exact count: the fraction of the predicted work done (all threads and devices). The
  /// rate and the time left count only this run's work (a resumed run starts part-way).
  void count(double fraction);
  /// An estimate: samples, the relative error against its target, the time against its cap.
  void estimate(const EstimateProgress& p);
  /// Clears a terminal line; call before printing the result.
  void finish();

  /// "42s", "3m07s", "5h02m", "12 days".
  static std::string duration(double seconds);
  /// One line (without "matchcount: " and the line end) for a count at `fraction`, `elapsed`
  /// seconds into this run, which began at `first` (the fraction of a resumed run).
  static std::string count_line(double fraction, double first, double elapsed);
  /// One line for an estimate.
  static std::string estimate_line(const EstimateProgress& p);

 private:
  using Clock = std::chrono::steady_clock;
  /// Whether a line is due now; takes the lock's caller's word for it.
  bool due();
  void show(const std::string& text);

  Mode mode_;
  double interval_;
  bool shown_ = false;
  std::size_t shown_width_ = 0;
  double first_ = -1;
  Clock::time_point start_, last_{};
  std::mutex mutex_;
};

}  // namespace matchcount::cli
