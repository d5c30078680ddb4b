// The checkpoint file of one count: the format (checkpoint.cpp) and the WalkJournal the
// running walk saves its state to. The public face is matchcount::Checkpoint.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "checkpoint/checkpoint_io.hpp"
#include "runtime/work_units.hpp"

namespace matchcount {

/// The checkpoint file behind matchcount::Checkpoint (see that class): also the journal the
/// running walk keeps its state in.
class CheckpointFile final : public WalkJournal {
 public:
  /// Writes at most every `every_seconds` (and when a stop is requested); `verify`: resumed
  /// walks recompute a sample of their saved work (--verify-resume). Checks the path
  /// (check_checkpoint_path) and holds the file's lock (checkpoint_io::Lock) while it lives.
  CheckpointFile(std::string path, double every_seconds, bool verify = false);
  /// Async-signal-safe (one atomic store): asks the count to save and stop.
  void request_stop(int signal) noexcept { stop_.store(signal, std::memory_order_relaxed); }
  const std::string& path() const { return path_; }

  /// Loads the file when it exists. Throws InputError (exit code 2) when it is corrupt, of
  /// another version, larger than `max_bytes`, or was written for another input, options or
  /// plan (`fingerprint`).
  void open(std::uint64_t fingerprint, std::size_t blocks, std::uint64_t max_bytes);
  /// True when open() found a file.
  bool resumed() const { return resumed_; }
  /// What was resumed and recomputed so far.
  ResumeSummary summary() const;
  /// The saved value of block i (its text encoding), or empty.
  std::string block_value(std::size_t i) const;
  /// Block i starts: walk states of any other block are dropped.
  void begin_block(std::size_t i);
  /// Block i is counted; written when due; throws Interrupted when a stop was requested.
  void finish_block(std::size_t i, std::string value);
  /// The count is complete: the file is removed.
  void complete();
  /// Writes the file now (temporary file, fsync, rename); false (and a warning on stderr) on
  /// failure.
  bool write();

  WalkState resume(const std::string& tag) override;
  bool due() const override;
  void update(const std::string& tag, const WalkState& state) override;
  int stop_requested() const override { return stop_.load(std::memory_order_relaxed); }
  std::string interrupted_message(int signal) const override;
  std::string name() const override { return path_; }
  double verify_share() const override;
  void verified(const std::string& tag, std::uint64_t units, std::uint64_t ranges, std::uint64_t done) override;

 private:
  std::string serialise() const;
  void parse(const std::string& text, std::uint64_t fingerprint);

  std::string path_;
  double every_;
  bool verify_;
  checkpoint_io::Lock lock_;
  std::atomic<int> stop_{0};
  std::atomic<std::int64_t> last_write_ns_{0};
  mutable std::mutex mutex_;
  std::uint64_t fingerprint_ = 0;
  std::size_t blocks_ = 0;
  bool resumed_ = false;
  std::map<std::size_t, std::string> values_;
  std::size_t running_ = 0;
  bool has_running_ = false;
  std::map<std::string, WalkState> walks_;
  std::set<std::string> resumed_walks_;
  ResumeSummary summary_;
};

}  // namespace matchcount
