// Checkpoints of long counts and the work units they are made of.
//
// A Gray-code walk (the CPU and GPU Ryser engines) is cut into units: fixed ranges of chunks
// whose boundaries depend only on the block size, never on threads or devices. Workers (CPU
// threads, GPUs, later MPI ranks) take units and report finished runs of them with their
// combined partial sums; a WalkLedger tracks which units are done, shows progress and hands
// the walk's state to a WalkJournal. The Checkpoint journal keeps the values of the finished
// blocks and the running walk's state in a file, written atomically every few seconds and when
// a stop is requested (SIGINT/SIGTERM), so that the same command resumes (docs/usage.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace matchcount {

/// Half-open range [begin, end) of work units.
struct UnitRange {
  std::uint64_t begin = 0, end = 0;
  std::uint64_t size() const { return end - begin; }
  bool operator==(const UnitRange& o) const { return begin == o.begin && end == o.end; }
};

/// Progress of one walk: which of its `units` are done and the combined partial sums of those,
/// in the walk's own encoding (64-bit words; empty while nothing is done).
struct WalkState {
  std::uint64_t units = 0;
  std::vector<UnitRange> done;  // sorted, disjoint and not touching
  std::vector<std::uint64_t> sum;

  std::uint64_t done_units() const;
  bool complete() const { return done_units() == units; }
  /// Marks r done (r must not overlap a done range).
  void add(UnitRange r);
  /// The units not yet done, in order.
  std::vector<UnitRange> remaining() const;
};

/// The count stopped at a signal; its progress is in the checkpoint file. what() says so.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& message) : std::runtime_error(message), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Where walks keep their progress. Implemented by Checkpoint; tests supply their own.
/// All calls are made from one thread at a time per walk.
class WalkJournal {
 public:
  virtual ~WalkJournal() = default;
  /// The saved state of the walk `tag` of the running block (units == 0 when none).
  virtual WalkState resume(const std::string& tag) = 0;
  /// True when update() should be called now (an interval passed, or a stop was requested).
  /// Cheap, and safe from any thread.
  virtual bool due() const = 0;
  /// The walk's state now (and at its end); persisted when due.
  virtual void update(const std::string& tag, const WalkState& state) = 0;
  /// Nonzero (the signal) once a stop was requested: walks stop taking units, call update and
  /// throw Interrupted. Safe from any thread.
  virtual int stop_requested() const = 0;
  /// The message of the Interrupted exception thrown for `signal`.
  virtual std::string interrupted_message(int signal) const;
};

/// The done units, progress and journal of one walk, shared by its workers (who serialise the
/// calls): resumes the saved state, records finished runs of units, reports progress (the
/// fraction of units done) and saves the state when the journal says it is due.
class WalkLedger {
 public:
  /// `words` is the size of the walk's sum encoding; a saved state of another shape is refused.
  WalkLedger(WalkJournal* journal, std::string tag, std::uint64_t units, std::size_t words,
             std::function<void(double)> progress);
  /// The state resumed from the journal (nothing done when there was none).
  const WalkState& state() const { return state_; }
  /// True once workers should stop taking units (a stop was requested).
  bool stopping() const { return journal_ && journal_->stop_requested() != 0; }
  /// Units r are done; `sum_words` gives the combined sum of all done units (called only when
  /// the state is saved).
  void done(UnitRange r, const std::function<std::vector<std::uint64_t>()>& sum_words);
  /// The walk ended with every unit done: the final state goes to the journal.
  void finished(std::vector<std::uint64_t> sum);
  /// The walk stopped early: saves the state and throws Interrupted.
  [[noreturn]] void interrupted(std::vector<std::uint64_t> sum);

 private:
  WalkJournal* journal_;
  std::string tag_;
  WalkState state_;
  std::function<void(double)> progress_;
};

/// A shared queue of the units a walk still needs, handed out front to back in runs; a worker
/// asks for about as many units as it does in a second or so. Thread-safe.
class UnitQueue {
 public:
  explicit UnitQueue(std::vector<UnitRange> todo);
  /// Up to `want` (>= 1) units from the front (never across a gap), with several workers at
  /// most half a fair share of what is left so that they finish together; nullopt when none
  /// are left.
  std::optional<UnitRange> take(std::uint64_t want, int workers);
  /// Returns units a failed worker took (they go to the front).
  void give_back(UnitRange r);
  std::uint64_t left() const;

 private:
  mutable std::mutex mutex_;
  std::vector<UnitRange> todo_;  // front = todo_.back() (ranges kept in reverse order)
  std::uint64_t left_ = 0;
};

/// The checkpoint file of one count (see docs/usage.md, "Checkpoints"). The pipeline opens it
/// after planning, takes saved block values from it and records new ones; the running walk
/// keeps its state in it through the WalkJournal interface.
class Checkpoint final : public WalkJournal {
 public:
  /// Writes at most every `every_seconds` (and when a stop is requested).
  Checkpoint(std::string path, double every_seconds);
  /// Async-signal-safe (one atomic store): asks the count to save and stop.
  void request_stop(int signal) noexcept { stop_.store(signal, std::memory_order_relaxed); }
  const std::string& path() const { return path_; }

  /// Loads the file when it exists. Throws InputError (exit code 2) when it is corrupt, of
  /// another version, or was written for another input, options or plan (`fingerprint`).
  void open(std::uint64_t fingerprint, std::size_t blocks);
  /// True when open() found a file.
  bool resumed() const { return resumed_; }
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

 private:
  std::string serialise() const;
  void parse(const std::string& text, std::uint64_t fingerprint);

  std::string path_;
  double every_;
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
};

/// 64-bit FNV-1a, the hash of fingerprints and checksums; `h` chains calls.
std::uint64_t fnv1a64(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ULL);
inline std::uint64_t fnv1a64(const std::string& s, std::uint64_t h = 0xcbf29ce484222325ULL) {
  return fnv1a64(s.data(), s.size(), h);
}

}  // namespace matchcount
