// The torontonian walk as the GPU runs it (TorJob), built by torontonian.cpp: the walk of
// tor_walk.hpp in real arithmetic (the x/p basis of a Gaussian state), one thread block per
// work unit. A unit fixes which of the first `fixed` modes are in Z; the block eliminates them
// (its root), then splits the next `middle` modes over its threads breadth first, and each
// thread walks every subset of the last `free` modes depth first. The units' sums are added
// exactly (ExactSum), so the value has the same bits on any number of devices or ranks.
// Internal to the library and its tests; run_torontonian_walk throws GpuError without CUDA or
// a device.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "matchcount/gpu.hpp"

namespace matchcount {

class WalkJournal;  // matchcount/checkpoint.hpp
namespace cluster {
class WalkTeam;  // matchcount/cluster.hpp
}

namespace gpu {

/// Modes a thread walks depth first, modes split over a block's threads (2^middle threads),
/// and the most modes the kernel takes.
constexpr int kTorThreadModes = 10, kTorBlockModes = 7, kTorMaxModes = 48;

/// How a walk of n modes is cut: units fix the first `fixed` modes, blocks split `middle`, and
/// threads walk `free`. Fixed by n alone, so that sums and checkpoints do not depend on devices.
struct TorSplit {
  int fixed = 0, middle = 0, free = 0;
};
inline TorSplit tor_split(int n) {
  // Units of at most 17 modes, at least 2^11 units where n allows (a device holds about 2^11
  // blocks); blocks split 7 modes over 128 threads where they can.
  const int unit_modes = std::max(std::min(n, kTorThreadModes), std::min(kTorThreadModes + kTorBlockModes, n - 11));
  TorSplit s;
  s.middle = std::min(kTorBlockModes, unit_modes);
  s.free = unit_modes - s.middle;
  s.fixed = n - unit_modes;
  return s;
}

/// An exact sum of doubles: a two's-complement integer of kExactLimbs 64-bit limbs (least
/// significant first) counting units of 2^-1074, the least double, modulo 2^(64 kExactLimbs)
/// (2^2240: room for 2^100 sums of the largest doubles). Any order of additions gives the same
/// bits.
constexpr int kExactLimbs = 35;
inline void exact_add(std::uint64_t* acc, double x) {
  if (x == 0 || !std::isfinite(x)) return;
  int e = 0;
  const double f = std::frexp(std::fabs(x), &e);  // |x| = f 2^e, f in [0.5, 1)
  // |x| = mant 2^(e - 53): shifted by e - 53 + 1074 units of 2^-1074.
  std::uint64_t mant = static_cast<std::uint64_t>(std::ldexp(f, 53));
  int shift = e - 53 + 1074;
  if (shift < 0) mant >>= -shift, shift = 0;  // subnormal: the bits shifted out are zeros
  const int limb = shift / 64, bit = shift % 64;
  const std::uint64_t part[2] = {mant << bit, bit ? mant >> (64 - bit) : 0};
  std::uint64_t carry = 0;  // a carry (adding) or a borrow (subtracting)
  for (int i = limb; i < kExactLimbs; ++i) {
    const std::uint64_t p = i < limb + 2 ? part[i - limb] : 0;
    if (p == 0 && carry == 0 && i >= limb + 2) break;
    const std::uint64_t a = acc[i];
    if (x > 0) {
      const std::uint64_t s = a + p;
      const std::uint64_t c1 = s < a;
      acc[i] = s + carry;
      carry = c1 | (acc[i] < s);
    } else {
      const std::uint64_t d = a - p;
      const std::uint64_t b1 = a < p;
      acc[i] = d - carry;
      carry = b1 | (d < carry);
    }
  }
}
/// total += x, both exact sums.
inline void exact_merge(std::uint64_t* total, const std::uint64_t* x) {
  std::uint64_t carry = 0;
  for (int i = 0; i < kExactLimbs; ++i) {
    const std::uint64_t s = total[i] + x[i];
    const std::uint64_t c1 = s < total[i];
    total[i] = s + carry;
    carry = c1 | (total[i] < s);
  }
}

/// The words of a walk's sum: the signed sum of the terms and the sum of |terms| (exact sums),
/// the largest q_Z (a double's bits: combined by max), and 1 when a pivot failed.
enum TorWord : std::size_t {
  kTorSigned = 0,
  kTorAbs = kExactLimbs,
  kTorMaxQ = 2 * kExactLimbs,
  kTorFailed,
  kTorWords
};

struct TorJob {
  int n = 0;
  TorSplit split;
  std::vector<double> m;  // M = I - O, (2n)^2, pair order, real symmetric
  std::vector<double> v;  // conj(gamma) in pair order (2n), empty without loops
  bool verbose = false;   // MATCHCOUNT_GPU_VERBOSE
  int gpus = 0;           // the first `gpus` visible devices (0: all)
  std::function<void(double)> progress;
  WalkJournal* journal = nullptr;
  std::string tag;
  cluster::WalkTeam* team = nullptr;
};

struct TorResult {
  std::vector<std::uint64_t> words;  // kTorWords
  std::vector<std::uint64_t> units_per_device, units_by_rank;
  std::string note;  // device failures
  double run_seconds = 0;
};

/// Runs the walk on the GPUs; GpuError on any CUDA failure (or without CUDA).
TorResult run_torontonian_walk(const TorJob& job);

}  // namespace gpu
}  // namespace matchcount
