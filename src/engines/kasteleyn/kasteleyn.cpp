// The Kasteleyn engine (kasteleyn.hpp): the signed block K' in banded order, its determinant
// modulo primes below 2^50 (banded Gaussian elimination with FP64 FMA modular arithmetic,
// primes in parallel) combined by CRT, or LU with partial pivoting in floating point with a
// condition-based error estimate.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/kasteleyn/kasteleyn_band.hpp"
#include "engines/planar/float_error.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::engines {
namespace {

using planar::conj_of;
using planar::scaled;

/// Signs, banded order and global sign of a block that has a perfect matching `m`;
/// RefusedError when the band would not fit the engine's limit or the budget `max_bytes`
/// (checked first: the embedding behind the signing is the heavy part) or its graph is not
/// planar.
template <class T>
SignedBlock prepare(const SparseMatrix<T>& a, const Matching& m, std::size_t value_size, double max_bytes) {
  const int n = a.rows;
  const PatternRC pattern = pattern_of(a);
  if (n >= 2 && a.nnz() > std::size_t(4 * n - 4)) throw not_planar_error(n, a.nnz());  // Euler, before any order
  const BandOrder o = band_order(pattern, n);
  check_memory(band_text(n, o), band_bytes(n, o.kl, o.ku, value_size), max_bytes);
  std::vector<signed char> signs = kasteleyn_signing(pattern, n);
  if (signs.empty()) throw not_planar_error(n, a.nnz());
  return signed_block(pattern, n, o, std::move(signs), m);
}

/// Banded LU with partial pivoting in floating point, stored as in det_mod (U on and above
/// the diagonal, L's multipliers below it, interchanges applied as the elimination goes).
template <class T>
struct FloatLU {
  int n = 0, kl = 0, ku = 0;
  std::size_t S = 0;
  std::vector<T> a;
  std::vector<int> piv;  // the row swapped with row c at step c
  int zero_pivots = 0;
  bool negate = false;

  FloatLU(const SignedBlock& b) : n(b.n), kl(b.kl), ku(b.ku), S(std::size_t(b.stride())),
                                  a(std::size_t(b.n) * S, T(0)), piv(std::size_t(b.n)) {}
  T& at(int i, int j) { return a[std::size_t(i) * S + std::size_t(j - i + kl)]; }
  const T& at(int i, int j) const { return a[std::size_t(i) * S + std::size_t(j - i + kl)]; }
  int last(int c) const { return std::min(n - 1, c + kl); }
  int end(int c) const { return std::min(n - 1, c + kl + ku); }

  void factor() {
    std::vector<int> rend(static_cast<std::size_t>(n));  // last column a row may hold nonzero (as det_mod)
    for (int i = 0; i < n; ++i) {
      rend[std::size_t(i)] = i;
      for (int j = std::max(0, i - kl); j <= std::min(n - 1, i + ku); ++j)
        if (at(i, j) != T(0)) rend[std::size_t(i)] = std::max(rend[std::size_t(i)], j);
    }
    for (int c = 0; c < n; ++c) {
      int r = c;
      double best = std::abs(at(c, c));
      for (int i = c + 1; i <= last(c); ++i)
        if (std::abs(at(i, c)) > best) r = i, best = std::abs(at(i, c));
      piv[std::size_t(c)] = r;
      if (best == 0) {  // singular in floating point: det 0, and the error says how unsure
        ++zero_pivots;
        continue;
      }
      if (r != c) {
        for (int j = c, e = std::max(rend[std::size_t(r)], rend[std::size_t(c)]); j <= e; ++j) std::swap(at(r, j), at(c, j));
        std::swap(rend[std::size_t(r)], rend[std::size_t(c)]);
        negate = !negate;
      }
      const T pivot = at(c, c);
      for (int rr = c + 1; rr <= last(c); ++rr) {
        if (at(rr, c) == T(0)) continue;
        const T f = at(rr, c) / pivot;
        at(rr, c) = f;
        T* q = &at(rr, c + 1);
        const T* u = &at(c, c + 1);
        const int len = rend[std::size_t(c)] - c;
        rend[std::size_t(rr)] = std::max(rend[std::size_t(rr)], rend[std::size_t(c)]);
        if constexpr (std::is_same_v<T, Complex>) {  // written out: no __muldc3 call per entry
          auto* qd = reinterpret_cast<double*>(q);
          const auto* ud = reinterpret_cast<const double*>(u);
          const double fr = f.real(), fi = f.imag();
          for (int t = 0; t < len; ++t) {
            const double ur = ud[2 * t], ui = ud[2 * t + 1];
            qd[2 * t] -= fr * ur - fi * ui, qd[2 * t + 1] -= fr * ui + fi * ur;
          }
        } else {
          for (int t = 0; t < len; ++t) q[t] -= f * u[t];
        }
      }
    }
  }
  /// x := A^-1 x (A = P_0 L_0 ... P_{n-1} L_{n-1} U; no zero pivots).
  void solve(std::vector<T>& x) const {
    for (int c = 0; c < n; ++c) {
      std::swap(x[std::size_t(c)], x[std::size_t(piv[std::size_t(c)])]);
      for (int rr = c + 1; rr <= last(c); ++rr) x[std::size_t(rr)] -= at(rr, c) * x[std::size_t(c)];
    }
    for (int c = n - 1; c >= 0; --c) {
      T s = x[std::size_t(c)];
      for (int j = c + 1; j <= end(c); ++j) s -= at(c, j) * x[std::size_t(j)];
      x[std::size_t(c)] = s / at(c, c);
    }
  }
  /// x := A^-H x.
  void solve_adjoint(std::vector<T>& x) const {
    for (int c = 0; c < n; ++c) {
      x[std::size_t(c)] /= conj_of(at(c, c));
      for (int j = c + 1; j <= end(c); ++j) x[std::size_t(j)] -= conj_of(at(c, j)) * x[std::size_t(c)];
    }
    for (int c = n - 1; c >= 0; --c) {
      T s = x[std::size_t(c)];
      for (int rr = c + 1; rr <= last(c); ++rr) s -= conj_of(at(rr, c)) * x[std::size_t(rr)];
      x[std::size_t(c)] = s;
      std::swap(x[std::size_t(c)], x[std::size_t(piv[std::size_t(c)])]);
    }
  }
};

/// det K' by LU with partial pivoting, rows first scaled by powers of two (exactly) so that
/// each row's largest entry is near 1; the product of pivots is kept as mantissa and
/// exponent, so a permanent beyond double range comes back as inf (the pipeline refuses it).
///
/// Error estimate. LU with partial pivoting is backward stable: L U = P (A + E) with
/// |E| <= g |L||U|, g = (kl + 2) u (inner products of at most kl + 1 terms; 3u a complex
/// operation). To first order det(A + E) = det A (1 + tr(A^-1 E)), and
/// |tr(A^-1 E)| <= ||A^-1||_1 * sum |E| <= ||A^-1||_1 * g * sum(|L||U|). ||A^-1||_1 comes from
/// Hager's estimator (a lower bound, usually within a factor 3; hence the factor 2 below),
/// sum(|L||U|) exactly from the factors; the n products of pivots add (n + 1) u. So an
/// ill-conditioned K' (a permanent that cancels) gets a large relative error, a well
/// conditioned one about n kl u times the growth. It is an estimate, not a proof: Hager's
/// estimate may undershoot and second-order terms are dropped. A zero pivot (K' singular in
/// floating point) gives 0 with the error of perturbing that pivot by g * ||L||U||.
///
/// Entries that carry errors (EngineOptions::entry_error, e_k each) perturb K' by the scaled e_k
/// as a backward error does: sum_k e_k 2^-shift is added to sum |E| beside g * sum(|L||U|).
template <class T>
Approx<T> float_permanent(const SparseMatrix<T>& a, const SignedBlock& b, const EngineOptions& opt) {
  FloatLU<T> lu(b);
  const int n = b.n;
  std::vector<int> shift(std::size_t(n), std::numeric_limits<int>::min());
  for (std::size_t k = 0; k < a.entries.size(); ++k) {
    int e = 0;
    std::frexp(std::abs(a.entries[k].value), &e);
    shift[std::size_t(b.row[k])] = std::max(shift[std::size_t(b.row[k])], e);
  }
  long total = 0;
  for (int e : shift) total += e;
  for (std::size_t k = 0; k < a.entries.size(); ++k)
    lu.at(b.row[k], b.col[k]) = scaled(T(double(b.s[k])) * a.entries[k].value, -shift[std::size_t(b.row[k])]);
  lu.factor();

  const bool cplx = std::is_same_v<T, Complex>;
  const double g = (lu.kl + 2) * kEps * (cplx ? 3 : 1);
  std::vector<double> colsum(std::size_t(n), 1.0);  // 1^T |L|, then sum(|L||U|)
  double lu_sum = 0;
  for (int c = 0; c < n; ++c)
    for (int rr = c + 1; rr <= lu.last(c); ++rr) colsum[std::size_t(c)] += std::abs(lu.at(rr, c));
  double lu_max = 0;
  std::vector<double> v(std::size_t(n), 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = i; j <= lu.end(i); ++j) v[std::size_t(j)] += colsum[std::size_t(i)] * std::abs(lu.at(i, j));
  for (double x : v) lu_sum += x, lu_max = std::max(lu_max, x);

  planar::PivotProduct<T> det(lu.negate != (b.sign < 0), total);
  for (int c = 0; c < n; ++c) det.multiply(lu.at(c, c));
  double moved = 0;  // sum of the scaled entries' errors
  const std::vector<double> e = entry_errors(a, opt);
  for (std::size_t k = 0; k < e.size(); ++k) moved += std::ldexp(e[k], -shift[std::size_t(b.row[k])]);
  if (lu.zero_pivots > 0) return det.zero_with_error(lu.zero_pivots, 2 * (g * lu_max + moved));
  return det.with_relative_error(
      2 * ((g * lu_sum + moved) * planar::inverse_norm1(lu) + (n + 1) * kEps * (cplx ? 3 : 1)));
}

class KasteleynEngine final : public Engine {
 public:
  std::string name() const override { return "kasteleyn"; }
  int max_n() const override { return kKasteleynMaxN; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    Matching m;
    if (!start(a, m)) return 0;
    return exact_permanent(a, m, opt);
  }
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return floating(a, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return floating(a, opt);
  }

 private:
  /// False when the block has no perfect matching (the permanent is 0).
  template <class T>
  bool start(const SparseMatrix<T>& a, Matching& m) const {
    m = hopcroft_karp(Pattern::of(a));
    return m.perfect();
  }
  template <class T>
  Approx<T> floating(const SparseMatrix<T>& a, const EngineOptions& opt) const {
    Matching m;
    if (!start(a, m)) return {T(0.0), 0.0};
    Approx<T> r = float_permanent(a, prepare(a, m, sizeof(T), opt.max_bytes), opt);
    if (opt.progress) opt.progress(1.0);
    return r;
  }
};

}  // namespace

std::unique_ptr<Engine> make_kasteleyn() { return std::make_unique<KasteleynEngine>(); }

}  // namespace matchcount::engines
