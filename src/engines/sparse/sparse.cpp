// SpaRyser and SkipPer: sparse Ryser walks (sparse_walk.hpp) with scalar number policies.
#include <cstdio>
#include <numeric>

#include "core/hashing.hpp"
#include "engines/sparse/sparse.hpp"
#include "engines/ryser/row_grid.hpp"
#include "engines/sparse/sparse_walk.hpp"

namespace matchcount::engines {
namespace {

/// Deviation of one term (row_grid.hpp) from the lane's |y_i| (`abs_y` fills them) when E/m is
/// not small, else from |p| and m.
template <class AbsY>
double sparse_deviation(const RowErrors* rows, double abs_p, double m, AbsY&& abs_y) {
  const double d = small_deviation(abs_p, m, *rows);
  if (d >= 0) return d;
  double y[64];
  abs_y(y);
  return term_deviation(y, *rows);
}

struct RealSparse {
  const std::vector<double>& vals;
  int n;
  const RowErrors* rows = nullptr;  // the entries' errors (gridded rows), null when exact
  struct State {
    LineVector<double> y;
    DDSum s;
  };
  using Sum = DDSum;
  State make_state() const { return State{LineVector<double>(static_cast<std::size_t>(n)), {}}; }
  void reset(State& st) const { std::fill(st.y.begin(), st.y.end(), 0.0), st.s = {}; }
  void update(State& st, int pos, int i, bool add) const {
    double v = vals[static_cast<std::size_t>(pos)];
    st.y[static_cast<std::size_t>(i)] += add ? v : -v;
  }
  void zero(State& st, int i) const { st.y[static_cast<std::size_t>(i)] = 0; }
  void term(State& st, bool odd) const {
    double p = 1, m = std::numeric_limits<double>::infinity();
    for (double y : st.y) p *= y, m = std::min(m, std::fabs(y));
    st.s.add_term(odd ? -p : p);
    if (rows)
      st.s.dev += sparse_deviation(rows, std::fabs(p), m, [&](double* out) {
        for (std::size_t i = 0; i < st.y.size(); ++i) out[i] = std::fabs(st.y[i]);
      });
  }
  Sum finish(const State& st) const { return st.s; }
  void combine(Sum& t, const Sum& b) const { t.merge(b); }
};

struct ComplexSparse {
  const std::vector<Complex>& vals;
  int n;
  const RowErrors* rows = nullptr;  // the entries' errors (gridded rows), null when exact
  struct State {
    LineVector<double> yr, yi;
    DDSum re, im;
  };
  struct Sum {
    DDSum re, im;
  };
  State make_state() const {
    auto sz = static_cast<std::size_t>(n);
    return State{LineVector<double>(sz), LineVector<double>(sz), {}, {}};
  }
  void reset(State& st) const {
    std::fill(st.yr.begin(), st.yr.end(), 0.0), std::fill(st.yi.begin(), st.yi.end(), 0.0);
    st.re = st.im = {};
  }
  void update(State& st, int pos, int i, bool add) const {
    Complex v = vals[static_cast<std::size_t>(pos)];
    st.yr[static_cast<std::size_t>(i)] += add ? v.real() : -v.real();
    st.yi[static_cast<std::size_t>(i)] += add ? v.imag() : -v.imag();
  }
  void zero(State& st, int i) const { st.yr[static_cast<std::size_t>(i)] = st.yi[static_cast<std::size_t>(i)] = 0; }
  void term(State& st, bool odd) const {
    double pr = 1, pi = 0, m = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < st.yr.size(); ++i) {
      double t = pr * st.yr[i] - pi * st.yi[i];
      pi = pr * st.yi[i] + pi * st.yr[i];
      pr = t;
      if (rows) m = std::min(m, std::hypot(st.yr[i], st.yi[i]));
    }
    st.re.add_term(odd ? -pr : pr);
    st.im.add_term(odd ? -pi : pi);
    if (rows)
      st.re.dev += sparse_deviation(rows, std::fabs(pr) + std::fabs(pi), m, [&](double* out) {
        for (std::size_t i = 0; i < st.yr.size(); ++i) out[i] = std::hypot(st.yr[i], st.yi[i]);
      });
  }
  Sum finish(const State& st) const { return {st.re, st.im}; }
  void combine(Sum& t, const Sum& b) const { t.re.merge(b.re), t.im.merge(b.im); }
};

/// Exact with shared row sums: y exact integers in doubles, group products exact, then
/// multiplied modulo every prime (see ModPlan).
struct ModSharedSparse {
  const std::vector<double>& vals;
  const ModPlan& plan;
  int n;
  struct State {
    LineVector<double> y, acc;
  };
  using Sum = std::vector<double>;
  State make_state() const {
    return State{LineVector<double>(static_cast<std::size_t>(n)), LineVector<double>(plan.primes.size())};
  }
  void reset(State& st) const { std::fill(st.y.begin(), st.y.end(), 0.0), std::fill(st.acc.begin(), st.acc.end(), 0.0); }
  void update(State& st, int pos, int i, bool add) const {
    double v = vals[static_cast<std::size_t>(pos)];
    st.y[static_cast<std::size_t>(i)] += add ? v : -v;
  }
  void zero(State& st, int i) const { st.y[static_cast<std::size_t>(i)] = 0; }
  void term(State& st, bool odd) const {
    double group[64];  // n <= 62 rows, so at most 62 groups
    int i = 0;
    for (std::size_t g = 0; g < plan.group_end.size(); ++g) {
      double p = 1;
      for (; i < plan.group_end[g]; ++i) p *= st.y[static_cast<std::size_t>(i)];
      if (p == 0) return;  // a cancelling row sum: the term is 0
      group[g] = p;
    }
    for (std::size_t k = 0; k < plan.primes.size(); ++k) {
      double p = plan.primes[k], pinv = plan.pinv[k], r = group[0];
      for (std::size_t g = 1; g < plan.group_end.size(); ++g) r = arith::modmul(r, group[g], p, pinv);
      st.acc[k] = arith::modreduce(odd ? st.acc[k] - r : st.acc[k] + r, p, pinv);
    }
  }
  Sum finish(const State& st) const { return Sum(st.acc.begin(), st.acc.end()); }
  void combine(Sum& t, const Sum& b) const {
    t.resize(b.size(), 0.0);
    for (std::size_t k = 0; k < b.size(); ++k) t[k] = arith::modreduce(t[k] + b[k], plan.primes[k], plan.pinv[k]);
  }
};

/// Exact fallback for large entries: one prime per walk, row sums kept as residues.
struct ModPrimeSparse {
  const std::vector<double>& vals;  // residues in [0, p)
  double p, pinv;
  int n;
  struct State {
    LineVector<double> y;
    double acc = 0;
  };
  using Sum = double;
  State make_state() const { return State{LineVector<double>(static_cast<std::size_t>(n)), 0.0}; }
  void reset(State& st) const { std::fill(st.y.begin(), st.y.end(), 0.0), st.acc = 0; }
  void update(State& st, int pos, int i, bool add) const {
    double v = vals[static_cast<std::size_t>(pos)];
    double& y = st.y[static_cast<std::size_t>(i)];
    y = arith::modreduce(add ? y + v : y - v, p, pinv);
  }
  void zero(State& st, int i) const { st.y[static_cast<std::size_t>(i)] = 0; }
  void term(State& st, bool odd) const {
    double r = st.y[0];
    for (std::size_t i = 1; i < st.y.size(); ++i) r = arith::modmul(r, st.y[i], p, pinv);
    st.acc = arith::modreduce(odd ? st.acc - r : st.acc + r, p, pinv);
  }
  Sum finish(const State& st) const { return st.acc; }
  void combine(Sum& t, const Sum& b) const { t = arith::modreduce(t + b, p, pinv); }
};

/// Gray bit -> column. SpaRyser: sparsest columns on the low bits, which flip most often, so
/// the frequent updates are the cheap ones. SkipPer (SkipOrd): rows in increasing degree
/// hand their not yet placed columns to the highest free bits. A row whose support lies in
/// high bits is zero on long stretches (all its bits 0), each skipped in one jump of up to
/// 2^(lowest bit of the row); the sparsest rows are the most often zero, so they get the
/// highest bits, and each next row a block just below.
template <class T>
std::vector<int> column_order(const SparseMatrix<T>& a, bool skip_order) {
  const int n = a.rows;
  std::vector<int> col_deg(static_cast<std::size_t>(n)), row_deg(static_cast<std::size_t>(n));
  for (const auto& e : a.entries) ++col_deg[static_cast<std::size_t>(e.col)], ++row_deg[static_cast<std::size_t>(e.row)];
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return col_deg[static_cast<std::size_t>(x)] < col_deg[static_cast<std::size_t>(y)]; });
  if (!skip_order) return order;
  std::vector<int> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int x, int y) { return row_deg[static_cast<std::size_t>(x)] < row_deg[static_cast<std::size_t>(y)]; });
  std::vector<std::vector<int>> support(static_cast<std::size_t>(n));
  for (const auto& e : a.entries) support[static_cast<std::size_t>(e.row)].push_back(e.col);
  std::vector<int> top_down;  // columns from the highest bit down
  std::vector<char> placed(static_cast<std::size_t>(n));
  for (int r : rows)
    for (int c : support[static_cast<std::size_t>(r)])
      if (!placed[static_cast<std::size_t>(c)]) placed[static_cast<std::size_t>(c)] = 1, top_down.push_back(c);
  for (int c : order)  // columns no row placed (none when no column is empty)
    if (!placed[static_cast<std::size_t>(c)]) top_down.push_back(c);
  return {top_down.rbegin(), top_down.rend()};
}

/// A checkpoint name for a walk: engine, number policy, chunk count and a hash of the layout,
/// the values walked and `extra` (primes, or the rows' error bounds of a float walk), so that a
/// saved state is only ever resumed by the same walk.
template <class V>
std::string sparse_tag(const char* engine, const char* policy, const SparseLayout& lay, const std::vector<V>& vals,
                       const std::vector<double>& extra = {}) {
  std::uint64_t h = fnv1a64(extra.data(), extra.size() * sizeof(double));
  h = fnv1a64(lay.col_of_bit.data(), lay.col_of_bit.size() * sizeof(int), h);
  h = fnv1a64(lay.ptr.data(), lay.ptr.size() * sizeof(int), h);
  h = fnv1a64(lay.row.data(), lay.row.size() * sizeof(int), h);
  h = fnv1a64(vals.data(), vals.size() * sizeof(V), h);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s/%s/n=%d/chunks=2^%d/input=%016llx", engine, policy, lay.n,
                sparse_units_log(lay.n), static_cast<unsigned long long>(h));
  return buf;
}

template <bool Skip>
class SparseEngine final : public Engine {
 public:
  std::string name() const override { return Skip ? "skipper" : "sparyser"; }
  int max_n() const override { return 62; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    SparseLayout lay = make_layout(a, column_order(a, Skip));
    std::vector<int> rows(static_cast<std::size_t>(n));
    std::iota(rows.begin(), rows.end(), 0);
    ModPlan mod = make_mod_plan(a, rows);
    std::vector<double> sums;
    if (mod.shared) {
      auto vals = layout_values<double>(lay, a, [](const Integer& v) { return v.get_d(); });
      sums = sparse_walk<Skip>(lay, ModSharedSparse{vals, mod, n}, opt,
                               sparse_tag(name().c_str(), "exact-shared", lay, vals, mod.primes));
    } else {
      for (std::size_t k = 0; k < mod.primes.size(); ++k) {
        double p = mod.primes[k];
        auto vals = layout_values<double>(lay, a, [p](const Integer& v) { return residue_of(v, p); });
        sums.push_back(sparse_walk<Skip>(lay, ModPrimeSparse{vals, p, mod.pinv[k], n}, opt,
                                         sparse_tag(name().c_str(), "exact-prime", lay, vals, {p})));
      }
    }
    return finish_mod(sums, mod, n % 2 == 1, 0);
  }

  // Floats walk the block with exact row sums: rows scaled and rounded to their grid
  // (row_grid.hpp), whose moves count with the entries' own errors in the terms' deviations.
  // Row sums of structurally zero rows are reset to exactly 0 as before.
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    const GriddedRows<double> g = grid_rows(a, opt);
    SparseLayout lay = make_layout(g.b, column_order(g.b, Skip));
    auto vals = layout_values<double>(lay, g.b, [](double v) { return v; });
    DDSum s = sparse_walk<Skip>(lay, RealSparse{vals, n, g.rows.exact() ? nullptr : &g.rows}, opt,
                                sparse_tag(name().c_str(), "real", lay, vals, g.rows.err));
    const double v = std::ldexp(n % 2 ? -s.value() : s.value(), static_cast<int>(g.shift));
    return {v, bound(s, v, n, 1, g.shift)};
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    const GriddedRows<Complex> g = grid_rows(a, opt);
    SparseLayout lay = make_layout(g.b, column_order(g.b, Skip));
    auto vals = layout_values<Complex>(lay, g.b, [](Complex v) { return v; });
    auto s = sparse_walk<Skip>(lay, ComplexSparse{vals, n, g.rows.exact() ? nullptr : &g.rows}, opt,
                               sparse_tag(name().c_str(), "complex", lay, vals, g.rows.err));
    const double sign = n % 2 ? -1.0 : 1.0;
    const Complex v = scaled_sum(sign * s.re.value(), sign * s.im.value(), g.shift);
    DDSum both = s.re;  // sum |p| <= sum |Re p| + |Im p|
    both.abs += s.im.abs;
    return {v, bound(both, std::abs(v), n, 3, g.shift)};
  }

 private:
  /// walk_bound (row_grid.hpp) for the walk's 2^n terms in chunks of 2^(n - units) steps.
  static double bound(const DDSum& s, double value, int n, double mult, long shift) {
    const double chunk = std::ldexp(1.0, n - sparse_units_log(n));
    return walk_bound(value, s.abs, s.dev, n, mult, std::ldexp(1.0, static_cast<int>(shift)),
                      3 * std::ldexp(1.0, sparse_units_log(n)), chunk) + 0x1p-1074;
  }
};

}  // namespace

std::unique_ptr<Engine> make_sparyser() { return std::make_unique<SparseEngine<false>>(); }
std::unique_ptr<Engine> make_skipper() { return std::make_unique<SparseEngine<true>>(); }

}  // namespace matchcount::engines
