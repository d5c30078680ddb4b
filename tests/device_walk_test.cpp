// The device executor's scheduling (src/runtime/device_walk.cpp) with simulated devices: CPU
// threads that sleep as a device with a rate and a fixed cost per run would take. Every unit is
// summed once, faster devices take more, and the end of the walk is one last run per device
// sized so that all finish together, not many short runs that each pay the fixed cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/device_walk.hpp"

namespace matchcount::runtime {
namespace {

struct RunLog {
  std::mutex mutex;
  std::vector<std::vector<UnitRange>> runs;  // per device
};

/// A device of `rate` units per second that pays `fixed` seconds per run (a kernel's set-up).
class SimulatedDevice final : public DeviceWorker {
 public:
  SimulatedDevice(int d, double rate, double fixed, RunLog& log) : d_(d), rate_(rate), fixed_(fixed), log_(log) {}
  std::uint64_t first_run_units() const override { return 100; }
  std::uint64_t min_run_units() const override { return 20; }
  std::vector<std::uint64_t> run(UnitRange r) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(fixed_ + double(r.size()) / rate_));
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.runs[static_cast<std::size_t>(d_)].push_back(r);
    // Sum of the unit indices: a unit run twice or missed changes it.
    return {(r.begin + r.end - 1) * r.size() / 2};
  }

 private:
  int d_;
  double rate_, fixed_;
  RunLog& log_;
};

struct Outcome {
  DeviceWalkResult result;
  std::vector<std::size_t> runs_per_device;
};

Outcome walk(std::uint64_t units, const std::vector<double>& rates, double fixed, double run_seconds) {
  RunLog log;
  log.runs.resize(rates.size());
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
    return std::make_unique<SimulatedDevice>(d, rates[static_cast<std::size_t>(d)], fixed, log);
  };
  w.run_seconds = run_seconds;
  Outcome o;
  o.result = run_on_devices(w);
  for (const auto& r : log.runs) o.runs_per_device.push_back(r.size());
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
