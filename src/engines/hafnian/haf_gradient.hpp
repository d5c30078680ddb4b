// The reverse (adjoint) walk of Björklund's hafnian recursion (private to the hafnian engines):
// every partial derivative dhaf/da_ij = haf(A - i - j) of a graph without loops, exactly modulo
// the four primes of a ModArith, in about three times the work of one count.
//
// The walk (haf_walk.hpp) is a tree; its value is F = sum over leaves of w [x^m] g. Reverse
// mode runs the tree depth first and keeps, beside each node's polynomials, their adjoints
// dF/d(coefficient): b̄_ij and ḡ. Each include step is linear in its parent's coefficients
// but for its products, so its adjoint ("fold") sends the child's adjoints back by
//   b̄_ij += c̄_ij,  b̄_up += sum_q c̄_pq ⋆ b_vq,  b̄_vp += sum_q c̄_pq ⋆ b_uq,
//   ḡ += ḡ' + ḡ' ⋆ b_uv,  b̄_uv += ḡ' ⋆ g,
// with (z̄ ⋆ y)[a] = sum_t z̄[a + t] y[t] the adjoint of a truncated product: two correlations
// for each product of the forward step, so a fold costs about twice its include. The exclude
// child shares its parent's arrays, and so its adjoints too: it adds into them directly.
// At the root b_ij = x a_ij, so haf(A - i - j) = b̄_ij[1].
//
// The forward walk truncates b at degree l + 2 and g at l + 1 on level l (haf_walk.hpp: the
// dropped terms cancel in every inclusion-exclusion sum, identically in the entries, so the
// truncated walk is the hafnian as a polynomial and has its derivatives). Coefficients above a
// frame's degrees are constants, and their adjoints are zeroed before a fold reads the frame.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "engines/hafnian/haf_walk.hpp"

namespace matchcount::engines::haf {

/// out[a] = reduce(base[a] + sum_{t >= t0} z[a + t] y[t]) for a = lo..hi (t0 = 1 where
/// y[0] = 0): z is zero above degree `top` (M when M > 0, a compile-time constant) and for
/// three places beyond (the padding of the next polynomial), so each output sums at most
/// top + 1 products, as the primes allow. The terms are split over two chains by the parity of t.
template <int M = 0>
inline void corr1(const ModArith& ar, v4d* out, const v4d* base, const v4d* z, const v4d* y, int t0, int lo, int hi,
                  int top) {
  if constexpr (M > 0) top = M;
#pragma GCC unroll 16
  for (int a0 = lo; a0 <= hi; a0 += 4) {
    v4d acc1[4], acc2[4];
    for (int q = 0; q < 4; ++q) acc1[q] = acc2[q] = v4d{0, 0, 0, 0};
    int t = t0;
#pragma GCC unroll 32
    for (; t + 1 <= top - a0; t += 2) {
      const v4d ya = y[t], yb = y[t + 1];
      for (int q = 0; q < 4; ++q) {
        acc1[q] = arith::fmadd(z[a0 + q + t], ya, acc1[q]);
        acc2[q] = arith::fmadd(z[a0 + q + t + 1], yb, acc2[q]);
      }
    }
    if (t <= top - a0)
      for (int q = 0; q < 4; ++q) acc1[q] = arith::fmadd(z[a0 + q + t], y[t], acc1[q]);
    for (int q = 0; q < 4; ++q)
      if (a0 + q <= hi) out[a0 + q] = ar.reduce(base[a0 + q] + acc1[q] + acc2[q]);
  }
}

/// A thread's reverse walk, whatever its compile-time half-size.
struct GradientWalkBase {
  virtual ~GradientWalkBase() = default;
  /// Adds unit u's part of every derivative into the root's adjoints.
  virtual void run_unit(std::uint64_t u) = 0;
  /// dF/d b_ij[1] of the units walked so far: haf(A - i - j) in the four lanes, i > j.
  virtual v4d derivative(int i, int j) const = 0;
};

/// Both rows of a fold at once, for one or (Two) two partners q: out_u[a] += z1 ⋆ yu1 + z2 ⋆ yu2
/// and out_v[a] += z1 ⋆ yv1 + z2 ⋆ yv2 at a = lo..hi, each reduced once, t from 1 (the b's
/// have no constant term). The z loads serve both rows. At most 2 top products a sum, under
/// corr1's conditions on z.
template <bool Two, int M = 0>
inline void corr_rows(const ModArith& ar, v4d* out_u, v4d* out_v, const v4d* z1, const v4d* yu1, const v4d* yv1,
                      const v4d* z2, const v4d* yu2, const v4d* yv2, int lo, int hi, int top) {
  if constexpr (M > 0) top = M;
#pragma GCC unroll 16
  for (int a0 = lo; a0 <= hi; a0 += 4) {
    v4d acc_u[4], acc_v[4];
    for (int q = 0; q < 4; ++q) acc_u[q] = acc_v[q] = v4d{0, 0, 0, 0};
#pragma GCC unroll 64
    for (int t = 1; t <= top - a0; ++t) {
      const v4d u1 = yu1[t], v1 = yv1[t];
      for (int q = 0; q < 4; ++q) {
        const v4d z = z1[a0 + q + t];
        acc_u[q] = arith::fmadd(z, u1, acc_u[q]);
        acc_v[q] = arith::fmadd(z, v1, acc_v[q]);
      }
      if constexpr (Two) {
        const v4d u2 = yu2[t], v2 = yv2[t];
        for (int q = 0; q < 4; ++q) {
          const v4d z = z2[a0 + q + t];
          acc_u[q] = arith::fmadd(z, u2, acc_u[q]);
          acc_v[q] = arith::fmadd(z, v2, acc_v[q]);
        }
      }
    }
    for (int q = 0; q < 4; ++q)
      if (a0 + q <= hi) {
        out_u[a0 + q] = ar.reduce(out_u[a0 + q] + acc_u[q]);
        out_v[a0 + q] = ar.reduce(out_v[a0 + q] + acc_v[q]);
      }
  }
}

/// One thread's reverse walk of an n-vertex block (n even, no loops), in units named as the
/// forward walk's are: the adjoints of the root's b accumulate over the units it walks.
template <int M = 0>
class GradientWalk final : public Walk<ModArith, M>, public GradientWalkBase {
  using Base = Walk<ModArith, M>;
  using Node = typename Base::Node;
  using V = v4d;

 public:
  GradientWalk(const ModArith& ar, const Root<V>& root, int depth) : Base(ar, root, depth) {
    const std::size_t S = this->stride();
    adj_.resize(static_cast<std::size_t>(this->m_) + 1);
    for (int l = 1; l <= this->m_; ++l) {
      const int s = this->n_ - 2 * l;
      adj_[static_cast<std::size_t>(l)].b.assign((tri(s) + 1) * S, V{});
      adj_[static_cast<std::size_t>(l)].g.assign(S + kPad, V{});
    }
    root_b_.assign((tri(this->n_) + 1) * S, V{});
    root_g_.assign(S + kPad, V{});  // + kPad: corr1 reads three places beyond degree m
  }

  void run_unit(std::uint64_t u) override {
    const int D = this->depth_;
    std::vector<Node> path(static_cast<std::size_t>(D) + 1);
    std::vector<Adj> adj(static_cast<std::size_t>(D) + 1);
    path[0] = Node{this->root_.b.data(), nullptr, this->one_.data() + kPad, v4d{1, 1, 1, 1}};
    adj[0] = Adj{root_b_.data(), root_g_.data() + kPad};
    for (int l = 0; l < D; ++l) {
      const auto at = static_cast<std::size_t>(l);
      if ((u >> (D - 1 - l)) & 1) {
        path[at + 1] = this->include(l, path[at]);
        adj[at + 1] = fresh(l + 1);
      } else {
        path[at + 1] = Node{path[at].b, nullptr, path[at].g, -path[at].w};
        adj[at + 1] = adj[at];
      }
    }
    reverse(D, path[static_cast<std::size_t>(D)], adj[static_cast<std::size_t>(D)]);
    for (int l = D - 1; l >= 0; --l)
      if ((u >> (D - 1 - l)) & 1) fold(l, path[static_cast<std::size_t>(l)], adj[static_cast<std::size_t>(l)]);
  }

  V derivative(int i, int j) const override { return root_b_[(tri(i) + static_cast<std::size_t>(j)) * this->stride() + kPad + 1]; }

 private:
  struct Adj {
    V* b;  // packed as the forward b
    V* g;  // degree 0
  };
  struct AdjFrame {
    LineVector<V> b, g;
  };

  Adj fresh(int level) {
    AdjFrame& f = adj_[static_cast<std::size_t>(level)];
    std::fill(f.b.begin(), f.b.end(), V{});
    std::fill(f.g.begin(), f.g.end(), V{});
    return Adj{f.b.data(), f.g.data() + kPad};
  }

  V* at(const Adj& a, int i, int j) const { return this->poly(a.b, tri(i) + static_cast<std::size_t>(j)); }

  /// The subtree of node x at level l, its adjoints added into xa.
  void reverse(int l, const Node& x, const Adj& xa) {
    const int s = this->n_ - 2 * l, m = this->mm();
    if (s == 2) {  // F += w sum_k t[k] g[m - k], t = b_10
      const V* t = this->entry(x.b, 1, 0);
      V* tb = at(xa, 1, 0);
      for (int k = 1; k <= m; ++k) {
        tb[k] = this->ar_.reduce(tb[k] + x.w * x.g[m - k]);
        xa.g[m - k] = this->ar_.reduce(xa.g[m - k] + x.w * t[k]);
      }
      return;
    }
    const Node c = this->include(l, x);
    const Adj ca = fresh(l + 1);
    reverse(l + 1, c, ca);
    fold(l, x, xa);
    reverse(l + 1, Node{x.b, nullptr, x.g, -x.w}, xa);
  }

  /// The adjoint of include(l, x): frame l + 1's adjoints (the include child's) into x's.
  void fold(int l, const Node& x, const Adj& xa) {
    const int s = this->n_ - 2 * l, u = s - 1, v = s - 2, m = this->mm();
    const int top = std::min(m, l + 2), top_g = std::min(m, l + 1);
    AdjFrame& cf = adj_[static_cast<std::size_t>(l) + 1];
    const Adj ca{cf.b.data(), cf.g.data() + kPad};
    const std::size_t pairs = tri(s - 2);
    for (std::size_t e = 0; e < pairs; ++e) {  // constants above the child's degrees
      V* c = this->poly(ca.b, e);
      for (int k = top + 1; k <= m; ++k) c[k] = V{};
      V* p = this->poly(xa.b, e);
      for (int k = 1; k <= top; ++k) p[k] = this->ar_.reduce(p[k] + c[k]);
    }
    for (int k = top_g + 1; k <= m; ++k) ca.g[k] = V{};
    // Rows u and v: b̄_up += sum_{q != p} c̄_pq ⋆ b_vq, b̄_vp += sum_{q != p} c̄_pq ⋆ b_uq.
    std::vector<int> others;
    others.reserve(static_cast<std::size_t>(s));
    for (int p = 0; p < s - 2; ++p) {
      others.clear();
      for (int q = 0; q < s - 2; ++q)
        if (q != p) others.push_back(q);
      V *out_u = at(xa, u, p), *out_v = at(xa, v, p);
      std::size_t r = 0;
      for (; r + 1 < others.size(); r += 2) {
        const int q1 = others[r], q2 = others[r + 1];
        const V *z1 = at(ca, std::max(p, q1), std::min(p, q1)), *z2 = at(ca, std::max(p, q2), std::min(p, q2));
        const V *u1 = this->entry(x.b, v, q1), *v1 = this->entry(x.b, u, q1);
        const V *u2 = this->entry(x.b, v, q2), *v2 = this->entry(x.b, u, q2);
        if (top == m) corr_rows<true, M>(this->ar_, out_u, out_v, z1, u1, v1, z2, u2, v2, 1, top - 1, top);
        else corr_rows<true>(this->ar_, out_u, out_v, z1, u1, v1, z2, u2, v2, 1, top - 1, top);
      }
      if (r < others.size()) {
        const int q = others[r];
        const V* z = at(ca, std::max(p, q), std::min(p, q));
        const V *u1 = this->entry(x.b, v, q), *v1 = this->entry(x.b, u, q);
        if (top == m) corr_rows<false, M>(this->ar_, out_u, out_v, z, u1, v1, z, u1, v1, 1, top - 1, top);
        else corr_rows<false>(this->ar_, out_u, out_v, z, u1, v1, z, u1, v1, 1, top - 1, top);
      }
    }
    // g' = g (1 + b_uv): ḡ += ḡ' + ḡ' ⋆ b_uv, b̄_uv += ḡ' ⋆ g.
    const V* t = this->entry(x.b, u, v);
    for (int k = 0; k <= top_g; ++k) xa.g[k] = this->ar_.reduce(xa.g[k] + ca.g[k]);
    const V* z = ca.g;
    corr1(this->ar_, xa.g, xa.g, z, t, 1, 0, top_g - 1, top_g);
    V* tb = at(xa, u, v);
    corr1(this->ar_, tb, tb, z, x.g, 0, 1, top_g, top_g);
  }

  std::vector<AdjFrame> adj_;
  LineVector<V> root_b_, root_g_;
};

/// The reverse walk for root.m, specialised where the forward walk is (make_walk).
template <int M = kMaxSpecial>
std::unique_ptr<GradientWalkBase> make_gradient_walk(const ModArith& ar, const Root<v4d>& root, int depth) {
  if constexpr (M < kMinSpecial) {
    return std::make_unique<GradientWalk<0>>(ar, root, depth);
  } else {
    if (root.m == M) return std::make_unique<GradientWalk<M>>(ar, root, depth);
    return make_gradient_walk<M - 1>(ar, root, depth);
  }
}

}  // namespace matchcount::engines::haf
