// Colex ranks of the p-subsets of w bit positions (the combinatorial number system), shared by
// the GPU frontier kernel, its host side and the tests. In colex order the p-subsets are
// sorted as integers, so the dense state table of a frontier row is the sorted list of all
// keys of its popcount: rank(s) = sum_i C(pos_i, i + 1) over the set bits pos_0 < pos_1 < ...,
// and the next key is Gosper's next integer of the same popcount.
#pragma once

#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define MC_RANK_FN __host__ __device__ __forceinline__
#else
#define MC_RANK_FN inline
#endif

namespace matchcount::subset_rank {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// Index of the rank-table entry for nibble k (bits 4k..4k+3) holding value v with c set bits
/// below it, in a table for keys of up to wmax bits.
MC_RANK_FN int slot(int k, int c, int v, int wmax) { return (k * (wmax + 1) + c) * 16 + v; }

/// Popcount of a nibble without intrinsics (host and device alike).
MC_RANK_FN int nibble_bits(int v) { return int((0x4332322132212110ull >> (4 * v)) & 15); }

/// Colex rank of s from the nibble table: one lookup per nibble instead of one binomial per
/// set bit. Sums wrap modulo 2^32, so the rank is exact whenever C(w, p) <= 2^32.
MC_RANK_FN u32 rank(u64 s, const u32* table, int nibbles, int wmax) {
  u32 r = 0;
  int c = 0;
  for (int k = 0; k < nibbles; ++k) {
    const int v = int(s >> (4 * k)) & 15;
    r += table[slot(k, c, v, wmax)];
    c += nibble_bits(v);
  }
  return r;
}

/// Binomials C(x, i) for 0 <= x, i <= 64 at binom[x * 65 + i] (C(64, 32) < 2^64).
inline std::vector<u64> binomials() {
  std::vector<u64> b(65 * 65, 0);
  for (int x = 0; x <= 64; ++x) {
    b[std::size_t(x) * 65] = 1;
    for (int i = 1; i <= x; ++i) b[std::size_t(x) * 65 + std::size_t(i)] = b[std::size_t(x - 1) * 65 + std::size_t(i - 1)] + (i < x ? b[std::size_t(x - 1) * 65 + std::size_t(i)] : 0);
  }
  return b;
}

/// The nibble table for keys of up to wmax <= 64 bits: entry (k, c, v) is the sum, over the
/// set bits l of v (the j-th of them from 0), of C(4k + l, c + j + 1), modulo 2^32.
inline std::vector<u32> rank_table(int wmax) {
  const auto b = binomials();
  const int nibbles = (wmax + 3) / 4;
  std::vector<u32> t(std::size_t(nibbles) * std::size_t(wmax + 1) * 16, 0);
  for (int k = 0; k < nibbles; ++k)
    for (int c = 0; c <= wmax; ++c)
      for (int v = 0; v < 16; ++v) {
        u64 sum = 0;
        for (int l = 0, j = 0; l < 4; ++l) {
          if (!(v >> l & 1)) continue;
          const int x = 4 * k + l, i = c + j + 1;
          if (x <= 64 && i <= 64) sum += b[std::size_t(x) * 65 + std::size_t(i)];
          ++j;
        }
        t[std::size_t(slot(k, c, v, wmax))] = u32(sum);
      }
  return t;
}

/// The p-subset of colex rank r (r < C(w, p)), with binom as from binomials().
MC_RANK_FN u64 unrank(u64 r, int p, int w, const u64* binom) {
  u64 s = 0;
  int c = w;
  for (int i = p; i >= 1; --i) {  // the largest c with C(c, i) <= r is the i-th bit from the top
    do --c;
    while (binom[c * 65 + i] > r);
    s |= u64{1} << c;
    r -= binom[c * 65 + i];
  }
  return s;
}

/// The next integer with the same popcount (Gosper), i.e. the next subset in colex order.
MC_RANK_FN u64 next_subset(u64 t) {
#if defined(__CUDA_ARCH__)
  const int low = __ffsll((long long)t) - 1;
#else
  const int low = __builtin_ctzll(t);
#endif
  const u64 v = t + (u64{1} << low);
  return v | (((v ^ t) >> 2) >> low);
}

}  // namespace matchcount::subset_rank
