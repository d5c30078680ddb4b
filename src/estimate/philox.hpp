// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the
// counter-based generator behind curand's Philox. Written once for the host and the device, so
// a sample's random stream depends only on (seed, block, sample, draw): CPU and GPU runs draw
// the same numbers, and results do not depend on how samples are spread over threads.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define MC_HD __host__ __device__ __forceinline__
#else
#define MC_HD inline
#endif

namespace matchcount::estimate {

struct Philox4x32 {
  std::uint32_t v[4];
};

MC_HD Philox4x32 philox4x32_10(Philox4x32 ctr, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * ctr.v[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * ctr.v[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    ctr = Philox4x32{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
    k0 += kW0;
    k1 += kW1;
  }
  return ctr;
}

/// Uniform doubles in [0, 1) with 53 random bits, two per Philox call, for one sample.
class SampleRng {
 public:
  MC_HD SampleRng(std::uint64_t seed, std::uint32_t block, std::uint64_t sample)
      : k0_(static_cast<std::uint32_t>(seed)), k1_(static_cast<std::uint32_t>(seed >> 32)),
        s0_(static_cast<std::uint32_t>(sample)), s1_(static_cast<std::uint32_t>(sample >> 32)), block_(block) {}

  MC_HD double uniform() {
    if (have_ == 0) {
      buf_ = philox4x32_10(Philox4x32{{draw_++, s0_, s1_, block_}}, k0_, k1_);
      have_ = 2;
    }
    const int i = 2 - have_--;
    const std::uint64_t bits = (static_cast<std::uint64_t>(buf_.v[2 * i]) << 32 | buf_.v[2 * i + 1]) >> 11;
    return static_cast<double>(bits) * 0x1.0p-53;
  }

 private:
  std::uint32_t k0_, k1_, s0_, s1_, block_;
  std::uint32_t draw_ = 0;
  int have_ = 0;
  Philox4x32 buf_{};
};

}  // namespace matchcount::estimate
