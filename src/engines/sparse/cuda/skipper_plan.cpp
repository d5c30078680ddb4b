// Host-only part of the GPU SkipPer walk, shared by CUDA and CPU-only builds.
#include "engines/sparse/cuda/skipper.hpp"

namespace matchcount::gpu {

SkipJob padded_for_every8(const SkipJob& job, int rows) {
  SkipJob out = job;
  out.slot_sum.clear();
  const int lb = (job.rows_l + 7) / 8 * 8, constants = job.slots() - job.rows_l;
  if (lb + 8 * constants > rows) return out;
  // New slots in order, -1 for a pad (value 1: an empty range of sums, starting where the
  // previous slot's range ended, since ranges are contiguous in slot order).
  std::vector<int> from;
  for (int i = 0; i < lb; ++i) from.push_back(i < job.rows_l ? i : -1);
  for (int c = 0; c < constants; ++c) {
    from.push_back(job.rows_l + c);
    for (int p = 1; p < 8; ++p) from.push_back(-1);
  }
  out.const_mask = 0;
  int pos = job.slot_sum.front();
  for (std::size_t i = 0; i < from.size(); ++i) {
    const int old = from[i];
    if (old < 0) {
      out.slot_sum.push_back(pos);
      continue;
    }
    out.slot_sum.push_back(job.slot_sum[static_cast<std::size_t>(old)]);
    pos = job.slot_sum[static_cast<std::size_t>(old) + 1];
    if ((job.const_mask >> old) & 1) out.const_mask |= std::uint64_t{1} << i;
    if (job.sign_slot == old) out.sign_slot = static_cast<int>(i);
  }
  out.slot_sum.push_back(pos);
  return out;
}

}  // namespace matchcount::gpu
