// The engine interface: every exact counting engine (CPU, GPU and structure engines alike)
// computes the permanent of one square block behind this interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

class WalkJournal;  // matchcount/checkpoint.hpp
namespace cluster {
class WalkTeam;  // matchcount/cluster.hpp
}

/// Run-time compilation of GPU kernels specialised to a block (NVRTC): never, when the run is
/// long enough to repay the compilation (or a compiled kernel is cached), or always.
enum class Specialise { Never, Auto, Always };

/// What an engine reports about one run (filled in when EngineOptions::stats is set).
struct EngineStats {
  std::string device = "cpu";
  /// GPU engines: "generic" (compiled into the program), "nvrtc" (compiled for this block
  /// now) or "cached" (compiled earlier, loaded from the kernel cache).
  std::string kernel;
  double compile_seconds = 0.0;
  /// Why a GPU engine fell back (to the generic kernel or to the CPU), if it did.
  std::string note;
};

struct EngineOptions {
  /// Worker threads; 0 means OpenMP's default (all cores).
  int threads = 0;
  /// Called now and then with the fraction of this block done (0..1), from one thread at a
  /// time. May be empty.
  std::function<void(double)> progress;
  /// GPU engines may compile a kernel specialised to the block at run time (NVRTC).
  Specialise specialise = Specialise::Auto;
  /// Where the engine records what it did; may be null.
  EngineStats* stats = nullptr;
  /// GPU engines: use the first `gpus` visible devices (0: all).
  int gpus = 0;
  /// Checkpoints: the Ryser-type walks resume from and save their progress to it; may be null.
  WalkJournal* journal = nullptr;
  /// MPI: the Ryser walks share their units with the other ranks through it; may be null.
  cluster::WalkTeam* team = nullptr;
};

/// Counts the permanent of one square block. Implementations are stateless and thread-safe.
/// A block the engine cannot take (too large for its counters, or a bound it cannot meet)
/// raises RefusedError with a message saying why; it never returns a rounded exact count.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  /// Largest block dimension accepted.
  virtual int max_n() const = 0;

  /// Exact permanent of a square integer matrix.
  virtual Integer permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt) const = 0;
  /// Permanent of a square real matrix with an estimate of its absolute rounding error.
  virtual Approx<double> permanent(const SparseMatrix<double>& a, const EngineOptions& opt) const = 0;
  /// Permanent of a square complex matrix with an estimate of its absolute rounding error.
  virtual Approx<Complex> permanent(const SparseMatrix<Complex>& a, const EngineOptions& opt) const = 0;
};

/// Names accepted by make_engine, in the order shown by --help.
std::vector<std::string> engine_names();
/// Creates an engine by name; throws UsageError for an unknown name.
std::unique_ptr<Engine> make_engine(std::string_view name);
/// Where engines may run: "cpu", "gpu" (the GPU engines wherever they apply) or "auto" (the
/// GPU when one is present and the block is large enough to repay it).
enum class DevicePolicy { Cpu, Gpu, Auto };

/// Which engine counts an n x n block with nnz entries.
std::string choose_engine(int n, std::size_t nnz, NumberKind kind, DevicePolicy device = DevicePolicy::Cpu);
/// True when a CUDA device can be used (cached after the first call).
bool gpu_available();

/// The planner's choice for one block: the engine with the least predicted time among the
/// Ryser-type engines (CPU or GPU), the frontier DP (from the best row order found) and, for
/// planar blocks, the Kasteleyn determinant.
struct EnginePlan {
  std::string engine;
  double predicted_seconds = 0;
  /// The same in units of one CPU Ryser row-step on one core (for limits and progress).
  double work = 0;
  /// Largest frontier of the best row order (-1 when not computed: small blocks).
  int frontier_width = -1;
  /// Every engine the planner considered, with its predicted seconds (the chosen one too;
  /// infinite for an engine that cannot take the block).
  std::vector<std::pair<std::string, double>> candidates;
  /// Why no engine can count the block, e.g. "n = 64 is over ryser's limit of 62; ..."
  /// (empty when one can; predicted_seconds is then infinite). Defaulted, so positional
  /// initializers may leave it out.
  std::string why = {};
};
EnginePlan plan_engine(const SparseMatrix<Integer>& block, DevicePolicy device, int threads);
EnginePlan plan_engine(const SparseMatrix<double>& block, DevicePolicy device, int threads);
EnginePlan plan_engine(const SparseMatrix<Complex>& block, DevicePolicy device, int threads);

/// Called after each unit of a CPU walk (ryser, sparyser, skipper; on every thread and MPI
/// rank) with the unit's number. Lets a program watch a walk's pace or slow it down, e.g. so
/// that a signal or a checkpoint lands in the middle of a walk. Process-wide; nullptr (the
/// default) calls nothing. Set it before counting starts.
using WalkObserver = void (*)(std::uint64_t unit);
void set_walk_observer(WalkObserver observer);

}  // namespace matchcount
