// Random jobs in the GPU batches' root layout (gpu::HafLaneJob), for the queue tests of the
// expansions (haf_enum_test.cpp) and the walks one a thread (gpu_hafnian_lanes_test.cpp).
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/haf_setup.hpp"

namespace matchcount::test {

/// A job of k random n-vertex (loop) hafnians, entries 0.3 N(0, 1), walked in `walks` vertex
/// orders (the last beyond haf::kSpreadWalks walking |A|), its roots written into `roots` with
/// the lanes' fixed-point exponent (which the expansions ignore). The caller points job.roots
/// at roots once their storage stays where it is.
inline gpu::HafLaneJob random_lane_job(int n, bool cplx, bool loops, int k, int walks, std::mt19937_64& rng,
                                       std::vector<double>& roots) {
  const int W = cplx ? 2 : 1;
  const std::size_t per = gpu::HafLaneJob::root_values(n, loops) * static_cast<std::size_t>(W);
  std::normal_distribution<double> gauss;
  roots.resize(per * static_cast<std::size_t>(k));
  gpu::HafLaneJob job;
  job.n = n, job.loops = loops, job.complex = cplx, job.matrices = static_cast<std::size_t>(k);
  job.walks = walks, job.spread = engines::haf::kSpreadWalks;
  job.orders = engines::gpu_haf::lane_orders(n, walks);
  job.q = engines::gpu_haf::write_lane_roots(static_cast<std::size_t>(k), n, loops, W, per, roots.data(),
                                             [&](std::size_t, double* root) {
                                               gpu::write_lane_root(root, n, loops, W, [&](int, int, int) { return 0.3 * gauss(rng); });
                                             });
  return job;
}

}  // namespace matchcount::test
