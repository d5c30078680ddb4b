// The repeated-lines engine (repeated.hpp): classes of identical lines, then a reflected
// mixed-radix Gray walk over the count vectors x of Glynn's formula. With delta_j = -1 on x_t
// columns of class t (and +1 on the rest; one column of the smallest class fixed to +1, so
// that class ranges over m_t - 1):
//   perm(A) = 2^(1-n) sum_x (-1)^|x| prod_t C(m'_t, x_t) prod_r y_r^mu_r,
//   y_r = sum_t (m_t - 2 x_t) c_t[r],
// whose terms are far smaller than Ryser's (y is centred), which matters for floats. Exact
// counts run modulo primes below 2^50 (CRT in GMP); floats recompute every y in double-double.
#include "engines/repeated/repeated.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engines/common.hpp"
#include "engines/repeated/line_classes.hpp"

namespace matchcount::engines {
namespace {

template <class T>
RepeatedPlan plan_impl(const SparseMatrix<T>& a) {
  RepeatedPlan p;
  LineClasses cols = line_classes(a, true), rows = line_classes(a, false);
  p.col_rep = std::move(cols.rep), p.col_mult = std::move(cols.mult);
  p.row_rep = std::move(rows.rep), p.row_mult = std::move(rows.mult);
  auto terms = [](const std::vector<int>& mult) {
    double t = 1;
    for (int m : mult) t *= m + 1;
    return t;
  };
  const double by_cols = terms(p.col_mult), by_rows = terms(p.row_mult);
  if (by_rows < by_cols) {
    p.transposed = true;
    std::swap(p.col_rep, p.row_rep);
    std::swap(p.col_mult, p.row_mult);
  }
  p.terms = std::min(by_cols, by_rows);
  p.cost = p.terms * double(p.col_rep.size() + p.row_rep.size());
  return p;
}

/// The walk's input: c[t * R + r] = entry (row class r, column class t).
template <class V>
struct Classes {
  int K = 0, R = 0;
  std::vector<int> mult, mu;  // column multiplicities; row multiplicities
  std::vector<int> range;     // digit ranges m'_t: mult, less one for class 0 (the fixed column)
  std::vector<V> c;
};

/// Sum over x with x_{K-1} = last of (-1)^|x| prod_t C(m'_t, x_t) prod_r y_r^mu_r, in the
/// reflected mixed-radix Gray order (one digit moves by one per step). Ops supplies the
/// arithmetic: add, mul, pow, binom(t, x), y(x) (the row values of a count vector) and term
/// accumulation.
template <class Ops>
typename Ops::Acc walk(const Ops& ops, const Classes<typename Ops::V>& in, int last) {
  using V = typename Ops::V;
  const int K = in.K;
  std::vector<int> x(static_cast<std::size_t>(K), 0), d(static_cast<std::size_t>(K), 1);
  x[static_cast<std::size_t>(K - 1)] = last;
  typename Ops::Acc acc{};
  std::vector<V> y(static_cast<std::size_t>(in.R));
  ops.start(y, x);
  bool odd = last % 2 == 1;
  while (true) {
    V coef = ops.binom(K - 1, last);
    for (int t = 0; t + 1 < K; ++t) coef = ops.mul(coef, ops.binom(t, x[static_cast<std::size_t>(t)]));
    ops.term(acc, coef, y, x, odd);
    int t = 0;  // the lowest digit free to move on; the digits below it turn round
    while (t + 1 < K) {
      const int next = x[static_cast<std::size_t>(t)] + d[static_cast<std::size_t>(t)];
      if (next >= 0 && next <= in.range[static_cast<std::size_t>(t)]) break;
      d[static_cast<std::size_t>(t)] = -d[static_cast<std::size_t>(t)];
      ++t;
    }
    if (t + 1 >= K) break;
    x[static_cast<std::size_t>(t)] += d[static_cast<std::size_t>(t)];
    ops.move(y, x, t, d[static_cast<std::size_t>(t)]);
    odd = !odd;
  }
  return acc;
}

/// Residues modulo one prime p < 2^50, held as exact integer doubles in (-p, p).
struct ModOps {
  using V = double;
  struct Acc { double s = 0; };
  double p = 0, pinv = 0;
  const Classes<double>* in = nullptr;
  std::vector<std::vector<double>> binoms;  // binoms[t][x] = C(m'_t, x) mod p
  double mul(double a, double b) const { return arith::modmul(a, b, p, pinv); }
  double binom(int t, int x) const { return binoms[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)]; }
  double coefficient(int t, const std::vector<int>& x) const {
    return in->mult[static_cast<std::size_t>(t)] - 2.0 * x[static_cast<std::size_t>(t)];
  }
  void start(std::vector<double>& y, const std::vector<int>& x) const {
    for (int r = 0; r < in->R; ++r) {
      double v = 0;
      for (int t = 0; t < in->K; ++t)
        v = arith::modreduce(v + mul(coefficient(t, x), in->c[static_cast<std::size_t>(t * in->R + r)]), p, pinv);
      y[static_cast<std::size_t>(r)] = v;
    }
  }
  void move(std::vector<double>& y, const std::vector<int>&, int t, int dir) const {
    for (int r = 0; r < in->R; ++r)
      y[static_cast<std::size_t>(r)] = arith::modreduce(y[static_cast<std::size_t>(r)] - 2.0 * dir * in->c[static_cast<std::size_t>(t * in->R + r)], p, pinv);
  }
  double power(double b, int e) const {
    double r = 1;
    for (; e; e >>= 1, b = mul(b, b))
      if (e & 1) r = mul(r, b);
    return r;
  }
  void term(Acc& acc, double coef, const std::vector<double>& y, const std::vector<int>&, bool odd) const {
    double v = coef;
    for (int r = 0; r < in->R && v != 0; ++r) v = mul(v, power(y[static_cast<std::size_t>(r)], in->mu[static_cast<std::size_t>(r)]));
    acc.s = arith::modreduce(odd ? acc.s - v : acc.s + v, p, pinv);
  }
};

/// Floats (double or Complex): y recomputed from the classes at every step in double-double
/// (x_t c exact by FMA, TwoSum), so each y_r carries one rounding and each term a relative
/// error of at most about (2n + R + K + 4) u; terms summed in double-double with sum |term|.
/// Glynn's row sums over the whole matrix are these y_r, each within err[r] of the exact
/// entries' (their errors, times the class sizes, and the double-double's second-order
/// rounding): a term moves by at most coef (prod_r (|y_r| + err_r)^mu_r - prod_r |y_r|^mu_r),
/// summed in `dev` (as for the Ryser walks, src/engines/ryser/row_grid.hpp).
template <class T>
struct FloatOps {
  using V = T;
  struct Acc { DDSum re, im; double abs = 0, dev = 0; };
  const Classes<T>* in = nullptr;
  std::vector<double> err;  // per row class; empty when the entries are exact
  std::vector<std::vector<double>> binoms;  // C(m'_t, x) rounded once
  T mul(const T& a, const T& b) const { return a * b; }
  T binom(int t, int x) const { return T(binoms[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)]); }
  void start(std::vector<T>&, const std::vector<int>&) const {}
  void move(std::vector<T>&, const std::vector<int>&, int, int) const {}
  static void add_product(DDSum& s, double x, double c) {
    const double h = x * c;
    s.add(h);
    s.lo += std::fma(x, c, -h);
  }
  void term(Acc& acc, const T& coef, const std::vector<T>&, const std::vector<int>& x, bool odd) const {
    T v = coef;
    double p = 1, q = 1;  // prod |y_r|^mu_r and prod (|y_r| + err_r)^mu_r
    for (int r = 0; r < in->R && (v != T(0) || !err.empty()); ++r) {
      DDSum re, im;
      for (int t = 0; t < in->K; ++t) {
        const T& c = in->c[static_cast<std::size_t>(t * in->R + r)];
        const double xt = in->mult[static_cast<std::size_t>(t)] - 2.0 * x[static_cast<std::size_t>(t)];
        add_product(re, xt, std::real(c));
        if constexpr (std::is_same_v<T, Complex>) add_product(im, xt, std::imag(c));
      }
      T y;
      if constexpr (std::is_same_v<T, Complex>) y = Complex(re.value(), im.value());
      else y = re.value();
      int mu = in->mu[static_cast<std::size_t>(r)];
      for (T b = y; mu; mu >>= 1, b *= b)  // binary powering: under 2 log2(mu) roundings
        if (mu & 1) v *= b;
      if (!err.empty()) {
        p *= power(std::abs(y), in->mu[static_cast<std::size_t>(r)]);
        q *= power(std::abs(y) + err[static_cast<std::size_t>(r)], in->mu[static_cast<std::size_t>(r)]);
      }
    }
    if (odd) v = -v;
    acc.re.add(std::real(v));
    acc.im.add(std::imag(v));
    acc.abs += std::abs(v);
    if (!err.empty()) acc.dev += std::abs(coef) * (q - p);
  }
  static double power(double b, int e) {
    double r = 1;
    for (; e; e >>= 1, b *= b)
      if (e & 1) r *= b;
    return r;
  }
};

class RepeatedEngine final : public Engine {
 public:
  std::string name() const override { return "repeated"; }
  int max_n() const override { return 1 << 20; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    const Classes<Integer> in = prepare(a);
    const auto binoms = binomials(in.range);
    ModPlan plan;
    plan.primes = choose_primes(permanent_bound(a));
    for (double p : plan.primes) plan.pinv.push_back(1.0 / p);
    // Per prime: the classes' entries and the binomials as residues, made once.
    std::vector<Classes<double>> mod(plan.primes.size());
    std::vector<ModOps> ops(plan.primes.size());
    for (std::size_t k = 0; k < plan.primes.size(); ++k) {
      const double p = plan.primes[k];
      mod[k].K = in.K, mod[k].R = in.R, mod[k].mult = in.mult, mod[k].mu = in.mu, mod[k].range = in.range;
      for (const Integer& v : in.c) mod[k].c.push_back(residue_of(v, p));
      ops[k].p = p;
      ops[k].pinv = plan.pinv[k];
      ops[k].in = &mod[k];
      for (const auto& row : binoms) {
        ops[k].binoms.emplace_back();
        for (const Integer& c : row) ops[k].binoms.back().push_back(residue_of(c, p));
      }
    }
    const int tasks = in.range.back() + 1, total = tasks * static_cast<int>(plan.primes.size());
    std::vector<double> part(static_cast<std::size_t>(total));
    Progress progress(opt, static_cast<std::uint64_t>(total));
#pragma omp parallel for schedule(dynamic) num_threads(thread_count(opt, terms(in.range) * in.R * plan.primes.size()))
    for (int job = 0; job < total; ++job) {
      const auto k = static_cast<std::size_t>(job / tasks);
      part[static_cast<std::size_t>(job)] = walk(ops[k], mod[k], job % tasks).s;
      progress.tick();
    }
    std::vector<double> sums(plan.primes.size(), 0.0);
    for (std::size_t k = 0; k < plan.primes.size(); ++k)
      for (int t = 0; t < tasks; ++t)
        sums[k] = arith::modreduce(sums[k] + part[k * static_cast<std::size_t>(tasks) + static_cast<std::size_t>(t)],
                                   plan.primes[k], plan.pinv[k]);
    return finish_mod(sums, plan, false, n - 1);  // Glynn's 2^(1-n)
  }
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return floating(a, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return floating(a, opt);
  }

 private:
  static double terms(const std::vector<int>& range) {
    double t = 1;
    for (int m : range) t *= m + 1;
    return t;
  }

  /// C(m, x) for x = 0..m, for each m of `range`.
  static std::vector<std::vector<Integer>> binomials(const std::vector<int>& range) {
    std::vector<std::vector<Integer>> out;
    for (int m : range) {
      out.emplace_back(static_cast<std::size_t>(m) + 1);
      for (int x = 0; x <= m; ++x)
        mpz_bin_uiui(out.back()[static_cast<std::size_t>(x)].get_mpz_t(), static_cast<unsigned long>(m),
                     static_cast<unsigned long>(x));
    }
    return out;
  }

  /// The classes of a, with the largest column class last (its values split the work).
  template <class T>
  static Classes<T> prepare(const SparseMatrix<T>& a) {
    RepeatedPlan p = plan_repeated(a);
    if (!(p.terms <= kRepeatedMaxTerms))
      throw RefusedError("repeated: the " + std::to_string(a.rows) + "x" + std::to_string(a.rows) +
                         " block has too few repeated lines (" + std::to_string(p.col_rep.size()) +
                         " distinct columns and rows at best): more than 1e13 terms");
    std::vector<std::size_t> order(p.col_rep.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p.col_mult[x] < p.col_mult[y]; });
    Classes<T> in;
    in.K = static_cast<int>(p.col_rep.size());
    in.R = static_cast<int>(p.row_rep.size());
    for (std::size_t t : order) in.mult.push_back(p.col_mult[t]);
    in.range = in.mult;
    --in.range[0];  // Glynn's fixed delta sits in the smallest class
    in.mu = p.row_mult;
    // The K x R entries between representatives, from the entries (no dense copy of the block:
    // few classes may stand for a huge n).
    std::vector<int> row_class(static_cast<std::size_t>(a.rows), -1), col_class(static_cast<std::size_t>(a.rows), -1);
    for (std::size_t r = 0; r < p.row_rep.size(); ++r) row_class[static_cast<std::size_t>(p.row_rep[r])] = int(r);
    for (std::size_t k = 0; k < order.size(); ++k) col_class[static_cast<std::size_t>(p.col_rep[order[k]])] = int(k);
    in.c.assign(static_cast<std::size_t>(in.K) * static_cast<std::size_t>(in.R), T(0));
    for (const auto& e : a.entries) {
      const int r = row_class[static_cast<std::size_t>(p.transposed ? e.col : e.row)];
      const int t = col_class[static_cast<std::size_t>(p.transposed ? e.row : e.col)];
      if (r >= 0 && t >= 0) in.c[static_cast<std::size_t>(t) * static_cast<std::size_t>(in.R) + static_cast<std::size_t>(r)] = e.value;
    }
    return in;
  }

  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, const EngineOptions& opt) {
    const auto in = prepare(a);
    FloatOps<T> ops;
    ops.in = &in;
    for (const auto& row : binomials(in.range)) {
      ops.binoms.emplace_back();
      for (const Integer& c : row) ops.binoms.back().push_back(c.get_d());
      if (!std::isfinite(ops.binoms.back()[row.size() / 2]))
        throw RefusedError("repeated: binomial coefficients beyond double range; count exactly (--exact)");
    }
    if (opt.entry_error) {
      // err_r: the class entries' errors times the class sizes, and the double-double's
      // second-order rounding of y_r (K products and sums: (2K u)^2 of sum |x_t c|).
      ops.err.assign(static_cast<std::size_t>(in.R), 0.0);
      for (int r = 0; r < in.R; ++r)
        for (int t = 0; t < in.K; ++t) {
          const T& c = in.c[static_cast<std::size_t>(t * in.R + r)];
          const double m = in.mult[static_cast<std::size_t>(t)];
          ops.err[static_cast<std::size_t>(r)] +=
              m * (opt.entry_error(Complex(c)) + 4.0 * in.K * in.K * kEps * kEps * std::abs(c)) * (1 + 1e-12);
        }
    }
    const int tasks = in.range.back() + 1;
    std::vector<typename FloatOps<T>::Acc> part(static_cast<std::size_t>(tasks));
#pragma omp parallel for schedule(dynamic) num_threads(thread_count(opt, double(tasks) * in.K * in.R))
    for (int t = 0; t < tasks; ++t) part[static_cast<std::size_t>(t)] = walk(ops, in, t);
    DDSum re, im;
    double abs = 0, dev = 0;
    for (const auto& p : part) re.merge(p.re), im.merge(p.im), abs += p.abs, dev += p.dev;  // fixed order: same bits
    T v;
    if constexpr (std::is_same_v<T, Complex>) v = Complex(re.value(), im.value());
    else v = re.value();
    v *= std::ldexp(1.0, 1 - a.rows);  // Glynn's 2^(1-n); exact unless it underflows
    // Per term: one rounding per y_r, at most 2n multiplications for the factors and
    // powers, the binomial and K products; complex products count four times.
    // The deviations round like the terms (products of n factors and powers).
    const double per_term = (2.0 * a.rows + in.R + in.K + 4) * kEps * (std::is_same_v<T, Complex> ? 4 : 1);
    return {v, (std::max(dev, 0.0) + per_term * (abs + std::max(dev, 0.0))) * std::ldexp(1.0, 1 - a.rows) *
                       (1 + 1e-12) + kEps * std::abs(v) + 0x1p-1074};
  }
};

}  // namespace

RepeatedPlan plan_repeated(const SparseMatrix<Integer>& a) { return plan_impl(a); }
RepeatedPlan plan_repeated(const SparseMatrix<double>& a) { return plan_impl(a); }
RepeatedPlan plan_repeated(const SparseMatrix<Complex>& a) { return plan_impl(a); }

std::unique_ptr<Engine> make_repeated() { return std::make_unique<RepeatedEngine>(); }

}  // namespace matchcount::engines
