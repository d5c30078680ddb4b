// The engines as programs see them: their catalog, the planner's choice for a block, and the
// options that select them. (The engine interface itself is internal: src/engines/engine.hpp.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount {

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

/// Names accepted by --engine (CountOptions::engine), in the order shown by --help: the
/// catalog's rows (src/catalog/catalog.cpp).
std::vector<std::string> engine_names();
/// One row of the engine catalog as programs see it.
struct EngineInfo {
  std::string name;
  bool gpu = false;           // runs on a CUDA device
  bool integer = false, real = false, complex = false;  // number kinds it counts
  bool rectangular = false;   // counts m x n blocks with m < n (the others: square blocks)
  bool graph = false;         // counts hafnians of symmetric blocks (general graphs), not permanents
  bool loops = false;         // graph engines: counts loop hafnians too
  int max_n = 0;              // largest block side it accepts
  bool shares_units = false;  // its walks run in work units (checkpoints inside a block, MPI)
  bool whole_block = false;   // takes a whole block; the planner does not branch it first
  std::string summary;        // what it does, one line
  /// The question it answers: "count" (the number of perfect matchings: permanents, hafnians;
  /// the planner's engines, named by --engine) or another question's mode, e.g. "--torontonian".
  std::string question = "count";
};
/// The catalog, in the order of engine_names(), then the engines of the other questions.
std::vector<EngineInfo> engine_catalog();
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
  /// The chosen engine's predicted memory in bytes (its tables: frontier states, band
  /// matrices; 0 for engines that need little).
  double predicted_bytes = 0;
};
/// `max_bytes`: the memory budget; engines predicted to need more are passed over (and named in
/// `why` when none is left).
EnginePlan plan_engine(const SparseMatrix<Integer>& block, DevicePolicy device, int threads,
                       double max_bytes = std::numeric_limits<double>::infinity());
EnginePlan plan_engine(const SparseMatrix<double>& block, DevicePolicy device, int threads,
                       double max_bytes = std::numeric_limits<double>::infinity());
EnginePlan plan_engine(const SparseMatrix<Complex>& block, DevicePolicy device, int threads,
                       double max_bytes = std::numeric_limits<double>::infinity());
/// The planner's choice for one symmetric block (a general graph; both triangles stored, the
/// diagonal counted only with `loops`): the hafnian engine of least predicted time among the
/// dense hafnian walk, the Pfaffian of planar graphs and the frontier DP.
EnginePlan plan_graph_engine(const SparseMatrix<Integer>& block, bool loops, DevicePolicy device, int threads,
                             double max_bytes = std::numeric_limits<double>::infinity());
EnginePlan plan_graph_engine(const SparseMatrix<double>& block, bool loops, DevicePolicy device, int threads,
                             double max_bytes = std::numeric_limits<double>::infinity());
EnginePlan plan_graph_engine(const SparseMatrix<Complex>& block, bool loops, DevicePolicy device, int threads,
                             double max_bytes = std::numeric_limits<double>::infinity());

/// Called after each unit of a CPU walk (ryser, sparyser, skipper; on every thread and MPI
/// rank) with the unit's number. Lets a program watch a walk's pace or slow it down, e.g. so
/// that a signal or a checkpoint lands in the middle of a walk. Process-wide; nullptr (the
/// default) calls nothing. Set it before counting starts.
using WalkObserver = void (*)(std::uint64_t unit);
void set_walk_observer(WalkObserver observer);

}  // namespace matchcount
