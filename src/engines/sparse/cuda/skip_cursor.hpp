// The jump rule of the GPU SkipPer walk, shared by the kernel (nvcc and NVRTC) and the host
// tests, so it includes nothing.
//
// A chunk is a subset `high` of the Gray bits >= k (its low k bits are walked inside the
// chunk). A task fixes the bits [k, qlow) to `fixed` and runs over the bits [qlow, 2^bits) in
// binary order. A row is structurally zero in the whole chunk when `high` misses its mask
// (all its columns lie on bits >= k). For such a row with lowest enumerated bit L, every
// subset between `high` and (high with bits below L cleared) + L still misses it, so the walk
// can jump there; with several dead rows, to the largest such target.
#pragma once

#ifndef MCGPU_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MCGPU_HD __host__ __device__
#else
#define MCGPU_HD
#endif
#endif

namespace mcgpu {

/// 0 when no dead row misses `high`; else the next subset to try, `limit` (= 2^bits) when
/// the task has none left. A row whose mask lies inside the fixed bits and misses them
/// kills the whole task.
MCGPU_HD inline unsigned long long skip_target(unsigned long long high, unsigned long long fixed,
                                               unsigned long long qlow, unsigned long long limit,
                                               const unsigned long long* dead, int rows) {
  unsigned long long to = 0;
  for (int r = 0; r < rows; ++r) {
    const unsigned long long m = dead[r];
    if (high & m) continue;
    const unsigned long long mq = m & ~(qlow - 1);
    unsigned long long t = limit;
    if (mq) {
      const unsigned long long low = mq & (0ULL - mq);
      t = ((high & ~(low - 1)) + low) | fixed;
    }
    to = t > to ? t : to;
  }
  return to >= limit ? limit : to;
}

}  // namespace mcgpu
