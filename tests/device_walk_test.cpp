// The device executor's scheduling (src/runtime/device_walk.cpp) with simulated devices: CPU
// threads that wait as a device with a rate and a fixed cost per run would take, on a virtual
// clock (a busy machine running the tests cannot stretch a run). Every unit is summed once,
// faster devices take more, and the end of the walk is one last run per device sized so that
// all finish together, not many short runs that each pay the fixed cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <vector>

#include "runtime/device_walk.hpp"

namespace matchcount::runtime {
namespace {

/// Virtual seconds shared by the simulated devices' threads. Time stands still while any
/// device is scheduling (the scheduler's own work takes no time) and jumps to the earliest end
/// of a run once every device still walking waits for its run to end.
class VirtualClock {
 public:
  explicit VirtualClock(int devices) : walking_(devices) {}
  double now() {
    std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  void wait(double seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    const double wake = now_ + seconds;
    const auto mine = waking_.insert(wake);
    advance();
    ended_.wait(lock, [&] { return now_ >= wake; });
    waking_.erase(mine);
  }
  /// A device has no more runs.
  void leave() {
    std::lock_guard<std::mutex> lock(mutex_);
    --walking_;
    advance();
  }

 private:
  void advance() {
    if (waking_.empty() || waking_.size() < static_cast<std::size_t>(walking_)) return;
    now_ = std::max(now_, *waking_.begin());
    ended_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable ended_;
  std::multiset<double> waking_;  // when the runs in hand end
  int walking_;
  double now_ = 0;
};

struct RunLog {
  std::mutex mutex;
  std::vector<std::vector<UnitRange>> runs;  // per device
  std::vector<double> last_end;              // per device
};

/// A device of `rate` units per second that pays `fixed` seconds per run (a kernel's set-up).
class SimulatedDevice final : public DeviceWorker {
 public:
  /// `first_speed`: how much faster than `rate` its first run goes (a short run's timing is
  /// noisy on a real device).
  SimulatedDevice(int d, double rate, double fixed, RunLog& log, VirtualClock& clock, double first_speed = 1,
                  std::uint64_t least = 20)
      : d_(d), rate_(rate), fixed_(fixed), first_speed_(first_speed), least_(least), log_(log), clock_(clock) {}
  ~SimulatedDevice() override { clock_.leave(); }
  std::uint64_t first_run_units() const override { return 100; }
  std::uint64_t min_run_units() const override { return least_; }
  std::vector<std::uint64_t> run(UnitRange r) override {
    const double speed = runs_++ ? 1.0 : first_speed_;
    clock_.wait(fixed_ + double(r.size()) / (rate_ * speed));
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.runs[static_cast<std::size_t>(d_)].push_back(r);
    log_.last_end[static_cast<std::size_t>(d_)] = clock_.now();
    // Sum of the unit indices: a unit run twice or missed changes it.
    return {(r.begin + r.end - 1) * r.size() / 2};
  }

 private:
  int d_;
  double rate_, fixed_, first_speed_;
  std::uint64_t least_;
  int runs_ = 0;
  RunLog& log_;
  VirtualClock& clock_;
};

struct Outcome {
  DeviceWalkResult result;
  std::vector<std::size_t> runs_per_device;
  double seconds = 0, end_gap = 0;  // the walk's, and between the devices' last runs' ends
};

Outcome walk(std::uint64_t units, const std::vector<double>& rates, double fixed, double run_seconds,
             const std::vector<double>& first_speed = {}, std::uint64_t least = 20) {
  RunLog log;
  VirtualClock clock(static_cast<int>(rates.size()));
  log.runs.resize(rates.size());
  log.last_end.resize(rates.size());
  DeviceWalk w;
  w.tag = "simulated";
  w.units = units;
  w.words = 1;
  w.devices = static_cast<int>(rates.size());
  w.add = [](std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) {
    if (total.empty()) total.assign(1, 0);
    total[0] += sum[0];
  };
  w.make_worker = [&](int d) -> std::unique_ptr<DeviceWorker> {
    const auto i = static_cast<std::size_t>(d);
    return std::make_unique<SimulatedDevice>(d, rates[i], fixed, log, clock, i < first_speed.size() ? first_speed[i] : 1.0, least);
  };
  w.run_seconds = run_seconds;
  w.clock = [&] { return clock.now(); };
  Outcome o;
  o.result = run_on_devices(w);
  for (const auto& r : log.runs) o.runs_per_device.push_back(r.size());
  o.seconds = o.result.seconds;
  const auto [first, last] = std::minmax_element(log.last_end.begin(), log.last_end.end());
  o.end_gap = *last - *first;
  return o;
}

TEST(DeviceWalkSchedule, EqualDevicesEndWithOneRunEach) {
  // 8000 units at 40000 units/s on each of two devices: 0.1 s each, in runs of 0.04 s.
  const Outcome o = walk(8000, {40000, 40000}, 0.002, 0.04);
  ASSERT_EQ(o.result.sum.size(), 1u);
  EXPECT_EQ(o.result.sum[0], 8000ull * 7999 / 2);
  EXPECT_EQ(o.result.units_per_device[0] + o.result.units_per_device[1], 8000u);
  for (std::size_t d = 0; d < 2; ++d) {
    EXPECT_GT(o.result.units_per_device[d], 2000u) << "device " << d;
    // The first run, about two of run_seconds, then one last run (guided shrinking alone
    // takes seven or more here).
    EXPECT_LE(o.runs_per_device[d], 5u) << "device " << d;
  }
}

TEST(DeviceWalkSchedule, AShortFirstRunDoesNotSetADevicesRate) {
  // Device 0's first run goes 1.6 times as fast as its later ones (a short run's timing on a
  // real GPU is noisy). Taken alone, that rate made device 1's last run too short, and device 0
  // took the rest (less than a run's least: 700 units here) and finished long after device 1.
  const Outcome o = walk(8000, {20000, 20000}, 0.004, 0.16, {1.6, 1.0}, 700);
  EXPECT_EQ(o.result.sum[0], 8000ull * 7999 / 2);
  EXPECT_LT(o.end_gap, 0.1 * o.seconds) << "walk " << o.seconds << " s";
}

TEST(DeviceWalkSchedule, FasterDevicesTakeMore) {
  const Outcome o = walk(12000, {80000, 20000}, 0.001, 0.03);
  ASSERT_EQ(o.result.sum.size(), 1u);
  EXPECT_EQ(o.result.sum[0], 12000ull * 11999 / 2);
  EXPECT_GT(o.result.units_per_device[0], 2 * o.result.units_per_device[1]);
}

TEST(DeviceWalkSchedule, OneDeviceTakesWhatItAsksFor) {
  const Outcome o = walk(3000, {50000}, 0.001, 0.02);
  EXPECT_EQ(o.result.sum[0], 3000ull * 2999 / 2);
  EXPECT_EQ(o.result.units_per_device[0], 3000u);
}

}  // namespace
}  // namespace matchcount::runtime
