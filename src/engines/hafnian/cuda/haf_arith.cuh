// The number systems of the GPU hafnian walk (haf_kernel.cuh): what a frame value is and how
// the walk multiplies, adds, reduces and sums it. Residues modulo a prime (ModAr, BigModAr), the
// integers modulo 2^64 (Z64Ar), doubles (RealAr), complex doubles (ComplexAr), two channels of
// one kind in one walk (Mod2Ar, Real2Ar) and 2^64 beside a prime (Z64ModAr, Z64BigAr); each
// gives V (a frame value), W (a repeated walk's weight) and Acc (a warp's sum) with the
// operations the walk calls.
#pragma once

#include "cuda/device_arith.cuh"

namespace mcgpu {
namespace haf {

/// x summed over the warp's lanes, every lane getting the sum.
template <class T>
__device__ __forceinline__ T warp_sum(T x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

struct ModAr {
  typedef double V;
  typedef double W;  // a repeated walk's weight
  double p, pinv;
  __device__ __forceinline__ static V zero() { return 0.0; }
  __device__ __forceinline__ static W one() { return 1.0; }
  __device__ __forceinline__ static V add(V x, V y) { return x + y; }
  __device__ __forceinline__ static V madd(V acc, V x, V y) { return __fma_rn(x, y, acc); }
  __device__ __forceinline__ V reduce(V x) const { return modreduce(x, p, pinv); }
  __device__ __forceinline__ static V scale(V x, double w) { return x * w; }
  __device__ double wmul(double x, double y) const { return modreduce(x * y, p, pinv); }
  __device__ __forceinline__ static V shfl_sum(V x) { return warp_sum(x); }
  struct Acc {
    double s = 0;
  };
  __device__ __forceinline__ void leaf(Acc& a, V v, int) const { a.s = reduce(a.s + v); }
  __device__ __forceinline__ static void store(const Acc& a, u64* out) { out[0] = (u64)__double_as_longlong(a.s); }
};

/// Two primes in one walk: a value holds one coefficient's residues modulo both (x: lo's
/// prime, y: hi's), so the two share the walk's path, tasks and addresses, and each load brings
/// two operands. Each half is ModAr's arithmetic.
struct Mod2Ar {
  typedef double2 V;
  typedef double2 W;
  ModAr lo, hi;
  __device__ static V zero() { return make_double2(0.0, 0.0); }
  __device__ static W one() { return make_double2(1.0, 1.0); }
  __device__ static V add(V x, V y) { return make_double2(x.x + y.x, x.y + y.y); }
  __device__ static V madd(V acc, V x, V y) { return make_double2(ModAr::madd(acc.x, x.x, y.x), ModAr::madd(acc.y, x.y, y.y)); }
  __device__ V reduce(V x) const { return make_double2(lo.reduce(x.x), hi.reduce(x.y)); }
  __device__ static V scale(V x, double w) { return make_double2(ModAr::scale(x.x, w), ModAr::scale(x.y, w)); }
  __device__ static V scale(V x, W w) { return make_double2(ModAr::scale(x.x, w.x), ModAr::scale(x.y, w.y)); }
  __device__ W wmul(W x, W y) const { return make_double2(lo.wmul(x.x, y.x), hi.wmul(x.y, y.y)); }
  __device__ static V shfl_sum(V x) { return make_double2(warp_sum(x.x), warp_sum(x.y)); }
  struct Acc {
    ModAr::Acc lo, hi;
  };
  __device__ void leaf(Acc& s, V v, int q) const { lo.leaf(s.lo, v.x, q), hi.leaf(s.hi, v.y, q); }
  __device__ static void store(const Acc& s, u64* out) { ModAr::store(s.lo, out), ModAr::store(s.hi, out + 1); }
};

/// Residues modulo a prime below 2^53 / (1.75 m + 2.75) (2^47.2 at m = 30; HafArith::Z64Big's
/// second channel): every product is reduced (modmul, within 7p/8), so that a coefficient's
/// 2m + 2 products and its base stay below 2^53 and one modreduce serves the sum. Seven FP64
/// operations a multiply-add where ModAr takes one, for twice ModAr's bits: the walk, bound by
/// its loads' latency, has the issue slots (docs/benchmarks.md, "A prime of 47 bits beside the
/// channel modulo 2^64").
struct BigModAr {
  typedef double V;
  typedef double W;
  double p, pinv;
  __device__ __forceinline__ static V zero() { return 0.0; }
  __device__ __forceinline__ static W one() { return 1.0; }
  __device__ __forceinline__ static V add(V x, V y) { return x + y; }
  __device__ __forceinline__ V madd(V acc, V x, V y) const { return acc + modmul(x, y, p, pinv); }
  __device__ __forceinline__ V reduce(V x) const { return modreduce(x, p, pinv); }
  __device__ __forceinline__ static V scale(V x, double w) { return x * w; }
  __device__ double wmul(double x, double y) const { return modmul(x, y, p, pinv); }
  __device__ __forceinline__ static V shfl_sum(V x) { return warp_sum(x); }
  typedef ModAr::Acc Acc;
  __device__ __forceinline__ void leaf(Acc& a, V v, int) const { a.s = reduce(a.s + v); }
  __device__ __forceinline__ static void store(const Acc& a, u64* out) { ModAr::store(a, out); }
};

/// The integers modulo 2^64: wrapping 64-bit products and sums. The recursion never divides,
/// so it runs in this ring as in any other, and one walk gives 64 bits of an exact count where
/// a prime gives 24; there is nothing to reduce.
struct Z64Ar {
  typedef u64 V;
  typedef u64 W;  // a repeated walk's weight, modulo 2^64 too
  __device__ __forceinline__ static V zero() { return 0; }
  __device__ __forceinline__ static W one() { return 1; }
  __device__ __forceinline__ static V add(V x, V y) { return x + y; }
  __device__ __forceinline__ static V madd(V acc, V x, V y) { return acc + x * y; }
  __device__ __forceinline__ static V reduce(V x) { return x; }
  __device__ __forceinline__ static V scale(V x, double w) { return w < 0 ? 0 - x : x; }  // the binary walk's sign
  __device__ __forceinline__ static V scale(V x, W w) { return x * w; }
  __device__ __forceinline__ static W wmul(W x, W y) { return x * y; }
  __device__ __forceinline__ static V shfl_sum(V x) { return warp_sum(x); }
  struct Acc {
    u64 s = 0;
  };
  __device__ static void leaf(Acc& a, V v, int) { a.s += v; }
  __device__ __forceinline__ static void store(const Acc& a, u64* out) { out[0] = a.s; }
};

/// The integers modulo 2^64 and a prime in one walk, as Mod2Ar walks two primes: x holds the
/// value's 64 bits modulo 2^64 in a double's place (Z64Ar's arithmetic on the integer units),
/// y its residue modulo the prime (Prime's arithmetic, ModAr or BigModAr, on the FP64 units),
/// so that the two share the path, the tasks, the addresses and each 16-byte load.
template <class Prime>
struct Z64PrimeAr {
  typedef double2 V;
  typedef double2 W;
  Prime hi;
  __device__ __forceinline__ static u64 bits(double x) { return (u64)__double_as_longlong(x); }
  __device__ __forceinline__ static double held(u64 x) { return __longlong_as_double((long long)x); }
  __device__ static V zero() { return make_double2(0.0, 0.0); }  // 0.0: the 64 bits of 0
  __device__ static W one() { return make_double2(held(1), 1.0); }
  __device__ static V add(V x, V y) { return make_double2(held(bits(x.x) + bits(y.x)), x.y + y.y); }
  __device__ V madd(V acc, V x, V y) const {
    return make_double2(held(Z64Ar::madd(bits(acc.x), bits(x.x), bits(y.x))), hi.madd(acc.y, x.y, y.y));
  }
  __device__ V reduce(V x) const { return make_double2(x.x, hi.reduce(x.y)); }
  __device__ static V scale(V x, double w) { return make_double2(held(Z64Ar::scale(bits(x.x), w)), Prime::scale(x.y, w)); }
  __device__ static V scale(V x, W w) { return make_double2(held(bits(x.x) * bits(w.x)), Prime::scale(x.y, w.y)); }
  __device__ W wmul(W x, W y) const { return make_double2(held(bits(x.x) * bits(y.x)), hi.wmul(x.y, y.y)); }
  __device__ static V shfl_sum(V x) { return make_double2(held(Z64Ar::shfl_sum(bits(x.x))), Prime::shfl_sum(x.y)); }
  struct Acc {
    Z64Ar::Acc lo;
    typename Prime::Acc hi;
  };
  __device__ void leaf(Acc& s, V v, int q) const { Z64Ar::leaf(s.lo, bits(v.x), q), hi.leaf(s.hi, v.y, q); }
  __device__ static void store(const Acc& s, u64* out) { Z64Ar::store(s.lo, out), Prime::store(s.hi, out + 1); }
};
typedef Z64PrimeAr<ModAr> Z64ModAr;
typedef Z64PrimeAr<BigModAr> Z64BigAr;

struct RealAr {
  typedef double V;
  typedef double W;
  __device__ __forceinline__ static V zero() { return 0.0; }
  __device__ __forceinline__ static W one() { return 1.0; }
  __device__ __forceinline__ static V add(V x, V y) { return x + y; }
  __device__ __forceinline__ static V madd(V acc, V x, V y) { return __fma_rn(x, y, acc); }
  __device__ __forceinline__ static V reduce(V x) { return x; }
  __device__ __forceinline__ static V scale(V x, double w) { return x * w; }
  __device__ static double wmul(double x, double y) { return x * y; }
  __device__ __forceinline__ static V shfl_sum(V x) { return warp_sum(x); }
  struct Acc {
    u64 fx[kLimbs] = {};
  };
  __device__ static void leaf(Acc& a, V v, int q) { fixed_add(a.fx, v, q); }
  __device__ __forceinline__ static void store(const Acc& a, u64* out) {
    for (int i = 0; i < kLimbs; ++i) out[i] = a.fx[i];
  }
};

/// Two float channels in one walk (two of the float walks' vertex orders), as Mod2Ar walks two
/// primes: each half is RealAr's arithmetic in RealAr's order, so each channel's sum has the
/// bits of its own walk.
struct Real2Ar {
  typedef double2 V;
  typedef double2 W;
  __device__ static V zero() { return make_double2(0.0, 0.0); }
  __device__ static W one() { return make_double2(1.0, 1.0); }
  __device__ static V add(V x, V y) { return make_double2(x.x + y.x, x.y + y.y); }
  __device__ static V madd(V acc, V x, V y) { return make_double2(RealAr::madd(acc.x, x.x, y.x), RealAr::madd(acc.y, x.y, y.y)); }
  __device__ static V reduce(V x) { return x; }
  __device__ static V scale(V x, double w) { return make_double2(RealAr::scale(x.x, w), RealAr::scale(x.y, w)); }
  __device__ static V scale(V x, W w) { return make_double2(RealAr::scale(x.x, w.x), RealAr::scale(x.y, w.y)); }
  __device__ static W wmul(W x, W y) { return make_double2(RealAr::wmul(x.x, y.x), RealAr::wmul(x.y, y.y)); }
  __device__ static V shfl_sum(V x) { return make_double2(warp_sum(x.x), warp_sum(x.y)); }
  struct Acc {
    RealAr::Acc lo, hi;
  };
  __device__ static void leaf(Acc& a, V v, int q) { RealAr::leaf(a.lo, v.x, q), RealAr::leaf(a.hi, v.y, q); }
  __device__ static void store(const Acc& a, u64* out) { RealAr::store(a.lo, out), RealAr::store(a.hi, out + kLimbs); }
};

struct ComplexAr {
  typedef double2 V;
  typedef double W;
  __device__ __forceinline__ static V zero() { return make_double2(0.0, 0.0); }
  __device__ __forceinline__ static W one() { return 1.0; }
  __device__ __forceinline__ static V add(V x, V y) { return make_double2(x.x + y.x, x.y + y.y); }
  __device__ __forceinline__ static V madd(V acc, V x, V y) {
    return make_double2(__fma_rn(x.x, y.x, __fma_rn(-x.y, y.y, acc.x)), __fma_rn(x.x, y.y, __fma_rn(x.y, y.x, acc.y)));
  }
  __device__ __forceinline__ static V reduce(V x) { return x; }
  __device__ __forceinline__ static V scale(V x, double w) { return make_double2(x.x * w, x.y * w); }
  __device__ static double wmul(double x, double y) { return x * y; }
  __device__ __forceinline__ static V shfl_sum(V x) { return make_double2(warp_sum(x.x), warp_sum(x.y)); }
  struct Acc {
    u64 re[kLimbs] = {}, im[kLimbs] = {};
  };
  __device__ static void leaf(Acc& a, V v, int q) { fixed_add(a.re, v.x, q), fixed_add(a.im, v.y, q); }
  __device__ __forceinline__ static void store(const Acc& a, u64* out) {
    for (int i = 0; i < kLimbs; ++i) out[i] = a.re[i], out[kLimbs + i] = a.im[i];
  }
};

/// A repeated walk's weight i of channel c (one channel a walk), or of channels 2c and 2c + 1
/// (two a walk); the weights of a channel are `stride` apart.
__device__ __forceinline__ void rpt_weight(double& out, const double* w, long long stride, int c, int i) {
  out = w[c * stride + i];
}
__device__ __forceinline__ void rpt_weight(double2& out, const double* w, long long stride, int c, int i) {
  out = make_double2(w[2 * c * stride + i], w[(2 * c + 1) * stride + i]);
}
__device__ __forceinline__ void rpt_weight(u64& out, const double* w, long long stride, int c, int i) {
  out = (u64)__double_as_longlong(w[c * stride + i]);  // a Z64 channel's 64 bits
}
}  // namespace haf
}  // namespace mcgpu
