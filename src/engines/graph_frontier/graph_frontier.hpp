// The frontier (path-width) DP for general graphs: the hafnian and the loop hafnian of a
// symmetric block whose vertices can be ordered with a narrow frontier (king graphs, periodic
// strips, sparse graphs of small path-width). Private to src/engines; the catalog makes it.
//
// Vertices are processed in the plan's order. The frontier after a vertex is the set of
// processed vertices that still have an unprocessed neighbour; a state is the set of frontier
// vertices not yet matched. A vertex comes in matched to an open frontier neighbour, open (when
// it has later neighbours) or, with loops, covered by its loop; a vertex leaving the frontier
// must be matched. The tables are dense, indexed by the state's bits: without loops the open
// count has the parity of the processed count, so one bit is implied and a frontier of w
// vertices takes 2^(w-1) states; with loops all 2^w.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engines/graph_engine.hpp"
#include "engines/graph_frontier/graph_step.hpp"
#include "engines/growing_array.hpp"
#include "engines/modular_tables.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// name "graph-frontier", loops() true, max_n 1 << 20 (the frontier, not n, limits it).
std::unique_ptr<GraphEngine> make_graph_frontier();

/// A vertex order with its predicted size (all for the hafnian without loops: with loops
/// every table doubles, see graph_frontier_bytes and graph_frontier_seconds).
struct GraphFrontierPlan {
  std::vector<int> order;  // vertices in processing order
  /// Largest frontier after any vertex (> kGraphFrontierMaxWidth: not runnable).
  int width = 0;
  /// Predicted work: sum over vertices of (states after it) * (1 + its processed neighbours),
  /// the gathers of the DP (infinite beyond kGraphFrontierMaxWidth).
  double cost = 0;
  /// Largest number of states held at once (the table before a vertex plus the one after).
  double peak_states = 0;
  /// States written: the sum over vertices of the table after it (the GPU's time model).
  double states = 0;
};

/// The frontier profile of one order over adjacency lists (each neighbour once, no self).
GraphFrontierPlan graph_frontier_profile(const std::vector<std::vector<int>>& adj, std::vector<int> order);

/// The best vertex order found (natural, reverse Cuthill–McKee, greedy minimum frontier from
/// several starts), from the symmetric pattern (each undirected edge as (u,v) and (v,u), no
/// diagonal).
GraphFrontierPlan plan_graph_frontier(const std::vector<std::pair<int, int>>& pattern, int n);

/// Widest frontier a state (a 64-bit set) holds.
constexpr int kGraphFrontierMaxWidth = 63;

/// Bytes of the states of the two tables at the plan's peak with `words` 8-byte words a state
/// (one per prime carried in a pass; 2 real, 3 complex); the loop hafnian's tables are twice
/// as large.
inline double graph_frontier_state_bytes(const GraphFrontierPlan& plan, int words, bool loops = false) {
  return plan.peak_states * 8.0 * words * (loops ? 2 : 1);
}

/// Predicted peak bytes of the two tables: their states and a page each (the resident pages
/// the engine's TableMeter charges, growing_array.hpp).
inline double graph_frontier_bytes(const GraphFrontierPlan& plan, int words, bool loops = false) {
  const double states = graph_frontier_state_bytes(plan, words, loops);
  return states + 2 * table_page(states / 2);
}

/// The engine's memory beside its tables, per vertex and per entry: the vertex order planned
/// again (adjacency lists, candidate orders), the steps and their moves; about twice what a
/// long strip measured (docs/benchmarks.md, "Memory budget against the measured peak").
constexpr double kGraphFrontierBytesPerVertex = 400, kGraphFrontierBytesPerEntry = 64;
inline double graph_frontier_other_bytes(double vertices, double nnz) {
  return kGraphFrontierBytesPerVertex * vertices + kGraphFrontierBytesPerEntry * nnz;
}

/// Refusal threshold: predicted peak bytes of the state tables (one prime a pass at least).
constexpr double kGraphFrontierMemoryLimit = 8.0 * (1ull << 30);

/// Time model of the CPU engine (calibrated with single-thread runs on king graphs and periodic
/// strips): per unit of plan cost, a base for the index arithmetic of a gather, plus a cost per
/// value word: a lazy Shoup product and sum per prime (a sum only for 0-1 blocks), two or three
/// doubles for floats. Exact counts carry at most 8 primes a pass; each pass repeats the base.
/// Tables beyond the caches run slower, by a quarter per doubling beyond 16 MiB. The gathers
/// split evenly over cores, but the large tables are memory-bound, so a second core adds only
/// part of one.
constexpr double kGraphFrontierBase = 0.4e-9, kGraphFrontierModWord = 0.92e-9, kGraphFrontierUnitWord = 0.63e-9,
                 kGraphFrontierRealWord = 0.3e-9, kGraphFrontierComplexWord = 0.35e-9;
constexpr double kGraphFrontierFixed = 2e-4, kGraphFrontierPerVertex = 2e-6, kGraphFrontierParallel = 0.5;

/// Predicted seconds; primes = CRT primes of an exact count (0 for floats), `unit` when every
/// entry is 1 (exact counts without products), `loops` for the loop hafnian.
double graph_frontier_seconds(const GraphFrontierPlan& plan, int n, double primes, NumberKind kind, int cores,
                              bool unit = false, bool loops = false);

/// The DP's steps along the plan's order (entry indices into a.entries; the diagonal only
/// with loops).
template <class T>
std::vector<graph_frontier_detail::GraphStep> graph_frontier_steps(const SparseMatrix<T>& a, bool loops,
                                                                  const GraphFrontierPlan& plan) {
  std::vector<std::vector<std::pair<int, int>>> nbrs(std::size_t(a.rows));
  std::vector<int> loop(std::size_t(a.rows), -1);
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto& e = a.entries[i];
    if (e.row == e.col) loop[std::size_t(e.row)] = int(i);
    else nbrs[std::size_t(e.row)].emplace_back(e.col, int(i));
  }
  return graph_frontier_detail::graph_steps(nbrs, loop, plan.order, loops);
}

/// Knobs of the exact count that tests use to reach the multi-pass path on small input.
struct GraphFrontierTuning {
  /// Most primes carried per pass (0: as many as kGraphFrontierMemoryLimit allows, at most 8).
  std::size_t max_primes_per_pass = 0;
};

/// The engine's exact count with knobs (what hafnian(SparseMatrix<Integer>) returns; `a` as
/// GraphEngine::count receives it).
Integer graph_frontier_hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt,
                               const GraphFrontierTuning& tuning);

// ---- the matching polynomial (graph_frontier_polynomial.cpp) --------------------------------

/// The vertex order of the polynomial DP for the graph `a` (symmetric, no diagonal).
GraphFrontierPlan graph_frontier_polynomial_plan(const SparseMatrix<Integer>& a);

/// The memory floor of the DP of polynomials, counted from its plan: at vertex k (in the
/// plan's order) the table of 2^(frontier) states (any subset may be open: the unit loops) is written with
/// the degrees up to floor((k+1)/2) and its sources read, each state of table k-1 at least once
/// with the degrees up to floor(k/2); 8 bytes a coefficient, per prime. What any run must move
/// through memory, whatever its kernel (docs/benchmarks.md, the GPU polynomial's floor).
struct PolynomialTraffic {
  double states = 0;          // states written, all vertices, one prime
  double bytes_per_prime = 0; // coefficients written and read at least once, 8 bytes each
  double primes = 0;          // the CRT primes of the coefficients' bound
};
PolynomialTraffic graph_frontier_polynomial_traffic(const SparseMatrix<Integer>& a);

/// Predicted peak bytes of its tables: the loop hafnian's with n/2 + 1 coefficients a state.
double graph_frontier_polynomial_bytes(const GraphFrontierPlan& plan, int n);

/// m_0 .. m_{n/2} of the integer-weighted graph `a` (symmetric, no diagonal): the number (or
/// weight) of matchings of each size, by one DP whose states carry polynomials, exact modulo
/// primes. RefusedError (BudgetError under a budget) when the tables do not fit.
std::vector<Integer> graph_frontier_matching_polynomial(const SparseMatrix<Integer>& a, const EngineOptions& opt);

/// The coefficients of a graph with Gaussian-integer weights re + i im (the same pattern; a
/// position missing from one is 0 there): each m_k as (real part, imaginary part), exactly, by
/// the same DP modulo primes p = 1 (mod 4), at both square roots of -1 modulo p.
std::vector<std::pair<Integer, Integer>> graph_frontier_gaussian_polynomial(const SparseMatrix<Integer>& re,
                                                                            const SparseMatrix<Integer>& im,
                                                                            const EngineOptions& opt);

/// Predicted seconds of graph_frontier_matching_polynomial with `primes` CRT primes.
double graph_frontier_polynomial_seconds(const GraphFrontierPlan& plan, int n, double primes, int cores);

/// What both runs of the polynomial DP (CPU and GPU) start from: the graph with unit loops, its
/// plan and steps, the primes, the entries' distinct values and which entries are loops, the
/// words a state (n/2 + 1) and the tables' predicted bytes and limit. RefusedError (BudgetError
/// under a budget) when the tables do not fit the host's limit, unless they go `on_device`.
struct PolynomialSetup {
  SparseMatrix<Integer> g;
  GraphFrontierPlan plan;
  std::vector<graph_frontier_detail::GraphStep> steps;
  std::vector<std::uint64_t> primes;
  DistinctValues distinct;
  std::vector<char> is_loop;
  bool unit = true;  // every edge weighs 1
  std::size_t words = 1;
  double bytes = 0, limit = 0;
};
PolynomialSetup polynomial_setup(const SparseMatrix<Integer>& a, const EngineOptions& opt, bool on_device);

/// The same coefficients with the tables on a CUDA device (gpu_graph_polynomial.cpp): GpuError
/// without one, RefusedError beyond 256 coefficients or the device's memory.
std::vector<Integer> gpu_graph_frontier_matching_polynomial(const SparseMatrix<Integer>& a, const EngineOptions& opt);

/// Predicted seconds of the GPU run: the bytes its passes stream at an effective bandwidth and
/// a launch per vertex and prime.
double gpu_graph_polynomial_seconds(const GraphFrontierPlan& plan, int n, double primes);

// ---- gpu-graph-frontier (gpu_graph_frontier.cpp, cuda/) ----------------------------------

/// name "gpu-graph-frontier", loops() true: the same DP with its tables on a CUDA device, exact
/// modulo the same primes; floats, blocks of fewer than 8 vertices and any block whose GPU run
/// fails are counted by graph-frontier on the CPU.
std::unique_ptr<GraphEngine> make_gpu_graph_frontier();

/// The engine's exact count on the device (GpuError without one; RefusedError when a prime's
/// tables do not fit its memory); max_primes_per_pass 0: as many as the device memory holds.
Integer gpu_graph_frontier_hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt,
                                   std::size_t max_primes_per_pass);

/// Predicted seconds of an exact count on a device of `device_gib` GiB (infinite when one
/// prime's tables do not fit): the bytes the passes write and gather at an effective bandwidth,
/// a launch per vertex and pass, and the context.
double gpu_graph_frontier_seconds(const GraphFrontierPlan& plan, int n, double primes, bool loops, double device_gib);

}  // namespace matchcount::engines
