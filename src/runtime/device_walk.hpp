// The device executor of a walk's work units: one host thread per CUDA device takes runs of
// units from a shared queue (each run about a second, so faster devices do more), beside the
// MPI ranks rank 0 serves, with the walk's ledger (progress, checkpoints). The device code is
// the method's (a DeviceWorker); this file holds no CUDA, so the scheduling is one piece of
// code for every GPU walk. (Also read by nvcc: C++17.)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/team.hpp"
#include "runtime/work_units.hpp"

namespace matchcount::runtime {

/// One device's share of a walk, made on that device's own host thread (it selects the device
/// and loads its kernel and buffers there).
class DeviceWorker {
 public:
  virtual ~DeviceWorker() = default;
  /// Units the first run takes (from the rate the device is expected to reach).
  virtual std::uint64_t first_run_units() const = 0;
  /// Fewest units worth a run (a run with a fixed cost of its own, such as the hafnian walk's
  /// paths from the root, should repay it): the end of a walk is not split finer.
  virtual std::uint64_t min_run_units() const { return 1; }
  /// Runs units r; returns their sums in the walk's encoding. Throws GpuError on a CUDA failure.
  virtual std::vector<std::uint64_t> run(UnitRange r) = 0;
};

struct DeviceWalk {
  std::string tag;          // the walk's name in the journal and among the ranks
  std::uint64_t units = 0;  // units 0 .. units-1
  std::size_t words = 0;    // words of the walk's sum encoding
  int devices = 1;          // devices 0 .. devices-1
  WalkJournal* journal = nullptr;
  cluster::WalkTeam* team = nullptr;
  std::function<void(double)> progress;
  /// total += sum: the walk's exact addition of sums (independent of the order).
  std::function<void(std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum)> add;
  /// Device d's worker, made on its thread; throws GpuError when the device cannot take part.
  std::function<std::unique_ptr<DeviceWorker>(int d)> make_worker;
  /// Seconds a run should take after the first: long enough to hide a launch and its copies,
  /// short enough to balance the devices at the end.
  double run_seconds = 1.0;
  /// Seconds on the clock that times the runs and places the last ones (steady_clock when
  /// empty). Tests drive the scheduler with simulated devices on a virtual clock, so that what
  /// they assert does not depend on how busy the machine running them is.
  std::function<double()> clock;
};

struct DeviceWalkResult {
  std::vector<std::uint64_t> sum;  // ranks other than 0: zeros (rank 0 has the sum)
  std::vector<std::uint64_t> units_per_device;  // units each device ran here (resumed ones not counted)
  std::vector<std::uint64_t> units_by_rank;     // MPI: units rank 0 handed to each rank
  std::string failures;  // "GPU 1: ...; GPU 2: ..." for devices that failed and left
  double seconds = 0;    // wall time of the walk
};

/// Runs the walk. A device whose run fails with GpuError gives the run back and leaves; the
/// others take up what is left. On ranks other than 0 a failure ends the job (their units
/// came from rank 0). Throws GpuError (the failures) when every device failed, and
/// Interrupted (after saving the state) when a stop was requested.
DeviceWalkResult run_on_devices(const DeviceWalk& walk);

}  // namespace matchcount::runtime
