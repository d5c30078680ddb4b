#include "runtime/device_walk.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "matchcount/gpu.hpp"

namespace matchcount::runtime {
namespace {

/// Seconds on the walk's clock.
double seconds_now(const DeviceWalk& walk) {
  if (walk.clock) return walk.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// What the device threads of one walk share.
struct Shared {
  Shared(const DeviceWalk& w, WalkLedger& l, UnitQueue& q) : walk(w), ledger(l), queue(q) {}
  const DeviceWalk& walk;
  WalkLedger& ledger;
  UnitQueue& queue;
  int devices = 1;  // taking units now
  std::mutex mutex;
  std::vector<std::uint64_t> total, units_per_device;
  std::vector<std::string> failures;  // per device, empty while healthy
  std::exception_ptr fatal;           // anything but a CUDA failure (a bug): rethrown
  /// Per device: its last two runs (units, seconds) and the run in hand, for final_share.
  struct Timing {
    double units = 0, seconds = 0, prev_units = 0, prev_seconds = 0;
    double all_units = 0, all_seconds = 0, runs = 0;  // every run this device has done
    double in_hand = 0;  // units of the run in hand (0: idle)
    double started = 0;  // when the run in hand began
  };
  std::vector<Timing> timing;

  /// MPI: this rank serves rank 0 (takes its units from it, gives it the sums).
  bool remote() const { return walk.team && !walk.team->leader(); }

  /// The next run of at most `want` units for device d of this rank (d < 0: another rank).
  std::optional<UnitRange> take(int d, std::uint64_t want, std::uint64_t least = 1) {
    if (remote()) return walk.team->take(want);
    if (walk.team || d < 0) return queue.take(want, devices + cluster::size() - 1, least);
    std::lock_guard<std::mutex> lock(mutex);
    const double now = seconds_now(walk);
    const std::optional<std::uint64_t> last = final_share(static_cast<std::size_t>(d), now, least);
    std::optional<UnitRange> r = last ? queue.take(*last, 1, least) : queue.take(want, devices, least);
    Timing& t = timing[static_cast<std::size_t>(d)];
    t.in_hand = r ? double(r->size()) : 0;
    t.started = now;
    return r;
  }

  /// A run's fixed cost in seconds (the same kind of device everywhere): a line through each
  /// device's last two runs, where their sizes differ enough to tell; 0 before.
  double fixed_seconds() const {
    double sum = 0;
    int fits = 0;
    for (const Timing& t : timing) {
      if (t.prev_units <= 0 || std::abs(t.units - t.prev_units) < 0.2 * std::max(t.units, t.prev_units)) continue;
      const double per_unit = (t.seconds - t.prev_seconds) / (t.units - t.prev_units);
      if (per_unit <= 0) continue;
      sum += std::clamp(t.seconds - per_unit * t.units, 0.0, 0.5 * t.seconds);
      ++fits;
    }
    return fits ? sum / fits : 0.0;
  }

  /// Near the end of a walk on this rank's devices alone: device d's part of what is left
  /// such that every healthy device finishes at the same moment, given each one's rate, the
  /// fixed cost of a run and the end of its run in hand. One last run per device, where
  /// guided shrinking would cut the end into many short runs, each paying the worker's fixed
  /// cost (the hafnian walk's paths from the root). nullopt: not near the end, or a device's
  /// rate is not known yet.
  std::optional<std::uint64_t> final_share(std::size_t d, double now, std::uint64_t least) const {
    const double fixed = fixed_seconds();
    // A device's rate from all its runs, less their fixed costs. One that has run for less than
    // a quarter of the longest-measured device's time (its short first run alone, whose timing
    // the fixed cost's error distorts) is given the pooled rate of those that have: taken alone,
    // such a rate misplaced the other devices' last runs (docs/benchmarks.md, "Two GPUs").
    double longest = 0, pool_units = 0, pool_seconds = 0;
    for (std::size_t e = 0; e < timing.size(); ++e)
      if (failures[e].empty()) longest = std::max(longest, timing[e].all_seconds);
    auto walking_seconds = [&](const Timing& t) { return std::max(t.all_seconds - t.runs * fixed, 1e-4); };
    for (std::size_t e = 0; e < timing.size(); ++e)
      if (failures[e].empty() && timing[e].all_seconds >= 0.25 * longest)
        pool_units += timing[e].all_units, pool_seconds += walking_seconds(timing[e]);
    double rates = 0, owed = 0;  // units per second of all; units they owe before their last run
    double rate_d = 0;
    for (std::size_t e = 0; e < timing.size(); ++e) {
      if (!failures[e].empty()) continue;
      const Timing& t = timing[e];
      if (t.units <= 0) return std::nullopt;
      const double rate = t.all_seconds >= 0.25 * longest ? t.all_units / walking_seconds(t) : pool_units / pool_seconds;
      double busy = 0;  // seconds until the run in hand ends
      if (e != d && t.in_hand > 0)
        busy = std::max(0.0, fixed + t.in_hand / rate - (now - t.started));
      rates += rate;
      owed += rate * (busy + fixed);
      if (e == d) rate_d = rate;
    }
    const auto left = static_cast<double>(queue.left());
    const double finish = (left + owed) / rates;  // seconds from now until all are done
    if (finish > 1.5 * walk.run_seconds) return std::nullopt;
    auto share = static_cast<std::uint64_t>(std::ceil(rate_d * std::max(finish - fixed, 0.0)));
    // A remainder too small for a run of its own goes with this one.
    if (share + std::max<std::uint64_t>(least, 1) >= queue.left()) share = queue.left();
    return std::max<std::uint64_t>({share, least, 1});
  }

  /// A run of units is done on device d (-1: on another rank) with these sums.
  void record(int d, UnitRange r, const std::vector<std::uint64_t>& sum, double seconds = 0) {
    if (remote()) return walk.team->give(r, sum);
    std::lock_guard<std::mutex> lock(mutex);
    walk.add(total, sum);
    ledger.piece(r, sum);
    if (d >= 0) {
      units_per_device[static_cast<std::size_t>(d)] += r.size();
      Timing& t = timing[static_cast<std::size_t>(d)];
      t.prev_units = t.units, t.prev_seconds = t.seconds;
      t.units = double(r.size()), t.seconds = std::max(seconds, 1e-6), t.in_hand = 0;
      t.all_units += t.units, t.all_seconds += t.seconds, t.runs += 1;
    }
    ledger.done(r, [&] { return total; });
  }
};

/// Device d's share: takes runs of units until none are left or a stop is requested. On a
/// CUDA failure the run in hand goes back to the queue and the device leaves.
void walk_on_device(int d, Shared& sh) {
  std::optional<UnitRange> run;
  try {
    const std::unique_ptr<DeviceWorker> worker = sh.walk.make_worker(d);
    std::uint64_t want = std::max<std::uint64_t>(1, worker->first_run_units());
    const std::uint64_t least = worker->min_run_units();
    while (!sh.ledger.stopping() && (run = sh.take(d, want, least))) {
      const double t0 = seconds_now(sh.walk);
      const std::vector<std::uint64_t> sum = worker->run(*run);
      const double seconds = seconds_now(sh.walk) - t0;
      sh.record(d, *run, sum, seconds);
      want = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(sh.walk.run_seconds * double(run->size()) / std::max(seconds, 1e-3)));
      run.reset();
    }
  } catch (const GpuError& e) {
    // Units another rank handed out cannot go back to a local queue: the job ends.
    if (sh.remote()) cluster::abort_run(std::string("GPU ") + std::to_string(d) + ": " + e.what());
    if (run) sh.queue.give_back(*run);
    std::lock_guard<std::mutex> lock(sh.mutex);
    sh.failures[static_cast<std::size_t>(d)] = "GPU " + std::to_string(d) + ": " + e.what();
  } catch (...) {
    std::lock_guard<std::mutex> lock(sh.mutex);
    sh.failures[static_cast<std::size_t>(d)] = "failed";
    if (!sh.fatal) sh.fatal = std::current_exception();
  }
}

/// Runs walk_on_device on each of `devices` (the first on this thread) and waits.
void run_round(const std::vector<int>& devices, Shared& sh) {
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < devices.size(); ++i) threads.emplace_back(walk_on_device, devices[i], std::ref(sh));
  walk_on_device(devices[0], sh);
  for (auto& t : threads) t.join();
  if (sh.fatal) std::rethrow_exception(sh.fatal);
}

/// --verify-resume: the sums of the resumed ranges, recomputed on the first device that works,
/// in runs of about the size the device asks for.
std::vector<std::vector<std::uint64_t>> recompute(const DeviceWalk& walk, const std::vector<VerifyRange>& ranges) {
  std::string failures;
  for (int d = 0; d < walk.devices; ++d) {
    try {
      const std::unique_ptr<DeviceWorker> worker = walk.make_worker(d);
      const std::uint64_t step = std::max<std::uint64_t>({1, worker->first_run_units(), worker->min_run_units()});
      std::vector<std::vector<std::uint64_t>> out;
      for (const auto& r : ranges) {
        std::vector<std::uint64_t> sum(walk.words, 0);
        for (std::uint64_t b = r.range.begin; b < r.range.end; b += step)
          walk.add(sum, worker->run({b, std::min(b + step, r.range.end)}));
        out.push_back(std::move(sum));
      }
      return out;
    } catch (const GpuError& e) {
      failures += (failures.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(d) + ": " + e.what();
    }
  }
  throw GpuError(failures);
}

}  // namespace

DeviceWalkResult run_on_devices(const DeviceWalk& walk) {
  WalkLedger ledger(walk.journal, walk.tag, walk.units, walk.words, walk.progress, WalkLedger::Marks::Pieces, walk.add);
  if (const auto ranges = ledger.verification(); !ranges.empty()) ledger.verified(ranges, recompute(walk, ranges));
  UnitQueue queue(ledger.state().remaining());
  Shared sh(walk, ledger, queue);
  sh.total = ledger.state().sum;
  sh.total.resize(walk.words, 0);
  sh.units_per_device.assign(static_cast<std::size_t>(walk.devices), 0);
  sh.failures.assign(static_cast<std::size_t>(walk.devices), "");
  sh.timing.assign(static_cast<std::size_t>(walk.devices), Shared::Timing{});
  DeviceWalkResult result;
  std::vector<int> all(static_cast<std::size_t>(walk.devices));
  for (int d = 0; d < walk.devices; ++d) all[static_cast<std::size_t>(d)] = d;

  const double t0 = seconds_now(walk);
  if (sh.remote()) {  // MPI: this rank's devices take units from rank 0 until it has none
    walk.team->join(walk.tag, walk.units);
    run_round(all, sh);
    result.sum.assign(walk.words, 0);  // rank 0 has the sums
    return result;
  }
  // MPI: rank 0 hands units to the other ranks beside its own devices.
  std::thread server;
  if (walk.team)
    server = std::thread([&] {
      walk.team->serve(
          walk.tag, walk.units, [&](std::uint64_t want) { return sh.take(-1, want); },
          [&](UnitRange r, const std::vector<std::uint64_t>& words) { sh.record(-1, r, words); },
          [&] { return ledger.stopping(); });
    });
  struct Join {  // the server ends once every rank has returned its runs
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join_server{server};
  // Rounds: a device that fails gives its run back and leaves; the healthy ones take up what
  // is left (normally within the same round).
  for (;;) {
    std::vector<int> healthy;
    for (int d = 0; d < walk.devices; ++d)
      if (sh.failures[static_cast<std::size_t>(d)].empty()) healthy.push_back(d);
    if (healthy.empty() || queue.left() == 0 || ledger.stopping()) break;
    sh.devices = static_cast<int>(healthy.size());
    run_round(healthy, sh);
  }
  if (server.joinable()) server.join();
  result.seconds = seconds_now(walk) - t0;
  for (const auto& f : sh.failures)
    if (!f.empty()) result.failures += (result.failures.empty() ? "" : "; ") + f;
  if (!ledger.state().complete()) {
    if (ledger.stopping()) ledger.interrupted(sh.total);
    throw GpuError(result.failures);  // every device failed
  }
  ledger.finished(sh.total);
  result.sum = sh.total;
  result.units_per_device = sh.units_per_device;
  if (walk.team) result.units_by_rank = walk.team->units_by_rank();
  return result;
}

}  // namespace matchcount::runtime
