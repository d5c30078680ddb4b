#include "progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace matchcount::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x >= 0.1 ? "%.0f%%" : "%.2g%%", 100.0 * x);
  return buf;
}

std::string rate_text(double per_second) {
  char buf[32];
  if (per_second >= 0.01) std::snprintf(buf, sizeof buf, "%.1f%%/s", 100 * per_second);
  else if (per_second * 60 >= 0.01) std::snprintf(buf, sizeof buf, "%.1f%%/min", 6000 * per_second);
  else std::snprintf(buf, sizeof buf, "%.2f%%/h", 360000 * per_second);
  return buf;
}

}  // namespace

ProgressDisplay::ProgressDisplay(Mode mode, double line_interval)
    : mode_(mode), interval_(line_interval), start_(Clock::now()) {}

std::string ProgressDisplay::duration(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "unknown";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else if (s < 86400 * 3) std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(s) % 3600 / 60);
  else std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
  return buf;
}

std::string ProgressDisplay::count_line(double fraction, double first, double elapsed) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%% done", 100.0 * fraction);
  std::string line = buf;
  const double rate = elapsed > 0 ? (fraction - first) / elapsed : 0.0;  // fraction per second
  if (rate > 0)
    line += ", " + rate_text(rate) + ", " + duration(elapsed) + " elapsed, about " +
            duration((1.0 - fraction) / rate) + " left";
  else
    line += ", " + duration(elapsed) + " elapsed";
  return line;
}

std::string ProgressDisplay::estimate_line(const EstimateProgress& p) {
  std::string line = "estimate: " + std::to_string(p.samples);
  if (p.sample_target > 0) line += " of " + std::to_string(p.sample_target);
  line += " samples, relative error ";
  line += std::isfinite(p.rel_error) ? percent(p.rel_error) : std::string("not known yet");
  if (p.rel_error_target > 0) line += " (target " + percent(p.rel_error_target) + ")";
  line += ", " + duration(p.seconds) + " elapsed";
  // Time left: the samples the target needs if the relative variance holds (or the rest of a
  // fixed count) at this run's rate, never past the cap.
  double left = NAN;
  if (p.samples > 0 && p.seconds > 0) {
    const double per_sample = p.seconds / static_cast<double>(p.samples);
    if (p.sample_target > 0)
      left = per_sample * static_cast<double>(p.sample_target - std::min(p.sample_target, p.samples));
    else if (std::isfinite(p.rel_error) && p.rel_error_target > 0)
      left = per_sample * static_cast<double>(p.samples) *
             std::max(0.0, (p.rel_error * p.rel_error) / (p.rel_error_target * p.rel_error_target) - 1.0);
  }
  const bool capped = p.max_seconds > 0;
  if (capped && !(left < p.max_seconds - p.seconds)) {
    line += ", at most " + duration(std::max(0.0, p.max_seconds - p.seconds)) + " left (the " +
            duration(p.max_seconds) + " cap)";
  } else if (std::isfinite(left)) {
    line += ", about " + duration(left) + " left";
    if (capped) line += " (cap " + duration(p.max_seconds) + ")";
  }
  return line;
}

bool ProgressDisplay::due() {
  const double elapsed = seconds_since(start_);
  if (mode_ == Mode::Terminal) return elapsed >= 2.0 && seconds_since(last_) >= 0.5;
  return elapsed >= interval_ && seconds_since(last_) >= interval_;
}

void ProgressDisplay::show(const std::string& text) {
  last_ = Clock::now();
  if (mode_ == Mode::Terminal) {
    // Pad over the tail of a longer earlier line.
    const std::size_t width = text.size();
    std::fprintf(stderr, "\rmatchcount: %s%*s", text.c_str(),
                 static_cast<int>(shown_width_ > width ? shown_width_ - width : 0), "");
    shown_width_ = std::max(shown_width_, width);
    shown_ = true;
  } else {
    std::fprintf(stderr, "matchcount: %s\n", text.c_str());
  }
  std::fflush(stderr);
}

void ProgressDisplay::count(double fraction) {
  if (mode_ == Mode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (first_ < 0) first_ = fraction;
  if (!due()) return;
  show(count_line(fraction, first_, seconds_since(start_)));
}

void ProgressDisplay::estimate(const EstimateProgress& p) {
  if (mode_ == Mode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!due()) return;
  show(estimate_line(p));
}

void ProgressDisplay::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (shown_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown_width_ + 12), "");
  shown_ = false;
}

}  // namespace matchcount::cli
