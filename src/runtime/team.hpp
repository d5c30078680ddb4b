// Work shared over the ranks of an MPI job (include/matchcount/cluster.hpp): rank 0 sends the
// other ranks jobs, which their service loop hands to the job's handler; the walks of work
// units are shared through a WalkTeam. Without MPI there is one rank and no job is sent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/cluster.hpp"
#include "runtime/mpi/messages.hpp"
#include "runtime/work_units.hpp"

namespace matchcount::cluster {

/// One walk of work units shared by the ranks (EngineOptions::team). On rank 0, serve() runs
/// beside the local workers; on the others the workers take() and give() instead of using
/// the local queue. A walk is named by a tag and its unit count: every rank must walk the
/// same walks in the same order (they run the same engine on the same block), which is
/// checked.
class WalkTeam {
 public:
  using Take = std::function<std::optional<UnitRange>(std::uint64_t want)>;
  using Deliver = std::function<void(UnitRange, const std::vector<std::uint64_t>& words)>;

  bool leader() const { return cluster::leader(); }
  /// Rank 0: hands `take`'s units to the other ranks and passes their sums to `deliver`,
  /// until each rank has been told the walk is over and has returned every run it took. Once
  /// `stopping()` (a stop was requested) no more units are taken and the ranks are told to
  /// stop: they skip the engine's remaining walks and return to their service loop. When a
  /// rank it waits for is lost (cluster::on_rank_lost) it returns at once, without the runs
  /// still out, having asked the count to stop; without a way to stop it, it ends the job.
  void serve(const std::string& tag, std::uint64_t units, const Take& take, const Deliver& deliver,
             const std::function<bool()>& stopping);
  /// Other ranks: starts the walk `tag` of `units` units.
  void join(const std::string& tag, std::uint64_t units);
  /// Other ranks: up to `want` units from rank 0; nullopt when the walk is over. Thread-safe.
  std::optional<UnitRange> take(std::uint64_t want);
  /// Other ranks: the sums of units r (as the walk encodes them). Thread-safe.
  void give(UnitRange r, const std::vector<std::uint64_t>& words);
  /// Units this rank handed out to each rank (rank 0: its own share is not counted).
  const std::vector<std::uint64_t>& units_by_rank() const { return units_by_rank_; }
  /// The ranks were told to stop (rank 0), or were told so (the others).
  bool stopped() const { return stopped_; }
  /// Rank 0: a new engine call begins.
  void reset() { stopped_ = false; }

 private:
  std::mutex mutex_;  // one request in flight per rank
  std::uint64_t id_ = 0;
  bool over_ = false, stopped_ = false;
  std::vector<std::uint64_t> units_by_rank_;

  using Clock = std::chrono::steady_clock;
  /// Rank 0, serving: whether a rank it waits for (not told, or with units out) is lost: its
  /// process is gone, or, after a stop at `*stop_at`, it is on another host and silent too
  /// long (see the definition). Records them (peers.hpp).
  bool lost_among(const std::vector<char>& told, const std::vector<std::uint64_t>& out,
                  const std::vector<Clock::time_point>& last, const Clock::time_point* stop_at, Clock::time_point now);
  std::vector<double> quiet_;  // rank 0: the longest each rank was silent with units out (s)
};

/// Rank 0: sends `job` (its first word a Job code) to every other rank, whose service loop
/// hands it to that code's handler; returns the team the job's walks share their units
/// through (EngineOptions::team).
WalkTeam* share_job(const Writer& job);

/// Rank 0: guards the engine call that share_job() began. Left without returned() (the call
/// threw) other than by a stop the ranks were told about, it leaves them possibly inside the
/// call, so at exit the job ends with MPI_Abort instead of the orderly end of service.
class SharedCall {
 public:
  explicit SharedCall(bool shared) : on_(shared) {}
  SharedCall(const SharedCall&) = delete;
  SharedCall& operator=(const SharedCall&) = delete;
  void returned() { on_ = false; }
  ~SharedCall();

 private:
  bool on_;
};

/// The handler of one kind of job on the ranks other than 0: reads the rest of the job.
using JobHandler = std::function<void(Reader&)>;
struct JobHandlers {
  JobHandler walks, sampler;
};
/// Ranks other than 0: serves rank 0's jobs with these handlers until it ends the run;
/// returns the exit status.
int serve_jobs(const JobHandlers& handlers);

/// MPI: "ranks 1-3 took a + b + c units" (units rank 0 handed to each other rank; empty entries
/// for rank 0 itself, which took the rest).
std::string ranks_note(const std::vector<std::uint64_t>& units_by_rank);

}  // namespace matchcount::cluster
