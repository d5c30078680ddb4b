// Device code of the dense Ryser walk on the GPU. This one header is compiled twice: by nvcc
// into generic kernels (row count R a template parameter, columns read from shared memory), and
// by NVRTC at run time with n fixed and the matrix's columns baked into the code (see
// nvrtc_source.cpp). It includes nothing, so that NVRTC needs no headers.
//
// The walk (Nijenhuis-Wilf, doubled values): y_i = x0_i + sum_{j in S} a2[j][i] and
//   sum over S of (-1)^|S| prod_i y_i,  S running over the Gray code of m = n-1 columns.
// Step g of the Gray code flips column ctz(g); the term's sign is (-1)^g.
//
// Work split (CEG in the SUPerman papers): the 2^m steps form chunks of 2^k aligned steps; a
// chunk starts from freshly computed y (so its result does not depend on which thread ran it)
// and flips the same column at the same local step in every thread of a warp: no divergence,
// and shared-memory reads are broadcasts. Thread t takes a contiguous run of chunks, as equal
// as integer division allows, so no remainder launch is needed.
//
// Hybrid kernels (the code-generation paper's register/global variant) keep rows 0..M-1 of y
// in memory (a per-thread slice of global or shared memory) and rows M..R-1 in registers. The
// host orders the rows so that the memory rows are those touched only by rarely flipped
// columns, and the running product over rows 0..M-1 (the number policy's Chain) is kept in
// registers and recomputed only when one of them changes. Products are formed in the same
// row order in every variant, so real results keep the same bits.
#pragma once

// Tuning knobs (NVRTC sources may define them first; see docs/gpu.md).
#ifndef MCGPU_CHAINS
#define MCGPU_CHAINS 2  // product chains per term: 4 lose more to register pressure than they hide (docs/gpu.md)
#endif
#ifndef MCGPU_MIN_BLOCKS
#define MCGPU_MIN_BLOCKS 1  // __launch_bounds__ minimum resident blocks of 256 threads
#endif

namespace mcgpu {

typedef unsigned long long u64;

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
template <int R, int NP, u64 kFold, bool kSkipZero = false>
struct ModSharedNum {
  static constexpr u64 kMask = kFold | (1ULL << (R - 1));
  static constexpr int G = bit_count(kMask & rows_below(R));
  static constexpr int W = 1;
  static constexpr int words = NP;
  struct Y { double v[R]; };
  struct Acc { double s[NP]; };
  /// p: the product since the last group end; gp: finished groups; modp: sealed groups mod p.
  struct Chain { double p, gp[G], modp[NP]; };
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
#pragma unroll
    for (int w = 1; w < to - from; w *= 2)
#pragma unroll
      for (int j = 0; j + w < to - from; j += 2 * w) t[j] = modmul(t[j], t[j + w], A.prime[k], A.pinv[k]);
    return t[0];
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
  static __device__ __forceinline__ void term(const Y& y, Acc& a, const WalkArgs& A, bool neg) {
    chain_term<ModSharedNum, R>(y, a, A, neg);
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

// ---------------- row values: registers, and memory for hybrid kernels ----------------

/// Where a hybrid kernel's memory rows live: part w of row i of this thread is at
/// base[(i * W + w) * stride] (threads interleaved: coalesced in global memory, conflict-free
/// in shared memory).
struct RowMemory {
  double* base;
  unsigned stride;
};

/// y of one thread: rows 0..M-1 in memory, rows M..R-1 in registers (reg's entries below M
/// are never touched, so the compiler allocates no registers for them); pre is the chain
/// over the memory rows, refreshed whenever one of them changes.
template <class Num, int R, int M>
struct Rows {
  static constexpr int kR = R, kM = M;
  typename Num::Y reg;
  RowMemory mem;
  typename Num::Chain pre;
  __device__ __forceinline__ double get(int i, int w) const {
    return i < M ? mem.base[(u64)(i * Num::W + w) * mem.stride] : Num::get(reg, i, w);
  }
  __device__ __forceinline__ void put(int i, int w, double v) {
    if (i < M) mem.base[(u64)(i * Num::W + w) * mem.stride] = v;
    else Num::at(reg, i, w) = v;
  }
};

/// y_i += dir * a (one double per part; a1 for complex entries).
template <class Num, class S>
__device__ __forceinline__ void row_update(S& y, int i, double dir, double a0, double a1, const WalkArgs& A) {
  y.put(i, 0, Num::step(y.get(i, 0), dir, a0, A));
  if constexpr (Num::W == 2) y.put(i, 1, Num::step(y.get(i, 1), dir, a1, A));
}
template <class Num, class S>
__device__ __forceinline__ void row_update(S& y, int i, double dir, double a0, const WalkArgs& A) {
  row_update<Num>(y, i, dir, a0, 0.0, A);
}

/// Recomputes the chain over the memory rows (after one of them changed).
template <class Num, class S>
__device__ __forceinline__ void refresh(S& y, const WalkArgs& A) {
  if constexpr (S::kM > 0) {
    typename Num::Chain c = Num::chain_start();
#pragma unroll
    for (int i = 0; i < S::kM; ++i) Num::chain_row(c, i, y.get(i, 0), Num::W == 2 ? y.get(i, Num::W - 1) : 0.0, A);
    Num::template seal<S::kM>(c, A);
    y.pre = c;
  }
}

/// Adds a dense column (col[i * W + w]) to the memory rows and refreshes their chain in the
/// same pass: each row is read and written once.
template <class Num, class S>
__device__ __forceinline__ void update_memory_rows(S& y, double dir, const double* col, const WalkArgs& A) {
  if constexpr (S::kM > 0) {
    typename Num::Chain c = Num::chain_start();
#pragma unroll
    for (int i = 0; i < S::kM; ++i) {
      double v[Num::W];
#pragma unroll
      for (int w = 0; w < Num::W; ++w) {
        v[w] = Num::step(y.get(i, w), dir, col[i * Num::W + w], A);
        y.put(i, w, v[w]);
      }
      Num::chain_row(c, i, v[0], v[Num::W - 1], A);
    }
    Num::template seal<S::kM>(c, A);
    y.pre = c;
  }
}

/// Adds (-1)^neg * prod_i y_i: the cached chain of the memory rows continued over the
/// register rows.
template <class Num, class S>
__device__ __forceinline__ void row_term(const S& y, typename Num::Acc& acc, const WalkArgs& A, bool neg) {
  typename Num::Chain c;
  if constexpr (S::kM > 0) c = y.pre;
  else c = Num::chain_start();
#pragma unroll
  for (int i = S::kM; i < S::kR; ++i) Num::chain_row(c, i, y.get(i, 0), Num::W == 2 ? y.get(i, Num::W - 1) : 0.0, A);
  Num::template finish<S::kM>(c, acc, A, neg);
}

// ---------------- column sources ----------------

/// Generic kernels: the columns sit in shared memory, read with 16-byte broadcasts.
/// Not unrolled: with static columns the compiler keeps the low columns in registers across
/// steps, which slows dense walks through register pressure (docs/gpu.md).
template <int R>
struct SharedColumns {
  static constexpr bool kUnrolled = false;
  template <class Num, class S>
  static __device__ __forceinline__ void add(S& y, int col, double dir, const double* cols, const WalkArgs& A) {
    constexpr int M = S::kM;
    const double* column = cols + (u64)col * R * Num::W;
    update_memory_rows<Num>(y, dir, column, A);  // every column touches every row here
    const double2* c = reinterpret_cast<const double2*>(column);
    if constexpr (Num::W == 1) {
#pragma unroll
      for (int i = M & ~1; i < R; i += 2) {
        double2 v = c[i / 2];
        if (i >= M) row_update<Num>(y, i, dir, v.x, A);
        row_update<Num>(y, i + 1, dir, v.y, A);
      }
    } else {
#pragma unroll
      for (int i = M; i < R; ++i) {
        double2 v = c[i];
        row_update<Num>(y, i, dir, v.x, v.y, A);
      }
    }
  }
};

// ---------------- the walk ----------------

/// y for Gray code g: x0 plus the columns of g's set bits (from `cols`, layout as WalkArgs.a2).
template <class Num, int R>
__device__ __forceinline__ void start_values(typename Num::Y& y, u64 g, const double* cols, const WalkArgs& A) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    if constexpr (Num::W == 1) Num::set(y, i, A.x0[i]);
    else Num::set(y, i, A.x0[2 * i], A.x0[2 * i + 1]);
  }
  while (g) {
    int j = __ffsll((long long)g) - 1;
    g &= g - 1;
    const double* c = cols + (u64)j * R * Num::W;
#pragma unroll
    for (int i = 0; i < R; ++i) Num::add_start(y, i, c + i * Num::W, A);
  }
}

/// The same for the rows of a (possibly hybrid) walk, and the memory rows' chain.
template <class Num, class S>
__device__ __forceinline__ void start_rows(S& y, u64 g, const double* cols, const WalkArgs& A) {
  constexpr int R = S::kR, W = Num::W;
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int w = 0; w < W; ++w) y.put(i, w, A.x0[i * W + w]);
  while (g) {
    int j = __ffsll((long long)g) - 1;
    g &= g - 1;
    const double* c = cols + (u64)j * R * W;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int w = 0; w < W; ++w) y.put(i, w, Num::start_add(y.get(i, w), c[i * W + w], A));
  }
  refresh<Num>(y, A);
}

/// Gray code g flips column `col` (its lowest set bit): add the column with the sign of the
/// flipped bit, then add the term. Inlined with a constant col (unrolled walks), a baked
/// column source's switch folds away.
template <class Num, class Cols, class S>
__device__ __forceinline__ void flip(S& y, typename Num::Acc& acc, int col, u64 g, bool neg, const double* cols,
                                     const WalkArgs& A) {
  double dir = ((g >> (col + 1)) & 1) ? -1.0 : 1.0;  // the flipped bit turns on or off
  Cols::template add<Num>(y, col, dir, cols, A);
  row_term<Num>(y, acc, A, neg);
}

/// One Gray step inside a chunk: local step s (1 <= s < 2^k) of the chunk starting at `base`.
template <class Num, class Cols, class S>
__device__ __forceinline__ void step(S& y, typename Num::Acc& acc, u64 base, u64 s, bool neg, const double* cols,
                                     const WalkArgs& A) {
  flip<Num, Cols>(y, acc, __ffsll((long long)s) - 1, base | s, neg, cols, A);
}

#ifndef MCGPU_UNROLL_LOG2
#define MCGPU_UNROLL_LOG2 4  // steps per unrolled group: 2^4, of which 15 have static columns
#endif
constexpr int kUnroll = 1 << MCGPU_UNROLL_LOG2;
__host__ __device__ constexpr int trailing_zeros(int o) { return (o & 1) ? 0 : 1 + trailing_zeros(o >> 1); }

/// Local steps s+O .. s+kUnroll-1 of an aligned group (s a multiple of kUnroll): step s+O
/// flips column ctz(O), known here at compile time; the group's last step s+kUnroll is the
/// caller's. Odd steps subtract.
template <class Num, class Cols, int O, class S>
__device__ __forceinline__ void static_steps(S& y, typename Num::Acc& acc, u64 g0, const double* cols,
                                             const WalkArgs& A) {
  if constexpr (O < kUnroll) {
    flip<Num, Cols>(y, acc, trailing_zeros(O), g0 | O, O & 1, cols, A);
    static_steps<Num, Cols, O + 1>(y, acc, g0, cols, A);
  }
}

/// Local steps 1 .. 2^k - 1 of the chunk starting at Gray index `base` (its step 0, the
/// term of the start values, is the caller's). Shared by the dense walk and SkipPer's chunks.
template <class Num, class Cols, class S>
__device__ __forceinline__ void chunk_steps(S& y, typename Num::Acc& acc, u64 base, const double* cols,
                                            const WalkArgs& A) {
  const u64 len = 1ULL << A.k;
  if constexpr (Cols::kUnrolled) {
    if (A.k >= MCGPU_UNROLL_LOG2) {
      for (u64 s = 0; s < len; s += kUnroll) {
        static_steps<Num, Cols, 1>(y, acc, base | s, cols, A);
        if (s + kUnroll < len) step<Num, Cols>(y, acc, base, s + kUnroll, false, cols, A);
      }
      return;
    }
  }
  u64 s = 1;
  for (; s + 1 < len; s += 2) {  // odd steps subtract, even steps add
    step<Num, Cols>(y, acc, base, s, true, cols, A);
    step<Num, Cols>(y, acc, base, s + 1, false, cols, A);
  }
  if (s < len) step<Num, Cols>(y, acc, base, s, true, cols, A);
}

/// The walk of one thread over its chunks. Rows 0..M-1 of y live at `mem` (hybrid kernels).
template <class Num, class Cols, int R, int M = 0>
__device__ void walk(const WalkArgs& A, const double* cols, const double* start_cols,
                     RowMemory mem = RowMemory{nullptr, 0}) {
  static_assert(M >= 0 && M < R, "a hybrid kernel keeps at least one row in registers");
  u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= A.threads) return;
  u64 per = A.chunks / A.threads, extra = A.chunks % A.threads;
  u64 first = A.chunk_begin + t * per + (t < extra ? t : extra);
  u64 count = per + (t < extra ? 1 : 0);
  typename Num::Acc acc;
  Num::load(acc, A, t);
  Rows<Num, R, M> y;
  y.mem = mem;
  for (u64 c = first; c < first + count; ++c) {
    const u64 base = c << A.k;
    start_rows<Num>(y, base ^ (base >> 1), start_cols, A);
    Num::start_chunk(acc);
    row_term<Num>(y, acc, A, A.k == 0 && (c & 1));
    chunk_steps<Num, Cols>(y, acc, base, cols, A);
    Num::end_chunk(acc, A);
  }
  Num::store(acc, A, t);
}

}  // namespace mcgpu
