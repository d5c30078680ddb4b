// The parts of the GPU hafnian walk's plan that do not need CUDA (built with or without it).
#include <algorithm>

#include "engines/hafnian/cuda/haf_gpu_job.hpp"

namespace matchcount::gpu {

namespace {

constexpr std::size_t kLimbs = 8;  // as mcgpu::kLimbs (src/cuda/device_arith.cuh)

/// total += x modulo 2^(64 * count), limbs least significant first.
void add_limbs(std::uint64_t* total, const std::uint64_t* x, std::size_t count) {
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t s = total[i] + x[i];
    const std::uint64_t c1 = s < total[i];
    total[i] = s + carry;
    carry = c1 | (total[i] < s);
  }
}

}  // namespace

std::size_t haf_channel_words(HafArith arith) {
  if (arith == HafArith::Mod || arith == HafArith::Z64 || arith == HafArith::Z64Mod || arith == HafArith::Z64Big) return 1;
  return arith == HafArith::Real ? kLimbs : 2 * kLimbs;
}

void add_channel(HafArith arith, double p, std::uint64_t* total, const std::uint64_t* x) {
  if (arith == HafArith::Z64) {
    total[0] += x[0];
  } else if (arith == HafArith::Mod) {
    total[0] = (total[0] + x[0]) % static_cast<std::uint64_t>(p);
  } else {
    // Floats: a number of kLimbs limbs each (a complex sum's real part, then its imaginary
    // part), so that no carry passes from one to the other.
    for (std::size_t at = 0; at < haf_channel_words(arith); at += kLimbs) add_limbs(total + at, x + at, kLimbs);
  }
}

void append_haf_root(std::vector<double>& out, int n0, bool loops, int W,
                     const std::function<double(int, int, int)>& value, double one) {
  const int n = n0 + n0 % 2, S = haf_stride(n / 2);
  auto tri = [](int s) { return static_cast<std::size_t>(s) * static_cast<std::size_t>(s - 1) / 2; };
  const std::size_t E = tri(n), L = loops ? static_cast<std::size_t>(n) : 0, R = static_cast<std::size_t>(S);
  const std::size_t base = out.size();
  out.resize(base + (E + L + 1) * R * static_cast<std::size_t>(W), 0.0);
  // Rows of coefficients: b's (E entries each), the loops' (L each), then the polynomial 1.
  auto at = [&](std::size_t row0, std::size_t entries, std::size_t e, int k, int w) -> double& {
    return out[base + (row0 + (kHafPad + static_cast<std::size_t>(k)) * entries + e) * W + static_cast<std::size_t>(w)];
  };
  for (int i = 1; i < n0; ++i)
    for (int j = 0; j < i; ++j)
      for (int w = 0; w < W; ++w) at(0, E, tri(i) + static_cast<std::size_t>(j), 1, w) = value(i, j, w);
  if (loops)
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < W; ++w)
        at(R * E, L, static_cast<std::size_t>(i), 0, w) = i < n0 ? value(i, i, w) : (w == 0 ? one : 0.0);
  at(R * (E + L), 1, 0, 0, 0) = one;
}

// Units of at least 2^9 leaf pairs, so that a unit repays its path from the root; at most 2^14
// units, which the ledger and the MPI ranks hand out cheaply.
int haf_unit_depth(int m) { return std::clamp(m - 10, 0, 14); }

// The same bounds for a repeated walk: the first types' choices, while a unit keeps at least
// 2^10 leaves and there are at most 2^14 units.
std::uint64_t haf_rpt_units(const std::vector<int>& mult) {
  double leaves = 1;
  for (int r : mult) leaves *= r + 1.0;
  std::uint64_t units = 1;
  for (int r : mult) {
    const double next = double(units) * (r + 1.0);
    if (next > 0x1p14 || leaves / next < 0x1p10) break;
    units *= static_cast<std::uint64_t>(r) + 1;
  }
  return units;
}

}  // namespace matchcount::gpu
