// The torontonian's walk over subsets of modes (private to torontonian.cpp): one thread's stack
// of Schur complements, depth first.
//
// M = I - O with the rows and columns of mode i at 2i and 2i + 1. A node is a set Z of modes in
// increasing order, last mode l. It holds the Schur complement of M_Z in M over the modes after
// l, S_Z = M_RR - M_RZ M_Z^-1 M_ZR (R = {l+1 .. n-1}), the running 1 / sqrt(det M_Z), and for
// the loop torontonian the residual w_R = v_R - M_RZ M_Z^-1 v_Z and q_Z = v_Z^* M_Z^-1 v_Z
// (v = conj(gamma)). The child adding mode j of R eliminates j's 2 x 2 block from S_Z: two
// steps of outer-product Cholesky, whose pivots give det M_{Z+j} = det M_Z * d0^2 d1^2 and whose
// rank-2 update, restricted to the modes after j, is S_{Z+j} (the quotient property of Schur
// complements). A node with r modes after its last costs about 4 r^2 multiply-adds, and 2^(n-1-i)
// nodes end at mode i: the whole walk is about 12 * 2^n multiply-adds, against the n^2 2^n of
// extending one Cholesky factor per subset (Kaposi et al., arXiv:2109.04528). The numbers are
// those of an outer-product Cholesky of each M_Z, so its backward error bound holds for every
// term (torontonian.cpp). A work unit fixes which of the first `fixed` modes are in Z; its root
// eliminates those from M over them and the free modes.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace matchcount::engines::tor {

/// The real type of an arithmetic (double or long double, real or complex).
template <class T> struct RealOf { using type = T; };
template <class R> struct RealOf<std::complex<R>> { using type = R; };
template <class T> using Real = typename RealOf<T>::type;

template <class R> R abs2(R x) { return x * x; }
template <class R> R abs2(const std::complex<R>& x) { return std::norm(x); }
template <class R> R conj_of(R x) { return x; }
template <class R> std::complex<R> conj_of(const std::complex<R>& x) { return std::conj(x); }

/// A unit's sums: the positive and negative terms in double-double, the sum of |terms|, the
/// largest q_Z, and 1 when a pivot was not positive (M not positive definite in floating point).
enum Word { kPosHi, kPosLo, kNegHi, kNegLo, kAbs, kMaxQ, kFailed, kWords };

/// A node's running values: 1 / sqrt(det M_Z) and q_Z.
struct Running {
  double inv = 1, q = 0;
};

/// Eliminates pair j of the 2r x 2r Hermitian `a` (lower triangle read, row stride 2r) into the
/// 2(r - 1 - j) square `out` over the pairs after j (lower triangle written), and the residual
/// `w` into `w_out` when loops (w non-null). False when a pivot is not positive.
template <class T>
bool eliminate(const T* a, int r, int j, T* out, const T* w, T* w_out, Running& run) {
  const int d = 2 * r, i0 = 2 * j, i1 = i0 + 1, rest = d - 2 * (j + 1);
  using R = Real<T>;
  const auto at = [&](int x, int y) -> const T& { return a[static_cast<std::size_t>(x) * static_cast<std::size_t>(d) + static_cast<std::size_t>(y)]; };
  const R p0 = std::real(at(i0, i0));
  if (!(p0 > 0)) return false;
  const R d0 = std::sqrt(p0), inv0 = R(1) / d0;
  const T l10 = at(i1, i0) * inv0;
  const R p1 = std::real(at(i1, i1)) - abs2(l10);
  if (!(p1 > 0)) return false;
  const R d1 = std::sqrt(p1), inv1 = R(1) / d1;
  run.inv /= static_cast<double>(d0 * d1);
  // The pair's column of the factor, rows after it (at most 2 * 48 - 2).
  T c0[96], c1[96];
  for (int x = 0; x < rest; ++x) {
    const int row = 2 * (j + 1) + x;
    c0[x] = at(row, i0) * inv0;
    c1[x] = (at(row, i1) - c0[x] * conj_of(l10)) * inv1;
  }
  for (int x = 0; x < rest; ++x) {
    const T* src = &a[static_cast<std::size_t>(2 * (j + 1) + x) * static_cast<std::size_t>(d) + static_cast<std::size_t>(2 * (j + 1))];
    T* dst = &out[static_cast<std::size_t>(x) * static_cast<std::size_t>(rest)];
    const T x0 = c0[x], x1 = c1[x];
    for (int y = 0; y <= x; ++y) dst[y] = src[y] - x0 * conj_of(c0[y]) - x1 * conj_of(c1[y]);
  }
  if (w) {  // forward solve of the pair's two entries of y, and the residual of the rows after
    const T y0 = w[i0] * inv0;
    const T y1 = (w[i1] - l10 * y0) * inv1;
    run.q += static_cast<double>(abs2(y0) + abs2(y1));
    for (int x = 0; x < rest; ++x) w_out[x] = w[2 * (j + 1) + x] - c0[x] * y0 - c1[x] * y1;
  }
  return true;
}

template <class T>
class Walk {
 public:
  /// m: (2n)^2 entries of M in pair order; v: conj(gamma) in pair order, empty without loops.
  Walk(int modes, const std::vector<T>& m, const std::vector<T>& v, int fixed)
      : n_(modes), fixed_(fixed), free_(modes - fixed), m_(m), v_(v) {
    // Level t holds a node's Schur complement over at most free_ - t pairs; the unit's root
    // level over the included fixed modes and the free ones (at most n pairs).
    for (int t = 0; t <= free_; ++t) {
      const std::size_t dim = 2 * static_cast<std::size_t>(free_ - t);
      level_.emplace_back(dim * dim);
      w_.emplace_back(dim);
    }
    root_.resize(static_cast<std::size_t>(4 * n_ * n_));
    root_w_.resize(static_cast<std::size_t>(2 * n_));
    spare_ = root_;
    spare_w_ = root_w_;
  }

  std::vector<double> run(std::uint64_t unit) {
    sums_.assign(kWords, 0.0);
    // The root: M over the included fixed modes and the free ones, those fixed modes eliminated.
    std::vector<int> rows;
    for (int i = 0; i < fixed_; ++i)
      if ((unit >> (fixed_ - 1 - i)) & 1) rows.push_back(i);
    const int included = static_cast<int>(rows.size());
    for (int i = fixed_; i < n_; ++i) rows.push_back(i);
    int r = static_cast<int>(rows.size());
    const int d = 2 * r;
    for (int x = 0; x < d; ++x) {
      const int sx = 2 * rows[static_cast<std::size_t>(x / 2)] + x % 2;
      for (int y = 0; y <= x; ++y) {
        const int sy = 2 * rows[static_cast<std::size_t>(y / 2)] + y % 2;
        root_[static_cast<std::size_t>(x) * static_cast<std::size_t>(d) + static_cast<std::size_t>(y)] =
            m_[static_cast<std::size_t>(sx) * static_cast<std::size_t>(2 * n_) + static_cast<std::size_t>(sy)];
      }
      if (!v_.empty()) root_w_[static_cast<std::size_t>(x)] = v_[static_cast<std::size_t>(sx)];
    }
    Running run;
    T* cur = root_.data();
    T* cur_w = root_w_.data();
    T* nxt = spare_.data();
    T* nxt_w = spare_w_.data();
    for (int k = 0; k < included; ++k, --r) {
      if (!eliminate(cur, r, 0, nxt, v_.empty() ? nullptr : cur_w, nxt_w, run)) return fail();
      std::swap(cur, nxt), std::swap(cur_w, nxt_w);
    }
    // r == free_ now: copy into level 0 (lower triangle) and walk.
    std::copy(cur, cur + static_cast<std::size_t>(4 * r * r), level_[0].begin());
    std::copy(cur_w, cur_w + 2 * r, w_[0].begin());
    node(0, r, included, run);
    return sums_;
  }

 private:
  std::vector<double> fail() {
    sums_[kFailed] = 1;
    return sums_;
  }

  /// The term of the node at level t (its Schur complement over r pairs, k modes in Z) and its
  /// subtree.
  void node(int t, int r, int k, Running run) {
    term(k, run);
    const T* a = level_[static_cast<std::size_t>(t)].data();
    const T* w = v_.empty() ? nullptr : w_[static_cast<std::size_t>(t)].data();
    for (int j = 0; j < r; ++j) {
      Running child = run;
      T* out = t + 1 < static_cast<int>(level_.size()) ? level_[static_cast<std::size_t>(t) + 1].data() : nullptr;
      T* w_out = w ? w_[static_cast<std::size_t>(t) + 1].data() : nullptr;
      if (!eliminate(a, r, j, out, w, w_out, child)) {
        sums_[kFailed] = 1;
        return;
      }
      if (j + 1 == r) term(k + 1, child);  // no modes after j: a leaf
      else node(t + 1, r - 1 - j, k + 1, child);
    }
  }

  void term(int k, const Running& run) {
    const double t = v_.empty() ? run.inv : run.inv * std::exp(0.5 * run.q);
    add((n_ - k) % 2 ? kNegHi : kPosHi, t);
    sums_[kAbs] += t;
    if (run.q > sums_[kMaxQ]) sums_[kMaxQ] = run.q;
  }

  /// Two-sum into (hi, lo) at word w.
  void add(int w, double x) {
    double& hi = sums_[static_cast<std::size_t>(w)];
    double& lo = sums_[static_cast<std::size_t>(w) + 1];
    const double s = hi + x, bp = s - hi;
    lo += (hi - (s - bp)) + (x - bp);
    hi = s;
  }

  int n_, fixed_, free_;
  const std::vector<T>& m_;
  const std::vector<T>& v_;
  std::vector<std::vector<T>> level_, w_;
  std::vector<T> root_, root_w_, spare_, spare_w_;
  std::vector<double> sums_;
};

}  // namespace matchcount::engines::tor
