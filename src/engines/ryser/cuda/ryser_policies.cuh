// Number policies of the GPU Ryser walk (ryser_kernel.cuh), also used by the SkipPer walk
// (src/engines/sparse/cuda/skipper_kernel.cuh): WalkArgs, what every launch passes, and one
// policy per number kind (real, complex, integers modulo shared primes, integers modulo one
// prime), each holding a thread's row values, running products and accumulators. Split from
// the walk itself to keep each file short; the modular and exact-sum arithmetic underneath is
// the CUDA layer's (src/cuda/device_arith.cuh). Under NVRTC the pieces arrive as one text in
// dependency order (arith, policies, walk) with MCGPU_NVRTC defined, so the includes are
// skipped.
#pragma once

#ifndef MCGPU_NVRTC
#include "cuda/device_arith.cuh"
#endif

// Tuning knob (NVRTC sources may define it first; see docs/gpu.md).
#ifndef MCGPU_CHAINS
#define MCGPU_CHAINS 2  // product chains per term: 4 lose more to register pressure than they hide (docs/gpu.md)
#endif

namespace mcgpu {

/// Everything a launch needs; passed by value.
struct WalkArgs {
  int n;            // rows of the block (R >= n; rows beyond n are y = 1)
  int m;            // Gray columns, n - 1
  int k;            // log2 of the chunk length
  int q;            // fixed-point exponent: real sums are held as integers times 2^q
  u64 chunk_begin;  // first chunk of this launch
  u64 chunks;       // chunks in this launch
  u64 threads;      // threads of this launch
  const double* a2; // columns: a2[(j * R + i) * W + w], W doubles per entry
  const double* x0; // start values x0[i * W + w]
  double prime[4], pinv[4];
  u64 fold_mask;    // modular walks: bit i set = fold the running product after row i
  u64* out;         // per-thread accumulators, out[t * words + w], kept across launches
  double* scratch;  // hybrid kernels with memory rows in global memory: threads * M * W doubles
};

// ---------------- number policies ----------------
// Each policy defines W (doubles per entry), the row values Y, the accumulator Acc, and
//   step(v, dir, a, A), start_add(v, a, A)   one double of y_i: v + dir * a, v + a
//   get(y, i, w), at(y, i, w)                the w-th double of y_i in Y
//   Chain, chain_start(), chain_row(c, i, re, im, A)
//                                            the running product over rows 0, 1, ... in order
//   seal<M>(c, A)                            after the first M rows (hybrid kernels' cache)
//   finish<M>(c, acc, A, neg)                add (-1)^neg * the product
//   set / add_start / update / term          the same on Y for all its rows (generic walks)
//   start_chunk / end_chunk / load / store   per-chunk and per-thread bookkeeping.
// term() multiplies the rows in the same order as a chain cached after M rows and continued,
// so a hybrid kernel forms bit-identical products.

template <class Num, int R>
__device__ __forceinline__ void chain_term(const typename Num::Y& y, typename Num::Acc& a, const WalkArgs& A, bool neg);

/// Real entries: double products, TwoSum per chunk, exact fixed-point across chunks.
template <int R>
struct RealNum {
  static constexpr int W = 1;
  static constexpr int words = kLimbs + 1;  // the exact sum, then the sum of |terms|
  struct Y { double v[R]; };
  struct Acc { double s, e, abs, abs_total; u64 fix[kLimbs]; };
  struct Chain { double p[MCGPU_CHAINS]; };
  static __device__ __forceinline__ double get(const Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double& at(Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double step(double v, double dir, double a, const WalkArgs&) {
    return __fma_rn(dir, a, v);
  }
  static __device__ __forceinline__ double start_add(double v, double a, const WalkArgs&) { return v + a; }
  static __device__ __forceinline__ void set(Y& y, int i, double v) { y.v[i] = v; }
  static __device__ __forceinline__ void add_start(Y& y, int i, const double* a, const WalkArgs& A) {
    y.v[i] = start_add(y.v[i], a[0], A);
  }
  static __device__ __forceinline__ void update(Y& y, int i, double dir, double a, const WalkArgs& A) {
    y.v[i] = step(y.v[i], dir, a, A);
  }
  static __device__ __forceinline__ Chain chain_start() {
    Chain c;
#pragma unroll
    for (int k = 0; k < MCGPU_CHAINS; ++k) c.p[k] = 1.0;
    return c;
  }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double v, double, const WalkArgs&) {
    c.p[i % MCGPU_CHAINS] *= v;
  }
  template <int M>
  static __device__ __forceinline__ void seal(Chain&, const WalkArgs&) {}
  static __device__ __forceinline__ double chain_value(Chain c) {
    constexpr int C = MCGPU_CHAINS;
#pragma unroll
    for (int w = 1; w < C; w *= 2)
#pragma unroll
      for (int k = 0; k + w < C; k += 2 * w) c.p[k] *= c.p[k + w];
    return c.p[0];
  }
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs&, bool neg) {
    const double p = chain_value(c);
    a.abs += fabs(p);
    two_sum(a.s, a.e, neg ? -p : p);
  }
  static __device__ __forceinline__ double product(const Y& y) {
    Chain c = chain_start();
#pragma unroll
    for (int i = 0; i < R; ++i) c.p[i % MCGPU_CHAINS] *= y.v[i];
    return chain_value(c);
  }
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<RealNum, R>(y, a, A, neg);
  }
  static __device__ __forceinline__ void start_chunk(Acc& a) { a.s = a.e = a.abs = 0.0; }
  static __device__ __forceinline__ void end_chunk(Acc& a, const WalkArgs& A) {
    fixed_add(a.fix, a.s, A.q);
    fixed_add(a.fix, a.e, A.q);
    a.abs_total += a.abs;
  }
  static __device__ __forceinline__ void load(Acc& a, const WalkArgs& A, u64 t) {
    for (int w = 0; w < kLimbs; ++w) a.fix[w] = A.out[t * words + w];
    a.abs_total = __longlong_as_double((long long)A.out[t * words + kLimbs]);
  }
  static __device__ __forceinline__ void store(const Acc& a, const WalkArgs& A, u64 t) {
    for (int w = 0; w < kLimbs; ++w) A.out[t * words + w] = a.fix[w];
    A.out[t * words + kLimbs] = (u64)__double_as_longlong(a.abs_total);
  }
};

/// Complex entries: complex<double> products as (re, im) pairs, in two chains.
template <int R>
struct ComplexNum {
  static constexpr int W = 2;
  static constexpr int words = 2 * kLimbs + 1;  // exact re, exact im, sum of |re|+|im|
  struct Y { double re[R], im[R]; };
  struct Acc { double sr, er, si, ei, abs, abs_total; u64 fix[2 * kLimbs]; };
  struct Chain { double r[2], m[2]; };
  static __device__ __forceinline__ double get(const Y& y, int i, int w) { return w ? y.im[i] : y.re[i]; }
  static __device__ __forceinline__ double& at(Y& y, int i, int w) { return w ? y.im[i] : y.re[i]; }
  static __device__ __forceinline__ double step(double v, double dir, double a, const WalkArgs&) {
    return __fma_rn(dir, a, v);
  }
  static __device__ __forceinline__ double start_add(double v, double a, const WalkArgs&) { return v + a; }
  static __device__ __forceinline__ void set(Y& y, int i, double r, double m) { y.re[i] = r; y.im[i] = m; }
  static __device__ __forceinline__ void add_start(Y& y, int i, const double* a, const WalkArgs&) {
    y.re[i] += a[0];
    y.im[i] += a[1];
  }
  static __device__ __forceinline__ void update(Y& y, int i, double dir, double ar, double ai, const WalkArgs&) {
    y.re[i] = __fma_rn(dir, ar, y.re[i]);
    y.im[i] = __fma_rn(dir, ai, y.im[i]);
  }
  static __device__ __forceinline__ Chain chain_start() { return Chain{{1.0, 1.0}, {0.0, 0.0}}; }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double yr, double yi, const WalkArgs&) {
    const double r = c.r[i & 1], m = c.m[i & 1];
    c.r[i & 1] = __fma_rn(r, yr, -m * yi);
    c.m[i & 1] = __fma_rn(r, yi, m * yr);
  }
  template <int M>
  static __device__ __forceinline__ void seal(Chain&, const WalkArgs&) {}
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs&, bool neg) {
    double r = __fma_rn(c.r[0], c.r[1], -c.m[0] * c.m[1]);
    double m = __fma_rn(c.r[0], c.m[1], c.m[0] * c.r[1]);
    a.abs += fabs(r) + fabs(m);
    two_sum(a.sr, a.er, neg ? -r : r);
    two_sum(a.si, a.ei, neg ? -m : m);
  }
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<ComplexNum, R>(y, a, A, neg);
  }
  static __device__ __forceinline__ void start_chunk(Acc& a) { a.sr = a.er = a.si = a.ei = a.abs = 0.0; }
  static __device__ __forceinline__ void end_chunk(Acc& a, const WalkArgs& A) {
    fixed_add(a.fix, a.sr, A.q);
    fixed_add(a.fix, a.er, A.q);
    fixed_add(a.fix + kLimbs, a.si, A.q);
    fixed_add(a.fix + kLimbs, a.ei, A.q);
    a.abs_total += a.abs;
  }
  static __device__ __forceinline__ void load(Acc& a, const WalkArgs& A, u64 t) {
    for (int w = 0; w < 2 * kLimbs; ++w) a.fix[w] = A.out[t * words + w];
    a.abs_total = __longlong_as_double((long long)A.out[t * words + 2 * kLimbs]);
  }
  static __device__ __forceinline__ void store(const Acc& a, const WalkArgs& A, u64 t) {
    for (int w = 0; w < 2 * kLimbs; ++w) A.out[t * words + w] = a.fix[w];
    A.out[t * words + 2 * kLimbs] = (u64)__double_as_longlong(a.abs_total);
  }
};

/// Number of set bits, at compile time.
__host__ __device__ constexpr int bit_count(u64 m) { return m ? 1 + bit_count(m & (m - 1)) : 0; }
/// Mask of the rows below r (r <= 64).
__host__ __device__ constexpr u64 rows_below(int r) { return r >= 64 ? ~0ULL : (1ULL << r) - 1; }

/// Integer entries with small row sums: y stays an exact integer in a double; the products of
/// the row groups of kFold (bit i set = a group ends at row i; the last row always ends one)
/// are exact in FP64 and below 2^49, and are multiplied modulo each of NP primes in a tree
/// (depth log2 of the group count instead of a chain). With kSkipZero, zero terms skip the
/// modular products. A hybrid kernel's chain folds the groups that end among its memory rows
/// into one residue per prime when they change (seal), and each term multiplies that in.
/// What the exact walks with shared row sums (ModSharedNum; ModLowNum in
/// ryser_low_columns.cuh) have in common: y as exact integers in doubles, one residue sum per
/// prime, and the term through Num's chain (CRTP).
template <class Num, int R, int NP>
struct SharedExactRows {
  static constexpr int W = 1;
  static constexpr int words = NP;
  struct Y { double v[R]; };
  struct Acc { double s[NP]; };
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
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<Num, R>(y, a, A, neg);
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

/// The product of t[0 .. N-1] modulo prime k, in a tree (fewer dependent products than a
/// chain); t is overwritten. The group products of the shared-prime walks (ModSharedNum,
/// ModLowNum) are its factors.
template <int N>
__device__ __forceinline__ double tree_modprod(double (&t)[N], int k, const WalkArgs& A) {
#pragma unroll
  for (int w = 1; w < N; w *= 2)
#pragma unroll
    for (int j = 0; j + w < N; j += 2 * w) t[j] = modmul(t[j], t[j + w], A.prime[k], A.pinv[k]);
  return t[0];
}

template <int R, int NP, u64 kFold, bool kSkipZero = false>
struct ModSharedNum : SharedExactRows<ModSharedNum<R, NP, kFold, kSkipZero>, R, NP> {
  typedef SharedExactRows<ModSharedNum, R, NP> Rows;
  typedef typename Rows::Acc Acc;
  static constexpr u64 kMask = kFold | (1ULL << (R - 1));
  static constexpr int G = bit_count(kMask & rows_below(R));
  /// p: the product since the last group end; gp: finished groups; modp: sealed groups mod p.
  struct Chain { double p, gp[G], modp[NP]; };
  static __device__ __forceinline__ Chain chain_start() {
    Chain c;
    c.p = 1.0;
#pragma unroll
    for (int j = 0; j < G; ++j) c.gp[j] = 1.0;
#pragma unroll
    for (int k = 0; k < NP; ++k) c.modp[k] = 1.0;
    return c;
  }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double v, double, const WalkArgs&) {
    c.p *= v;
    if ((kMask >> i) & 1) {
      c.gp[__popcll(kMask & rows_below(i))] = c.p;  // a constant once the row loop is unrolled
      c.p = 1.0;
    }
  }
  /// Product of the group products gp[from .. to-1] modulo prime k, in a tree.
  template <int from, int to>
  static __device__ __forceinline__ double group_tree(const Chain& c, int k, const WalkArgs& A) {
    double t[to - from];
#pragma unroll
    for (int j = 0; j < to - from; ++j) t[j] = c.gp[from + j];
    return tree_modprod(t, k, A);
  }
  template <int M>
  static constexpr int groups_in = bit_count(kMask & rows_below(M));
  template <int M>
  static __device__ __forceinline__ void seal(Chain& c, const WalkArgs& A) {
    constexpr int Gm = groups_in<M>;
    if constexpr (Gm > 0) {
#pragma unroll
      for (int k = 0; k < NP; ++k) c.modp[k] = group_tree<0, Gm>(c, k, A);
    }
  }
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs& A, bool neg) {
    constexpr int Gm = groups_in<M>;
    // Most terms of a sparse 0-1 matrix are zero (some y_i = 0), and the branch skips the
    // modular products of a warp whose threads all have zero terms. Where that is rare (half
    // the warps at density 0.5, n = 40) the test costs more than it saves (docs/gpu.md,
    // "Zero terms"), so the host turns it on per matrix.
    if constexpr (kSkipZero) {
      bool nonzero = Gm == 0 || c.modp[0] != 0.0;  // a product of nonzero values below p is nonzero mod p
#pragma unroll
      for (int j = Gm; j < G; ++j) nonzero &= c.gp[j] != 0.0;
      if (!nonzero) return;
    }
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      double t = group_tree<Gm, G>(c, k, A);
      if constexpr (Gm > 0) t = modmul(t, c.modp[k], A.prime[k], A.pinv[k]);
      a.s[k] = modreduce(neg ? a.s[k] - t : a.s[k] + t, A.prime[k], A.pinv[k]);
    }
  }
};

/// Integer entries of any size: the walk runs on residues modulo one prime (entries and x0
/// reduced on the host into [0, p)).
template <int R>
struct ModPrimeNum {
  static constexpr int W = 1;
  static constexpr int words = 1;
  struct Y { double v[R]; };
  struct Acc { double s; };
  struct Chain { double r[2]; };
  static __device__ __forceinline__ double wrap(double y, double p) {
    y = y < 0.0 ? y + p : y;
    return y >= p ? y - p : y;
  }
  static __device__ __forceinline__ double get(const Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double& at(Y& y, int i, int) { return y.v[i]; }
  static __device__ __forceinline__ double step(double v, double dir, double a, const WalkArgs& A) {
    return wrap(__fma_rn(dir, a, v), A.prime[0]);
  }
  static __device__ __forceinline__ double start_add(double v, double a, const WalkArgs& A) {
    return wrap(v + a, A.prime[0]);
  }
  static __device__ __forceinline__ void set(Y& y, int i, double v) { y.v[i] = v; }
  static __device__ __forceinline__ void add_start(Y& y, int i, const double* a, const WalkArgs& A) {
    y.v[i] = start_add(y.v[i], a[0], A);
  }
  static __device__ __forceinline__ void update(Y& y, int i, double dir, double a, const WalkArgs& A) {
    y.v[i] = step(y.v[i], dir, a, A);
  }
  static __device__ __forceinline__ Chain chain_start() { return Chain{{1.0, 1.0}}; }
  static __device__ __forceinline__ void chain_row(Chain& c, int i, double v, double, const WalkArgs& A) {
    if (i < 2) c.r[i] = v;
    else c.r[i & 1] = modmul(c.r[i & 1], v, A.prime[0], A.pinv[0]);
  }
  template <int M>
  static __device__ __forceinline__ void seal(Chain&, const WalkArgs&) {}
  template <int M>
  static __device__ __forceinline__ void finish(const Chain& c, Acc& a, const WalkArgs& A, bool neg) {
    const double p = A.prime[0], pinv = A.pinv[0];
    const double r = modmul(c.r[0], c.r[1], p, pinv);
    a.s = modreduce(neg ? a.s - r : a.s + r, p, pinv);
  }
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<ModPrimeNum, R>(y, a, A, neg);
  }
  static __device__ __forceinline__ void start_chunk(Acc&) {}
  static __device__ __forceinline__ void end_chunk(Acc&, const WalkArgs&) {}
  static __device__ __forceinline__ void load(Acc& a, const WalkArgs& A, u64 t) {
    a.s = __longlong_as_double((long long)A.out[t]);
  }
  static __device__ __forceinline__ void store(const Acc& a, const WalkArgs& A, u64 t) {
    A.out[t] = (u64)__double_as_longlong(a.s);
  }
};

/// (-1)^neg * prod_i y_i over all R rows of Y, through the policy's chain.
template <class Num, int R>
__device__ __forceinline__ void chain_term(const typename Num::Y& y, typename Num::Acc& a, const WalkArgs& A, bool neg) {
  typename Num::Chain c = Num::chain_start();
#pragma unroll
  for (int i = 0; i < R; ++i) Num::chain_row(c, i, Num::get(y, i, 0), Num::W == 2 ? Num::get(y, i, Num::W - 1) : 0.0, A);
  Num::template finish<0>(c, a, A, neg);
}
}  // namespace mcgpu
