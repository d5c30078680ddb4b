// Host-only parts of the GPU walk shared by CUDA and CPU-only builds.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

std::string to_string(KernelSource s) {
  switch (s) {
    case KernelSource::Generic: return "generic";
    case KernelSource::Compiled: return "nvrtc";
    case KernelSource::Cached: return "cached";
  }
  return "?";
}

// Chunks of 2^12 steps make the fresh start of every chunk (about m * n additions) cost under
// 1% of the chunk; small walks use shorter chunks so that there are enough of them to spread.
int chunk_log2(int m) { return std::clamp(m - 15, 0, 12); }

double warp_nonzero_fraction(const WalkJob& job) {
  const int n = job.n, m = n - 1, samples = 4096;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;  // splitmix64: the estimate is deterministic
  auto next = [&] {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::vector<double> y(static_cast<std::size_t>(n));
  int nonzero = 0;
  for (int s = 0; s < samples; ++s) {
    const std::uint64_t set = next();
    std::copy(job.x0.begin(), job.x0.begin() + n, y.begin());
    for (int j = 0; j < m; ++j)
      if ((set >> j) & 1)
        for (int i = 0; i < n; ++i) y[static_cast<std::size_t>(i)] += job.a2[static_cast<std::size_t>(j) * n + i];
    nonzero += std::none_of(y.begin(), y.end(), [](double v) { return v == 0.0; });
  }
  const double p = (nonzero + 1.0) / (samples + 1.0);  // never 0: a lone nonzero term is likely
  return 1.0 - std::pow(1.0 - p, 32);
}

}  // namespace matchcount::gpu
