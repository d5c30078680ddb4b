// The engine catalog: one row per engine with everything the rest of the program knows of it:
// its name, device, number kinds, size limit, whether it takes whole blocks or shares work
// units, its cost model and its factory. --engine, --help, --explain, the planner and MPI
// sharing all read this table (catalog.cpp); adding an engine is one folder and one row.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/graph_engine.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/repeated/repeated.hpp"

namespace matchcount::catalog {

/// What the planner knows about one square block before it weighs the engines (computed once
/// per block by plan_engine, planner.cpp).
struct BlockFacts {
  int n = 0;
  std::size_t nnz = 0;
  NumberKind kind = NumberKind::Integer;
  DevicePolicy device = DevicePolicy::Cpu;
  bool gpu = false;       // GPU engines may run: --device gpu, or auto with a device present
  bool gpu_auto = false;  // --device auto with a device present
  int cores = 1;
  /// The Ryser-type walk choose_engine() picked; it is weighed first.
  std::string first;
  /// Predicted seconds of the dense walks: CPU Ryser on `cores` cores and GPU Ryser, and how
  /// many walks the GPU engines make (one per pass of primes).
  double walk_cpu = 0, walk_gpu = 0, gpu_passes = 1;
  /// CRT primes of an exact count (0 for floats); all entries 1.
  double primes = 0;
  bool unit = true;
  int words = 1;  // words of a frontier DP state: 1 exact, 2 real, 3 complex
  engines::FrontierPlan frontier;
  engines::KasteleynPlan kasteleyn;
  double kasteleyn_bytes = 0;
  engines::RepeatedPlan repeated;
  /// Primes the repeated engine's exact count takes (from the block's bound).
  double repeated_primes = 0;
  double device_gib = 0;  // memory of the first CUDA device (0: none)
  /// The memory budget in bytes (CountOptions::max_memory): engines predicted beyond it are
  /// passed over.
  double max_bytes = std::numeric_limits<double>::infinity();
  /// Cost models that need the block itself (computed only when asked).
  std::function<double()> gpu_skipper_seconds, gpu_frontier_seconds;
};

/// What the planner knows about one symmetric block (a general graph) before it weighs the
/// hafnian engines (computed once per block by plan_graph_engine, graph_planner.cpp).
struct GraphFacts {
  int n = 0;
  std::size_t nnz = 0;
  NumberKind kind = NumberKind::Integer;
  bool loops = false;
  int cores = 1;
  /// CRT primes (below 2^50) of an exact count (0 for floats), the small primes of the dense
  /// hafnian walk's (hafnian_prime_count) and the GPU walk's exact channels in prime walks
  /// (gpu_hafnian_exact_channels); the last two only for blocks the walk can take.
  double primes = 0, hafnian_primes = 0, gpu_hafnian_channels = 0;
  /// Every off-diagonal entry is 1 (the frontier DP only adds).
  bool unit = true;
  int words = 1;  // words of a DP state: 1 exact, 2 real, 3 complex
  engines::PfaffianPlan pfaffian;
  engines::GraphFrontierPlan frontier;
  bool gpu = false;       // GPU engines may run: --device gpu, or auto with a device present
  double device_gib = 0;  // memory of the first CUDA device (0: none)
  /// The memory budget in bytes, as in BlockFacts.
  double max_bytes = std::numeric_limits<double>::infinity();
};

/// The blocks an engine takes: square blocks (permanents), rectangular m x n blocks with
/// m < n (permanents), or symmetric blocks (hafnians of general graphs).
enum class Shape { Square, Rectangular, Symmetric };

/// Which number kinds an engine counts.
enum Kinds : unsigned { kInteger = 1, kReal = 2, kComplex = 4, kAllKinds = 7 };

struct Row {
  const char* name;
  bool gpu;
  unsigned kinds;
  /// What it counts: permanents of square blocks (make), or permanents of rectangular m x n
  /// blocks with m < n (src/pipeline/rectangular.cpp runs those; make is null).
  Shape shape;
  int max_n;
  /// Its walks run in work units: checkpoints inside a block, and MPI ranks share them.
  bool shares_units;
  /// Takes a whole block, structure and all: the planner does not branch the block on a row
  /// first when this engine is chosen (or forced).
  bool whole_block;
  const char* summary;
  std::unique_ptr<Engine> (*make)();
  /// Predicted seconds on the block; nullopt when the planner does not weigh this engine for
  /// it (it cannot take it, or only runs when named). Null for engines never weighed.
  std::optional<double> (*predict)(const BlockFacts&);
  /// Symmetric blocks: the factory, whether it counts loop hafnians, and its cost model
  /// (nullopt: not weighed for this block; null: never weighed).
  std::unique_ptr<GraphEngine> (*make_graph)();
  bool loops;
  std::optional<double> (*predict_graph)(const GraphFacts&);
  /// Predicted peak bytes of the engine's own tables on the block (state tables, band
  /// matrices, one per thread where threads each hold one); the planner passes over an engine
  /// whose prediction exceeds the budget. Null for engines whose memory is small beside the
  /// block (the walks, the dense hafnian).
  double (*bytes)(const BlockFacts&) = nullptr;
  double (*graph_bytes)(const GraphFacts&) = nullptr;
};

/// The least seconds any GPU engine's model predicts for a block: the fixed cost of its
/// start (gpu-ryser's 20 ms of context, launch and copies; the other GPU models start higher).
/// An auto plan whose best CPU engine is predicted below it needs no device, and asks for none
/// (ask_for_a_device_late).
constexpr double kLeastGpuSeconds = 0.02;

/// A value computed at its first use and kept: what the plans of one block for several device
/// policies share (ask_for_a_device_late may plan a block twice), so that orders, planarity
/// tests and dissections run once a block.
template <class T>
class Lazy {
 public:
  template <class Make>
  const T& get(Make make) {
    if (!value_) value_.emplace(make());
    return *value_;
  }

 private:
  std::optional<T> value_;
};

/// The plan of `plan(policy)` for `device`. Under --device auto, the CPU plan when its
/// prediction is below kLeastGpuSeconds, since no GPU engine could be predicted faster, or when
/// `present()` says no device is visible (the auto plan would be the same); only otherwise the
/// auto plan. `present` (gpu_available) is called only past the threshold: its first call
/// starts CUDA (0.1-0.2 s on a GPU machine, more than the whole count of a small block).
template <class Plan, class PlanFor, class Present>
Plan ask_for_a_device_late(DevicePolicy device, PlanFor plan, Present present) {
  if (device != DevicePolicy::Auto) return plan(device);
  Plan cpu = plan(DevicePolicy::Cpu);
  if (cpu.predicted_seconds < kLeastGpuSeconds || !present()) return cpu;
  return plan(DevicePolicy::Auto);
}

/// Memory of the first CUDA device in GiB (0 without one), looked up once (which starts CUDA).
double first_device_gib();

/// Every engine, in the order of --help.
const std::vector<Row>& rows();
/// The row of `name`; throws UsageError naming the choices for an unknown one.
const Row& entry(std::string_view name);

}  // namespace matchcount::catalog

namespace matchcount {

/// Creates a square-block engine by name; throws UsageError for an unknown name or an engine
/// of rectangular blocks.
std::unique_ptr<Engine> make_engine(std::string_view name);
/// Creates a general-graph (hafnian) engine by name; throws UsageError for an unknown name or
/// an engine of bipartite blocks.
std::unique_ptr<GraphEngine> make_graph_engine(std::string_view name);


}  // namespace matchcount
