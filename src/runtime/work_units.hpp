// Work units of the walks: a Gray-code walk (the Ryser-type engines, CPU and GPU) is cut
// into units, fixed ranges of chunks whose boundaries depend only on the block, never on
// threads, devices or ranks. Workers take units from a UnitQueue (or an MPI WalkTeam) and
// report finished runs of them with their combined partial sums to the walk's WalkLedger,
// which tracks which units are done, shows progress and hands the walk's state to a
// WalkJournal (the checkpoint file implements it; tests supply their own).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/checkpoint.hpp"

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

/// Where walks keep their progress. Implemented by the checkpoint file; tests supply their own.
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
  /// most half a fair share of what is left so that they finish together, but not fewer than
  /// `least` (runs with a fixed cost of their own); nullopt when none are left.
  std::optional<UnitRange> take(std::uint64_t want, int workers, std::uint64_t least = 1);
  /// Returns units a failed worker took (they go to the front).
  void give_back(UnitRange r);
  std::uint64_t left() const;

 private:
  mutable std::mutex mutex_;
  std::vector<UnitRange> todo_;  // front = todo_.back() (ranges kept in reverse order)
  std::uint64_t left_ = 0;
};

/// The observer set_walk_observer installed (matchcount/engine.hpp), or nullptr.
using WalkObserverFn = void (*)(std::uint64_t unit);
WalkObserverFn current_walk_observer();

}  // namespace matchcount
