// The exact Ryser walk over groups of subsets: each subset T of columns K..m-1 together with
// T + U for every U of the low columns 0..K-1 (K = 1: pairs, K = 2: fours). The
// Nijenhuis-Wilf sum over S of (-1)^|S| prod_i y_i(S) takes S = T + U, and
// y(T + U) = y(T) + sum_{j in U} a_j (columns doubled), so the walk runs a Gray code over
// columns K..m-1 only and each of its steps adds
//   f(T) = sum_U (-1)^|U| prod_i (y_i(T) + sum_{j in U} a_ji).
// Rows fall into classes by which low columns touch them; a class's product depends only on the
// part of U that touches it, so the rows no low column touches are multiplied once for all 2^K
// subsets, those of one column twice, and the modular products run once a step (factored,
// below). The permanent ordering (gpu_ryser.cpp) sorts the rows by class: untouched first, then
// column 1's only, column 0's only, both. A walk's chunk of 2^(k-K) steps covers the same
// subsets as the single walk's chunk of 2^k (the same high Gray bits), so every unit's residues
// are the same whichever kernel ran it. Compiled by NVRTC only (the classes and the low columns
// are constants); under NVRTC this text follows the walk's (ryser_kernel.cuh).
#pragma once

#ifndef MCGPU_NVRTC
#include "engines/ryser/cuda/ryser_kernel.cuh"
#endif

namespace mcgpu {

/// Rows [bound(c), bound(c + 1)) form class c: bit K-1-j of c says column j touches them
/// (K = 1: B1 is the first row column 0 touches; K = 2: B1, B2, B3 start the classes of column 1
/// only, column 0 only and both). Rows N..R-1 are padding (y = 1, skipped). Groups end where
/// kFold says and at the end of every class, so every group lies in one class and its
/// products are exact in FP64 (below 2^49: the host's fold bound covers y at every subset).
/// Low::get(j, i) is a_ji for j < K (a constant once the row loop unrolls).
template <int R, int N, int NP, u64 kFold, int K, int B1, int B2, int B3, class Low, bool kSkipZero = false>
struct ModLowNum : SharedExactRows<ModLowNum<R, N, NP, kFold, K, B1, B2, B3, Low, kSkipZero>, R, NP> {
  typedef SharedExactRows<ModLowNum, R, NP> Rows;
  typedef typename Rows::Acc Acc;
  static_assert(K == 1 || K == 2, "one or two low columns");
  static constexpr int C = 1 << K, V = 1 << K;  // classes; subsets U of the low columns (bit j: column j)
  __host__ __device__ static constexpr int bound(int c) { return c <= 0 ? 0 : c >= C ? N : c == 1 ? B1 : c == 2 ? B2 : B3; }
  __host__ __device__ static constexpr int class_of(int i) { return (i >= bound(1)) + (C > 2 && i >= bound(2)) + (C > 2 && i >= bound(3)); }
  /// The low columns touching class c, as a subset mask (column 0 is c's highest bit).
  __host__ __device__ static constexpr int touch(int c) { return K == 1 ? c : ((c >> 1) & 1) | ((c & 1) << 1); }
  __host__ __device__ static constexpr u64 class_ends() {
    u64 e = 0;
    for (int c = 1; c <= C; ++c)
      if (bound(c) > bound(c - 1)) e |= 1ULL << (bound(c) - 1);
    return e;
  }
  static constexpr u64 kEnds = (kFold | class_ends()) & rows_below(N);
  static constexpr int G = bit_count(kEnds);
  __host__ __device__ static constexpr int first_group(int c) { return bit_count(kEnds & rows_below(bound(c))); }
  static constexpr int kLow = K;
  /// p[U]: the product since the last group end of y + (U's columns); gp[g][U]: finished
  /// groups (entries with U outside the group's class's columns are never used).
  struct Chain { double p[V], gp[G][V]; };
  static __device__ __forceinline__ Chain chain_start() {
    Chain c;
#pragma unroll
    for (int u = 0; u < V; ++u) c.p[u] = 1.0;
    return c;
  }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double v, double, const WalkArgs&) {
    if (i >= N) return;
    const int t = touch(class_of(i));  // constants once the row loop is unrolled
    double s[V];
    s[0] = v;
#pragma unroll
    for (int u = 1; u < V; ++u) {  // y + a_0, y + a_1, (y + a_0) + a_1
      const int j = 31 - __clz(u), rest = u & ~(1 << j);
      if ((u & ~t) == 0) s[u] = s[rest] + Low::get(j, i);
    }
#pragma unroll
    for (int u = 0; u < V; ++u)
      if ((u & ~t) == 0) c.p[u] *= s[u];
    if ((kEnds >> i) & 1) {
      const int g = __popcll(kEnds & rows_below(i));
#pragma unroll
      for (int u = 0; u < V; ++u)
        if ((u & ~t) == 0) c.gp[g][u] = c.p[u], c.p[u] = 1.0;
    }
  }
  /// Class c's product for subset U modulo prime k: its groups in a tree (a lone group stays
  /// as it is, below 2^49; no group: 1, which mul leaves out).
  template <int c, int U>
  static __device__ __forceinline__ double res(const Chain& ch, int k, const WalkArgs& A) {
    constexpr int from = first_group(c), to = first_group(c + 1);
    if constexpr (to == from) {
      return 1.0;
    } else {
      double t[to - from];
#pragma unroll
      for (int j = 0; j < to - from; ++j) t[j] = ch.gp[from + j][U];
      return tree_modprod(t, k, A);
    }
  }
  template <int c>
  static constexpr bool present = first_group(c + 1) > first_group(c);
  /// a * b modulo prime k, a factor of an empty class (1) left out.
  template <bool HasA, bool HasB>
  static __device__ __forceinline__ double mul(double a, double b, int k, const WalkArgs& A) {
    if constexpr (HasA && HasB) return modmul(a, b, A.prime[k], A.pinv[k]);
    else if constexpr (HasA) return a;
    else return b;
  }
  /// f(T) modulo prime k, factored. K = 1: R0 (R1[0] - R1[1]). K = 2 (classes 0: none,
  /// 1: column 1, 2: column 0, 3: both):
  ///   R0 (R1[0] (R2[0] R3[0] - R2[1] R3[1]) - R1[2] (R2[0] R3[2] - R2[1] R3[3])).
  /// Modular products take factors below 2^51 (outputs of modmul are below 1.5p + 2^48, p <
  /// 2^50; sums of two below 2^51; sums of four are reduced first), so all stay exact.
  static __device__ __forceinline__ double pair_value(const Chain& ch, int k, const WalkArgs& A) {
    if constexpr (K == 1) {
      static_assert(present<1>, "column 0 touches some row");
      return mul<present<0>, true>(res<0, 0>(ch, k, A), res<1, 0>(ch, k, A) - res<1, 1>(ch, k, A), k, A);
    } else {
      constexpr bool h1 = present<1>, h2 = present<2>, h3 = present<3>;
      static_assert(h2 || h3, "column 0 touches some row");
      static_assert(h1 || h3, "column 1 touches some row");
      const double r20 = res<2, 0>(ch, k, A), r21 = res<2, 1>(ch, k, A);
      const double x = mul<h2, h3>(r20, res<3, 0>(ch, k, A), k, A) - mul<h2, h3>(r21, res<3, 1>(ch, k, A), k, A);
      const double y = mul<h2, h3>(r20, res<3, 2>(ch, k, A), k, A) - mul<h2, h3>(r21, res<3, 3>(ch, k, A), k, A);
      double br = mul<h1, true>(res<1, 0>(ch, k, A), x, k, A) - mul<h1, true>(res<1, 2>(ch, k, A), y, k, A);
      if constexpr (!h1) br = modreduce(br, A.prime[k], A.pinv[k]);  // x - y: up to 4p
      return mul<present<0>, true>(res<0, 0>(ch, k, A), br, k, A);
    }
  }
  /// Some subset U whose every class product is nonzero (else f(T) = 0: skipped).
  static __device__ __forceinline__ bool some_nonzero(const Chain& ch) {
    bool any = false;
#pragma unroll
    for (int u = 0; u < V; ++u) {
      bool all = true;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        int c = 0;
        while (c + 1 < C && first_group(c + 1) <= g) ++c;
        all &= ch.gp[g][u & touch(c)] != 0.0;
      }
      any |= all;
    }
    return any;
  }
  template <int M>
  static __device__ __forceinline__ void seal(Chain&, const WalkArgs&) {}
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs& A, bool neg) {
    static_assert(M == 0, "walks over low columns keep every row in registers");
    if constexpr (kSkipZero)
      if (!some_nonzero(c)) return;
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const double t = pair_value(c, k, A);
      a.s[k] = modreduce(neg ? a.s[k] - t : a.s[k] + t, A.prime[k], A.pinv[k]);
    }
  }
};

/// The walk of one thread over the high columns K..m-1 (cols + K columns) in chunks of 2^(k-K)
/// steps, each step f(T) above.
template <class Num, class Cols, int R>
__device__ __forceinline__ void walk_low(const WalkArgs& A, const double* cols) {
  WalkArgs H = A;
  H.m -= Num::kLow;
  H.k -= Num::kLow;  // the host takes low columns only where chunks are 2^K steps or longer
  walk<Num, Cols, R, 0>(H, cols + R * Num::kLow * Num::W, cols + R * Num::kLow * Num::W);
}

}  // namespace mcgpu
