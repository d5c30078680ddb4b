// The random bits of the lattice samplers (private to src/engines/lattice): xoshiro256** seeded
// by splitmix64, and uniform integers below d by rejection on the fewest bits that hold d - 1.
// Written out here rather than taken from <random> because std::uniform_int_distribution differs
// between standard libraries, and a seed must give the same tiling on every machine.
#pragma once

#include <bit>
#include <cstdint>

namespace matchcount::engines::lattice {

class Random {
 public:
  explicit Random(std::uint64_t seed) {
    // splitmix64 spreads any seed (0 included) over the four words, which then are not all zero.
    for (auto& word : s_) {
      seed += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      word = z ^ (z >> 31);
    }
  }

  /// The next 64 bits of xoshiro256** (Blackman and Vigna).
  std::uint64_t next() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  /// `count` (1..32) fresh bits from a buffer of 64, so that a small draw costs a shift, not a call.
  std::uint32_t bits(int count) {
    if (left_ < count) {
      buffer_ = next();
      left_ = 64;
    }
    const auto out = static_cast<std::uint32_t>(buffer_ & ((std::uint64_t(1) << count) - 1));
    buffer_ >>= count;
    left_ -= count;
    return out;
  }

  /// Uniform on 0 .. d-1 (1 <= d <= 2^32): draws of bit_width(d - 1) bits until one is below d,
  /// exactly uniform, and at most two draws expected.
  std::uint32_t below(std::uint32_t d) {
    if (d <= 1) return 0;
    const int width = std::bit_width(d - 1);
    for (;;) {
      const std::uint32_t x = bits(width);
      if (x < d) return x;
    }
  }

 private:
  std::uint64_t s_[4];
  std::uint64_t buffer_ = 0;
  int left_ = 0;
};

}  // namespace matchcount::engines::lattice
