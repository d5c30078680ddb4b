// Batches of small float hafnians on the GPU: one walk of Björklund's recursion per *thread*
// (haf_walk.hpp's tree), where the big-hafnian kernel (haf_kernel.cuh) spreads one walk over a
// warp. Each lane walks a range of leaf pairs of one channel (a matrix in one vertex order), so
// the 32 lanes of a warp do the same work at the same time on 32 channels or ranges: no lane
// idles in a short convolution, nothing is shuffled, and every access is one coalesced line,
// because lane c keeps value v of its frames at v * 32 + c of its warp's slice. Frame l stores
// degrees up to D[l] = min(m, l + 1), the most its include computes (the walk's truncation by
// level); reads clamp to the node's D, since an excluded node's arrays may be levels old. A
// convolution keeps B outputs and a window of B + C - 1 values of y in registers and slides it by
// C steps a chunk: 2C loads for B * C multiply-adds. Leaves go into 512-bit fixed point, so the
// sums do not depend on how the leaf pairs are split over lanes (docs/gpu.md, "Batches of
// small hafnians").
#include <cstdint>

#include "cuda/device_arith.cuh"
#include "engines/hafnian/cuda/haf_lane_args.cuh"

namespace mcgpu {
namespace haf_lanes {

__device__ __forceinline__ int tri(int s) { return s * (s - 1) / 2; }

/// fixed_add on limbs `stride` words apart (the lanes' sums interleaved, limb-major).
__device__ __forceinline__ void fixed_add_strided(u64* acc, long long stride, double v, int q) {
  u64 limbs[kLimbs];
  for (int i = 0; i < kLimbs; ++i) limbs[i] = acc[i * stride];
  fixed_add(limbs, v, q);
  for (int i = 0; i < kLimbs; ++i) acc[i * stride] = limbs[i];
}

struct Real {
  typedef double V;
  static constexpr int kB = 16, kC = 4, kW = 1;
  __device__ static V zero() { return 0.0; }
  __device__ static V one() { return 1.0; }
  __device__ static V add(V a, V b) { return a + b; }
  __device__ static V madd(V acc, V x, V y) { return __fma_rn(x, y, acc); }
  __device__ static V neg(V x) { return -x; }
  __device__ static V from_root(const double* p, bool modulus) { return modulus ? fabs(p[0]) : p[0]; }
  __device__ static void leaf(u64* acc, V v, int q, long long lanes) { fixed_add_strided(acc, lanes, v, q); }
};
struct Cplx {
  typedef double2 V;
  static constexpr int kB = 8, kC = 4, kW = 2;
  __device__ static V zero() { return make_double2(0.0, 0.0); }
  __device__ static V one() { return make_double2(1.0, 0.0); }
  __device__ static V add(V a, V b) { return make_double2(a.x + b.x, a.y + b.y); }
  __device__ static V madd(V acc, V x, V y) {
    return make_double2(__fma_rn(x.x, y.x, __fma_rn(-x.y, y.y, acc.x)), __fma_rn(x.x, y.y, __fma_rn(x.y, y.x, acc.y)));
  }
  __device__ static V neg(V x) { return make_double2(-x.x, -x.y); }
  __device__ static V from_root(const double* p, bool modulus) {
    return modulus ? make_double2(hypot(p[0], p[1]), 0.0) : make_double2(p[0], p[1]);
  }
  __device__ static void leaf(u64* acc, V v, int q, long long lanes) {
    fixed_add_strided(acc, lanes, v.x, q), fixed_add_strided(acc + kLimbs * lanes, lanes, v.y, q);
  }
};

/// out[k] = base[k] + sum_{a >= 1} x1[a] y1[k - a] (+ x2[a] y2[k - a]) for k in [k0, k0 + B) and
/// [lo, top]; base and y read as zero beyond degree D, x beyond Dx (the closing polynomial, one
/// degree above the node's, is an x). Lane-strided pointers (k at p[k * 32]).
template <class Ar, bool Two>
__device__ __forceinline__ void conv_block(typename Ar::V* out, const typename Ar::V* base, const typename Ar::V* x1,
                                           const typename Ar::V* y1, const typename Ar::V* x2, const typename Ar::V* y2,
                                           int k0, int lo, int top, int D, int Dx) {
  typedef typename Ar::V V;
  constexpr int B = Ar::kB, C = Ar::kC, NW = B + C - 1;
  V acc[B];
#pragma unroll
  for (int t = 0; t < B; ++t) acc[t] = Ar::zero();
  const int amax = min(k0 + B - 1, Dx);
#pragma unroll
  for (int pass = 0; pass < (Two ? 2 : 1); ++pass) {
    const V* x = pass ? x2 : x1;
    const V* y = pass ? y2 : y1;
    // W[q] = y[k0 - a0 - (C - 1) + q]: at a = a0 + r, output t takes W[t - r + C - 1].
    V W[NW];
#pragma unroll
    for (int q = 0; q < NW; ++q) {
      const int idx = k0 - C + q;
      W[q] = idx >= 0 && idx <= D ? y[idx * 32] : Ar::zero();
    }
    for (int a0 = 1; a0 <= amax; a0 += C) {
      V X[C];
#pragma unroll
      for (int c = 0; c < C; ++c) X[c] = a0 + c <= amax ? x[(a0 + c) * 32] : Ar::zero();
#pragma unroll
      for (int r = 0; r < C; ++r)
#pragma unroll
        for (int t = 0; t < B; ++t) acc[t] = Ar::madd(acc[t], X[r], W[t - r + C - 1]);
#pragma unroll
      for (int q = NW - 1; q >= C; --q) W[q] = W[q - C];
#pragma unroll
      for (int q = 0; q < C; ++q) {
        const int idx = k0 - a0 - 2 * C + 1 + q;
        W[q] = idx >= 0 && idx <= D ? y[idx * 32] : Ar::zero();
      }
    }
  }
#pragma unroll
  for (int t = 0; t < B; ++t) {
    const int k = k0 + t;
    if (k >= lo && k <= top) out[k * 32] = k <= D ? Ar::add(base[k * 32], acc[t]) : acc[t];
  }
}

template <class Ar, bool Two>
__device__ void conv(typename Ar::V* out, const typename Ar::V* base, const typename Ar::V* x1, const typename Ar::V* y1,
                     const typename Ar::V* x2, const typename Ar::V* y2, int lo, int top, int D, int Dx) {
  for (int k0 = top - Ar::kB + 1; k0 + Ar::kB - 1 >= lo; k0 -= Ar::kB)
    conv_block<Ar, Two>(out, base, x1, y1, x2, y2, k0, lo, top, D, Dx);
}

/// A node: b (packed lower triangle), loop polynomials d, g; stride D + 1; exclude shares them.
template <class V>
struct Node {
  const V* b;
  const V* d;
  const V* g;
  int neg, D;
};

template <class Ar>
struct LaneWalk {
  typedef typename Ar::V V;
  const LaneArgs& a;
  V* base;  // value v of this lane at base[v * 32]

  __device__ V* frame(int l) const { return base + a.off[l] * 32; }
  __device__ const V* entry(const Node<V>& x, int i, int j) const { return x.b + (long long)(tri(i) + j) * (x.D + 1) * 32; }
  __device__ const V* loop(const Node<V>& x, int i) const { return x.d + (long long)i * (x.D + 1) * 32; }

  /// t = b_uv + x d_u d_v (the closing polynomial, less 1) up to degree top, into frame m.
  __device__ const V* closing(const Node<V>& x, int u, int v, int top) const {
    V* t = frame(a.m);
    conv<Ar, false>(t, entry(x, u, v), loop(x, u) - 32, loop(x, v), nullptr, nullptr, 1, top, x.D, x.D);
    return t;
  }

  __device__ Node<V> include(int l, const Node<V>& x) const {
    const int s = a.n - 2 * l, u = s - 1, v = s - 2, s2 = s - 2;
    const int top = min(a.m, l + 2), top_d = min(a.m, l + 1), S2 = a.D[l + 1] + 1;
    V* fb = frame(l + 1);
    V* fd = fb + (long long)tri(s2) * S2 * 32;
    V* fg = fd + (a.loops ? (long long)s2 * S2 * 32 : 0);
    for (int i = 1; i < s2; ++i) {
      const V* ui = entry(x, u, i);
      const V* vi = entry(x, v, i);
      for (int j = 0; j < i; ++j) {
        const int e = tri(i) + j;
        conv<Ar, true>(fb + (long long)e * S2 * 32, x.b + (long long)e * (x.D + 1) * 32, ui, entry(x, v, j), vi,
                       entry(x, u, j), 1, top, x.D, x.D);
      }
    }
    const V* t = entry(x, u, v);
    if (a.loops) {
      for (int i = 0; i < s2; ++i)
        conv<Ar, true>(fd + (long long)i * S2 * 32, loop(x, i), entry(x, u, i), loop(x, v), entry(x, v, i), loop(x, u), 0,
                       top_d, x.D, x.D);
      t = closing(x, u, v, top_d);
    }
    conv<Ar, false>(fg, x.g, t, x.g, nullptr, nullptr, 1, top_d, x.D, a.loops ? top_d : x.D);  // g *= 1 + t
    fg[0] = x.g[0];
    return Node<V>{fb, fd, fg, x.neg, a.D[l + 1]};
  }

  /// The node with one pair left: its two leaves, w [x^m] g t.
  __device__ V leaf(const Node<V>& x) const {
    const V* t = a.loops ? closing(x, 1, 0, a.m) : entry(x, 1, 0);
    const int t_top = a.loops ? a.m : x.D;
    V p = Ar::zero();
    for (int k = max(1, a.m - x.D); k <= t_top; ++k) p = Ar::madd(p, t[k * 32], x.g[(a.m - k) * 32]);
    return x.neg ? Ar::neg(p) : p;
  }

  /// Frame 0 from the matrix's root r (HafLaneJob's layout) in the walk's vertex order: b = x
  /// a_ij, d = a_ii, g = 1; the moduli of the entries for a walk of |A|.
  __device__ Node<V> root(const double* r, const int* order, bool modulus) const {
    const int E = tri(a.n), L = a.loops ? a.n : 0;
    V* f = frame(0);  // D[0] = 1: stride 2
    for (int i = 1; i < a.n; ++i)
      for (int j = 0; j < i; ++j) {
        const int e = tri(i) + j;
        f[(2 * e) * 32] = Ar::zero();
        f[(2 * e + 1) * 32] = Ar::from_root(r + (long long)matchcount::gpu::lane_root_edge(order, i, j) * Ar::kW, modulus);
      }
    V* d = f + 2LL * E * 32;
    for (int i = 0; i < L; ++i)
      d[(2 * i) * 32] = Ar::from_root(r + (long long)(E + order[i]) * Ar::kW, modulus), d[(2 * i + 1) * 32] = Ar::zero();
    V* g = d + 2LL * L * 32;
    g[0] = Ar::one(), g[32] = Ar::zero();
    return Node<V>{f, d, g, 0, 1};
  }
};

template <class Ar>
__global__ void __launch_bounds__(kBlock, 4) haf_lanes(LaneArgs a) {
  typedef typename Ar::V V;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.lanes) return;
  const long long warp = t / 32;
  const int lane = threadIdx.x % 32;
  const LaneWalk<Ar> w{a, reinterpret_cast<V*>(a.scratch) + warp * a.per_lane * 32 + lane};
  const long long channel = a.first_channel + (t >> a.splits_log2), split = t & ((1LL << a.splits_log2) - 1);
  const long long matrix = channel / a.walks;
  const int walk = static_cast<int>(channel % a.walks);
  Node<V> path[kMaxM + 1];
  path[0] = w.root(a.roots + matrix * a.root_doubles, a.orders + walk * a.n, walk >= a.spread);
  const int top = a.m - 2;  // the deepest level with a decision
  const u64 per = (1ULL << (a.m - 1)) >> a.splits_log2, lo = (u64)split * per, hi = lo + per;
  // The lane's fixed-point sum stays in memory (limb i at out[i * lanes + t], zeroed by the
  // host): 8 or 16 words in registers for the whole walk cost its convolutions registers.
  u64* acc = a.out + t;
  for (u64 L = lo; L < hi; ++L) {
    int from = 0;
    if (L != lo) from = top - (63 - __clzll((long long)(L ^ (L - 1))));
    for (int l = from; l <= top; ++l) {
      const Node<V>& x = path[l];
      path[l + 1] = (L >> (top - l)) & 1 ? w.include(l, x) : Node<V>{x.b, x.d, x.g, !x.neg, x.D};
    }
    Ar::leaf(acc, w.leaf(path[a.m - 1]), a.q, a.lanes);
  }
}

/// Channel c's sum of its 2^splits_log2 lanes' words (limb i of lane t at in[i * lanes + t])
/// at out[c * words]: 512-bit two's-complement numbers, a complex channel's two parts apart,
/// added as add_channel adds them (modulo 2^512, so in any order).
__global__ void sum_lanes(const u64* in, long long lanes, int splits_log2, int words, u64* out, long long channels) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  for (int part = 0; part < words / kLimbs; ++part) {
    u64 total[kLimbs] = {};
    for (long long s = 0; s < (1LL << splits_log2); ++s) {
      const u64* x = in + (long long)part * kLimbs * lanes + (c << splits_log2) + s;
      u64 carry = 0;
      for (int i = 0; i < kLimbs; ++i) {
        const u64 xi = x[i * lanes], a = total[i] + xi, b = a + carry;
        carry = (a < xi) | (b < a);
        total[i] = b;
      }
    }
    for (int i = 0; i < kLimbs; ++i) out[c * words + part * kLimbs + i] = total[i];
  }
}

}  // namespace haf_lanes
}  // namespace mcgpu

namespace mcgpu::haf_lanes {

void launch_walks(const LaneArgs& a, bool complex, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((a.lanes + kBlock - 1) / kBlock);
  if (complex) haf_lanes<Cplx><<<blocks, kBlock, 0, stream>>>(a);
  else haf_lanes<Real><<<blocks, kBlock, 0, stream>>>(a);
}

void launch_sums(const u64* in, long long lanes, int splits_log2, int words, u64* out, long long channels,
                 cudaStream_t stream) {
  sum_lanes<<<static_cast<unsigned>((channels + 127) / 128), 128, 0, stream>>>(in, lanes, splits_log2, words, out, channels);
}

}  // namespace mcgpu::haf_lanes
