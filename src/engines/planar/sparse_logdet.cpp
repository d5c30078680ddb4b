// Sparse LU log-determinants (sparse_logdet.hpp) on UMFPACK, and the bound on their error.
//
// Pivots: on the diagonal where UMFPACK's symmetric strategy accepts them, or by threshold
// partial pivoting (LogDetOptions::diagonal_pivots); the bound below holds for either.
//
// Error bound. The rows of A are first scaled by powers of two (exactly): S = D A. UMFPACK
// returns L U = P S Q + E, and det(L U) = prod U_kk exactly, so the computed ln|det S| is
// ln|det(S + P^T E Q^T)|, which to first order is ln|det S| + tr(S^-1 P^T E Q^T). Hence
//   |error| <= max_ij |(S^-1)_ij| * sum_ij |E_ij|.
// The backward error of any LU, whatever the order of its sums (multifrontal assembly, BLAS
// blocks), is entrywise |E_ij| <= gamma_t |L||U|_ij with t the number of products in
// (L U)_ij, t <= min(r_i, c_j) for r_i the entries of row i of L and c_j those of column j of
// U (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Thm 9.3, with t for n).
// With gamma_t <= t u / (1 - t_max u) and min(r, c) <= r, c or sqrt(r c):
//   sum_ij |E_ij| <= u' * min over (w, v) of sum_k (sum_i w_i |L_ik|) (sum_j v_j |U_kj|),
// computed from the factors in one pass each. max |(S^-1)_ij| is estimated by an alternating
// search over rows and columns of S^-1 (each step one solve with the factors; a local maximum,
// so a lower bound of the true maximum) and doubled, as LAPACK-style condition estimates are
// trusted within a small factor. Entries that were themselves rounded add entry_error * sum|S|
// to the backward error, and the logarithm's own roundings (the pivots' product in long
// double, the final double) are added. The first-order term is reported only while it is
// small (below kFirstOrderLimit); beyond, the error is infinite.
#include "engines/planar/sparse_logdet.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <new>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/tuning.hpp"
#include "engines/planar/planar.hpp"
#include "matchcount/error.hpp"

#if MATCHCOUNT_HAVE_UMFPACK
#include <umfpack.h>
#endif

namespace matchcount::engines::planar {

#if MATCHCOUNT_HAVE_UMFPACK
namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff of double
/// The first-order bound is reported while below this; beyond, the terms of second order in the
/// rounding errors, which it neglects, need not be small, and the error is infinite.
constexpr double kFirstOrderLimit = 0.1;
/// Bytes of one stored entry of a sparse matrix here: a double and a 64-bit index.
constexpr double kBytesPerEntry = 16;
/// Solves allowed to the search for the largest entry of S^-1 (two per step).
constexpr int kInverseSolves = 16;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

using Long = SuiteSparse_long;

/// The symbolic and numeric objects, freed on every way out.
struct Umf {
  void* symbolic = nullptr;
  void* numeric = nullptr;
  Umf() = default;
  Umf(const Umf&) = delete;
  Umf& operator=(const Umf&) = delete;
  ~Umf() {
    if (numeric) umfpack_dl_free_numeric(&numeric);
    if (symbolic) umfpack_dl_free_symbolic(&symbolic);
  }
};

void check(Long status, const char* what) {
  if (status == UMFPACK_OK || status == UMFPACK_WARNING_singular_matrix) return;
  if (status == UMFPACK_ERROR_out_of_memory) throw std::bad_alloc();
  throw std::runtime_error(std::string("sparse LU: UMFPACK's ") + what + " failed with status " + std::to_string(status));
}

/// S = D A in compressed columns (row indices ascending within a column, as UMFPACK wants),
/// with D = diag(2^-shift_i) making each row's largest entry lie in [1/2, 1).
struct Scaled {
  std::vector<Long> p, i;
  std::vector<double> x;
  long double shift_sum = 0;
  double abs_sum = 0;
};
Scaled scaled_columns(const SparseMatrix<double>& a) {
  const std::size_t n = std::size_t(a.rows);
  std::vector<int> shift(n, std::numeric_limits<int>::min());
  for (const auto& e : a.entries) {
    int ex = 0;
    std::frexp(e.value, &ex);
    shift[std::size_t(e.row)] = std::max(shift[std::size_t(e.row)], ex);
  }
  Scaled s;
  for (int sh : shift) s.shift_sum += sh;
  s.p.assign(n + 1, 0);
  for (const auto& e : a.entries) ++s.p[std::size_t(e.col) + 1];
  for (std::size_t c = 0; c < n; ++c) s.p[c + 1] += s.p[c];
  s.i.resize(a.entries.size()), s.x.resize(a.entries.size());
  std::vector<Long> next(s.p.begin(), s.p.end() - 1);
  for (const auto& e : a.entries) {  // entries sorted by row: rows ascend within each column
    const Long k = next[std::size_t(e.col)]++;
    s.i[std::size_t(k)] = e.row;
    s.x[std::size_t(k)] = std::ldexp(e.value, -shift[std::size_t(e.row)]);
    // A row whose entries span more than the double exponent range would lose its smallest
    // ones to underflow, a change no error bound here accounts for.
    if (!std::isnormal(s.x[std::size_t(k)]))
      throw RefusedError("sparse LU: the entries of a row span more than the range of double precision");
    s.abs_sum += std::abs(s.x[std::size_t(k)]);
  }
  return s;
}

/// Sign of a permutation given as UMFPACK's P or Q.
int sign_of(const std::vector<Long>& perm) {
  std::vector<int> p(perm.begin(), perm.end());
  return permutation_sign(p);
}

/// The bound on sum |E_ij| from the factors (the header comment), L and U extracted one at a
/// time so that only one copy is held beside the numeric object.
double backward_sum(void* numeric, Long n) {
  Long lnz = 0, unz = 0, rows = 0, cols = 0, udiag = 0;
  check(umfpack_dl_get_lunz(&lnz, &unz, &rows, &cols, &udiag, numeric), "get_lunz");
  const std::size_t N = std::size_t(n);
  // Per pivot k: sum_i w_i |L_ik| for w = 1, r, sqrt(r), and sum_j v_j |U_kj| for v = 1, c, sqrt(c).
  std::vector<double> l1(N, 0), lr(N, 0), ls(N, 0), u1(N, 0), uc(N, 0), us(N, 0);
  Long most = 1;
  {
    std::vector<Long> lp(N + 1), lj(std::size_t(std::max<Long>(lnz, 1)));
    std::vector<double> lx(lj.size());
    check(umfpack_dl_get_numeric(lp.data(), lj.data(), lx.data(), nullptr, nullptr, nullptr, nullptr, nullptr,
                                 nullptr, nullptr, nullptr, numeric),
          "get_numeric (L)");
    for (std::size_t i = 0; i < N; ++i) {
      const Long r = lp[i + 1] - lp[i];  // row i of L, its unit diagonal included
      most = std::max(most, r);
      const double sr = std::sqrt(double(r));
      for (Long k = lp[i]; k < lp[i + 1]; ++k) {
        const double v = std::abs(lx[std::size_t(k)]);
        const std::size_t col = std::size_t(lj[std::size_t(k)]);
        l1[col] += v, lr[col] += double(r) * v, ls[col] += sr * v;
      }
    }
  }
  {
    std::vector<Long> up(N + 1), ui(std::size_t(std::max<Long>(unz, 1)));
    std::vector<double> ux(ui.size());
    check(umfpack_dl_get_numeric(nullptr, nullptr, nullptr, up.data(), ui.data(), ux.data(), nullptr, nullptr,
                                 nullptr, nullptr, nullptr, numeric),
          "get_numeric (U)");
    for (std::size_t j = 0; j < N; ++j) {
      const Long c = up[j + 1] - up[j];  // column j of U, its diagonal included
      most = std::max(most, c);
      const double sc = std::sqrt(double(c));
      for (Long k = up[j]; k < up[j + 1]; ++k) {
        const double v = std::abs(ux[std::size_t(k)]);
        const std::size_t row = std::size_t(ui[std::size_t(k)]);
        u1[row] += v, uc[row] += double(c) * v, us[row] += sc * v;
      }
    }
  }
  double by_rows = 0, by_cols = 0, by_both = 0;
  for (std::size_t k = 0; k < N; ++k) by_rows += lr[k] * u1[k], by_cols += l1[k] * uc[k], by_both += ls[k] * us[k];
  const double t_unit = double(most) * kUnit;
  if (t_unit >= 0.5) return std::numeric_limits<double>::infinity();
  return kUnit / (1 - t_unit) * std::min({by_rows, by_cols, by_both});
}

/// Solves with the factors of S (no iterative refinement: the search needs no accuracy).
class Solver {
 public:
  Solver(const Scaled& s, void* numeric, Long n)
      : s_(s), numeric_(numeric), wi_(std::size_t(n)), w_(5 * std::size_t(n)), x_(std::size_t(n)) {
    umfpack_dl_defaults(control_);
    control_[UMFPACK_IRSTEP] = 0;
  }
  /// x := S^-1 b (transposed: S^-T b).
  void solve(std::vector<double>& b, bool transposed) {
    check(umfpack_dl_wsolve(transposed ? UMFPACK_At : UMFPACK_A, s_.p.data(), s_.i.data(), s_.x.data(), x_.data(),
                            b.data(), numeric_, control_, info_, wi_.data(), w_.data()),
          "solve");
    b.swap(x_);
  }

 private:
  const Scaled& s_;
  void* numeric_;
  double control_[UMFPACK_CONTROL], info_[UMFPACK_INFO];
  std::vector<Long> wi_;
  std::vector<double> w_, x_;
};

std::size_t argmax_abs(const std::vector<double>& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (std::abs(v[i]) > std::abs(v[best])) best = i;
  return best;
}

/// An estimate (a lower bound, a local maximum) of max |(S^-1)_ij|: from a few starting
/// vectors, alternately the largest entry of a column of S^-1 and of that entry's row, while
/// it grows.
double max_inverse_entry(Solver& solver, std::size_t n) {
  std::mt19937_64 random(20240611);
  double best = 0;
  int solves = 0;
  std::vector<double> v(n);
  for (int start = 0; start < 3 && solves < kInverseSolves; ++start) {
    for (std::size_t i = 0; i < n; ++i)
      v[i] = start == 0 ? 1.0 : start == 1 ? (i % 2 ? -1.0 : 1.0) : (random() & 1 ? -1.0 : 1.0);
    solver.solve(v, false), ++solves;
    std::size_t row = argmax_abs(v);
    while (solves + 2 <= kInverseSolves) {
      std::fill(v.begin(), v.end(), 0.0);
      v[row] = 1;
      solver.solve(v, true), ++solves;  // row `row` of S^-1
      const std::size_t col = argmax_abs(v);
      const double along_row = std::abs(v[col]);
      std::fill(v.begin(), v.end(), 0.0);
      v[col] = 1;
      solver.solve(v, false), ++solves;  // column `col` of S^-1
      const std::size_t next = argmax_abs(v);
      const double found = std::max(along_row, std::abs(v[next]));
      const bool grew = found > best;
      best = std::max(best, found);
      if (!grew || next == row) break;
      row = next;
    }
  }
  return best;
}

}  // namespace

bool sparse_lu_available() { return true; }

LogDet sparse_log_det(const SparseMatrix<double>& a, const LogDetOptions& options) {
  if (!a.square()) throw std::invalid_argument("sparse_log_det: the matrix is not square");
  const Long n = a.rows;
  LogDet r;
  if (n == 0) {
    r.sign = 1, r.log_abs = 0, r.error = 0;
    return r;
  }
  const Scaled s = scaled_columns(a);

  auto t = Clock::now();
  double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
  umfpack_dl_defaults(control);
  control[UMFPACK_PRL] = 0;
  control[UMFPACK_STRATEGY] = options.diagonal_pivots ? UMFPACK_STRATEGY_SYMMETRIC : UMFPACK_STRATEGY_UNSYMMETRIC;
  control[UMFPACK_PIVOT_TOLERANCE] = kPartialPivotThreshold;
  Ordering ordering = options.ordering;
  if (ordering == Ordering::Auto && tuning::tuning().log_ordering > 0)  // MATCHCOUNT_LOG_ORDERING
    ordering = tuning::tuning().log_ordering == 1 ? Ordering::Amd : Ordering::Metis;
  const bool metis = ordering == Ordering::Metis || (ordering == Ordering::Auto && n >= kMetisFromRows);
  control[UMFPACK_ORDERING] = metis ? UMFPACK_ORDERING_METIS : UMFPACK_ORDERING_AMD;
  control[UMFPACK_SCALE] = UMFPACK_SCALE_NONE;  // S is scaled already, exactly
  Umf umf;
  check(umfpack_dl_symbolic(n, n, s.p.data(), s.i.data(), s.x.data(), &umf.symbolic, control, info), "symbolic");
  // Beside the factorization, L or U copied out for the error bound and the matrix itself.
  // UMFPACK's own peak estimate assumes off-diagonal pivots throughout: within 2 times of the
  // peak under partial pivoting, but 10 to 25 times over it under diagonal pivots, for which
  // its symmetric analysis counts the entries of L + U (docs/benchmarks.md, "Sparse LU
  // log-determinants"). There, per entry of L + U a value and an index, twice over for
  // off-diagonal pivots and assembly, and the largest front dense.
  double predicted = double(s.i.size()) * kBytesPerEntry;
  if (options.diagonal_pivots) {
    const double lu = info[UMFPACK_SYMMETRIC_LUNZ] + double(n), front = info[UMFPACK_SYMMETRIC_DMAX];
    predicted += lu * 2 * kBytesPerEntry + 8 * front * front + lu / 2 * kBytesPerEntry;
  } else {
    predicted += info[UMFPACK_PEAK_MEMORY_ESTIMATE] * info[UMFPACK_SIZE_OF_UNIT] +
                 std::max(info[UMFPACK_LNZ_ESTIMATE], info[UMFPACK_UNZ_ESTIMATE]) * kBytesPerEntry;
  }
  const double max_bytes = options.max_bytes;
  if (predicted > max_bytes)
    throw BudgetError("sparse LU: the factorization of this " + std::to_string(n) + " x " + std::to_string(n) +
                       " matrix is predicted to need " + std::to_string(long(predicted / (1 << 20))) +
                       " MiB, over the memory budget of " + std::to_string(long(max_bytes / (1 << 20))) + " MiB");
  r.analyse_seconds = seconds_since(t);

  t = Clock::now();
  check(umfpack_dl_numeric(s.p.data(), s.i.data(), s.x.data(), umf.symbolic, &umf.numeric, control, info), "numeric");
  r.factor_seconds = seconds_since(t);
  // METIS orders A + A^T (diagonal pivots) or A^T A (partial pivoting); AMD's counterpart for
  // A^T A is COLAMD.
  r.ordering = info[UMFPACK_ORDERING_USED] == UMFPACK_ORDERING_METIS ? "metis"
               : options.diagonal_pivots                              ? "amd"
                                                                      : "colamd";
  r.lu_entries = info[UMFPACK_LNZ] + info[UMFPACK_UNZ] - double(n);
  r.flops = info[UMFPACK_FLOPS];
  r.peak_bytes = info[UMFPACK_PEAK_MEMORY] * info[UMFPACK_SIZE_OF_UNIT];
  r.off_diagonal_pivots = info[UMFPACK_NOFF_DIAG];

  // det S = sgn(P) sgn(Q) prod U_kk; the product as a long double mantissa and an exponent.
  const std::size_t N = std::size_t(n);
  std::vector<Long> p(N), q(N);
  std::vector<double> diag(N);
  Long recip = 0;
  check(umfpack_dl_get_numeric(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, p.data(), q.data(), diag.data(),
                               &recip, nullptr, umf.numeric),
        "get_numeric (pivots)");
  int sign = sign_of(p) * sign_of(q);
  long double mant = 1;
  long exponent = 0;
  for (double d : diag) {
    if (d == 0) return r;  // singular in floating point: sign 0, log -inf, error infinite
    if (d < 0) sign = -sign;
    int e = 0;
    mant = std::frexp(mant * std::abs(static_cast<long double>(d)), &e);
    exponent += e;
  }
  const long double ln2 = 0.693147180559945309417232121458176568L;
  const long double log_det = std::log(mant) + (static_cast<long double>(exponent) + s.shift_sum) * ln2;
  r.sign = sign;
  r.log_abs = static_cast<double>(log_det);

  t = Clock::now();
  const double backward =
      backward_sum(umf.numeric, n) + options.entry_error / (1 - options.entry_error) * s.abs_sum;
  Solver solver(s, umf.numeric, n);
  r.max_inverse = max_inverse_entry(solver, N);
  r.backward = backward;
  const double first_order = 2 * r.max_inverse * backward;
  // The pivots' product: one rounding of a long double per pivot, then the logarithm and its
  // rounding to a double.
  const double eps_ld = double(std::numeric_limits<long double>::epsilon());
  const double rounding = (double(n) + 2) * eps_ld + eps_ld * std::abs(r.log_abs) + kUnit * std::abs(r.log_abs);
  r.error = first_order < kFirstOrderLimit ? first_order + rounding : std::numeric_limits<double>::infinity();
  r.error_seconds = seconds_since(t);
  return r;
}

#else  // built without SuiteSparse

bool sparse_lu_available() { return false; }

LogDet sparse_log_det(const SparseMatrix<double>&, const LogDetOptions&) {
  throw RefusedError("matchcount was built without SuiteSparse (UMFPACK), which log-determinants need; install "
                     "libsuitesparse-dev and build again");
}

#endif

}  // namespace matchcount::engines::planar
