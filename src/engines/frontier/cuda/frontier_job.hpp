// The frontier DP as the GPU runs it (FrontierJob), built by gpu_frontier.cpp from the CPU
// DP's steps. Internal to the library and its tests; run_frontier throws GpuError without
// CUDA or a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

/// One row of the frontier DP as the GPU runs it (built by src/engines/frontier/gpu_frontier.cpp from a
/// FrontierStep). Tables are dense over all p-subsets of the w open columns, in colex order.
/// Destination key t pulls, per move, the source key expand(t & low) | closing with the move's
/// `drop` bit cleared, when t's bits outside `low` equal need's and t holds need.
struct FrontierMoveDesc {
  std::uint64_t need = 0;  // new-layout bit the destination must hold (0: none)
  std::uint64_t drop = 0;  // old-layout bit the source lacks (the column used, if it was open)
  int entry = 0;           // index into FrontierJob::residues
};
struct FrontierRowDesc {
  int w_old = 0, p_old = 0, w_new = 0, p_new = 0;
  std::uint64_t low = 0;        // new bits 0..kept-1: the old columns that stay open
  std::vector<int> close_asc;   // old positions of the columns closing at this row
  std::vector<FrontierMoveDesc> moves;
};
struct FrontierJob {
  std::vector<FrontierRowDesc> rows;
  /// Primes in (2^49, 2^50) and the entries' residues, residues[entry * primes.size() + k] in [0, p).
  std::vector<double> primes, residues;
  /// Most primes per pass (0: as many as the device memory holds).
  std::size_t max_primes_per_pass = 0;
  int device = 0;
  std::function<void(double)> progress;
};
struct FrontierResult {
  std::vector<double> values;  // the permanent modulo each prime, in (-p, p)
  std::size_t passes = 0, primes_per_pass = 0;
  double table_gib = 0, run_seconds = 0;
};
/// Device bytes one prime needs: the largest old plus new table, 8 bytes a state.
double frontier_bytes_per_prime(const std::vector<FrontierRowDesc>& rows);
/// Runs the DP; RefusedError when one prime's tables do not fit the free device memory or a
/// table has 2^32 states or more, GpuError on any CUDA failure.
FrontierResult run_frontier(const FrontierJob& job);

}  // namespace matchcount::gpu
