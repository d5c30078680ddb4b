// Runs spread over the ranks of an MPI job (`mpirun -np R matchcount ...`, or srun under
// Slurm; docs/usage.md "Several hosts"). Rank 0 does everything a single process does and
// shares out the long parts: the work units of the Ryser walks (CPU or GPU, each rank on its
// own devices) and the samples of estimates. The other ranks serve it. Results are combined
// exactly as in one process: the same bits for exact counts, CPU walks and CPU estimates with
// a fixed seed. Without MPI (a build without it, or a run without mpirun) there is one rank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "matchcount/checkpoint.hpp"

namespace matchcount {

struct EngineOptions;
template <class T>
struct SparseMatrix;  // matchcount/matrix.hpp (C++20; this header is also read by CUDA sources)

namespace cluster {

/// From main, before anything else: joins the MPI job when launched as one of its ranks.
/// Rank 0 ends the other ranks' service when the process exits.
void init(int* argc, char*** argv);
int rank();
int size();
inline bool leader() { return rank() == 0; }
inline bool distributed() { return size() > 1; }
bool built_with_mpi();

/// Rank 0, at the end of main: the other ranks stop serving and exit with the same status,
/// then MPI ends; returns `status`. (Without it, an exit ends them at exit time, status 0.)
int finish(int status);
/// Ranks other than 0: serves rank 0 until it ends the run; returns the exit status.
int serve();
/// Prints the message with this rank's number on stderr and ends every rank of the job
/// (exit status 1): for failures that would leave the ranks' shares incomplete.
[[noreturn]] void abort_run(const std::string& message);

/// Rank 0: whether a block planned for `engine` with this predicted time is shared out (the
/// walks in work units: ryser, gpu-ryser, sparyser and skipper, when several ranks run and the
/// block takes at least MATCHCOUNT_MPI_MIN_SECONDS, default 0.5 s).
bool shares(const std::string& engine, double predicted_seconds);

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
  /// stop: they skip the engine's remaining walks and return to their service loop.
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
};

/// Rank 0: the other ranks count their share of `engine`'s walks on block `a` (sent to
/// them with the options); returns the team for EngineOptions::team.
template <class T>
WalkTeam* share_walks(const std::string& engine, const SparseMatrix<T>& a, const EngineOptions& o);

/// Rank 0: guards the engine call that share_walks() began. Left without returned() (the call
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

}  // namespace cluster
}  // namespace matchcount
