// The graph frontier DP as the device runs it (GraphFrontierJob), built by
// gpu_graph_frontier.cpp from the CPU DP's steps. Internal to the library and its tests;
// run_graph_frontier throws GpuError without CUDA or a device.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "engines/graph_frontier/cuda/graph_pull.hpp"
#include "engines/graph_frontier/graph_step.hpp"

namespace matchcount::gpu {

struct GraphFrontierJob {
  /// The vertices in order, as graph_frontier_steps makes them for the CPU engine.
  std::vector<engines::graph_frontier_detail::GraphStep> steps;
  /// Loop hafnian: tables over all 2^w subsets of the frontier (else 2^(w-1), parity implied).
  bool loops = false;
  /// Every weight is 1: sums without products.
  bool unit = false;
  /// Primes in (2^49, 2^50) and the entries' residues, residues[entry * primes.size() + k] in [0, p).
  std::vector<double> primes, residues;
  /// Most primes per pass (0: as many as the device memory holds).
  std::size_t max_primes_per_pass = 0;
  int device = 0;
  std::function<void(double)> progress;
};

struct GraphFrontierResult {
  std::vector<double> values;  // the hafnian modulo each prime, in (-p, p)
  std::size_t passes = 0, primes_per_pass = 0;
  double table_gib = 0, run_seconds = 0;
};

/// Device bytes one prime needs: the largest table before a vertex plus the one after, 8 bytes
/// a state (the two share one arena).
inline double graph_frontier_bytes_per_prime(const std::vector<engines::graph_frontier_detail::GraphStep>& steps,
                                             bool loops) {
  double most = 2;
  for (const auto& st : steps) most = std::max(most, graph_table_states(st.old_w, loops) + graph_table_states(st.new_w, loops));
  return 8 * most;
}

/// Runs the DP (the job's steps must leave a state: see graph_steps_dead); RefusedError when one
/// prime's tables do not fit the free device memory, GpuError on any CUDA failure.
GraphFrontierResult run_graph_frontier(const GraphFrontierJob& job);

/// The matching polynomial's DP (graph_frontier_polynomial.cpp) on the device: the loop
/// hafnian's steps over the graph with unit loops, `words` coefficients a state, one prime a
/// pass.
struct GraphPolynomialJob {
  std::vector<engines::graph_frontier_detail::GraphStep> steps;
  std::size_t words = 1;  // at most kGraphPolynomialMaxWords
  bool unit = false;      // every edge weighs 1
  /// Primes in (2^49, 2^50); residues[entry * primes.size() + k] in [0, p); is_loop per entry.
  std::vector<double> primes, residues;
  std::vector<signed char> is_loop;
  int device = 0;
  std::function<void(double)> progress;
};
constexpr std::size_t kGraphPolynomialMaxWords = 512;

struct GraphPolynomialResult {
  std::vector<double> values;  // per prime, `words` coefficients in (-p, p)
  double table_gib = 0, run_seconds = 0;
};

/// Runs it; RefusedError when the tables do not fit the free device memory or the polynomial
/// has more than kGraphPolynomialMaxWords coefficients, GpuError on any CUDA failure.
GraphPolynomialResult run_graph_polynomial(const GraphPolynomialJob& job);

}  // namespace matchcount::gpu
