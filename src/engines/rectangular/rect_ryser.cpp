// rect-ryser: Ryser's formula for rectangular m x n matrices (m <= n), walked depth first.
//
// A node of the walk is a set X of at most m columns; its children add one column beyond the
// largest in X, so each row sum is its parent's plus one entry (O(m) a node, no drift: every
// depth keeps its own row sums). A node contributes only when every row meets X (an empty row
// sum makes the product 0), and a child is skipped with its whole subtree when some row it
// leaves unmet has no entry in a later column. Work units are the subtrees below the prefixes
// of `depth` columns (plus one unit for all shallower nodes), summed in unit order: the result
// does not depend on the thread count.
#include <bit>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

#include "engines/rectangular/rectangular.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "runtime/thread_walk.hpp"

namespace matchcount::engines {
namespace {

// Rates of one core (calibrated in docs/benchmarks.md, "Rectangular permanents"): seconds
// per node and row for floats (complex about three times that), plus per node and prime for exact counts.
constexpr double kRowSeconds = 1.3e-9, kPrimeSeconds = 4e-9;

/// What the walk needs of the pattern: rows met by each column, rows whose last entry lies
/// before each column, and the work units.
struct Shape {
  int m = 0, n = 0, depth = 0;
  std::uint64_t full = 0;
  std::vector<std::uint64_t> colmask, dead;  // n and n + 1 masks
  std::vector<int> prefixes;                 // (units - 1) prefixes of `depth` columns
  std::uint64_t units = 0;
};

template <class T>
Shape make_shape(const SparseMatrix<T>& a) {
  if (a.rows > a.cols)
    throw std::invalid_argument("rect-ryser needs rows <= columns, got " + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols));
  const double subsets = rect_subsets(a.rows, a.cols);
  if (subsets > kRectRyserMaxSubsets)
    throw RefusedError("rect-ryser: a " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " block needs " +
                       three_digits(subsets) + " column subsets, more than its limit of " +
                       three_digits(kRectRyserMaxSubsets));
  Shape s;
  s.m = a.rows, s.n = a.cols;
  s.full = s.m == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << s.m) - 1;  // m <= 43 by the limit
  s.colmask.assign(static_cast<std::size_t>(s.n), 0);
  s.dead.assign(static_cast<std::size_t>(s.n) + 1, 0);
  std::vector<int> last(static_cast<std::size_t>(s.m), -1);
  for (const auto& e : a.entries) {
    s.colmask[static_cast<std::size_t>(e.col)] |= std::uint64_t{1} << e.row;
    last[static_cast<std::size_t>(e.row)] = std::max(last[static_cast<std::size_t>(e.row)], e.col);
  }
  for (int c = 0; c <= s.n; ++c)
    for (int i = 0; i < s.m; ++i)
      if (last[static_cast<std::size_t>(i)] < c) s.dead[static_cast<std::size_t>(c)] |= std::uint64_t{1} << i;
  // Enough prefixes that the largest subtree (below columns 0..depth-1, about 2^-depth of the
  // walk) leaves the threads balanced, few enough that units are not mostly bookkeeping.
  if (s.m > 0) {
    s.depth = 1;
    while (s.depth < s.m && binomial(s.n, s.depth) < 4096 && binomial(s.n, s.depth + 1) <= double(1 << 20)) ++s.depth;
    std::vector<int> c(static_cast<std::size_t>(s.depth));
    for (int k = 0; k < s.depth; ++k) c[static_cast<std::size_t>(k)] = k;
    while (true) {
      s.prefixes.insert(s.prefixes.end(), c.begin(), c.end());
      int k = s.depth - 1;
      while (k >= 0 && c[static_cast<std::size_t>(k)] == s.n - s.depth + k) --k;
      if (k < 0) break;
      ++c[static_cast<std::size_t>(k)];
      for (int l = k + 1; l < s.depth; ++l) c[static_cast<std::size_t>(l)] = c[static_cast<std::size_t>(l) - 1] + 1;
    }
  }
  s.units = 1 + s.prefixes.size() / static_cast<std::size_t>(std::max(s.depth, 1));
  return s;
}

/// Walks every node; W: State make_state(), add(State&, k, j) (row sums at depth k + 1 = those
/// at depth k plus column j), term(const State&, k, Sum&), Sum zero(), combine(Sum&, const Sum&).
template <class W>
typename W::Sum rect_walk(const W& w, const Shape& sh, const EngineOptions& opt, const std::string& tag) {
  using Sum = typename W::Sum;
  using State = typename W::State;
  auto dfs = [&](auto& self, State& st, int k, int next, std::uint64_t met, int max_depth, Sum& sum) -> void {
    if (met == sh.full) w.term(st, k, sum);
    if (k == max_depth) return;
    for (int j = next; j < sh.n; ++j) {
      const std::uint64_t t = met | sh.colmask[static_cast<std::size_t>(j)];
      if (~t & sh.full & sh.dead[static_cast<std::size_t>(j) + 1]) continue;  // a row left unmet for good
      w.add(st, k, j);
      self(self, st, k + 1, j + 1, t, max_depth, sum);
    }
  };
  auto unit = [&](State& st, std::uint64_t b) {
    Sum sum = w.zero();
    if (b == 0) {
      dfs(dfs, st, 0, 0, 0, sh.depth - 1, sum);
      return sum;
    }
    const int* p = &sh.prefixes[static_cast<std::size_t>(b - 1) * static_cast<std::size_t>(sh.depth)];
    std::uint64_t met = 0;
    for (int k = 0; k < sh.depth; ++k) {
      met |= sh.colmask[static_cast<std::size_t>(p[k])];
      w.add(st, k, p[k]);
    }
    if (!(~met & sh.full & sh.dead[static_cast<std::size_t>(p[sh.depth - 1]) + 1]))
      dfs(dfs, st, sh.depth, p[sh.depth - 1] + 1, met, sh.m, sum);
    return sum;
  };
  const int threads = thread_count(opt, rect_subsets(sh.m, sh.n) * sh.m);
  return runtime::run_units<Sum>(sh.units, threads, opt, tag, w.zero(), [&] { return w.make_state(); }, unit,
                        [&](Sum& total, const Sum& s) { w.combine(total, s); });
}

struct ComplexSum {
  DDSum re, im;
};

/// Floats: row sums and, unless every entry is a nonnegative real, absolute row sums for
/// the error bound.
template <class V>
struct FloatWalker {
  using Sum = std::conditional_t<std::is_same_v<V, double>, DDSum, ComplexSum>;
  struct State {
    std::vector<V> rs;
    std::vector<double> ra;
  };
  int m = 0;
  bool track_abs = false;
  std::vector<V> col;       // col[j * m + i] = a_ij
  std::vector<double> cola;  // |a_ij|
  std::vector<double> coef;  // (-1)^(m-k) C(n-k, m-k)

  State make_state() const {
    const std::size_t size = static_cast<std::size_t>(m + 1) * static_cast<std::size_t>(m);
    return {std::vector<V>(size), std::vector<double>(track_abs ? size : 0)};
  }
  Sum zero() const { return Sum{}; }
  void add(State& st, int k, int j) const {
    const std::size_t at = static_cast<std::size_t>(k) * m, c = static_cast<std::size_t>(j) * m;
    for (int i = 0; i < m; ++i) st.rs[at + m + i] = st.rs[at + i] + col[c + i];
    if (track_abs)
      for (int i = 0; i < m; ++i) st.ra[at + m + i] = st.ra[at + i] + cola[c + i];
  }
  void term(const State& st, int k, Sum& s) const {
    const V* r = &st.rs[static_cast<std::size_t>(k) * m];
    V p[4] = {V(1), V(1), V(1), V(1)};  // four chains: the products' latency, not their count, bounds the walk
    int i = 0;
    for (; i + 4 <= m; i += 4) p[0] *= r[i], p[1] *= r[i + 1], p[2] *= r[i + 2], p[3] *= r[i + 3];
    for (; i < m; ++i) p[0] *= r[i];
    const V v = coef[static_cast<std::size_t>(k)] * ((p[0] * p[1]) * (p[2] * p[3]));
    double bound = std::abs(v);
    if (track_abs) {
      const double* ra = &st.ra[static_cast<std::size_t>(k) * m];
      bound = std::fabs(coef[static_cast<std::size_t>(k)]);
      for (int l = 0; l < m; ++l) bound *= ra[l];
    }
    if constexpr (std::is_same_v<V, double>) {
      s.add(v);
      s.abs += bound;
    } else {
      s.re.add(v.real());
      s.im.add(v.imag());
      s.re.abs += bound;
    }
  }
  void combine(Sum& total, const Sum& s) const {
    if constexpr (std::is_same_v<V, double>) total.merge(s);
    else total.re.merge(s.re), total.im.merge(s.im);
  }
};

template <class V>
Approx<V> rect_ryser_float(const SparseMatrix<V>& a, const EngineOptions& opt) {
  const Shape sh = make_shape(a);
  const int m = a.rows, n = a.cols;
  if (m == 0) return {V(1), 0.0};
  FloatWalker<V> w;
  w.m = m;
  w.col.assign(static_cast<std::size_t>(n) * m, V(0));
  w.cola.assign(w.col.size(), 0.0);
  for (const auto& e : a.entries) {
    w.col[static_cast<std::size_t>(e.col) * m + e.row] = e.value;
    w.cola[static_cast<std::size_t>(e.col) * m + e.row] = std::abs(e.value);
    w.track_abs = w.track_abs || !(Complex(e.value).imag() == 0 && Complex(e.value).real() > 0);
  }
  for (int k = 0; k <= m; ++k) w.coef.push_back(((m - k) % 2 ? -1.0 : 1.0) * binomial(n - k, m - k));
  const auto s = rect_walk(w, sh, opt, "rect-ryser/float/" + std::to_string(m) + "x" + std::to_string(n));
  // Per term: m products and the coefficient (m + 1 roundings); each row sum of k <= m
  // entries is off by at most k u times its absolute sum, so the product by m * m u times
  // the product of absolute sums (none for integral rows, whose sums are exact). Twice that
  // covers the second-order terms and the compensated sums; complex operations round more.
  const double per_term = (integral_rows(a) ? 0.0 : double(m) * m) + m + 4;
  // Entries off by eta_i of their size in row i move each row sum of a term by at most eta_i
  // of its absolute sum, the term by prod_i (1 + eta_i) - 1 of its product of absolute sums.
  const double moved = product_excess(line_relative_errors(a, opt));
  const double factor = 2 * kEps * per_term * (std::is_same_v<V, double> ? 1 : 4) * (1 + moved) + moved;
  if constexpr (std::is_same_v<V, double>) return {s.value(), factor * s.abs + 0x1p-1074};
  else return {Complex(s.re.value(), s.im.value()), factor * s.re.abs + 0x1p-1074};
}

/// Exact counts modulo primes. Shared mode (every row's absolute sum < 2^49): row sums are
/// exact integers in doubles, products of row groups stay below 2^49 and only they are
/// multiplied modulo each prime. Otherwise one walk per prime over residues.
struct ExactWalker {
  using Sum = std::vector<double>;
  struct State {
    std::vector<double> rs;
  };
  int m = 0;
  bool shared = true;
  std::vector<double> col;  // exact entries (shared) or residues of one prime
  std::vector<int> group_end;
  std::vector<double> primes, pinv;
  std::vector<double> coef;  // coef[k * primes + q]: (-1)^(m-k) C(n-k, m-k) mod primes[q]

  State make_state() const { return {std::vector<double>(static_cast<std::size_t>(m + 1) * m)}; }
  Sum zero() const { return Sum(primes.size(), 0.0); }
  void add(State& st, int k, int j) const {
    const std::size_t at = static_cast<std::size_t>(k) * m, c = static_cast<std::size_t>(j) * m;
    if (shared) {
      for (int i = 0; i < m; ++i) st.rs[at + m + i] = st.rs[at + i] + col[c + i];
    } else {
      for (int i = 0; i < m; ++i) st.rs[at + m + i] = arith::modreduce(st.rs[at + i] + col[c + i], primes[0], pinv[0]);
    }
  }
  void term(const State& st, int k, Sum& s) const {
    const double* r = &st.rs[static_cast<std::size_t>(k) * m];
    const std::size_t np = primes.size();
    if (!shared) {
      double t = coef[static_cast<std::size_t>(k)];
      for (int i = 0; i < m; ++i) t = arith::modmul(t, r[i], primes[0], pinv[0]);
      s[0] = arith::modreduce(s[0] + t, primes[0], pinv[0]);
      return;
    }
    double g[64];
    int i = 0;
    for (std::size_t x = 0; x < group_end.size(); ++x) {
      double p = 1;
      for (; i < group_end[x]; ++i) p *= r[i];
      g[x] = p;
    }
    for (std::size_t q = 0; q < np; ++q) {
      double t = coef[static_cast<std::size_t>(k) * np + q];
      for (std::size_t x = 0; x < group_end.size(); ++x) t = arith::modmul(t, g[x], primes[q], pinv[q]);
      s[q] = arith::modreduce(s[q] + t, primes[q], pinv[q]);
    }
  }
  void combine(Sum& total, const Sum& s) const {
    if (total.empty()) total.assign(s.size(), 0.0);
    for (std::size_t q = 0; q < s.size(); ++q) total[q] = arith::modreduce(total[q] + s[q], primes[q], pinv[q]);
  }
};

}  // namespace

double rect_subsets(int m, int n) {
  double total = 0, c = 1;  // c = C(n, k)
  for (int k = 0; k <= std::min(m, n); ++k) {
    total += c;
    c = c * (n - k) / (k + 1);
  }
  return total;
}

Integer rect_bound(const SparseMatrix<Integer>& a) {
  std::vector<Integer> row(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) row[static_cast<std::size_t>(e.row)] += abs(e.value);
  Integer b = 1;
  for (const auto& r : row) b *= r;
  return b;
}

double rect_ryser_seconds(int m, int n, std::size_t primes, bool complex, int threads) {
  const double subsets = rect_subsets(m, n);
  if (subsets > kRectRyserMaxSubsets) return std::numeric_limits<double>::infinity();
  const int cores = std::max(1, threads > 0 ? threads : omp_get_max_threads());
  const double node = m * kRowSeconds * (complex ? 3 : 1) + double(primes) * kPrimeSeconds * (1 + m / 8.0);
  return 5e-6 + subsets * node / cores;
}

Approx<double> rect_ryser(const SparseMatrix<double>& a, const EngineOptions& opt) { return rect_ryser_float(a, opt); }
Approx<Complex> rect_ryser(const SparseMatrix<Complex>& a, const EngineOptions& opt) { return rect_ryser_float(a, opt); }

Integer rect_ryser(const SparseMatrix<Integer>& a, const EngineOptions& opt) {
  const Shape sh = make_shape(a);
  const int m = a.rows, n = a.cols;
  if (m == 0) return 1;
  ModPlan mod;
  mod.primes = choose_primes(rect_bound(a));
  for (double p : mod.primes) mod.pinv.push_back(1.0 / p);
  ExactWalker w;
  w.m = m;
  std::vector<Integer> rsum(static_cast<std::size_t>(m));
  for (const auto& e : a.entries) rsum[static_cast<std::size_t>(e.row)] += abs(e.value);
  const Integer limit = Integer(1) << 49;
  Integer prod = 1;
  for (int i = 0; i < m; ++i) {
    const Integer& r = rsum[static_cast<std::size_t>(i)];
    w.shared = w.shared && r < limit;
    if (i > 0 && prod * r >= limit) w.group_end.push_back(i), prod = 1;
    prod *= r;
  }
  w.group_end.push_back(m);
  std::vector<Integer> binom(static_cast<std::size_t>(m) + 1);
  for (int k = 0; k <= m; ++k) mpz_bin_uiui(binom[static_cast<std::size_t>(k)].get_mpz_t(), n - k, m - k);
  // The coefficients modulo the primes of one walk, as symmetric residues.
  auto set_primes = [&](std::vector<double> primes) {
    w.primes = std::move(primes);
    w.pinv.clear();
    w.coef.clear();
    for (double p : w.primes) w.pinv.push_back(1.0 / p);
    for (int k = 0; k <= m; ++k)
      for (double p : w.primes) {
        const double r = residue_of(binom[static_cast<std::size_t>(k)], p);
        w.coef.push_back((m - k) % 2 ? -r : r);
      }
  };
  const std::string tag = "rect-ryser/exact/" + std::to_string(m) + "x" + std::to_string(n);
  std::vector<double> sums;
  if (w.shared) {
    w.col.assign(static_cast<std::size_t>(n) * m, 0.0);
    for (const auto& e : a.entries) w.col[static_cast<std::size_t>(e.col) * m + e.row] = e.value.get_d();
    set_primes(mod.primes);
    sums = rect_walk(w, sh, opt, tag);
  } else {
    for (double p : mod.primes) {
      w.col.assign(static_cast<std::size_t>(n) * m, 0.0);
      for (const auto& e : a.entries) w.col[static_cast<std::size_t>(e.col) * m + e.row] = residue_of(e.value, p);
      set_primes({p});
      sums.push_back(rect_walk(w, sh, opt, tag)[0]);
    }
  }
  return finish_mod(sums, mod, false, 0);
}

}  // namespace matchcount::engines
