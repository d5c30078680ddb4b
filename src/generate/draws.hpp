// The one source of randomness of the generators: raw std::mt19937_64 output (its sequence is
// fixed by the C++ standard) turned into decisions and values by our own arithmetic, so that a
// seed gives the same instance with every compiler and platform (the std distributions are
// implementation-defined). Private to src/generate.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

namespace matchcount::generate_detail {

/// Turns raw mt19937_64 output into reproducible decisions and values.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t raw() { return rng_(); }

  /// u in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(raw() >> 11) * 0x1p-53; }

  /// A position-keeping decision with probability p (one draw, always consumed).
  static std::uint64_t threshold(double p) {
    return p >= 1.0 ? (std::uint64_t(1) << 53) : static_cast<std::uint64_t>(p * 0x1p53);
  }
  bool keep(std::uint64_t threshold53) { return (raw() >> 11) < threshold53; }

  /// Uniform in [lo, hi] (lo <= hi) by rejection.
  long integer(long lo, long hi) {
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (range == 0) return static_cast<long>(raw());  // the whole 64-bit range
    const std::uint64_t reject_below = (0 - range) % range;  // 2^64 mod range
    std::uint64_t x = raw();
    while (x < reject_below) x = raw();
    return static_cast<long>(static_cast<std::uint64_t>(lo) + x % range);
  }
  /// A value uniform among the nonzero integers of [lo, hi] (draws again on 0; the range must
  /// hold a nonzero value).
  long nonzero_integer(long lo, long hi) {
    long v = 0;
    while (v == 0) v = integer(lo, hi);
    return v;
  }

  /// Uniform index in [0, n), n >= 1 (by rejection, like integer()).
  std::size_t index(std::size_t n) { return static_cast<std::size_t>(integer(0, static_cast<long>(n) - 1)); }

  /// lo + (hi - lo) * u, one rounding.
  double real(double lo, double hi) { return std::fma(hi - lo, unit(), lo); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace matchcount::generate_detail
