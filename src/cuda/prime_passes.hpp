// How the exact DPs on the device (gpu-frontier, gpu-graph-frontier) spread their CRT primes:
// values are stored state-major, table[state * stride + prime], and each state is computed by a
// group of lanes, lane x taking primes x, x + lanes, ... (J of them). Host code only, built with
// or without CUDA (the planners and the tests use it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace matchcount::gpu {

/// Doubles a state holds for g primes: whole 32-byte sectors (g <= 4: a power of two, so that a
/// state's values never straddle a sector).
inline std::size_t prime_stride(std::size_t g) { return g <= 2 ? g : g <= 4 ? std::size_t{4} : (g + 3) / 4 * 4; }

/// Most primes a pass: 32 lanes of at most 4 primes (the kernels' J).
constexpr std::size_t kMaxPrimesPerPass = 128;

struct PrimePasses {
  std::size_t passes = 0;  // 0: not even one prime's tables fit
  std::size_t G = 0;       // primes of a pass (the last may hold fewer)
  std::size_t stride = 0;  // prime_stride(G)
  int lanes = 1, J = 1;    // lanes a state, primes a lane
};

/// K primes over passes of as many primes as `usable` bytes hold at `per_prime` bytes of tables
/// a prime (stride-padded), at most max_per_pass (0: no limit) and kMaxPrimesPerPass; the
/// passes then share the primes evenly.
inline PrimePasses plan_prime_passes(std::size_t K, double per_prime, double usable, std::size_t max_per_pass) {
  PrimePasses r;
  std::size_t fit = K;
  while (fit > 0 && per_prime * double(prime_stride(fit)) > usable) --fit;
  if (max_per_pass > 0) fit = std::min(fit, max_per_pass);
  fit = std::min(fit, kMaxPrimesPerPass);
  if (fit == 0 || K == 0) return r;
  r.passes = (K + fit - 1) / fit, r.G = (K + r.passes - 1) / r.passes, r.stride = prime_stride(r.G);
  while (r.lanes < int(r.G) && r.lanes < 32) r.lanes *= 2;
  r.J = int((r.G + std::size_t(r.lanes) - 1) / std::size_t(r.lanes));
  return r;
}

/// What one pass uploads for primes k0 .. k0 + g - 1 of `primes`: the primes, their inverses
/// and the entries' residues res[entry * stride + j] (from residues[entry * K + k]); unused
/// slots hold the prime 3, so that idle lanes stay finite.
struct PassInputs {
  std::vector<double> res, prime, pinv;
};
inline PassInputs pass_inputs(const std::vector<double>& primes, const std::vector<double>& residues, std::size_t k0,
                              std::size_t g, std::size_t stride) {
  const std::size_t K = primes.size(), E = K ? residues.size() / K : 0;
  PassInputs in{std::vector<double>(E * stride, 0.0), std::vector<double>(stride, 3.0), std::vector<double>(stride, 1.0 / 3.0)};
  for (std::size_t j = 0; j < g; ++j) {
    in.prime[j] = primes[k0 + j], in.pinv[j] = 1.0 / primes[k0 + j];
    for (std::size_t e = 0; e < E; ++e) in.res[e * stride + j] = residues[e * K + k0 + j];
  }
  return in;
}

}  // namespace matchcount::gpu
