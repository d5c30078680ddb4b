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

/// A partial sum of a walk kept beside its total, so that a resume can recompute the units of
/// `range` and compare (--verify-resume). What `sum` is depends on the executor
/// (WalkLedger::Marks): the total of units [0, range.end) for a walk that joins its units in
/// order, or the sum of the units of `range` alone for one whose addition is exact.
struct WalkMark {
  UnitRange range;
  std::vector<std::uint64_t> sum;
  bool operator==(const WalkMark& o) const { return range == o.range && sum == o.sum; }
};

/// Progress of one walk: which of its `units` are done and the combined partial sums of those,
/// in the walk's own encoding (64-bit words; empty while nothing is done), with the marks that
/// let a resume check them.
struct WalkState {
  std::uint64_t units = 0;
  std::vector<UnitRange> done;  // sorted, disjoint and not touching
  std::vector<std::uint64_t> sum;
  std::vector<WalkMark> marks;  // sorted by range, disjoint, covering `done` (WalkLedger)

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
  /// The file named by errors about a saved state (InputError).
  virtual std::string name() const { return "checkpoint"; }
  /// The share of a resumed walk's done units to recompute before it goes on (0: none;
  /// --verify-resume); at least the marks whose sums the total rests on are recomputed.
  virtual double verify_share() const { return 0; }
  /// A resumed walk recomputed `units` of its `done` units, in `ranges` ranges, and found the
  /// sums it had saved.
  virtual void verified(const std::string& tag, std::uint64_t units, std::uint64_t ranges, std::uint64_t done) {
    (void)tag, (void)units, (void)ranges, (void)done;
  }
};

/// A range of done units to recompute (WalkLedger::verification): for a walk that joins its
/// units in order, from the total `start` of the units before it (empty: from none).
struct VerifyRange {
  UnitRange range;
  std::vector<std::uint64_t> start, expect;
};

/// The done units, progress and journal of one walk, shared by its workers (who serialise the
/// calls): resumes the saved state, records finished runs of units, reports progress (the
/// fraction of units done) and saves the state when the journal says it is due.
///
/// It also keeps the walk's marks (WalkMark), at most about kMaxMarks of them, each covering
/// a bounded share of the done units, so that a resume can recompute a sample of the saved
/// work cheaply (verification(), verified()):
/// - Marks::Prefix, a walk that joins its units strictly in order (runtime::run_units): the
///   done units are a prefix [0, F), and the marks are the totals after units [0, b) at
///   boundaries b (multiples of stride(), thinned as F grows, and F itself), since with
///   floating-point sums only the same additions in the same order give the same bits.
/// - Marks::Pieces, a walk whose addition of sums is exact and independent of the order
///   (runtime::run_on_devices): the sums of runs of units, adjacent ones merged.
class WalkLedger {
 public:
  enum class Marks { Prefix, Pieces };
  using AddWords = std::function<void(std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum)>;
  static constexpr std::size_t kMaxMarks = 128;

  /// `words` is the size of the walk's sum encoding; a saved state of another shape, or whose
  /// marks do not fit its done units and total, is refused (InputError naming the journal).
  /// Pieces need the walk's exact addition `add`.
  WalkLedger(WalkJournal* journal, std::string tag, std::uint64_t units, std::size_t words,
             std::function<void(double)> progress, Marks kind = Marks::Prefix, AddWords add = {});
  /// The state resumed from the journal (nothing done when there was none).
  const WalkState& state() const { return state_; }
  /// True once workers should stop taking units (a stop was requested).
  bool stopping() const { return journal_ && journal_->stop_requested() != 0; }
  /// Prefix: the total after units [0, b) is to be handed to mark() when b is a multiple of this.
  std::uint64_t stride() const { return stride_; }
  /// Prefix: `total` is the sum of units [0, b) (b past the last mark).
  void mark(std::uint64_t b, std::vector<std::uint64_t> total);
  /// Pieces: the units r, done, sum to `sum` (called before done(r, ...)).
  void piece(UnitRange r, const std::vector<std::uint64_t>& sum);
  /// Units r are done; `sum_words` gives the combined sum of all done units (called only when
  /// the state is saved).
  void done(UnitRange r, const std::function<std::vector<std::uint64_t>()>& sum_words);
  /// The walk ended with every unit done: the final state goes to the journal.
  void finished(std::vector<std::uint64_t> sum);
  /// The walk stopped early: saves the state and throws Interrupted.
  [[noreturn]] void interrupted(std::vector<std::uint64_t> sum);

  /// The resumed ranges to recompute when the journal asks for it (WalkJournal::verify_share):
  /// Prefix: the last mark (the total rests on it) and random others; Pieces: random pieces;
  /// in all at most about the share of the done units asked for. Empty when nothing is asked
  /// or nothing was resumed.
  std::vector<VerifyRange> verification() const;
  /// `got[i]` is the recomputed sum of `ranges[i]`: throws InputError (naming the journal) on
  /// the first that differs from the saved one; else tells the journal.
  void verified(const std::vector<VerifyRange>& ranges, const std::vector<std::vector<std::uint64_t>>& got);

 private:
  void check_marks(std::size_t words) const;
  WalkState snapshot(std::vector<std::uint64_t> sum) const;
  [[noreturn]] void refuse(const std::string& why) const;
  std::vector<std::uint64_t> normal(const std::vector<std::uint64_t>& sum) const;

  WalkJournal* journal_;
  std::string tag_;
  WalkState state_;  // Prefix: its marks may end before the frontier (snapshot adds the last)
  std::function<void(double)> progress_;
  Marks kind_;
  AddWords add_;
  std::size_t words_ = 0;
  std::uint64_t stride_ = 1;
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
