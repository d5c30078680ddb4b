// The engine catalog (catalog.hpp): the table, and the cost model of each engine the planner
// weighs. The constants of the models are calibrated in docs/benchmarks.md ("Planner check",
// "Predictions against measured times") and tabulated in docs/engines.md ("Planner").
#include "catalog/catalog.hpp"

#include <algorithm>
#include <cmath>

#include "engines/brute/brute.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"
#include "engines/torontonian/torontonian.hpp"
#include "engines/planar/planar.hpp"
#include "engines/rectangular/rectangular.hpp"
#include "engines/ryser/glynn.hpp"
#include "engines/ryser/ryser.hpp"
#include "engines/sparse/gpu_skipper.hpp"
#include "engines/sparse/sparse.hpp"
#include "matchcount/error.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount::catalog {
namespace {

using std::nullopt;
using Seconds = std::optional<double>;

// Repeated lines: about 5 ns per modular multiplication (RepeatedPlan::cost counts them per
// prime); floats rebuild each y_r from the K classes in double-double, about 2 ns per class.
constexpr double kRepeatedModUnit = 5e-9, kRepeatedFloatUnit = 2e-9;

// The dense walk on the CPU is weighed beside a GPU pick: a many-core host keeps smaller
// blocks on the CPU.
Seconds ryser_seconds(const BlockFacts& f) {
  if (f.gpu_auto && f.n <= 62 && f.first == "gpu-ryser") return f.walk_cpu;
  return nullopt;
}
// On a host with few cores the GPU repays its launch from about n = 24.
Seconds gpu_ryser_seconds(const BlockFacts& f) {
  if (f.gpu && f.n <= 63 && f.first != "gpu-ryser") return f.walk_gpu;
  return nullopt;
}
// Sparse blocks on the GPU: the SkipPer walk by its own model, which counts the chunks its
// jumps leave and the rows that are constant within a chunk (docs/gpu.md).
Seconds gpu_skipper_seconds(const BlockFacts& f) {
  if (f.gpu && f.n >= 24 && double(f.nnz) <= 0.4 * f.n * f.n) return f.gpu_skipper_seconds();
  return nullopt;
}
// The frontier DP from the best row order found; exact counts split their primes over passes
// when the tables would not fit (one prime a pass at least).
Seconds frontier_seconds(const BlockFacts& f) {
  if (f.frontier.width <= engines::kFrontierMaxWidth &&
      engines::frontier_bytes(f.frontier, f.words) <= engines::kFrontierMemoryLimit)
    return engines::frontier_seconds(f.frontier, f.n, f.primes, f.unit, f.kind == NumberKind::Complex);
  return nullopt;
}
// Exact counts of wide frontiers on the GPU: dense tables of all p-subsets of the open
// columns, as many primes a pass as the card's memory holds.
Seconds gpu_frontier_seconds(const BlockFacts& f) {
  if (f.kind == NumberKind::Integer && f.gpu && f.frontier.width <= engines::kFrontierMaxWidth && f.device_gib > 0)
    return f.gpu_frontier_seconds();
  return nullopt;
}
// Planar blocks: a determinant (one per prime for exact counts, on every core); floats take
// one LU on one core, complex entries about three real ones.
Seconds kasteleyn_seconds(const BlockFacts& f) {
  if (!f.kasteleyn.planar || f.kasteleyn_bytes > engines::kKasteleynMemoryLimit) return nullopt;
  const bool exact = f.kind == NumberKind::Integer;
  const double moduli = exact ? f.primes : (f.kind == NumberKind::Complex ? 3 : 1) * engines::kKasteleynFloatPrimes;
  return engines::kasteleyn_seconds(f.kasteleyn, moduli, exact ? f.cores : 1);
}
// Repeated lines: Glynn's sum over class counts (n + 1 terms for an all-a matrix).
Seconds repeated_seconds(const BlockFacts& f) {
  if (!(f.repeated.terms <= engines::kRepeatedMaxTerms)) return nullopt;
  if (f.kind == NumberKind::Integer) return f.repeated.cost * f.repeated_primes * kRepeatedModUnit / f.cores;
  return f.repeated.cost * double(f.repeated.col_rep.size()) * kRepeatedFloatUnit / f.cores;
}

// Memory of the engines' tables (Row::bytes), as each engine sizes them before it starts.
// Boost's planarity test, embedding and orderings hold about kPlanarBytesPerEdge bytes per
// edge while the planar engines prepare a block (planar.hpp).
using engines::planar::kPlanarBytesPerEdge;

// The frontier DP's state tables and its other structures; exact counts carry as many primes
// a pass as fit the engine's limit and the budget, one prime at least.
double frontier_bytes(const BlockFacts& f) {
  const double other = engines::frontier_other_bytes(f.n, double(f.nnz));
  if (f.kind != NumberKind::Integer) return other + engines::frontier_bytes(f.frontier, f.words);
  const double one = engines::frontier_bytes(f.frontier, 1);
  const double all = engines::frontier_bytes(f.frontier, int(std::max(1.0, f.primes)));
  return other + std::max(one, std::min(all, std::min(engines::kFrontierMemoryLimit, f.max_bytes) - other));
}
// The GPU DPs hold their tables on the device; the host holds the order and the steps.
// What a CUDA engine adds to the process's host memory besides its own tables: the driver's
// context, the runtime and NVRTC, measured as the peak resident size of a count on the GPU less
// the same count on the CPU (docs/benchmarks.md, "Memory budget against the measured peak"). A
// budget below it passes over the GPU engines, or refuses a forced one.
constexpr double kCudaHostBytes = 160.0 * (1 << 20);
double gpu_runtime_bytes(const BlockFacts&) { return kCudaHostBytes; }
double gpu_runtime_graph_bytes(const GraphFacts&) { return kCudaHostBytes; }
double gpu_frontier_bytes(const BlockFacts& f) { return kCudaHostBytes + engines::frontier_other_bytes(f.n, double(f.nnz)); }
double gpu_graph_frontier_bytes(const GraphFacts& f) {
  return kCudaHostBytes + engines::graph_frontier_other_bytes(f.n, double(f.nnz));
}
// A banded working matrix per thread (exact counts run primes on as many threads as the limit
// and the budget leave room for, one at least), and the planarity machinery.
double kasteleyn_bytes(const BlockFacts& f) {
  const double one = f.kasteleyn_bytes;
  const double threads = f.kind == NumberKind::Integer ? std::min<double>(f.cores, std::max(1.0, f.primes)) : 1;
  const double planar = kPlanarBytesPerEdge * double(f.nnz);
  const double fit = std::floor((std::min(engines::kKasteleynMemoryLimit, f.max_bytes) - planar) / std::max(one, 1.0));
  return one * std::max(1.0, std::min(threads, fit)) + planar;
}
// The classes' entries per prime.
double repeated_bytes(const BlockFacts& f) {
  return 8.0 * double(f.repeated.col_rep.size()) * double(f.repeated.row_rep.size()) * std::max(1.0, f.repeated_primes);
}
double pfaffian_bytes(const GraphFacts& f) {
  const double one = f.pfaffian.bytes * (f.kind == NumberKind::Complex ? 2 : 1);
  const double threads = f.kind == NumberKind::Integer ? std::min<double>(f.cores, std::max(1.0, f.primes)) : 1;
  const double planar = kPlanarBytesPerEdge * double(f.nnz) / 2;
  const double fit = std::floor((std::min(engines::kPfaffianMemoryLimit, f.max_bytes) - planar) / std::max(one, 1.0));
  return one * std::max(1.0, std::min(threads, fit)) + planar;
}
// Two tables of the DP and its other structures; exact counts carry up to 8 primes a pass as
// the limit allows.
double graph_frontier_bytes(const GraphFacts& f) {
  const double other = engines::graph_frontier_other_bytes(f.n, double(f.nnz));
  if (f.kind != NumberKind::Integer) return other + engines::graph_frontier_bytes(f.frontier, f.words, f.loops);
  const double one = engines::graph_frontier_bytes(f.frontier, 1, f.loops);
  const double all = engines::graph_frontier_bytes(f.frontier, int(std::clamp(f.primes, 1.0, 8.0)), f.loops);
  return other + std::max(one, std::min(all, std::min(engines::kGraphFrontierMemoryLimit, f.max_bytes) - other));
}

constexpr int kHuge = 1 << 20;  // engines without a row limit of their own

// General graphs. The dense hafnian walk by its own model (hafnian.hpp).
Seconds hafnian_seconds(const GraphFacts& f) {
  if (f.n > engines::kHafnianMaxN) return nullopt;
  return engines::hafnian_seconds(f.n, f.hafnian_primes, f.kind, f.loops, f.cores);
}
// The same walk on the GPU, its walks in units of one prime's walk (hafnian.hpp).
Seconds gpu_hafnian_seconds(const GraphFacts& f) {
  if (!f.gpu || f.n > engines::kHafnianMaxN) return nullopt;
  const double channels = f.kind == NumberKind::Complex ? engines::kGpuHafnianComplexChannels
                          : f.kind == NumberKind::Real  ? engines::kGpuHafnianRealChannels
                                                        : f.gpu_hafnian_channels;
  return engines::gpu_hafnian_seconds(f.n, channels, f.loops);
}
// Planar graphs without loops: a Pfaffian per prime (floats: see pfaffian_seconds).
Seconds pfaffian_seconds(const GraphFacts& f) {
  if (f.loops || !f.pfaffian.planar || f.pfaffian.bytes > engines::kPfaffianMemoryLimit) return nullopt;
  return engines::pfaffian_seconds(f.pfaffian, f.kind == NumberKind::Integer ? f.primes : 0, f.cores);
}
// Narrow frontiers of any graph.
Seconds graph_frontier_seconds(const GraphFacts& f) {
  if (f.frontier.width > engines::kGraphFrontierMaxWidth ||
      engines::graph_frontier_bytes(f.frontier, f.words, f.loops) > engines::kGraphFrontierMemoryLimit)
    return nullopt;
  return engines::graph_frontier_seconds(f.frontier, f.n, f.primes, f.kind, f.cores, f.unit, f.loops);
}
// Exact counts of wide frontiers on the GPU: the same tables, as many primes a pass as the
// card's memory holds (floats go to the CPU engine, so the planner weighs them there).
Seconds gpu_graph_frontier_seconds(const GraphFacts& f) {
  if (f.kind == NumberKind::Integer && f.gpu && f.device_gib > 0 && f.frontier.width <= engines::kGraphFrontierMaxWidth)
    return engines::gpu_graph_frontier_seconds(f.frontier, f.n, f.primes, f.loops, f.device_gib);
  return nullopt;
}

const std::vector<Row> kRows = {
    {"ryser", false, kAllKinds, Shape::Square, 62, true, false,
     "dense Ryser: Gray-code walk in SIMD doubles, exact over CRT primes", engines::make_ryser, ryser_seconds, nullptr, false, nullptr},
    {"sparyser", false, kAllKinds, Shape::Square, 62, true, false,
     "sparse Ryser: row sums updated per nonzero (chosen only by name)", engines::make_sparyser, nullptr, nullptr, false, nullptr},
    {"skipper", false, kAllKinds, Shape::Square, 62, true, false,
     "SkipPer: the sparse walk jumping over subsets where a row is zero", engines::make_skipper, nullptr, nullptr, false, nullptr},
    {"glynn", false, kAllKinds, Shape::Square, kSmallDenseMax, false, false,
     "Glynn's formula in SIMD lanes for small dense blocks (n <= 16; Python's quick path and batches)", engines::make_glynn,
     nullptr, nullptr, false, nullptr},
    {"brute", false, kAllKinds, Shape::Square, 24, false, false,
     "enumeration of the permutations (the tests' oracle)", engines::make_brute, nullptr, nullptr, false, nullptr},
    {"gpu-ryser", true, kAllKinds, Shape::Square, 63, true, false,
     "dense Ryser on CUDA devices, NVRTC kernels specialised to the block", engines::make_gpu_ryser, gpu_ryser_seconds, nullptr, false, nullptr,
     gpu_runtime_bytes},
    {"gpu-skipper", true, kAllKinds, Shape::Square, 63, false, false,
     "SkipPer on a CUDA device", engines::make_gpu_skipper, gpu_skipper_seconds, nullptr, false, nullptr,
     gpu_runtime_bytes},
    {"frontier", false, kAllKinds, Shape::Square, kHuge, false, true,
     "DP over the open columns of a row order (narrow frontiers: grids, bands)", engines::make_frontier,
     frontier_seconds, nullptr, false, nullptr, frontier_bytes},
    {"gpu-frontier", true, kAllKinds, Shape::Square, kHuge, false, true,
     "the frontier DP on a CUDA device, dense tables per prime (floats: on the CPU)", engines::make_gpu_frontier,
     gpu_frontier_seconds, nullptr, false, nullptr, gpu_frontier_bytes},
    {"kasteleyn", false, kAllKinds, Shape::Square, engines::kKasteleynMaxN, false, true,
     "Kasteleyn determinant of planar blocks (polynomial time)", engines::make_kasteleyn, kasteleyn_seconds, nullptr, false, nullptr,
     kasteleyn_bytes},
    {"repeated", false, kAllKinds, Shape::Square, kHuge, false, false,
     "Glynn's sum over classes of repeated rows and columns", engines::make_repeated, repeated_seconds, nullptr, false, nullptr,
     repeated_bytes},
    {"rect-dp", false, kAllKinds, Shape::Rectangular, kHuge, false, false,
     "m x n blocks (m < n): DP over the columns with the set of rows used", nullptr, nullptr, nullptr, false, nullptr},
    {"rect-ryser", false, kAllKinds, Shape::Rectangular, kHuge, false, false,
     "m x n blocks (m < n): Ryser's formula over column subsets", nullptr, nullptr, nullptr, false, nullptr},
    {"hafnian", false, kAllKinds, Shape::Symmetric, engines::kHafnianMaxN, true, false,
     "hafnian of a symmetric block: Bjorklund's walk over pair subsets, exact over CRT primes", nullptr, nullptr,
     engines::make_hafnian, true, hafnian_seconds},
    {"gpu-hafnian", true, kAllKinds, Shape::Symmetric, engines::kHafnianMaxN, true, false,
     "the hafnian walk on CUDA devices, exact over CRT primes, floats summed exactly", nullptr, nullptr,
     engines::make_gpu_hafnian, true, gpu_hafnian_seconds, nullptr, gpu_runtime_graph_bytes},
    {"pfaffian", false, kAllKinds, Shape::Symmetric, engines::kPfaffianMaxN, false, true,
     "Pfaffian of a Pfaffian orientation (FKT) for planar graphs (polynomial time)", nullptr, nullptr,
     engines::make_pfaffian, false, pfaffian_seconds, nullptr, pfaffian_bytes},
    {"graph-frontier", false, kAllKinds, Shape::Symmetric, kHuge, false, true,
     "DP over the unmatched vertices of a frontier (general graphs of small path-width)", nullptr, nullptr,
     engines::make_graph_frontier, true, graph_frontier_seconds, nullptr, graph_frontier_bytes},
    {"gpu-graph-frontier", true, kAllKinds, Shape::Symmetric, kHuge, false, true,
     "the graph frontier DP on a CUDA device, dense tables per prime (floats: on the CPU)", nullptr, nullptr,
     engines::make_gpu_graph_frontier, true, gpu_graph_frontier_seconds, nullptr, gpu_graph_frontier_bytes},
    {"hafnian-brute", false, kAllKinds, Shape::Symmetric, engines::kHafnianBruteMaxN, false, false,
     "enumeration of the perfect matchings of a general graph (the tests' oracle)", nullptr, nullptr,
     engines::make_hafnian_brute, true, nullptr},
};

std::string names_text() {
  std::string s;
  for (std::size_t i = 0; i < kRows.size(); ++i)
    s += (i == 0 ? "" : i + 1 == kRows.size() ? " or " : ", ") + std::string(kRows[i].name);
  return s;
}

}  // namespace

const std::vector<Row>& rows() { return kRows; }

const Row& entry(std::string_view name) {
  for (const Row& r : kRows)
    if (name == r.name) return r;
  throw UsageError("unknown engine '" + std::string(name) + "' (choose " + names_text() + ")");
}

}  // namespace matchcount::catalog

namespace matchcount {

std::unique_ptr<Engine> make_engine(std::string_view name) {
  const catalog::Row& r = catalog::entry(name);
  if (r.shape == catalog::Shape::Symmetric)
    throw UsageError("engine '" + std::string(name) + "' counts general graphs (hafnians), not permanents");
  if (!r.make)
    throw UsageError("engine '" + std::string(name) + "' counts rectangular blocks only (rows < columns)");
  return r.make();
}

std::unique_ptr<GraphEngine> make_graph_engine(std::string_view name) {
  const catalog::Row& r = catalog::entry(name);
  if (!r.make_graph)
    throw UsageError("engine '" + std::string(name) + "' counts bipartite blocks (permanents), not general graphs");
  return r.make_graph();
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const auto& r : catalog::rows()) names.emplace_back(r.name);
  return names;
}

std::vector<EngineInfo> engine_catalog() {
  std::vector<EngineInfo> out;
  for (const auto& r : catalog::rows())
    out.push_back({r.name, r.gpu, (r.kinds & catalog::kInteger) != 0, (r.kinds & catalog::kReal) != 0,
                   (r.kinds & catalog::kComplex) != 0, r.shape == catalog::Shape::Rectangular,
                   r.shape == catalog::Shape::Symmetric, r.loops, r.max_n, r.shares_units, r.whole_block, r.summary});
  // The engines of the other questions: each question has one, which its pipeline runs (not
  // --engine's choices). Sizes: photons of a pattern, modes of a torontonian.
  out.push_back({"hafnian-rpt", false, true, true, true, false, true, true,
                 static_cast<int>(engines::kRepeatedMaxVertices), true, true,
                 "repeated-row hafnians: Bjorklund's recursion over repeated pair types (photon-number patterns)",
                 "--reps"});
  out.push_back({"torontonian", false, false, true, true, false, false, false, engines::kTorontonianMaxModes, true, true,
                 "(loop) torontonians: a stack of Schur complements, one mode eliminated per subset, with a bound that holds",
                 "--torontonian"});
  out.push_back({"gpu-torontonian", true, false, true, false, false, false, false, engines::kTorontonianMaxModes, true, true,
                 "the torontonian walk on CUDA devices, a block per unit (real O: every Gaussian state's)",
                 "--torontonian"});
  // All matchings: the polynomial's engines (the totals are loop hafnians: the count engines
  // with loops). Floats are counted as the exact binary fractions they are.
  out.push_back({"frontier-polynomial", false, true, true, true, false, true, false, catalog::kHuge, false, true,
                 "one frontier DP whose states carry the matching polynomial (complex: over Gaussian integers)",
                 "--matchings --polynomial"});
  out.push_back({"gpu-frontier-polynomial", true, true, true, false, false, true, false, catalog::kHuge, false, true,
                 "the DP of polynomials on a CUDA device, a warp a state (up to 512 coefficients)", "--matchings --polynomial"});
  out.push_back({"tree-polynomial", false, true, true, false, false, true, false, catalog::kHuge, false, true,
                 "the classical recursion for trees and forests (each component; components multiply)",
                 "--matchings --polynomial"});
  // Which matchings.
  out.push_back({"frontier-tables", false, true, false, false, false, true, false, catalog::kHuge, false, true,
                 "the frontier DP's tables in exact integers: samples walked back, every edge's weight by one backward pass",
                 "--marginals --sample"});
  out.push_back({"self-reducibility", false, true, true, false, false, true, false, catalog::kHuge, false, true,
                 "a count per edge (marginals) or per candidate partner (samples), through the counting pipeline",
                 "--marginals --sample"});
  out.push_back({"permanent-minors", false, true, false, false, false, false, false, engines::kPermanentMinorsMaxN, false, true,
                 "every perm(A - u - v) from one forward Gray-code walk of Glynn's formula (dense bipartite graphs)",
                 "--marginals"});
  out.push_back({"hafnian-minors", false, true, false, false, false, true, false, engines::kHafnianMaxN, false, true,
                 "every haf(G - u - v) from one reverse walk of the hafnian recursion (dense graphs, about three counts' work)",
                 "--marginals"});
  out.push_back({"kasteleyn-inverse", false, true, true, false, false, false, false, catalog::kHuge, false, true,
                 "every edge of a planar bipartite graph from the selected inverse of its Kasteleyn matrix (floats)",
                 "--marginals --log"});
  out.push_back({"pfaffian-inverse", false, true, true, false, false, true, false, catalog::kHuge, false, true,
                 "every edge of a planar graph from the selected inverse of its Pfaffian-oriented matrix (floats)",
                 "--marginals --log"});
  out.push_back({"domino-shuffling", false, true, false, false, false, true, false, catalog::kHuge, false, true,
                 "uniform domino tilings of Aztec diamonds (vertices named by cells), exactly", "--sample"});
  out.push_back({"temperley-wilson", false, true, false, false, false, true, false, catalog::kHuge, false, true,
                 "uniform domino tilings of rectangles: Temperley's bijection and Wilson's algorithm, exactly", "--sample"});
  return out;
}

}  // namespace matchcount
