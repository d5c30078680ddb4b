// Floating-point hafnians of the Pfaffian engine (pfaffian.hpp): Pf(K') by a banded
// skew-symmetric elimination with threshold pivoting (Parlett-Reid style, two rows a step),
// and an estimate of the rounding error from the factors and a condition estimate.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "engines/common.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"
#include "engines/planar/float_error.hpp"

namespace matchcount::engines::pfaffian_detail {
namespace {

using planar::conj_of;
using planar::scaled;

/// A pivot is taken from the nearest column whose entry is at least this fraction of the
/// row's largest: multipliers stay below 1/kThreshold while interchanges, which widen the
/// band, stay rare.
constexpr double kThreshold = 0.1;

/// The factorization P K P^T = L D L^T as the elimination leaves it: per step k (even) the
/// column j exchanged with k+1 (interchanges applied as the elimination goes), the pivot
/// a_k = K(k, k+1), and in rows k and k+1 the columns of L: L(x, k) = -g_x, L(x, k+1) = f_x
/// with f = K(k, .)/a_k and g = K(k+1, .)/a_k, x = k+2..end[k]. Storage as ModBand's
/// (pfaffian_mod.cpp): K(i, j), i < j <= i + cap, at a[i * stride + (j - i)], one zero slot
/// after cap (a step reads row k up to column k + 1 + cap).
template <class T>
struct FloatSkew {
  int n = 0, cap = 0, stride = 0;
  std::vector<T> a;
  std::vector<int> ext, swap_with, end;
  std::vector<T> pivot;
  int zero_pivots = 0, widest = 0;
  bool negate = false;
  double ldl_sum = 0;  // sum of the entries of |L| |D| |L^T|

  FloatSkew(int rows, int band) : n(rows), cap(std::max(band, 1)), stride(cap + 2),
                                  a(std::size_t(rows) * std::size_t(stride), T(0)), ext(std::size_t(rows)),
                                  swap_with(std::size_t(rows), -1), end(std::size_t(rows), 0),
                                  pivot(std::size_t(rows), T(0)) {
    for (int i = 0; i < n; ++i) ext[std::size_t(i)] = i;
  }
  T& at(int i, int j) { return a[std::size_t(i) * std::size_t(stride) + std::size_t(j - i)]; }
  const T& at(int i, int j) const { return a[std::size_t(i) * std::size_t(stride) + std::size_t(j - i)]; }

  void widen(int need) {
    const int new_cap = std::max(need, cap + cap / 2 + 1), new_stride = new_cap + 2;
    std::vector<T> wide(std::size_t(n) * std::size_t(new_stride), T(0));
    for (int i = 0; i < n; ++i)
      std::copy_n(&a[std::size_t(i) * std::size_t(stride)], stride, &wide[std::size_t(i) * std::size_t(new_stride)]);
    a.swap(wide);
    cap = new_cap, stride = new_stride;
  }
  /// As ModBand::exchange: positions P and Q (k < P < Q) in the active rows (>= k); the rows
  /// of earlier steps keep the positions of their own step.
  void exchange(int k, int P, int Q) {
    if (ext[std::size_t(Q)] - P > cap) widen(ext[std::size_t(Q)] - P);
    std::swap(at(k, P), at(k, Q));
    for (int y = P + 1; y < Q; ++y) {
      const T t = at(P, y);
      at(P, y) = -at(y, Q);
      at(y, Q) = -t;
      if (t != T(0)) ext[std::size_t(y)] = std::max(ext[std::size_t(y)], Q);
    }
    at(P, Q) = -at(P, Q);
    const int ep = ext[std::size_t(P)], eq = ext[std::size_t(Q)];
    for (int z = Q + 1; z <= std::max(ep, eq); ++z) std::swap(at(P, z), at(Q, z));
    ext[std::size_t(P)] = std::max(eq, Q);
    ext[std::size_t(Q)] = std::max(ep, Q);
  }

  void factor() {
    for (int k = 0; k < n; k += 2) {
      const int ek = ext[std::size_t(k)];
      double best = 0;
      for (int j = k + 1; j <= ek; ++j) best = std::max(best, std::abs(at(k, j)));
      if (best == 0) {  // Pf of the active part is 0 in floating point; the error says how unsure
        ++zero_pivots;
        end[std::size_t(k)] = k + 1;
        continue;
      }
      int j = k + 1;
      while (std::abs(at(k, j)) < kThreshold * best) ++j;
      swap_with[std::size_t(k)] = j;
      if (j != k + 1) exchange(k, k + 1, j), negate = !negate;
      const T piv = at(k, k + 1);
      pivot[std::size_t(k)] = piv;
      const int E = std::max(ext[std::size_t(k)], ext[std::size_t(k + 1)]);
      end[std::size_t(k)] = E;
      widest = std::max(widest, E - k);
      const T inv = T(1) / piv;
      for (int y = k + 2; y <= E; ++y) at(k, y) *= inv;  // f
      for (int x = k + 2; x < E; ++x) {
        const T c1 = -at(k, x), c2 = at(k + 1, x);
        if (c1 == T(0) && c2 == T(0)) continue;
        ext[std::size_t(x)] = std::max(ext[std::size_t(x)], E);
        update_row(&at(x, x + 1), &at(k + 1, x + 1), &at(k, x + 1), c1, c2, E - x);
      }
      double sf = 1, sg = 1;
      for (int y = k + 2; y <= E; ++y) {
        at(k + 1, y) *= inv;  // g
        sf += std::abs(at(k, y)), sg += std::abs(at(k + 1, y));
      }
      ldl_sum += 2 * std::abs(piv) * sf * sg;
    }
  }
  /// q[s] += c1 b[s] + c2 f[s], s < len (complex products written out: no __muldc3 per entry).
  static void update_row(T* q, const T* b, const T* f, T c1, T c2, int len) {
    if constexpr (std::is_same_v<T, Complex>) {
      auto* qd = reinterpret_cast<double*>(q);
      const auto* bd = reinterpret_cast<const double*>(b);
      const auto* fd = reinterpret_cast<const double*>(f);
      const double r1 = c1.real(), i1 = c1.imag(), r2 = c2.real(), i2 = c2.imag();
      for (int s = 0; s < len; ++s) {
        const double br = bd[2 * s], bi = bd[2 * s + 1], fr = fd[2 * s], fi = fd[2 * s + 1];
        qd[2 * s] += (r1 * br - i1 * bi) + (r2 * fr - i2 * fi);
        qd[2 * s + 1] += (r1 * bi + i1 * br) + (r2 * fi + i2 * fr);
      }
    } else {
      for (int s = 0; s < len; ++s) q[s] += c1 * b[s] + c2 * f[s];
    }
  }

  /// x := K^-1 x (no zero pivots): K = P_0 L_0 (D_0 + P_1 L_1 (D_1 + ...) L_1^T P_1) L_0^T P_0.
  void solve(std::vector<T>& x) const {
    for (int k = 0; k < n; k += 2) {
      std::swap(x[std::size_t(k + 1)], x[std::size_t(swap_with[std::size_t(k)])]);
      const T xk = x[std::size_t(k)], xk1 = x[std::size_t(k + 1)];
      for (int y = k + 2; y <= end[std::size_t(k)]; ++y) x[std::size_t(y)] += at(k + 1, y) * xk - at(k, y) * xk1;
    }
    for (int k = 0; k < n; k += 2) {  // D^-1, block [[0, a], [-a, 0]]^-1 = [[0, -1/a], [1/a, 0]]
      const T xk = x[std::size_t(k)];
      x[std::size_t(k)] = -x[std::size_t(k + 1)] / pivot[std::size_t(k)];
      x[std::size_t(k + 1)] = xk / pivot[std::size_t(k)];
    }
    for (int k = n - 2; k >= 0; k -= 2) {
      T sk = x[std::size_t(k)], sk1 = x[std::size_t(k + 1)];
      for (int y = k + 2; y <= end[std::size_t(k)]; ++y) {
        sk += at(k + 1, y) * x[std::size_t(y)];
        sk1 -= at(k, y) * x[std::size_t(y)];
      }
      x[std::size_t(k)] = sk, x[std::size_t(k + 1)] = sk1;
      std::swap(x[std::size_t(k + 1)], x[std::size_t(swap_with[std::size_t(k)])]);
    }
  }
  /// x := K^-H x = -conj(K^-1 conj(x)), as K^T = -K.
  void solve_adjoint(std::vector<T>& x) const {
    for (T& v : x) v = -conj_of(v);
    solve(x);
    for (T& v : x) v = conj_of(v);
  }
};

}  // namespace

/// Pf(K') with vertex i scaled by 2^-s_i (exactly; Pf(S K S) = det S Pf(K)), the s_i chosen so
/// that every row's largest entry a_ij 2^-(s_i + s_j) is near 1; the product of pivots is kept as mantissa and exponent, so a
/// value beyond double range comes back as inf (the pipeline refuses it).
///
/// Error estimate. The elimination is backward stable in the sense of symmetric indefinite
/// factorizations: L D L^T = P (K + E) P^T with |E| <= g (|K| + |L||D||L^T|), g = (w + 4) u for
/// w the widest step (an entry takes at most w/2 + 1 steps of two products; 3u a complex
/// operation). To first order Pf(K + E) = Pf(K) (1 + tr(K^-1 E) / 2), and |tr(K^-1 E)| <=
/// ||K^-1||_1 * sum |E|. ||K^-1||_1 comes from Hager's estimator (a lower bound, usually within
/// a factor 3; hence the factor 2 below), sum |L||D||L^T| exactly from the factors; the n/2
/// products of pivots add (n/2 + 1) u. An estimate, not a proof. A zero pivot row (K' singular
/// in floating point) gives 0 with the error of perturbing that pivot by 2 g max|K|. Entries that
/// carry errors (opt.entry_error) perturb K' as a backward error does: their scaled errors join
/// sum |E| (twice, both triangles).
template <class T>
Approx<T> float_pfaffian(const SparseMatrix<T>& a, const SkewBlock& b, const EngineOptions& opt) {
  const int n = b.n;
  // Symmetric equilibration by powers of two (Ruiz's iteration on exponents): each sweep halves
  // the exponent by which a vertex's largest scaled entry is off 1.
  std::vector<int> expo(b.entry.size()), shift(std::size_t(n), 0);
  for (std::size_t k = 0; k < b.entry.size(); ++k) std::frexp(std::abs(a.entries[b.entry[k]].value), &expo[k]);
  for (int sweep = 0; sweep < 6; ++sweep) {
    std::vector<int> top(std::size_t(n), std::numeric_limits<int>::min());
    for (std::size_t k = 0; k < b.entry.size(); ++k) {
      const int e = expo[k] - shift[std::size_t(b.row[k])] - shift[std::size_t(b.col[k])];
      for (int v : {b.row[k], b.col[k]}) top[std::size_t(v)] = std::max(top[std::size_t(v)], e);
    }
    bool moved = false;
    for (int i = 0; i < n; ++i) {
      const int t = top[std::size_t(i)], half = t >= 0 ? t / 2 : -((-t + 1) / 2);
      shift[std::size_t(i)] += half, moved = moved || half != 0;
    }
    if (!moved) break;
  }
  long total = 0;
  for (int e : shift) total += e;
  FloatSkew<T> f(n, b.band);
  double sum_k = 0, max_k = 0, moved = 0;
  for (std::size_t k = 0; k < b.entry.size(); ++k) {
    const int sh = -shift[std::size_t(b.row[k])] - shift[std::size_t(b.col[k])];
    const T v = scaled(T(double(b.s[k])) * a.entries[b.entry[k]].value, sh);
    if (opt.entry_error) moved += 2 * std::ldexp(opt.entry_error(Complex(a.entries[b.entry[k]].value)), sh);
    f.at(b.row[k], b.col[k]) = v;
    f.ext[std::size_t(b.row[k])] = std::max(f.ext[std::size_t(b.row[k])], b.col[k]);
    sum_k += 2 * std::abs(v), max_k = std::max(max_k, std::abs(v));
  }
  f.factor();

  const bool cplx = std::is_same_v<T, Complex>;
  const double g = (f.widest + 4) * kEps * (cplx ? 3 : 1);
  planar::PivotProduct<T> pf(f.negate != (b.eps < 0), total);
  for (int k = 0; k < n; k += 2) pf.multiply(f.pivot[std::size_t(k)]);
  if (f.zero_pivots > 0) return pf.zero_with_error(f.zero_pivots, 2 * (g * std::max(max_k, 1.0) + moved));
  return pf.with_relative_error(
      2 * (0.5 * planar::inverse_norm1(f) * (g * (sum_k + f.ldl_sum) + moved) + (n / 2 + 1) * kEps * (cplx ? 3 : 1)));
}

template Approx<double> float_pfaffian(const SparseMatrix<double>&, const SkewBlock&, const EngineOptions&);
template Approx<Complex> float_pfaffian(const SparseMatrix<Complex>&, const SkewBlock&, const EngineOptions&);

}  // namespace matchcount::engines::pfaffian_detail
