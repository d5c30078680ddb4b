// Host-only parts of the GPU walk shared by CUDA and CPU-only builds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "matchcount/arith.hpp"
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

// At most 2^14 units: enough that two to eight devices end within a few units of each other
// (the queue shrinks the last runs), few enough that the done ranges stay short.
int unit_log2(int m, int k) { return m - k - std::min(m - k, 14); }

namespace {

constexpr int kLimbs = 8;  // as mcgpu::kLimbs in src/gpu/ryser_kernel.cuh

int width(WalkKind kind) { return kind == WalkKind::Complex ? 2 : 1; }
bool fixed_point(WalkKind kind) { return kind == WalkKind::Real || kind == WalkKind::Complex; }

/// total += add for one sum; `raw` residues are doubles in (-p, p) as a kernel leaves them.
void add_one(WalkKind kind, const std::vector<double>& primes, std::uint64_t* total, const std::uint64_t* add, bool raw) {
  if (fixed_point(kind)) {
    const int limbs = width(kind) * kLimbs;
    for (int w = 0; w < width(kind); ++w) {
      unsigned carry = 0;  // each 512-bit integer wraps on its own
      for (int l = w * kLimbs; l < (w + 1) * kLimbs; ++l) {
        const std::uint64_t a = total[l], s = a + add[l] + carry;
        carry = (s < a || (carry && s == a)) ? 1 : 0;
        total[l] = s;
      }
    }
    double t, x;
    std::memcpy(&t, &total[limbs], sizeof t);
    std::memcpy(&x, &add[limbs], sizeof x);
    t += x;
    std::memcpy(&total[limbs], &t, sizeof t);
    return;
  }
  for (std::size_t k = 0; k < primes.size(); ++k) {
    const auto p = static_cast<std::uint64_t>(primes[k]);
    std::uint64_t r = add[k];
    if (raw) {
      double v;
      std::memcpy(&v, &add[k], sizeof v);
      r = to_residue(std::fmod(v, primes[k]), p);
    }
    total[k] = (total[k] + r) % p;  // both < p < 2^50
  }
}

}  // namespace

std::size_t sum_words(WalkKind kind, std::size_t primes) {
  return fixed_point(kind) ? static_cast<std::size_t>(width(kind) * kLimbs + 1) : primes;
}

void add_thread_sums(WalkKind kind, const std::vector<double>& primes, const std::uint64_t* raw, std::size_t threads,
                     std::vector<std::uint64_t>& total) {
  const std::size_t per = sum_words(kind, primes.size());
  total.resize(per, 0);
  for (std::size_t t = 0; t < threads; ++t) add_one(kind, primes, total.data(), raw + t * per, true);
}

void add_sums(WalkKind kind, const std::vector<double>& primes, std::vector<std::uint64_t>& total,
              const std::vector<std::uint64_t>& sum) {
  total.resize(sum_words(kind, primes.size()), 0);
  add_one(kind, primes, total.data(), sum.data(), false);
}

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
