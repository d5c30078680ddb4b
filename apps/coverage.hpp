// Coverage of the estimators' 95% intervals: on inputs with known counts, how often the
// interval of a run holds the exact count, over many seeds, and how often a run that misses
// said so (heavy_tail). The engine of matchcount-coverage and of the coverage test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "matchcount/estimate.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::cli {

/// An input with its exact count.
struct CoverageCase {
  std::string label;
  SparseMatrix<double> matrix;  // nonnegative
  double exact_log2 = 0;        // log2 of the exact count (the counts pass the double range)
};

/// A case from a matrix: counts it exactly (the exact pipeline; integer entries exactly).
CoverageCase coverage_case(std::string label, const AnyMatrix& m);

/// The standard cases of docs/estimation.md ("Coverage"): grids, Erdos-Renyi bipartite graphs
/// of several densities, random regular graphs, a digraph, real weights.
std::vector<CoverageCase> standard_coverage_cases();

struct CoverageRun {
  EstimateMethod method = EstimateMethod::ScalingPlus;
  DevicePolicy device = DevicePolicy::Cpu;
  std::uint64_t samples = 3000;  // a fixed sample count per run
  int seeds = 100;               // runs with seeds first_seed, first_seed + 1, ...
  std::uint64_t first_seed = 1;
  int threads = 0;
};

struct Coverage {
  int runs = 0;
  int covered = 0;           // the interval holds the exact count
  int flagged = 0;           // heavy_tail was set
  int unflagged_misses = 0;  // missed without saying so: what must stay rare
  double median_rel_error = 0;
  double median_ratio = 0;  // estimate / exact
  double seconds_per_run = 0;
  std::string device;
  /// covered / runs, and (covered + flagged misses) / runs: the share of runs that are honest.
  double coverage() const { return runs ? static_cast<double>(covered) / runs : 0.0; }
  double honest() const { return runs ? static_cast<double>(runs - unflagged_misses) / runs : 0.0; }
};

/// Runs the estimator `run.seeds` times on the case (every block sampled: exact_up_to 0).
Coverage measure_coverage(const CoverageCase& c, const CoverageRun& run);

}  // namespace matchcount::cli
