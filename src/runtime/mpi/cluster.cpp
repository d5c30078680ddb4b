// The ranks of a run: start-up, the service loop of the ranks other than 0, and walks of
// work units shared through rank 0 (see include/matchcount/cluster.hpp and team.hpp); the jobs themselves are
// the upper layers' (JobHandlers).
#include "runtime/team.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "core/hashing.hpp"
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

/// Rank 0: the other ranks stop serving and exit with `status` (all ranks ending alike keeps
/// mpirun from aborting ranks that are still finalising), then MPI ends.
void end_service(int status) {
  if (service_ended || !transport::active()) return;
  service_ended = true;
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

}  // namespace

[[noreturn]] void abort_run(const std::string& message) {
  std::fprintf(stderr, "matchcount: error (rank %d of %d): %s\n", rank(), size(), message.c_str());
  std::fflush(stderr);
  transport::abort(1);
}

void init(int* argc, char*** argv) {
  transport::init(argc, argv);
  if (transport::active()) {
    if (leader()) std::atexit(end_service_at_exit);
    else std::atexit(transport::finalize);
  }
}

int finish(int status) {
  if (leader()) end_service(status);
  return status;
}

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
  units_by_rank_.assign(static_cast<std::size_t>(ranks), 0);
  std::vector<char> told(static_cast<std::size_t>(ranks), 0);  // the walk is over, for that rank
  std::vector<std::uint64_t> out(static_cast<std::size_t>(ranks), 0);  // units taken, sums not back
  std::string msg;
  for (;;) {
    bool busy = false, heard = false;
    for (int r = 1; r < ranks; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      if (told[ur] && out[ur] == 0) continue;  // done with this walk: its next messages are the next walk's
      busy = true;
      if (!transport::try_recv(r, kWalkTag, msg)) continue;
      heard = true;
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
    if (!heard) pause();
  }
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
