// The ranks of a run: start-up, the service loop of the ranks other than 0, and walks of
// work units shared through rank 0 (see include/matchcount/cluster.hpp and team.hpp); the jobs themselves are
// the upper layers' (JobHandlers).
#include "runtime/team.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "core/hashing.hpp"
#include "runtime/mpi/peers.hpp"
#include "runtime/mpi/transport.hpp"

namespace matchcount::cluster {
namespace {

bool walks_broken = false;  // rank 0: an engine call shared with the other ranks threw

/// Rank 0's team of the running count (one at a time).
WalkTeam& shared_team() {
  static WalkTeam team;
  return team;
}

bool service_ended = false;

/// Rank 0: what asks the count to stop and save when a rank is lost (on_rank_lost).
std::function<void()>& lost_hook() {
  static std::function<void()> stop;
  return stop;
}

/// Rank 0: the other ranks stop serving and exit with `status` (all ranks ending alike keeps
/// mpirun from aborting ranks that are still finalising), then MPI ends. With a rank lost they
/// cannot all end in order (MPI_Finalize would wait for the lost one): the job just ends.
void end_service(int status) {
  if (service_ended || !transport::active()) return;
  service_ended = true;
  if (peers::any_lost()) peers::end_job(status);
  peers::ending();
  if (walks_broken) {
    std::fprintf(stderr, "matchcount: the other ranks were left inside a shared count: ending the job\n");
    std::fflush(stderr);
    transport::abort(1);
  }
  Writer w;
  w.put<std::uint64_t>(kEnd).put(status);
  for (int r = 1; r < size(); ++r) transport::send(r, kJobTag, w.bytes);
  transport::finalize();
}
void end_service_at_exit() { end_service(0); }

std::uint64_t walk_id(const std::string& tag, std::uint64_t units) {
  return fnv1a64(tag + "/" + std::to_string(units));
}

void pause() { std::this_thread::sleep_for(std::chrono::microseconds(20)); }

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

[[noreturn]] void abort_run(const std::string& message) {
  std::fprintf(stderr, "matchcount: error (rank %d of %d): %s\n", rank(), size(), message.c_str());
  std::fflush(stderr);
  transport::abort(1);
}

void init(int* argc, char*** argv) {
  transport::init(argc, argv);
  if (transport::active()) {
    peers::exchange();
    if (leader()) std::atexit(end_service_at_exit);
    else std::atexit(transport::finalize);
  }
}

int finish(int status) {
  if (leader()) end_service(status);
  return status;
}

void on_rank_lost(std::function<void()> stop) { lost_hook() = std::move(stop); }

std::string lost_ranks() { return leader() && peers::any_lost() ? peers::describe() : std::string(); }

int rank() { return transport::rank(); }
int size() { return transport::size(); }

bool built_with_mpi() {
#ifdef MATCHCOUNT_HAVE_MPI
  return true;
#else
  return false;
#endif
}

int serve_jobs(const JobHandlers& handlers) {
  // A stop (SIGINT/SIGTERM, which mpirun and Slurm send to every rank) is rank 0's to handle:
  // it stops handing out units, waits for the runs out on the ranks, saves its checkpoint and
  // ends the service with its exit status. Ranks that died at once would take their runs along.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  try {
    for (;;) {
      const std::string job = transport::recv(0, kJobTag);
      Reader in(job);
      switch (in.get<std::uint64_t>()) {
        case kEnd: return in.get<int>();
        case kWalks: handlers.walks(in); break;
        case kSampler: handlers.sampler(in); break;
        default: abort_run("an unknown job from rank 0");
      }
    }
  } catch (const std::exception& e) {
    abort_run(e.what());
  }
}

WalkTeam* share_job(const Writer& job) {
  for (int r = 1; r < size(); ++r) transport::send(r, kJobTag, job.bytes);
  shared_team().reset();
  return &shared_team();
}

std::string ranks_note(const std::vector<std::uint64_t>& units_by_rank) {
  std::string s = "ranks 1-" + std::to_string(units_by_rank.size() - 1) + " took";
  for (std::size_t r = 1; r < units_by_rank.size(); ++r) s += (r > 1 ? " + " : " ") + std::to_string(units_by_rank[r]);
  return s + " units";
}

SharedCall::~SharedCall() {
  if (on_ && !shared_team().stopped()) walks_broken = true;
}

// ---- walks ----

void WalkTeam::serve(const std::string& tag, std::uint64_t units, const Take& take, const Deliver& deliver,
                     const std::function<bool()>& stopping) {
  id_ = walk_id(tag, units);
  const int ranks = size();
  const auto n = static_cast<std::size_t>(ranks);
  units_by_rank_.assign(n, 0);
  quiet_.resize(n, 0.0);
  std::vector<char> told(n, 0);  // the walk is over, for that rank
  std::vector<std::uint64_t> out(n, 0);  // units taken, sums not back
  std::vector<Clock::time_point> last(n, Clock::now());  // the last message from each rank
  Clock::time_point check_at = Clock::now(), stop_at{};
  bool stop = false;
  std::string msg;
  for (;;) {
    bool busy = false, heard = false;
    const Clock::time_point now = Clock::now();
    for (int r = 1; r < ranks; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      if (told[ur] && out[ur] == 0) continue;  // done with this walk: its next messages are the next walk's
      busy = true;
      if (!transport::try_recv(r, kWalkTag, msg)) continue;
      heard = true;
      if (out[ur] > 0) quiet_[ur] = std::max(quiet_[ur], seconds(now - last[ur]));
      last[ur] = now;
      Reader in(msg);
      if (in.get<std::uint64_t>() == kResult) {
        const UnitRange u{in.get<std::uint64_t>(), in.get<std::uint64_t>()};
        const std::vector<std::uint64_t> words = in.get_vector<std::uint64_t>();
        if (u.size() > out[ur]) abort_run("rank " + std::to_string(r) + " returned units it did not take");
        out[ur] -= u.size();
        deliver(u, words);
        continue;
      }
      if (in.get<std::uint64_t>() != id_)
        abort_run("rank " + std::to_string(r) + " walks another walk than rank 0 (every rank needs the same "
                  "devices and options: the same GPUs, or --device cpu everywhere)");
      const std::uint64_t want = in.get<std::uint64_t>();
      std::optional<UnitRange> u;
      if (!told[ur] && !stopping()) u = take(want);
      Writer w;
      if (u) {
        out[ur] += u->size();
        units_by_rank_[ur] += u->size();
        w.put(u->begin).put(u->end);
      } else {
        told[ur] = 1;
        if (stopping()) stopped_ = true;
        w.put<std::uint64_t>(0).put<std::uint64_t>(0);
      }
      w.put<std::uint64_t>(stopped_ ? 1 : 0);
      transport::send(r, kWalkTag, w.bytes);
    }
    if (!busy) return;
    // Lost ranks: checked every 200 ms, and every 50 ms from a stop on (a launcher that ends
    // the job because a rank died sends SIGTERM, then SIGKILL a second later).
    if (!stop && stopping()) stop = true, stop_at = now, check_at = now;
    if (now >= check_at) {
      check_at = now + std::chrono::milliseconds(stop ? 50 : 200);
      if (lost_among(told, out, last, stop ? &stop_at : nullptr, now)) {
        // Their units will never come back and the job is ending: stop waiting for every
        // rank, and have the count stop and save what is done (it throws Interrupted; the
        // program says which rank was lost). Without a checkpoint there is nothing to save.
        if (!lost_hook()) peers::report_and_end(kLostRankStatus);
        if (!stop) lost_hook()();
        return;
      }
    }
    if (!heard) pause();
  }
}

bool WalkTeam::lost_among(const std::vector<char>& told, const std::vector<std::uint64_t>& out,
                          const std::vector<Clock::time_point>& last, const Clock::time_point* stop_at,
                          Clock::time_point now) {
  bool any = false;
  for (int r = 1; r < size(); ++r) {
    const auto ur = static_cast<std::size_t>(r);
    if (told[ur] && out[ur] == 0) continue;  // not waited for
    if (peers::lost(r)) {
      any = true;
    } else if (stop_at && out[ur] > 0 && !peers::checkable(r)) {
      // A rank on another host, whose process cannot be checked: after a stop it is given up
      // when silent for half a second plus twice the longest it has been silent with units out.
      const double limit = 0.5 + 2 * quiet_[ur];
      if (seconds(now - std::max(*stop_at, last[ur])) > limit) {
        peers::silent(r, limit);
        any = true;
      }
    }
  }
  return any;
}

void WalkTeam::join(const std::string& tag, std::uint64_t units) {
  std::lock_guard<std::mutex> g(mutex_);
  id_ = walk_id(tag, units);
  over_ = stopped_;  // after a stop the engine's remaining walks get no units
}

std::optional<UnitRange> WalkTeam::take(std::uint64_t want) {
  std::lock_guard<std::mutex> g(mutex_);
  if (over_) return std::nullopt;
  Writer w;
  w.put<std::uint64_t>(kRequest).put(id_).put(want);
  transport::send(0, kWalkTag, w.bytes);
  const std::string reply = transport::recv(0, kWalkTag);
  Reader in(reply);
  UnitRange u{in.get<std::uint64_t>(), 0};
  u.end = in.get<std::uint64_t>();
  if (in.get<std::uint64_t>()) stopped_ = true;
  if (u.size() == 0) {
    over_ = true;
    return std::nullopt;
  }
  return u;
}

void WalkTeam::give(UnitRange r, const std::vector<std::uint64_t>& words) {
  Writer w;
  w.put<std::uint64_t>(kResult).put(r.begin).put(r.end).put_vector(words);
  transport::send(0, kWalkTag, w.bytes);
}

}  // namespace matchcount::cluster
