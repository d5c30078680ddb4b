// The GPU walk of Björklund's recursive hafnian algorithm: the tree of haf_walk.hpp (read its
// header for the recursion), one warp per contiguous range of "leaf pairs", the nodes with one
// pair left (s = 2). Leaf pair L's bits, most significant first, say include (1) or exclude
// (0) at levels 0 .. m-2, so consecutive L share their paths and a warp recomputes only the
// levels below the highest bit that changed: over a range the warp does each node's work
// once. An include's convolutions are split over the warp's lanes in tasks of B consecutive
// coefficients of one polynomial (registers hold B accumulators and a window of 2B - 1 y
// values, so a B x B block of multiply-adds costs 3B - 1 loads). Frames are coefficient-major
// (Ref): lanes on consecutive entries read consecutive addresses. Frames of small levels sit in
// shared memory, the large top ones in a per-warp slice of global memory.
#pragma once

#include "engines/hafnian/cuda/haf_arith.cuh"

namespace mcgpu {
namespace haf {

constexpr int kPad = 16;  // as gpu::kHafPad
constexpr int kMaxM = 36;  // as gpu::kHafMaxM
constexpr int kWarps = 4;  // warps per block

/// A walk over repeated pair types (haf_rpt_walk.hpp; types == 0: the binary walk). Type t
/// takes levels first[t] .. first[t] + mult[t] - 1 (level l is of type ltype[l]); a leaf
/// chooses k_t in 0..mult[t] for every type (mixed radix, the last type fastest), includes the
/// type's first k_t levels and skips the others, and weighs its value by the product of
/// weight[woff[t] + k_t] over the types (channel c's weights start at c * wstride).
struct Rpt {
  int types, wstride;
  int mult[kMaxM], first[kMaxM], woff[kMaxM], ltype[kMaxM];
  const double* weight;
};

struct Args {
  int n, m, S, loops;
  /// Levels l >= shared_from keep their frames in shared memory; frame l starts frame_off[l]
  /// values into its region (the warp's shared slice or its global slice).
  int shared_from;
  long long frame_off[kMaxM + 1];
  long long leaf_off;  // the leaf's closing polynomial, in the shared slice
  u64 lp_begin, lp_count;
  const void* root;
  long long root_stride;  // values per channel
  void* scratch;
  long long scratch_per_warp, shared_per_warp;  // values
  const double *prime, *pinv;  // per channel (Mod)
  u64* out;                           // words per (channel, warp)
  int words, q;
  Rpt rpt;
  /// The binary walk truncates level l's b at degree l + 2 and d, g at l + 1 (haf_walk.hpp:
  /// the dropped terms cancel); the repeated walk needs every degree.
  int truncate;
  /// Task size B (1, 2 or 4) of level l's convolutions of b, d and g (the closing
  /// polynomial too): chosen on the host (haf_task_blocks) so that the busiest lane does least.
  signed char block[kMaxM + 1][3];
};

enum ConvKind { kConvB = 0, kConvD = 1, kConvG = 2 };

__host__ __device__ inline long long tri(int s) { return (long long)s * (s - 1) / 2; }

/// A polynomial in a frame: coefficient k at p[k * st]. Frames store coefficients
/// entry-minor (coefficient k of every entry together, st = the frame's entries), so that the
/// lanes, working on consecutive entries, read consecutive addresses; single polynomials (g,
/// the closing polynomial) have st = 1. Coefficients -kPad..-1 are zeros.
template <class V>
struct Ref {
  const V* p;
  int st;
  __device__ V operator[](int k) const { return p[k * st]; }  // k * st < 2^31: tri(64) * 50
};
template <class V>
struct Out {
  V* p;
  int st;
};

/// One task: out[k] = reduce(base[k] + sum_{a=1..k} x1[a] y1[k-a] (+ x2[a] y2[k-a])) for
/// k in [max(lo, k_hi - B + 1), k_hi]. x beyond k_hi reads as 0; y's negative indices read
/// the zero padding (at least 2B - 2 of it).
template <class Ar, int B, bool Two>
__device__ __forceinline__ void conv_task(const Ar& ar, Out<typename Ar::V> out, Ref<typename Ar::V> base,
                                          Ref<typename Ar::V> x1, Ref<typename Ar::V> y1, Ref<typename Ar::V> x2,
                                          Ref<typename Ar::V> y2, int k_hi, int lo) {
  typedef typename Ar::V V;
  V acc[B];
#pragma unroll
  for (int t = 0; t < B; ++t) acc[t] = Ar::zero();
  const int k0 = k_hi - B + 1;
  for (int a0 = 1; a0 <= k_hi; a0 += B) {
#pragma unroll
    for (int pass = 0; pass < (Two ? 2 : 1); ++pass) {
      const Ref<V> x = pass ? x2 : x1, y = pass ? y2 : y1;
      // Running pointers: one address register each, where indexing by k * st kept an address
      // per window value (and the registers that cost occupancy).
      const V* px = x.p + a0 * x.st;
      const V* py = y.p + (k0 - a0 - (B - 1)) * y.st;
      V xv[B], yw[2 * B - 1];
#pragma unroll
      for (int i = 0; i < B; ++i, px += x.st) xv[i] = a0 + i <= k_hi ? *px : Ar::zero();
#pragma unroll
      for (int r = 0; r < 2 * B - 1; ++r, py += y.st) yw[r] = *py;
#pragma unroll
      for (int i = 0; i < B; ++i)
#pragma unroll
        for (int t = 0; t < B; ++t) acc[t] = ar.madd(acc[t], xv[i], yw[t - i + B - 1]);
    }
  }
#pragma unroll
  for (int t = 0; t < B; ++t)
    if (k0 + t >= lo) out.p[(k0 + t) * out.st] = ar.reduce(Ar::add(base[k0 + t], acc[t]));
}

/// A node of the tree: its b array (packed: entry (i, j), i > j, at tri(i) + j; coefficient k
/// of entry e at b[k * eb + e]), loop polynomials (d[k * ed + i]), g (degree 0, stride 1) and
/// sign. An exclude child shares its parent's arrays, strides included.
template <class V>
struct Node {
  const V* b;
  const V* d;
  const V* g;
  double w;
  int eb, ed;
};

/// One warp's walk over leaf pairs [lp_lo, lp_hi) of channel c.
template <class Ar>
struct Walk {
  typedef typename Ar::V V;
  const Args& a;
  const Ar ar;
  V* shared;  // this warp's slice
  V* global;  // this warp's slice
  int lane;

  __device__ Ref<V> entry(const Node<V>& x, int i, int j) const { return Ref<V>{x.b + tri(i) + j, x.eb}; }
  __device__ Ref<V> loop(const Node<V>& x, int i) const { return Ref<V>{x.d + i, x.ed}; }
  __device__ V* frame(int l) const { return (l >= a.shared_from ? shared : global) + a.frame_off[l]; }

  __device__ static int blocks(int lo, int m, int B) { return (m - lo + 1 + B - 1) / B; }

  /// Runs `count` convolutions of one kind over the lanes, coefficients lo..hi, in tasks of B
  /// coefficients dealt block-major (task t: item t % count, block t / count): consecutive
  /// lanes take consecutive entries (consecutive addresses), and a lane's tasks over the rounds
  /// take blocks of different lengths (the highest coefficients have the longest sums).
  template <int B, bool Two, class Spec>
  __device__ void tasks(int count, int lo, int hi, Spec spec) const {
    const int nb = blocks(lo, hi, B), total = count * nb;
    // A lane's tasks are 32 apart, so their items and blocks advance by the same steps: the
    // divisions by count happen once a call, not once a task.
    const int step_block = 32 / count, step_item = 32 % count;
    int item = lane % count, block = lane / count;
    for (int t = lane; t < total; t += 32) {
      const int k_hi = hi - block * B;
      Out<V> out;
      Ref<V> base, x1, y1, x2, y2;
      spec(item, out, base, x1, y1, x2, y2);
      conv_task<Ar, B, Two>(ar, out, base, x1, y1, x2, y2, k_hi, lo);
      item += step_item, block += step_block;
      if (item >= count) item -= count, ++block;
    }
  }

  /// The tasks of level l's convolutions of `kind`, in the host's task size (1, 2 or 4: the
  /// kernel holds no larger task, haf_launch.cu's largest_task_block says why).
  template <bool Two, class Spec>
  __device__ void run_tasks(int l, int kind, int count, int lo, int hi, Spec spec) const {
    const int b = a.block[l][kind];
    if (b >= 4) return tasks<4, Two>(count, lo, hi, spec);
    if (b == 2) return tasks<2, Two>(count, lo, hi, spec);
    tasks<1, Two>(count, lo, hi, spec);
  }

  /// t = b_uv + x d_u d_v into buf (the polynomial by which "include" multiplies g, less 1),
  /// up to degree hi.
  __device__ void closing(V* t, const Node<V>& x, int u, int v, int l, int hi) const {
    run_tasks<false>(l, kConvG, 1, 1, hi, [&](int, Out<V>& out, Ref<V>& base, Ref<V>& x1, Ref<V>& y1, Ref<V>&, Ref<V>&) {
      const Ref<V> du = loop(x, u);
      out = Out<V>{t, 1}, base = entry(x, u, v), x1 = Ref<V>{du.p - du.st, du.st}, y1 = loop(x, v);  // x d_u
    });
  }

  /// The include child of node x at level l, written into frame l+1: its b rows (R = a.S
  /// coefficients from -kPad, tri(s - 2) entries each), its loop rows (s - 2 entries each), g
  /// and the closing polynomial (R each).
  __device__ Node<V> include(int l, const Node<V>& x) const {
    const int s = a.n - 2 * l, u = s - 1, v = s - 2, s2 = s - 2;
    // Degrees above these stay the zeros the frames were allocated with (frame l + 1 is
    // written by level l's includes alone).
    const int top = a.truncate ? min(a.m, l + 2) : a.m, top_d = a.truncate ? min(a.m, l + 1) : a.m;
    const int eb = (int)tri(s2), ed = a.loops ? s2 : 0;
    V* region = frame(l + 1);
    V* fb = region + kPad * eb;
    V* fd = region + (long long)a.S * eb + kPad * ed;
    V* fg = region + (long long)a.S * (eb + ed) + kPad;
    V* ft = fg + a.S;
    // b_ij += b_iu b_vj + b_iv b_uj (i > j); coefficient 1 keeps base[1] (y[0] = 0).
    run_tasks<true>(l, kConvB, eb, 1, top, [&](int e, Out<V>& out, Ref<V>& base, Ref<V>& x1, Ref<V>& y1, Ref<V>& x2,
                                               Ref<V>& y2) {
      // Entry e = tri(i) + j: i from a float square root (e < tri(72), so 8e + 1 is exact in a
      // float) and corrected by one where it rounds across a triangular number.
      int i = (int)((1.0f + sqrtf(1.0f + 8.0f * (float)e)) * 0.5f);
      while (i * (i - 1) / 2 > e) --i;
      while ((i + 1) * i / 2 <= e) ++i;
      const int j = e - i * (i - 1) / 2;
      out = Out<V>{fb + e, eb}, base = Ref<V>{x.b + e, x.eb};
      x1 = entry(x, u, i), y1 = entry(x, v, j), x2 = entry(x, v, i), y2 = entry(x, u, j);
    });
    Ref<V> t = entry(x, u, v);
    if (a.loops) {
      // d_i += b_iu d_v + b_iv d_u
      run_tasks<true>(l, kConvD, s2, 0, top_d, [&](int i, Out<V>& out, Ref<V>& base, Ref<V>& x1, Ref<V>& y1, Ref<V>& x2,
                                                   Ref<V>& y2) {
        out = Out<V>{fd + i, ed}, base = loop(x, i);
        x1 = entry(x, u, i), y1 = loop(x, v), x2 = entry(x, v, i), y2 = loop(x, u);
      });
      closing(ft, x, u, v, l, top_d);
      __syncwarp();
      t = Ref<V>{ft, 1};
    }
    // g *= 1 + t
    run_tasks<false>(l, kConvG, 1, 1, top_d, [&](int, Out<V>& out, Ref<V>& base, Ref<V>& x1, Ref<V>& y1, Ref<V>&,
                                                  Ref<V>&) { out = Out<V>{fg, 1}, base = Ref<V>{x.g, 1}, x1 = t, y1 = Ref<V>{x.g, 1}; });
    if (lane == 0) fg[0] = x.g[0];
    __syncwarp();
    return Node<V>{fb, fd, fg, x.w, eb, ed};
  }

  /// sum_{k=1..m} t[k] g[m-k] over the lanes (m may exceed 32).
  __device__ V leaf_sum(Ref<V> t, const V* g) const {
    V p = Ar::zero();
    for (int k = lane + 1; k <= a.m; k += 32) p = ar.madd(p, t[k], g[a.m - k]);
    return Ar::shfl_sum(p);
  }

  /// w [x^m] g t for the node with one pair left: its two leaves at once.
  __device__ void leaf(const Node<V>& x, typename Ar::Acc& acc) const {
    Ref<V> t = entry(x, 1, 0);
    if (a.loops) {
      V* buf = shared + a.leaf_off + kPad;
      closing(buf, x, 1, 0, a.m - 1, a.m);
      __syncwarp();
      t = Ref<V>{buf, 1};
    }
    const V p = leaf_sum(t, x.g);
    if (lane == 0) ar.leaf(acc, Ar::scale(ar.reduce(p), x.w), a.q);
    __syncwarp();  // the leaf buffer is rewritten by the next leaf
  }

  /// A repeated walk's leaf below node x (above the last level): w [x^m] g, plus w [x^m] g t
  /// where the last level is included.
  __device__ void leaf_rpt(const Node<V>& x, bool include_last, typename Ar::W w, typename Ar::Acc& acc) const {
    V p = Ar::zero();
    if (include_last) {
      Ref<V> t = entry(x, 1, 0);
      if (a.loops) {
        V* buf = shared + a.leaf_off + kPad;
        closing(buf, x, 1, 0, a.m - 1, a.m);
        __syncwarp();
        t = Ref<V>{buf, 1};
      }
      p = leaf_sum(t, x.g);
    }
    if (lane == 0) ar.leaf(acc, Ar::scale(ar.reduce(Ar::add(ar.reduce(p), x.g[a.m])), w), a.q);
    __syncwarp();
  }
};

/// A warp's part of a run for channel c: the walk over its shared slice (zeroed: padding and
/// coefficient 0 of the shared frames must read as zero) and its global slice, the root node,
/// its share [lo, hi) of the run's leaves (or leaf pairs), and where its sum goes.
template <class Ar>
struct WarpShare {
  Walk<Ar> walk;
  Node<typename Ar::V> root;
  u64 lo, hi;
  u64* out;
};

template <class Ar>
__device__ WarpShare<Ar> warp_share(const Args& a, const Ar& ar, int c) {
  typedef typename Ar::V V;
  extern __shared__ double smem_raw[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const u64 warps = (u64)gridDim.x * kWarps, gw = (u64)blockIdx.x * kWarps + warp;
  V* shared = reinterpret_cast<V*>(smem_raw) + warp * a.shared_per_warp;
  V* global = reinterpret_cast<V*>(a.scratch) + ((u64)c * warps + gw) * a.scratch_per_warp;
  for (long long i = lane; i < a.shared_per_warp; i += 32) shared[i] = Ar::zero();
  __syncwarp();
  const V* root = reinterpret_cast<const V*>(a.root) + c * a.root_stride;
  const u64 per = (a.lp_count + warps - 1) / warps;
  return WarpShare<Ar>{Walk<Ar>{a, ar, shared, global, lane},
                       Node<V>{root + kPad * tri(a.n), root + a.S * tri(a.n) + kPad * (a.loops ? a.n : 0),
                               root + a.S * (tri(a.n) + (a.loops ? a.n : 0)) + kPad, 1.0, (int)tri(a.n), a.loops ? a.n : 0},
                       a.lp_begin + gw * per, a.lp_begin + min(a.lp_count, (gw + 1) * per),
                       a.out + ((u64)c * warps + gw) * a.words};
}

template <class Ar>
__device__ void walk_range(const Args& a, const Ar& ar, int c) {
  typedef typename Ar::V V;
  const WarpShare<Ar> w = warp_share(a, ar, c);
  const Walk<Ar>& walk = w.walk;
  const u64 lo = w.lo, hi = w.hi;
  Node<V> path[kMaxM + 1];
  path[0] = w.root;
  typename Ar::Acc acc;
  const int top = a.m - 2;  // the deepest level with a decision
  for (u64 L = lo; L < hi; ++L) {
    int from = 0;
    if (L != lo) from = top - (63 - __clzll((long long)(L ^ (L - 1))));
    for (int l = from; l <= top; ++l) {
      const Node<V>& x = path[l];
      path[l + 1] = (L >> (top - l)) & 1 ? walk.include(l, x) : Node<V>{x.b, x.d, x.g, -x.w, x.eb, x.ed};
    }
    walk.leaf(path[a.m - 1], acc);
  }
  if (walk.lane == 0) Ar::store(acc, w.out);
}

/// One warp's repeated walk over leaves [lp_lo, lp_hi) of channel c (Args::rpt): consecutive
/// leaves differ from the highest type whose choice changed, whose one new include is the
/// only level recomputed above the types reset to no copies (skips cost nothing).
template <class Ar>
__device__ void walk_rpt_range(const Args& a, const Ar& ar, int c) {
  typedef typename Ar::V V;
  const WarpShare<Ar> w = warp_share(a, ar, c);
  const Walk<Ar>& walk = w.walk;
  const u64 lo = w.lo, hi = w.hi;
  const Rpt& r = a.rpt;
  Node<V> path[kMaxM + 1];
  path[0] = w.root;
  typename Ar::Acc acc;
  int k[kMaxM];
  typedef typename Ar::W W;
  W wp[kMaxM];  // wp[t]: the product of the weights of types 0..t
  u64 x = lo;
  for (int t = r.types - 1; t >= 0; --t) k[t] = (int)(x % (u64)(r.mult[t] + 1)), x /= (u64)(r.mult[t] + 1);
  const int top = a.m - 2, last = r.types - 1;
  int from = 0, from_type = 0;
  for (u64 L = lo; L < hi; ++L) {
    if (L != lo) {  // the next leaf: the last type that is not full takes one more copy
      int t = last;
      while (k[t] == r.mult[t]) k[t--] = 0;
      from = r.first[t] + k[t], from_type = t;
      ++k[t];
    }
    for (int t = from_type; t <= last; ++t) {
      W w;
      rpt_weight(w, r.weight, r.wstride, c, r.woff[t] + k[t]);
      wp[t] = ar.wmul(t ? wp[t - 1] : Ar::one(), w);
    }
    for (int l = from; l <= top; ++l) {
      const int t = r.ltype[l];
      path[l + 1] = l - r.first[t] < k[t] ? walk.include(l, path[l]) : path[l];
    }
    walk.leaf_rpt(path[a.m - 1], a.m - 1 - r.first[last] < k[last], wp[last], acc);
  }
  if (walk.lane == 0) Ar::store(acc, w.out);
}

}  // namespace haf
}  // namespace mcgpu
