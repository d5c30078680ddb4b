// The walk of Björklund's recursive hafnian algorithm (private to the hafnian engine), written
// once for the three lane arithmetics: 4 primes (exact), 4 real lanes, 4 complex lanes.
//
// Vertices are paired (0,1), (2,3), ...; a node of the recursion holds the vertices 0..s-1
// still present, with polynomials in x truncated at degree m = n/2:
//   b_ij (i > j)  the weight of the alternating paths i -> (eliminated pairs) -> j, one x per
//                 matching edge (initially x a_ij);
//   d_i           (loop hafnian only) the paths that leave i through a matching edge and end
//                 in a loop (initially a_ii);
//   g             the closed structures so far (initially 1);
// and a sign w. Eliminating the last pair (u, v) = (s-1, s-2) has two branches: "exclude"
// drops the pair (the same data, sign -w); "include" lets paths run through it:
//   b_ij += b_iu b_vj + b_iv b_uj,  d_i += b_iu d_v + b_iv d_u,  g *= 1 + b_uv + x d_u d_v
// (b_uv closes a cycle through the pair, x d_u d_v a path between two loops). At s = 0 the
// leaf adds w [x^m] g: by inclusion-exclusion over the included pairs only structures that
// visit every pair once survive, i.e. the (loop) perfect matchings.
//
// Storage: the exclude branch keeps its parent's arrays (the surviving vertices are a prefix
// of the packed lower triangle), so only "include" writes, into the frame of the next level.
// The tree's top `depth` levels name the work units: unit bits, most significant first, say
// include (1) or exclude (0). A unit's sum is a pure function of (input, unit).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "engines/common.hpp"

namespace matchcount::engines::haf {

/// Four complex lanes.
struct cv4 {
  v4d re, im;
};
inline cv4 operator+(cv4 a, cv4 b) { return {a.re + b.re, a.im + b.im}; }

/// Exact lanes: one prime each; every coefficient is reduced once after its sum of products,
/// which the prime size keeps below 2^52 (primes_for_m).
struct ModArith {
  using V = v4d;
  static constexpr int kBlock = 4;
  v4d p, pinv;
  static V zero() { return V{0, 0, 0, 0}; }
  static V madd(V acc, V x, V y) { return arith::fmadd(x, y, acc); }
  V reduce(V x) const { return arith::modreduce(x, p, pinv); }
  static V scale(V x, v4d w) { return x * w; }
  struct Acc {
    V s{0, 0, 0, 0};
  };
  void leaf(Acc& a, V v) const { a.s = reduce(a.s + v); }
};

/// Lane-wise TwoSum into (hi, lo).
inline void two_sum(v4d& hi, v4d& lo, v4d x) {
  v4d s = hi + x, bp = s - hi;
  lo += (hi - (s - bp)) + (x - bp);
  hi = s;
}

struct RealArith {
  using V = v4d;
  static constexpr int kBlock = 4;
  static V zero() { return V{0, 0, 0, 0}; }
  static V madd(V acc, V x, V y) { return arith::fmadd(x, y, acc); }
  static V reduce(V x) { return x; }
  static V scale(V x, v4d w) { return x * w; }
  struct Acc {
    v4d hi{0, 0, 0, 0}, lo{0, 0, 0, 0};
  };
  static void leaf(Acc& a, V v) { two_sum(a.hi, a.lo, v); }
};

struct ComplexArith {
  using V = cv4;
  static constexpr int kBlock = 2;  // 8 accumulators of two registers each fill the 16 registers
  static V zero() { return V{{0, 0, 0, 0}, {0, 0, 0, 0}}; }
  static V madd(V acc, V x, V y) {
    return {arith::fmadd(x.re, y.re, arith::fmadd(-x.im, y.im, acc.re)),
            arith::fmadd(x.re, y.im, arith::fmadd(x.im, y.re, acc.im))};
  }
  static V reduce(V x) { return x; }
  static V scale(V x, v4d w) { return {x.re * w, x.im * w}; }
  struct Acc {
    v4d re_hi{0, 0, 0, 0}, re_lo{0, 0, 0, 0}, im_hi{0, 0, 0, 0}, im_lo{0, 0, 0, 0};
  };
  static void leaf(Acc& a, V v) { two_sum(a.re_hi, a.re_lo, v.re), two_sum(a.im_hi, a.im_lo, v.im); }
};

/// Zero coefficients stored below degree 0 of every polynomial, so that the blocked
/// convolutions read zeros instead of testing bounds.
constexpr int kPad = 4;

/// The root of the tree: n even (odd loop blocks get a vertex with loop 1 and no edge),
/// polynomials of stride m + 1 + kPad with degree 0 at offset kPad.
template <class V>
struct Root {
  int n = 0, m = 0;
  bool loops = false;
  std::vector<V> b, d;  // tri(n) entries, n loop polynomials (loops only)
  int stride() const { return m + 1 + kPad; }
};

inline std::size_t tri(int s) { return static_cast<std::size_t>(s) * static_cast<std::size_t>(s - 1) / 2; }

/// The root of n vertices (n even) from lane values: edge(i, j) for i > j, loop(i) with loops.
template <class V, class Edge, class Loop>
Root<V> root_of(int n, bool loops, Edge edge, Loop loop) {
  Root<V> r;
  r.n = n;
  r.m = n / 2;
  r.loops = loops;
  const std::size_t S = static_cast<std::size_t>(r.stride());
  r.b.assign(tri(n) * S, V{});
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < i; ++j) r.b[(tri(i) + static_cast<std::size_t>(j)) * S + kPad + 1] = edge(i, j);
  if (loops) {
    r.d.assign(static_cast<std::size_t>(n) * S, V{});
    for (int i = 0; i < n; ++i) r.d[static_cast<std::size_t>(i) * S + kPad] = loop(i);
  }
  return r;
}

/// out[k] = reduce(base[k] + sum_{a=1..k} x1[a] y1[k-a] + x2[a] y2[k-a]) for k = lo..m, in
/// blocks of B outputs from the top; two products give 2B independent FMA chains.
template <class Ar, int M = 0>
inline void conv2(const Ar& ar, typename Ar::V* out, const typename Ar::V* base, const typename Ar::V* x1,
                  const typename Ar::V* y1, const typename Ar::V* x2, const typename Ar::V* y2, int lo, int m) {
  using V = typename Ar::V;
  constexpr int B = Ar::kBlock;
  if constexpr (M > 0) m = M;
#pragma GCC unroll 16
  for (int k0 = m - B + 1; k0 + B - 1 >= lo; k0 -= B) {
    V acc1[B], acc2[B];
    for (int t = 0; t < B; ++t) acc1[t] = acc2[t] = Ar::zero();
    const int amax = k0 + B - 1;
#pragma GCC unroll 64
    for (int a = 1; a <= amax; ++a) {
      const V xa = x1[a], xb = x2[a];
      for (int t = 0; t < B; ++t) {
        acc1[t] = Ar::madd(acc1[t], xa, y1[k0 + t - a]);
        acc2[t] = Ar::madd(acc2[t], xb, y2[k0 + t - a]);
      }
    }
    for (int t = 0; t < B; ++t)
      if (k0 + t >= lo) out[k0 + t] = ar.reduce(base[k0 + t] + acc1[t] + acc2[t]);
  }
}

/// out[k] = reduce(base[k] + sum_{a=1..k} x[a] y[k-a]) for k = lo..m: one product, its terms
/// split over two chains by the parity of a.
template <class Ar, int M = 0>
inline void conv1(const Ar& ar, typename Ar::V* out, const typename Ar::V* base, const typename Ar::V* x,
                  const typename Ar::V* y, int lo, int m) {
  using V = typename Ar::V;
  constexpr int B = Ar::kBlock;
  if constexpr (M > 0) m = M;
#pragma GCC unroll 16
  for (int k0 = m - B + 1; k0 + B - 1 >= lo; k0 -= B) {
    V acc1[B], acc2[B];
    for (int t = 0; t < B; ++t) acc1[t] = acc2[t] = Ar::zero();
    const int amax = k0 + B - 1;
    int a = 1;
#pragma GCC unroll 32
    for (; a + 1 <= amax; a += 2) {
      const V xa = x[a], xb = x[a + 1];
      for (int t = 0; t < B; ++t) {
        acc1[t] = Ar::madd(acc1[t], xa, y[k0 + t - a]);
        acc2[t] = Ar::madd(acc2[t], xb, y[k0 + t - a - 1]);
      }
    }
    if (a <= amax)
      for (int t = 0; t < B; ++t) acc1[t] = Ar::madd(acc1[t], x[a], y[k0 + t - a]);
    for (int t = 0; t < B; ++t)
      if (k0 + t >= lo) out[k0 + t] = ar.reduce(base[k0 + t] + acc1[t] + acc2[t]);
  }
}

/// A thread's walk, whatever its compile-time half-size.
template <class Ar>
struct WalkBase {
  virtual ~WalkBase() = default;
  /// The leaf sums of unit u's subtree.
  virtual typename Ar::Acc run(std::uint64_t u) = 0;
};

/// One thread's walk (M > 0: for half-size M only, every loop bound a constant): the frames of
/// every level and the path of the last unit walked. "Exclude" negates the sign in every lane
/// (each lane is a walk of its own: a prime or a vertex order). The walk of repeated pairs
/// (haf_rpt_walk.hpp) reuses its frames and its include step.
template <class Ar, int M = 0>
class Walk : public WalkBase<Ar> {
 public:
  using V = typename Ar::V;
  Walk(const Ar& ar, const Root<V>& root, int depth)
      : ar_(ar), root_(root), n_(root.n), m_(root.m), S_(root.stride()), depth_(depth),
        frames_(static_cast<std::size_t>(root.m) + 1), path_(static_cast<std::size_t>(depth) + 1) {
    for (int l = 1; l <= m_; ++l) {
      const int s = n_ - 2 * l;
      Frame& f = frames_[static_cast<std::size_t>(l)];
      f.b.assign((tri(s) + 1) * static_cast<std::size_t>(S_), Ar::zero());
      if (root.loops) f.d.assign(static_cast<std::size_t>(s + 1) * static_cast<std::size_t>(S_), Ar::zero());
      f.g.assign(static_cast<std::size_t>(S_), Ar::zero());
      f.t.assign(static_cast<std::size_t>(S_), Ar::zero());
    }
    leaf_t_.assign(static_cast<std::size_t>(S_), Ar::zero());
    one_.assign(static_cast<std::size_t>(S_), Ar::zero());
    set_one(one_[kPad]);
  }

  typename Ar::Acc run(std::uint64_t u) override {
    walk_path(u);
    acc_ = {};
    node(depth_, path_[static_cast<std::size_t>(depth_)]);
    return acc_;
  }

 protected:
  struct Frame {
    LineVector<V> b, d, g, t;
  };
  struct Node {
    const V* b;  // packed entries: entry (i, j), i > j, at index tri(i) + j
    const V* d;
    const V* g;
    v4d w;
  };
  // The half-size and the polynomial stride, compile-time constants when M > 0.
  int mm() const { return M > 0 ? M : m_; }
  std::size_t stride() const { return static_cast<std::size_t>(M > 0 ? M + 1 + kPad : S_); }
  // Degree 0 of a polynomial stored at index e of array p.
  const V* poly(const V* p, std::size_t e) const { return p + e * stride() + kPad; }
  V* poly(V* p, std::size_t e) const { return p + e * stride() + kPad; }
  const V* entry(const V* b, int i, int j) const { return poly(b, tri(i) + static_cast<std::size_t>(j)); }

  static void set_one(V& v) {
    if constexpr (std::is_same_v<V, cv4>) {
      v = V{{1, 1, 1, 1}, {0, 0, 0, 0}};
    } else {
      v = V{1, 1, 1, 1};
    }
  }

  /// The node at depth_ for unit u, reusing the levels shared with the last unit's path.
  void walk_path(std::uint64_t u) {
    int from = 0;
    if (have_path_) {
      const std::uint64_t diff = u ^ last_unit_;
      from = depth_;
      for (int l = 0; l < depth_; ++l)
        if ((diff >> (depth_ - 1 - l)) & 1) {
          from = l;
          break;
        }
    } else {
      path_[0] = Node{root_.b.data(), root_.loops ? root_.d.data() : nullptr, one_.data() + kPad, v4d{1, 1, 1, 1}};
    }
    for (int l = from; l < depth_; ++l) {
      const Node& x = path_[static_cast<std::size_t>(l)];
      path_[static_cast<std::size_t>(l) + 1] =
          (u >> (depth_ - 1 - l)) & 1 ? include(l, x) : Node{x.b, x.d, x.g, -x.w};
    }
    last_unit_ = u;
    have_path_ = true;
  }

  /// The include child of node x at level l, written into frame l+1. Coefficients above
  /// degree l + 2 of b (l + 1 of d and g) are not computed where truncate_: a path through
  /// l eliminated pairs that visits each once has at most l + 1 edges, so higher terms belong
  /// to structures that visit some pair twice, and so miss another. Their terms are the same
  /// in every subset of included pairs that holds them (the rule depends on the level, not on
  /// the subset), so dropping them drops whole inclusion-exclusion sums, each zero, and no
  /// perfect matching loses a term. Frames never hold more than their level's degrees, so the
  /// coefficients above stay the zeros they were allocated with. (The walk of repeated pairs
  /// sums one subset per size for all, which needs every subset's value: no truncation.)
  Node include(int l, const Node& x) {
    const int s = n_ - 2 * l, u = s - 1, v = s - 2;
    const int top = truncate_ ? std::min(mm(), l + 2) : mm();
    const int top_d = truncate_ ? std::min(mm(), l + 1) : mm();
    Frame& f = frames_[static_cast<std::size_t>(l) + 1];
    V* cb = f.b.data();
    for (int i = 1; i < s - 2; ++i) {
      const V* biu = entry(x.b, u, i);
      const V* biv = entry(x.b, v, i);
      for (int j = 0; j < i; ++j) {
        const std::size_t e = tri(i) + static_cast<std::size_t>(j);
        V* out = poly(cb, e);
        const V* base = poly(x.b, e);
        out[1] = base[1];  // products of two paths start at degree 2
        if (top == mm()) conv2<Ar, M>(ar_, out, base, biu, entry(x.b, v, j), biv, entry(x.b, u, j), 2, top);
        else conv2<Ar>(ar_, out, base, biu, entry(x.b, v, j), biv, entry(x.b, u, j), 2, top);
      }
    }
    const V* t = entry(x.b, u, v);
    if (root_.loops) {
      const V* du = poly(x.d, static_cast<std::size_t>(u));
      const V* dv = poly(x.d, static_cast<std::size_t>(v));
      for (int i = 0; i < s - 2; ++i)
        conv2<Ar>(ar_, poly(f.d.data(), static_cast<std::size_t>(i)), poly(x.d, static_cast<std::size_t>(i)),
              entry(x.b, u, i), dv, entry(x.b, v, i), du, 0, top_d);
      t = closing(f.t.data(), x, u, v, top_d);
    }
    V* g = f.g.data() + kPad;
    g[0] = x.g[0];
    conv1<Ar>(ar_, g, x.g, t, x.g, 1, top_d);
    return Node{cb, f.d.data(), f.g.data() + kPad, x.w};
  }

  /// 1 + b_uv + x d_u d_v less the 1: the polynomial by which "include" multiplies g.
  const V* closing(V* buf, const Node& x, int u, int v, int top) const {
    V* t = buf + kPad;
    // x d_u as x1[a] = d_u[a - 1]
    conv1<Ar>(ar_, t, entry(x.b, u, v), poly(x.d, static_cast<std::size_t>(u)) - 1, poly(x.d, static_cast<std::size_t>(v)),
          1, top);
    return t;
  }

  /// The subtree of node x at level l.
  void node(int l, const Node& x) {
    const int s = n_ - 2 * l;
    if (s == 0) {
      ar_.leaf(acc_, Ar::scale(x.g[mm()], x.w));
      return;
    }
    if (s == 2) {  // both leaves at once: w [x^m] (g (1 + t)) - w [x^m] g = w [x^m] g t
      const V* t = root_.loops ? closing(leaf_t_.data(), x, 1, 0, mm()) : entry(x.b, 1, 0);
      V acc[4] = {Ar::zero(), Ar::zero(), Ar::zero(), Ar::zero()};
      const int m = mm();
      int k = 1;
#pragma GCC unroll 16
      for (; k + 3 <= m; k += 4)
        for (int q = 0; q < 4; ++q) acc[q] = Ar::madd(acc[q], t[k + q], x.g[m - k - q]);
      for (; k <= m; ++k) acc[0] = Ar::madd(acc[0], t[k], x.g[m - k]);
      ar_.leaf(acc_, Ar::scale(ar_.reduce((acc[0] + acc[1]) + (acc[2] + acc[3])), x.w));
      return;
    }
    node(l + 1, include(l, x));
    node(l + 1, Node{x.b, x.d, x.g, -x.w});
  }

  const Ar& ar_;
  const Root<V>& root_;
  int n_, m_, S_, depth_;
  std::vector<Frame> frames_;
  std::vector<Node> path_;
  LineVector<V> leaf_t_, one_;
  std::uint64_t last_unit_ = 0;
  bool have_path_ = false;
  bool truncate_ = true;
  typename Ar::Acc acc_{};
};

/// Half-sizes with a walk of their own (the exact and real walks; a block of n = 2m vertices).
constexpr int kMinSpecial = 12, kMaxSpecial = 32;

/// The walk for root.m: specialised when the arithmetic has specialisations and m is in range.
template <class Ar, int M = kMaxSpecial>
std::unique_ptr<WalkBase<Ar>> make_walk(const Ar& ar, const Root<typename Ar::V>& root, int depth) {
  if constexpr (M < kMinSpecial || std::is_same_v<Ar, ComplexArith>) {
    return std::make_unique<Walk<Ar, 0>>(ar, root, depth);
  } else {
    if (root.m == M) return std::make_unique<Walk<Ar, M>>(ar, root, depth);
    return make_walk<Ar, M - 1>(ar, root, depth);
  }
}

}  // namespace matchcount::engines::haf
