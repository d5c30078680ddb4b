// The lanes' kernels (haf_lanes.cu: one walk of Björklund's recursion a thread) as their host
// side (haf_lane_jobs.cu) sees them: the arguments and the two launchers.
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_arith.cuh"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"

namespace mcgpu::haf_lanes {

constexpr int kMaxM = matchcount::gpu::kHafLaneMaxN / 2, kBlock = 128;

struct LaneArgs {
  int n, m, loops, q, splits_log2;
  int D[kMaxM + 1];          // frame l stores degrees 0..D[l] (stride D[l] + 1)
  long long off[kMaxM + 1];  // frame l's first value; off[m]: the closing polynomial (stride m + 1)
  long long per_lane;        // values a lane
  const double* roots;       // HafLaneJob's layout, root_doubles a matrix
  long long root_doubles;
  const int* orders;         // HafLaneJob's, n a walk
  int walks, spread;         // a matrix's walks; from spread on, walks of |A|
  long long first_channel;   // the launch's first channel
  long long lanes;
  void* scratch;
  u64* out;  // limb i of lane t at out[i * lanes + t]: kLimbs limbs (real), 2 * kLimbs (complex: re, then im)
};

/// The walks of a.lanes lanes on `stream`, real or complex channels.
void launch_walks(const LaneArgs& a, bool complex, cudaStream_t stream);

/// Each of `channels` channels' sum of its 2^splits_log2 lanes' words (sum_lanes) on `stream`.
void launch_sums(const u64* in, long long lanes, int splits_log2, int words, u64* out, long long channels,
                 cudaStream_t stream);

}  // namespace mcgpu::haf_lanes
