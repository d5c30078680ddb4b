// The GPU SkipPer engine (gpu-skipper): planning of its walk, exposed for the planner and
// the tests. See docs/gpu.md ("SkipPer on the GPU").
#pragma once

#include <memory>
#include <vector>

#include "engines/sparse/cuda/skipper.hpp"
#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_gpu_skipper();

/// Forced choices (tests and measurements; MATCHCOUNT_SKIPPER_MODE=skip|halved,
/// MATCHCOUNT_SKIPPER_K, MATCHCOUNT_SKIPPER_TASK_BITS); 0 / -1 = the planner's choice.
struct SkipChoice {
  int mode = 0;  // 0 auto, 1 skip (plain form, jumps over zero rows), 2 halved (NW form)
  int k = 0;
  int task_bits = -1;
  static SkipChoice from_env();
};

/// How the walk is laid out for one block.
struct SkipPlan {
  bool halved = false;            // NW form over n-1 columns (fixed_col always in S)
  int bits = 0, k = 0, task_bits = 0;
  std::vector<int> col_of_bit;    // Gray bit -> column (size bits)
  int fixed_col = -1;
  std::vector<int> l_rows, h_rows;  // rows touched by the local columns (bits < k); the others
  double live = 1.0;              // estimated fraction of chunks that are walked
  double ops = 0.0;               // predicted FP64 operations (one number kind: plain doubles)
};

/// The plan for an n x n pattern (support[i] = columns of row i; no empty line).
SkipPlan plan_skipper(const std::vector<std::vector<int>>& support, int n, const SkipChoice& choice);

/// The walk of an integer block with exact integer values (every row's absolute sum below
/// 2^49): the gpu::SkipJob of a ModShared walk without primes. perm(a) equals
/// (-1)^negate * 2^-shift * sum over all subsets S of the Gray bits of
/// (-1)^|S| * prod over slots of their values.
struct IntegerWalk {
  gpu::SkipJob job;
  SkipPlan plan;
  bool negate = false;
  int shift = 0;
};
IntegerWalk integer_walk(const SparseMatrix<Integer>& a, const SkipChoice& choice);

/// Predicted seconds of gpu-skipper on a block (for the planner); exact counts make `passes`
/// walks (one per prime, or per four primes when the rows allow shared sums).
double gpu_skipper_seconds(const SparseMatrix<Integer>& a, double passes = 1);
double gpu_skipper_seconds(const SparseMatrix<double>& a);
double gpu_skipper_seconds(const SparseMatrix<Complex>& a);

}  // namespace matchcount::engines
