// Host-only parts of the GPU walk shared by CUDA and CPU-only builds.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/arith.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

// Chunks of 2^12 steps make the fresh start of every chunk (about m * n additions) cost under
// 1% of the chunk; small walks use shorter chunks so that there are enough of them to spread.
int chunk_log2(int m) { return std::clamp(m - 15, 0, 12); }

// At most 2^14 units: enough that two to eight devices end within a few units of each other
// (the queue shrinks the last runs), few enough that the done ranges stay short.
int unit_log2(int m, int k) { return m - k - std::min(m - k, 14); }

namespace {

constexpr int kLimbs = 8;  // as mcgpu::kLimbs in src/cuda/device_arith.cuh

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

namespace {

/// Registers: 255 per thread at most (blocks of 256 threads). The hybrid keeps as many rows in
/// registers as fit under kHybridTarget. The register-only kernel is replaced by a hybrid one
/// when its estimate passes kSpillAbove, far above where ptxas starts spilling: a memory row
/// costs a shared-memory read and write per step, more than the spills of a register-only
/// kernel (docs/benchmarks.md, "GPU: register-only against hybrid NVRTC kernels").
constexpr int kSpillAbove = 600, kHybridTarget = 248;
/// Otherwise the hybrid is chosen only when the model expects 10% less work: on baked sparse
/// blocks its gain is small (same section), so a smaller expected gain is within the model's error.
constexpr double kHybridGain = 0.9;

/// Cost model in FP64 issue slots per thread and step (H100: a warp's FP64 instruction takes
/// half a cycle of an SM, a warp's 8-byte load or store from shared memory or L1 two cycles).
constexpr double kAccess = 4.0;

int group_count(const WalkJob& job, int rows) {
  const std::uint64_t mask = job.fold_mask | (std::uint64_t{1} << (rows - 1));
  return std::popcount(rows >= 64 ? mask : mask & ((std::uint64_t{1} << rows) - 1));
}

/// Slots per row of a term's product, and per term outside the row loop.
double row_slots(WalkKind kind) {
  switch (kind) {
    case WalkKind::Complex: return 4;  // two FMAs, two multiplications
    case WalkKind::ModPrime: return 5;  // an FMA-based modular product
    default: return 1;
  }
}
double term_slots(const WalkJob& job, int rows) {
  switch (job.kind) {
    case WalkKind::Real: return 8;  // TwoSum, |term|
    case WalkKind::Complex: return 16;
    case WalkKind::ModPrime: return 8;
    case WalkKind::ModShared: return 5.0 * group_count(job, rows) * static_cast<double>(job.primes.size());
  }
  return 8;
}

}  // namespace

int register_estimate(const WalkJob& job, int register_rows, bool shared_columns) {
  // y, and with shared-memory columns as much again: ptxas issues all of a column's loads
  // before its updates (registers per kernel from ptxas are listed in docs/benchmarks.md,
  // "GPU: register-only against hybrid NVRTC kernels"). Then per kind: product chains,
  // accumulators (the 512-bit fixed-point sums included), and about 24 for indices, pointers
  // and the Gray counters.
  const int W = width(job.kind), np = static_cast<int>(job.primes.size());
  int extra = 0;
  switch (job.kind) {
    case WalkKind::Real: extra = 2 * (2 + 4 + 8); break;
    case WalkKind::Complex: extra = 2 * (4 + 6 + 16); break;
    case WalkKind::ModPrime: extra = 2 * (2 + 1); break;
    case WalkKind::ModShared: extra = 2 * (2 * group_count(job, job.n) + 2 * np); break;
  }
  return (shared_columns ? 4 : 2) * W * register_rows + extra + 24;
}

RowSplit plan_row_split(const WalkJob& job, int rows, bool baked) {
  const int n = job.n, m = n - 1, W = width(job.kind), R = rows;
  // Gray column j flips in 2^-(j+1) of the steps; entries[j][i]: column j holds row i.
  std::vector<std::vector<bool>> entries(static_cast<std::size_t>(m), std::vector<bool>(static_cast<std::size_t>(n)));
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < W; ++w)
        if (job.a2[(static_cast<std::size_t>(j) * n + i) * W + w] != 0.0)
          entries[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = true;
  const double u = row_slots(job.kind), fixed = term_slots(job, R);
  const double update = job.kind == WalkKind::ModPrime ? 3 : 1;  // ModPrime wraps into [0, p)
  // Baked kernels unroll groups of 16 steps whose first 15 flip columns 0..3, so the compiler
  // forms the product of the rows before the first row those columns touch once per group
  // (which is why such kernels run below the n-multiplication floor, docs/benchmarks.md).
  // Rows come coldest first, so that prefix is long and the hybrid saves little more.
  int hot = n;
  for (int j = 0; j < std::min(m, 4); ++j)
    for (int i = 0; i < n; ++i)
      if (entries[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]) hot = std::min(hot, i);
  auto cost = [&](int M) {
    if (!baked)  // every step: each register row one update, each memory row read and written
      return fixed + u * (R - M) + W * update * (R - M) + M * (W * (2 * kAccess + update) + u);
    double c = fixed + u * (R - std::max(M, hot) + std::max(hot - M, 0) / 16.0);
    for (int j = 0; j < m; ++j) {
      int reg = 0, mem = 0;
      for (int i = 0; i < n; ++i)
        if (entries[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]) ++(i < M ? mem : reg);
      double col = W * update * reg;
      if (mem > 0) col += W * (2 * kAccess + update) * mem + M * (W * kAccess + u);  // and the refresh
      c += std::ldexp(col, -(j + 1));
    }
    return c;
  };
  RowSplit split;
  split.register_estimate = register_estimate(job, R, !baked);
  split.register_cost = cost(0);
  // The hybrid keeps at most kHybridTarget registers' worth of rows, and within that the
  // split the model finds cheapest.
  int fewest = 1;
  while (fewest + 1 < n && register_estimate(job, R - fewest, !baked) > kHybridTarget) ++fewest;
  split.hybrid_rows = fewest;
  split.hybrid_cost = cost(fewest);
  for (int M = fewest + 1; M < n; ++M)
    if (const double c = cost(M); c < split.hybrid_cost) split.hybrid_cost = c, split.hybrid_rows = M;
  const bool spills = split.register_estimate > kSpillAbove;
  if (spills || split.hybrid_cost <= kHybridGain * split.register_cost) split.memory_rows = split.hybrid_rows;
  return split;
}

}  // namespace matchcount::gpu
