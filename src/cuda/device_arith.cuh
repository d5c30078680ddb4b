// Device arithmetic shared by the GPU methods (nvcc kernels and NVRTC sources): the integer
// type of the mcgpu namespace, a*b mod p and reduction mod p on integers held exactly in FP64
// (primes below 2^50), and the exact accumulation of doubles (fixed-point limbs, TwoSum).
// Nothing here knows a walk or a matrix, so any method's kernels may use it (the Ryser and
// SkipPer walks through their number policies, the frontier DP for its modular sums); it lives
// in the CUDA layer so that methods need not include each other's folders. It includes
// nothing: NVRTC gets its text first, before the method headers' (src/CMakeLists.txt).
#pragma once

namespace mcgpu {

typedef unsigned long long u64;

// ---------------- exact arithmetic helpers ----------------

/// a*b mod p for integers |a|, |b| < p < 2^50 held exactly in doubles; result in (-p, p).
__device__ __forceinline__ double modmul(double a, double b, double p, double pinv) {
  double h = a * b;
  double l = __fma_rn(a, b, -h);
  double q = rint(h * pinv);
  return __fma_rn(-q, p, h) + l;
}
/// x mod p into about [-p/2, p/2] for an integer |x| < 2^52.
__device__ __forceinline__ double modreduce(double x, double p, double pinv) {
  return __fma_rn(-rint(x * pinv), p, x);
}

/// Limbs of the fixed-point accumulators: 512-bit two's-complement integers in units of 2^q.
/// The host puts the largest possible partial sum at 2^(q+510); 512 bits leave room for
/// terms hundreds of bits below that bound (typical Ryser terms are far below it).
constexpr int kLimbs = 8;

/// Adds v, truncated to a multiple of 2^q, to acc: exact and order-independent, so the total
/// over all chunks has the same bits whatever the launch shape.
__device__ __forceinline__ void fixed_add(u64* acc, double v, int q) {
  if (v == 0.0) return;
  long long bits = __double_as_longlong(v);
  int ex = (int)((bits >> 52) & 0x7ff);
  u64 mant = (u64)(bits & 0xfffffffffffffULL);
  if (ex == 0) ex = 1; else mant |= 1ULL << 52;  // subnormals
  int shift = ex - 1075 - q;                        // |v| = mant * 2^(shift + q)
  u64 lo = 0, hi = 0;
  int limb = 0;
  if (shift < 0) {
    if (shift > -64) lo = mant >> (-shift);
  } else {
    limb = shift >> 6;
    int off = shift & 63;
    lo = mant << off;
    hi = off ? mant >> (64 - off) : 0;
  }
  const bool neg = v < 0;
  u64 carry = 0;
#pragma unroll
  for (int i = 0; i < kLimbs; ++i) {
    u64 w = i == limb ? lo : (i == limb + 1 ? hi : 0);
    u64 a = acc[i];
    if (!neg) {
      u64 s = a + w;
      u64 c = s < a;
      s += carry;
      c |= s < carry;
      acc[i] = s;
      carry = c;
    } else {
      u64 d = a - w;
      u64 b = a < w;
      b |= d < carry;
      acc[i] = d - carry;
      carry = b;
    }
  }
}

/// TwoSum: s + e == a + b exactly.
__device__ __forceinline__ void two_sum(double& s, double& e, double b) {
  double a = s, t = a + b, bp = t - a;
  e += (a - (t - bp)) + (b - bp);
  s = t;
}
}  // namespace mcgpu
