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
#include "engines/planar/band_mod.hpp"
#include "engines/planar/float_error.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::engines {
namespace {

using arith::broadcast;
using arith::modmul;
using arith::modreduce;
using planar::conj_of;
using planar::load4;
using planar::mul_add_mod;
using planar::scaled;
using planar::store4;

/// The block signed and reordered: perm(A) = sign * det(K'), K' banded (kasteleyn.hpp).
struct SignedBlock {
  int n = 0, kl = 0, ku = 0;
  int sign = 1;
  std::vector<int> row, col;          // per entry of A: its position in K'
  std::vector<signed char> s;         // per entry of A: its Kasteleyn sign
  int stride() const { return 2 * kl + ku + 4; }  // band 2kl+ku+1, 3 for vector overrun
};

/// Signs, banded order and global sign of a block that has a perfect matching `m`;
/// RefusedError when the band would not fit the engine's limit or the budget `max_bytes`
/// (checked first: the embedding behind the signing is the heavy part) or its graph is not
/// planar.
template <class T>
SignedBlock prepare(const SparseMatrix<T>& a, const Matching& m, std::size_t value_size, double max_bytes) {
  const int n = a.rows;
  const PatternRC pattern = pattern_of(a);
  SignedBlock b;
  b.n = n;
  if (n >= 2 && a.nnz() > std::size_t(4 * n - 4)) throw not_planar_error(n, a.nnz());  // Euler, before any order
  const BandOrder o = band_order(pattern, n);
  b.kl = o.kl, b.ku = o.ku;
  const double bytes = band_bytes(n, o.kl, o.ku, value_size), limit = std::min(kKasteleynMemoryLimit, max_bytes);
  if (bytes > limit)
    refuse_memory(limit < kKasteleynMemoryLimit,
                  "kasteleyn: banded elimination of this " + std::to_string(n) + " x " + std::to_string(n) +
                      " block (bandwidths " + std::to_string(o.kl) + " and " + std::to_string(o.ku) + ") needs " +
                      three_digits(bytes / double(1ull << 30)) + " GiB, over the " +
                      (limit < kKasteleynMemoryLimit ? "memory budget (--max-memory) of " : "limit of ") +
                      three_digits(limit / double(1ull << 30)) + " GiB");
  b.s = kasteleyn_signing(pattern, n);
  if (b.s.empty()) throw not_planar_error(n, a.nnz());
  for (const auto& e : a.entries) {
    const int r = e.row, c = e.col;
    b.row.push_back(o.transposed ? o.row_pos[std::size_t(c)] : o.row_pos[std::size_t(r)]);
    b.col.push_back(o.transposed ? o.col_pos[std::size_t(r)] : o.col_pos[std::size_t(c)]);
  }
  // All perfect matchings enter det K' with the sign of this one: perm = sign * det K'.
  std::vector<int> tau(static_cast<std::size_t>(n));
  b.sign = 1;
  for (std::size_t k = 0; k < a.entries.size(); ++k) {
    const auto& e = a.entries[k];
    if (m.col_of_row[std::size_t(e.row)] != e.col) continue;
    tau[std::size_t(b.row[k])] = b.col[k];
    b.sign *= b.s[k];
  }
  b.sign *= planar::permutation_sign(tau);
  return b;
}

/// det K' mod p in [0, p): banded LU with row interchanges (as LAPACK's gbtrf: U's band
/// widens to kl + ku), any nonzero pivot serving. Entries are kept as exact integers in
/// [-p, p] (so -p, 0 and p are the zeros); a row update is one mul_add_mod per entry, four
/// entries a vector. `buf` is the caller's scratch (n * stride doubles).
std::uint64_t det_mod(const SignedBlock& b, const std::vector<double>& cell, double p, std::vector<double>& buf) {
  const int n = b.n, kl = b.kl;
  const std::size_t S = std::size_t(b.stride());
  const double pinv = 1.0 / p;
  buf.assign(std::size_t(n) * S, 0.0);
  auto at = [&](int i, int j) -> double& { return buf[std::size_t(i) * S + std::size_t(j - i + kl)]; };
  std::vector<int> rend(static_cast<std::size_t>(n), 0);  // last column a row may hold nonzero
  for (std::size_t k = 0; k < cell.size(); ++k) {
    at(b.row[k], b.col[k]) = cell[k];
    rend[std::size_t(b.row[k])] = std::max(rend[std::size_t(b.row[k])], b.col[k]);
  }
  const v4d P = broadcast(p, v4d{}), PI = broadcast(pinv, v4d{});
  double det = 1;
  bool negate = false;
  for (int c = 0; c < n; ++c) {
    const int last = std::min(n - 1, c + kl);
    int r = c;
    while (r <= last && planar::is_zero_mod(at(r, c), p)) ++r;
    if (r > last) return 0;
    if (r != c) {
      for (int j = c, e = std::max(rend[std::size_t(r)], rend[std::size_t(c)]); j <= e; ++j) std::swap(at(r, j), at(c, j));
      std::swap(rend[std::size_t(r)], rend[std::size_t(c)]);
      negate = !negate;
    }
    const double pivot = modreduce(at(c, c), p, pinv);
    det = modmul(det, pivot, p, pinv);
    const double inv = double(inv_mod(to_residue(pivot, std::uint64_t(p)), std::uint64_t(p)));
    const double* prow = &at(c, c + 1);
    // Only the pivot row's extent is updated: without interchanges U keeps bandwidth ku, and
    // the work is kl * ku a column instead of gbtrf's kl * (kl + ku).
    const int rc = rend[std::size_t(c)], len = rc - c;
    int rows[2], pending = 0;  // rows updated in pairs: one load of the pivot row serves both
    for (int rr = c + 1; rr <= last + 1; ++rr) {
      if (rr <= last) {
        if (at(rr, c) == 0) continue;  // sparse rows: only the fill-in so far is touched
        rows[pending++] = rr;
        rend[std::size_t(rr)] = std::max(rend[std::size_t(rr)], rc);
        if (pending < 2) continue;
      }
      if (pending == 2) {
        const v4d f0 = broadcast(-modmul(at(rows[0], c), inv, p, pinv), v4d{});
        const v4d f1 = broadcast(-modmul(at(rows[1], c), inv, p, pinv), v4d{});
        double *q0 = &at(rows[0], c + 1), *q1 = &at(rows[1], c + 1);
        for (int t = 0; t < len; t += 4) {
          const v4d u = load4(prow + t);
          store4(q0 + t, mul_add_mod(load4(q0 + t), f0, u, P, PI));
          store4(q1 + t, mul_add_mod(load4(q1 + t), f1, u, P, PI));
        }
      } else if (pending == 1) {
        const v4d f = broadcast(-modmul(at(rows[0], c), inv, p, pinv), v4d{});
        double* q = &at(rows[0], c + 1);
        for (int t = 0; t < len; t += 4) store4(q + t, mul_add_mod(load4(q + t), f, load4(prow + t), P, PI));
      }
      pending = 0;
    }
  }
  std::uint64_t res = to_residue(det, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

/// perm(A) = sign * det K' from det K' modulo primes (the entries of K' signed).
Integer exact_permanent(const SparseMatrix<Integer>& a, const SignedBlock& b, const EngineOptions& opt) {
  std::vector<Integer> value;
  for (std::size_t k = 0; k < a.entries.size(); ++k) value.push_back(b.s[k] * a.entries[k].value);
  const double updates = band_updates(b.n, b.kl, b.ku) + double(a.nnz());
  const double bytes = band_bytes(b.n, b.kl, b.ku, sizeof(double));
  return b.sign * planar::integer_from_residues<std::vector<double>>(
                      permanent_bound(a), value, updates, bytes, std::min(kKasteleynMemoryLimit, opt.max_bytes), opt,
                      [&b](const std::vector<double>& cell, double p, std::vector<double>& buf) {
                        return det_mod(b, cell, p, buf);
                      });
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
    return exact_permanent(a, prepare(a, m, sizeof(double), opt.max_bytes), opt);
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
