// The exact Ryser walk in pairs of subsets: every subset T of columns 1..m-1 with T + {0}.
// The Nijenhuis-Wilf sum over S of (-1)^|S| prod_i y_i(S) pairs S = T with S = T + {0}, and
// y(T + {0}) = y(T) + a0 (column 0, doubled), so the walk runs a Gray code over columns
// 1..m-1 only (half the steps) and each of its terms is
//   prod_i y_i - prod_i (y_i + a0_i) = prod_{a0_i = 0} y_i * (prod_{a0_i != 0} y_i - prod_{a0_i != 0} (y_i + a0_i)):
// the rows column 0 does not touch are multiplied once for both subsets, and the modular
// products run once per pair. The permanent ordering (gpu_ryser.cpp) puts column 0's rows last,
// so they are rows Z..N-1. A pair walk's chunk of 2^(k-1) steps covers the same subsets as the
// plain walk's chunk of 2^k (the same high Gray bits), so every unit's residues are the same
// whichever kernel ran it. Compiled by NVRTC only (the kernel's shape and a0 are constants);
// under NVRTC this text follows the walk's (ryser_kernel.cuh).
#pragma once

#ifndef MCGPU_NVRTC
#include "engines/ryser/cuda/ryser_kernel.cuh"
#endif

namespace mcgpu {

/// Rows 0..Z-1 are those where column 0 is zero; rows N..R-1 are padding (y = 1, skipped).
/// Groups end where kFold says, at row Z-1 and at row N-1, so that no group holds rows of both
/// kinds; every group product is exact in FP64 (below 2^49: the host's fold bound covers y at
/// every subset, y + a0 included). A0::get(i) is a0_i (a constant once the row loop unrolls).
template <int R, int N, int NP, u64 kFold, int Z, class A0, bool kSkipZero = false>
struct ModPairNum {
  static_assert(Z >= 0 && Z < N && N <= R, "column 0 touches some row");
  static constexpr u64 kMask = (kFold | (Z > 0 ? 1ULL << (Z - 1) : 0ULL) | (1ULL << (N - 1))) & rows_below(N);
  static constexpr int G = bit_count(kMask), Gz = bit_count(kMask & rows_below(Z)), Go = G - Gz;
  static constexpr int W = 1;
  static constexpr int words = NP;
  static constexpr bool kPairs = true;
  struct Y { double v[R]; };
  struct Acc { double s[NP]; };
  /// p: the product since the last group end; q: the same over y + a0 (rows Z..N-1);
  /// gp: finished groups of y, gq: finished groups of y + a0 (rows Z..N-1 only).
  struct Chain { double p, q, gp[G], gq[Go]; };
  static __device__ __forceinline__ double get(const Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double& at(Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double step(double v, double dir, double a, const WalkArgs&) {
    return __fma_rn(dir, a, v);
  }
  static __device__ __forceinline__ double start_add(double v, double a, const WalkArgs&) { return v + a; }
  static __device__ __forceinline__ void set(Y& y, int i, double v) { y.v[i] = v; }
  static __device__ __forceinline__ void add_start(Y& y, int i, const double* a, const WalkArgs&) { y.v[i] += a[0]; }
  static __device__ __forceinline__ void update(Y& y, int i, double dir, double a, const WalkArgs&) {
    y.v[i] = __fma_rn(dir, a, y.v[i]);
  }
  static __device__ __forceinline__ Chain chain_start() {
    Chain c;
    c.p = c.q = 1.0;
#pragma unroll
    for (int j = 0; j < G; ++j) c.gp[j] = 1.0;
#pragma unroll
    for (int j = 0; j < Go; ++j) c.gq[j] = 1.0;
    return c;
  }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double v, double, const WalkArgs&) {
    if (i >= N) return;
    c.p *= v;
    if (i >= Z) c.q *= v + A0::get(i);
    if ((kMask >> i) & 1) {
      const int g = __popcll(kMask & rows_below(i));  // constants once the row loop is unrolled
      c.gp[g] = c.p;
      c.p = 1.0;
      if (i >= Z) {
        c.gq[g - Gz] = c.q;
        c.q = 1.0;
      }
    }
  }
  /// The product of t[from .. to-1] modulo prime k, in a tree (a lone group stays as it is).
  template <int from, int to, int L>
  static __device__ __forceinline__ double tree(const double (&g)[L], int k, const WalkArgs& A) {
    double t[to - from];
#pragma unroll
    for (int j = 0; j < to - from; ++j) t[j] = g[from + j];
#pragma unroll
    for (int w = 1; w < to - from; w *= 2)
#pragma unroll
      for (int j = 0; j + w < to - from; j += 2 * w) t[j] = modmul(t[j], t[j + w], A.prime[k], A.pinv[k]);
    return t[0];
  }
  template <int M>
  static __device__ __forceinline__ void seal(Chain&, const WalkArgs&) {}
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs& A, bool neg) {
    static_assert(M == 0, "pair walks keep every row in registers");
    if constexpr (kSkipZero) {  // both terms zero: a zero among the shared rows, or in each product
      bool shared = true, plain = true, shifted = true;
#pragma unroll
      for (int j = 0; j < Gz; ++j) shared &= c.gp[j] != 0.0;
#pragma unroll
      for (int j = Gz; j < G; ++j) plain &= c.gp[j] != 0.0;
#pragma unroll
      for (int j = 0; j < Go; ++j) shifted &= c.gq[j] != 0.0;
      if (!(shared && (plain || shifted))) return;
    }
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      // |d| < 2p (or < 2^50 for lone groups), so the product below and the sum stay exact.
      const double d = tree<Gz, G>(c.gp, k, A) - tree<0, Go>(c.gq, k, A);
      double t = d;
      if constexpr (Gz > 0) t = modmul(tree<0, Gz>(c.gp, k, A), d, A.prime[k], A.pinv[k]);
      a.s[k] = modreduce(neg ? a.s[k] - t : a.s[k] + t, A.prime[k], A.pinv[k]);
    }
  }
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<ModPairNum, R>(y, a, A, neg);
  }
  static __device__ __forceinline__ void start_chunk(Acc&) {}
  static __device__ __forceinline__ void end_chunk(Acc&, const WalkArgs&) {}
  static __device__ __forceinline__ void load(Acc& a, const WalkArgs& A, u64 t) {
    for (int k = 0; k < NP; ++k) a.s[k] = __longlong_as_double((long long)A.out[t * NP + k]);
  }
  static __device__ __forceinline__ void store(const Acc& a, const WalkArgs& A, u64 t) {
    for (int k = 0; k < NP; ++k) A.out[t * NP + k] = (u64)__double_as_longlong(a.s[k]);
  }
};

/// The pair walk of one thread: the plain walk over columns 1..m-1 (cols + one column) in
/// chunks of half the length, whose terms are pairs (above).
template <class Num, class Cols, int R>
__device__ __forceinline__ void walk_pairs(const WalkArgs& A, const double* cols) {
  static_assert(Num::kPairs, "a pair policy");
  WalkArgs P = A;
  P.m -= 1;
  P.k -= 1;  // the host pairs only walks with chunks of 2 steps or more
  walk<Num, Cols, R, 0>(P, cols + R * Num::W, cols + R * Num::W);
}

}  // namespace mcgpu
