// Sizes of the GPU frontier tables (host code, built with or without CUDA: the planner uses it).
#include <algorithm>

#include "engines/frontier/cuda/frontier_job.hpp"
#include "matchcount/gpu.hpp"
#include "cuda/subset_rank.hpp"

namespace matchcount::gpu {

double frontier_bytes_per_prime(const std::vector<FrontierRowDesc>& rows) {
  static const auto binom = subset_rank::binomials();
  auto states = [&](int w, int p) { return p < 0 || p > w ? 0.0 : double(binom[std::size_t(w) * 65 + std::size_t(p)]); };
  double most = 1;  // the old and the new table of one row live together
  for (const auto& r : rows) most = std::max(most, states(r.w_old, r.p_old) + states(r.w_new, r.p_new));
  return 8 * most;
}

}  // namespace matchcount::gpu
