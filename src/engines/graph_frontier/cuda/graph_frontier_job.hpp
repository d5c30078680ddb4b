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

}  // namespace matchcount::gpu
