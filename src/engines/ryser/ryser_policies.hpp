// Number policies for the dense Ryser walk (see ryser_walk.hpp). Every policy keeps the row
// sums y (doubled Nijenhuis-Wilf values) as y[row][lane] in V four-wide vectors and fuses,
// per Gray step, "y_i += dir * a2[j][i]" with the running product over the rows.
#pragma once

#include "engines/ryser/row_grid.hpp"
#include "engines/ryser/ryser_walk.hpp"

namespace matchcount::engines {

inline v4d splat(double x) { return v4d{x, x, x, x}; }
inline v4d vmin(v4d a, v4d b) {
#if defined(__AVX__)
  return _mm256_min_pd(a, b);  // one instruction: the compare-and-blend below takes two
#else
  return a < b ? a : b;
#endif
}
inline v4d vabs(v4d x) {
  typedef long long v4i __attribute__((vector_size(32)));
  return (v4d)((v4i)x & v4i{0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL});
}

/// The walk's input: column-major doubled columns a2[j*n + i] = 2 a_ij for the m = n-1
/// Gray columns, and x0_i = 2 a_{i,n-1} - sum_j a_ij (the row sums for the empty subset).
/// For the modular policies these hold residues instead.
struct DenseInput {
  int n = 0;
  std::vector<double> a2, x0;
};

/// Sets y[i*V + l/4][l%4] = x0_i + sum_{j in masks[l]} a2[j][i], adding in ascending j.
/// `fix` is applied after every addition (modular reduction or nothing).
template <int V, class Fix>
void start_lanes(const DenseInput& in, const std::uint64_t* masks, v4d* y, Fix&& fix) {
  for (int i = 0; i < in.n; ++i)
    for (int l = 0; l < 4 * V; ++l) {
      double v = in.x0[static_cast<std::size_t>(i)];
      for (std::uint64_t m = masks[l]; m; m &= m - 1)
        v = fix(v + in.a2[static_cast<std::size_t>(std::countr_zero(m)) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(i)]);
      y[i * V + l / 4][l % 4] = v;
    }
}

/// Per-lane compensated sum (TwoSum), sum of |terms| and of the terms' deviations (row_grid.hpp).
template <int V>
struct LaneSums {
  v4d sum[V], comp[V], abs[V], dev[V];
  void clear() {
    for (int v = 0; v < V; ++v) sum[v] = comp[v] = abs[v] = dev[v] = splat(0);
  }
  /// Adds the deviations of the terms p (|p|, with m the least |y_i| of each lane); `abs_y(v, l, out)`
  /// fills a lane's |y_i| for the lanes where E/m is not small.
  template <class AbsY>
  void deviate(const v4d* abs_p, const v4d* m, const RowErrors& rows, AbsY&& abs_y) {
    for (int v = 0; v < V; ++v) {
      const v4d t = splat(rows.n * rows.max) / m[v];
      const v4d d = abs_p[v] * t * (splat(1) + splat(2) * t);
      const auto small = t <= splat(1e-3);
      if (small[0] && small[1] && small[2] && small[3]) {
        dev[v] += d;
        continue;
      }
      for (int l = 0; l < 4; ++l) {
        if (small[l]) {
          dev[v][l] += d[l];
          continue;
        }
        double y[64];  // n <= 63 rows
        abs_y(v, l, y);
        dev[v][l] += term_deviation(y, rows);
      }
    }
  }
  void add(const v4d* p, bool odd) {
    for (int v = 0; v < V; ++v) {
      v4d t = odd ? -p[v] : p[v];
      v4d s = sum[v] + t, bp = s - sum[v];
      comp[v] += (sum[v] - (s - bp)) + (t - bp);
      sum[v] = s;
      abs[v] += vabs(t);
    }
  }
  /// Lanes in order into a double-double.
  void to(DDSum& out) const {
    for (int v = 0; v < V; ++v)
      for (int l = 0; l < 4; ++l) {
        out.add(sum[v][l]);
        out.add(comp[v][l]);
        out.abs += abs[v][l];
        out.dev += dev[v][l];
      }
  }
};

/// Real matrices: products in double, compensated per-lane sums. With `Dev` (entries that carry
/// errors, rows on their grid: row_grid.hpp) each step also tracks the least |y_i| of every lane
/// for the terms' deviations.
template <int V, bool Dev = false>
struct RealPolicy {
  static constexpr int lanes = 4 * V;
  const DenseInput& in;
  const RowErrors* rows = nullptr;
  struct State {
    std::vector<v4d> y;
    LaneSums<V> s;
  };
  using Sum = DDSum;
  State make_state() const { return State{std::vector<v4d>(static_cast<std::size_t>(in.n) * V), {}}; }
  void start(State& st, const std::uint64_t* masks) const {
    start_lanes<V>(in, masks, st.y.data(), [](double x) { return x; });
    st.s.clear();
    v4d p[V], m[V];
    for (int v = 0; v < V; ++v) p[v] = splat(1), m[v] = splat(std::numeric_limits<double>::infinity());
    for (int i = 0; i < in.n; ++i)
      for (int v = 0; v < V; ++v) {
        p[v] *= st.y[static_cast<std::size_t>(i * V + v)];
        if constexpr (Dev) m[v] = vmin(m[v], vabs(st.y[static_cast<std::size_t>(i * V + v)]));
      }
    st.s.add(p, false);
    if constexpr (Dev) deviate(st, p, m);
  }
  void step(State& st, int j, v4d dir, bool odd) const {
    const double* col = in.a2.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(in.n);
    v4d* y = st.y.data();
    v4d p[V], m[V];
    for (int v = 0; v < V; ++v) p[v] = splat(1), m[v] = splat(std::numeric_limits<double>::infinity());
    for (int i = 0; i < in.n; ++i, y += V) {
      v4d c = splat(col[i]);
      for (int v = 0; v < V; ++v) {
        y[v] = arith::fmadd(dir, c, y[v]);
        p[v] *= y[v];
        if constexpr (Dev) m[v] = vmin(m[v], vabs(y[v]));
      }
    }
    st.s.add(p, odd);
    if constexpr (Dev) deviate(st, p, m);
  }
  void deviate(State& st, const v4d* p, const v4d* m) const {
    v4d ap[V];
    for (int v = 0; v < V; ++v) ap[v] = vabs(p[v]);
    st.s.deviate(ap, m, *rows, [&](int v, int l, double* out) {
      for (int i = 0; i < in.n; ++i) out[i] = std::fabs(st.y[static_cast<std::size_t>(i * V + v)][l]);
    });
  }
  Sum finish(const State& st) const {
    Sum out;
    st.s.to(out);
    return out;
  }
  void combine(Sum& total, const Sum& b) const { total.merge(b); }
};

/// The sums of a complex walk (the same whether it tracks deviations or not).
struct ComplexSum {
  DDSum re, im;
};

/// Complex matrices: y as separate real and imaginary vectors. With `Dev` each step also tracks
/// the least |y_i|^2 of every lane (row_grid.hpp).
template <int V, bool Dev = false>
struct ComplexPolicy {
  static constexpr int lanes = 4 * V;
  const DenseInput& re;
  const DenseInput& im;
  const RowErrors* rows = nullptr;
  struct State {
    std::vector<v4d> yr, yi;
    LaneSums<V> sr, si;
  };
  using Sum = ComplexSum;
  State make_state() const {
    auto sz = static_cast<std::size_t>(re.n) * V;
    return State{std::vector<v4d>(sz), std::vector<v4d>(sz), {}, {}};
  }
  void add(State& st, const v4d* pr, const v4d* pi, const v4d* m2, bool odd) const {
    st.sr.add(pr, odd);
    st.si.add(pi, odd);
    if constexpr (Dev) {
      // |Re p| + |Im p| >= |p| (no squares to underflow); a square root of m^2 that underflowed
      // is only smaller, which makes the bound larger.
      v4d ap[V], m[V];
      for (int v = 0; v < V; ++v) {
        ap[v] = vabs(pr[v]) + vabs(pi[v]);
        for (int l = 0; l < 4; ++l) m[v][l] = std::sqrt(m2[v][l]);
      }
      st.sr.deviate(ap, m, *rows, [&](int v, int l, double* out) {
        for (int i = 0; i < re.n; ++i) {
          const auto k = static_cast<std::size_t>(i * V + v);
          out[i] = std::hypot(st.yr[k][l], st.yi[k][l]);
        }
      });
    }
  }
  void start(State& st, const std::uint64_t* masks) const {
    auto id = [](double x) { return x; };
    start_lanes<V>(re, masks, st.yr.data(), id);
    start_lanes<V>(im, masks, st.yi.data(), id);
    st.sr.clear();
    st.si.clear();
    v4d pr[V], pi[V], m2[V];
    for (int v = 0; v < V; ++v) pr[v] = splat(1), pi[v] = splat(0), m2[v] = splat(std::numeric_limits<double>::infinity());
    for (int i = 0; i < re.n; ++i)
      for (int v = 0; v < V; ++v) {
        v4d yr = st.yr[static_cast<std::size_t>(i * V + v)], yi = st.yi[static_cast<std::size_t>(i * V + v)];
        v4d t = pr[v] * yr - pi[v] * yi;
        pi[v] = pr[v] * yi + pi[v] * yr;
        pr[v] = t;
        if constexpr (Dev) m2[v] = vmin(m2[v], yr * yr + yi * yi);
      }
    add(st, pr, pi, m2, false);
  }
  void step(State& st, int j, v4d dir, bool odd) const {
    std::size_t off = static_cast<std::size_t>(j) * static_cast<std::size_t>(re.n);
    const double *cr = re.a2.data() + off, *ci = im.a2.data() + off;
    v4d *yr = st.yr.data(), *yi = st.yi.data();
    v4d pr[V], pi[V], m2[V];
    for (int v = 0; v < V; ++v) pr[v] = splat(1), pi[v] = splat(0), m2[v] = splat(std::numeric_limits<double>::infinity());
    for (int i = 0; i < re.n; ++i, yr += V, yi += V) {
      v4d a = splat(cr[i]), b = splat(ci[i]);
      for (int v = 0; v < V; ++v) {
        yr[v] = arith::fmadd(dir, a, yr[v]);
        yi[v] = arith::fmadd(dir, b, yi[v]);
        v4d t = pr[v] * yr[v] - pi[v] * yi[v];
        pi[v] = pr[v] * yi[v] + pi[v] * yr[v];
        pr[v] = t;
        if constexpr (Dev) m2[v] = vmin(m2[v], yr[v] * yr[v] + yi[v] * yi[v]);
      }
    }
    add(st, pr, pi, m2, odd);
  }
  Sum finish(const State& st) const {
    Sum out;
    st.sr.to(out.re);
    st.si.to(out.im);
    return out;
  }
  void combine(Sum& total, const Sum& b) const {
    total.re.merge(b.re);
    total.im.merge(b.im);
  }
};

/// Exact sums modulo the primes of `plan`, accumulated per lane in (-p, p).
template <int V>
struct ModAccumulators {
  std::vector<v4d> acc;  // [prime][V]
  void add(int k, const v4d* r, bool odd, double p, double pinv) {
    v4d pv = splat(p), iv = splat(pinv);
    for (int v = 0; v < V; ++v) {
      v4d& a = acc[static_cast<std::size_t>(k * V + v)];
      a = arith::modreduce(odd ? a - r[v] : a + r[v], pv, iv);
    }
  }
  /// Lane sums of prime k folded into `out` in (-p, p).
  void fold(int k, double& out, double p, double pinv) const {
    for (int v = 0; v < V; ++v)
      for (int l = 0; l < 4; ++l) out = arith::modreduce(out + acc[static_cast<std::size_t>(k * V + v)][l], p, pinv);
  }
  /// A block's sums, one per prime of `plan` (the walks with shared row sums: finish()).
  std::vector<double> sums(const ModPlan& plan) const {
    std::vector<double> out(plan.primes.size(), 0.0);
    for (std::size_t k = 0; k < out.size(); ++k) fold(static_cast<int>(k), out[k], plan.primes[k], plan.pinv[k]);
    return out;
  }
};

/// total += b, per prime of `plan` (the walks with shared row sums: combine()).
inline void combine_mod_sums(std::vector<double>& total, const std::vector<double>& b, const ModPlan& plan) {
  total.resize(b.size(), 0.0);
  for (std::size_t k = 0; k < b.size(); ++k) total[k] = arith::modreduce(total[k] + b[k], plan.primes[k], plan.pinv[k]);
}

/// Exact, shared row sums: y are exact integers (< 2^49) in doubles, the same for every
/// prime; group products are exact; only the products of the groups are taken mod p.
template <int V>
struct ModSharedPolicy {
  static constexpr int lanes = 4 * V;
  const DenseInput& in;
  const ModPlan& plan;
  struct State {
    std::vector<v4d> y, group;  // group products [g][V]
    ModAccumulators<V> acc;
  };
  using Sum = std::vector<double>;
  State make_state() const {
    State st;
    st.y.resize(static_cast<std::size_t>(in.n) * V);
    st.group.resize(plan.group_end.size() * V);
    st.acc.acc.resize(plan.primes.size() * V);
    return st;
  }
  void add(State& st, bool odd) const {
    const int groups = static_cast<int>(plan.group_end.size());
    for (std::size_t k = 0; k < plan.primes.size(); ++k) {
      v4d pv = splat(plan.primes[k]), iv = splat(plan.pinv[k]), r[V];
      for (int v = 0; v < V; ++v) r[v] = st.group[static_cast<std::size_t>(v)];
      for (int g = 1; g < groups; ++g)
        for (int v = 0; v < V; ++v) r[v] = arith::modmul(r[v], st.group[static_cast<std::size_t>(g * V + v)], pv, iv);
      st.acc.add(static_cast<int>(k), r, odd, plan.primes[k], plan.pinv[k]);
    }
  }
  void start(State& st, const std::uint64_t* masks) const {
    start_lanes<V>(in, masks, st.y.data(), [](double x) { return x; });
    std::fill(st.acc.acc.begin(), st.acc.acc.end(), splat(0));
    int i = 0;
    for (std::size_t g = 0; g < plan.group_end.size(); ++g) {
      v4d p[V];
      for (int v = 0; v < V; ++v) p[v] = splat(1);
      for (; i < plan.group_end[g]; ++i)
        for (int v = 0; v < V; ++v) p[v] *= st.y[static_cast<std::size_t>(i * V + v)];
      for (int v = 0; v < V; ++v) st.group[g * V + static_cast<std::size_t>(v)] = p[v];
    }
    add(st, false);
  }
  void step(State& st, int j, v4d dir, bool odd) const {
    const double* col = in.a2.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(in.n);
    v4d* y = st.y.data();
    int i = 0;
    for (std::size_t g = 0; g < plan.group_end.size(); ++g) {
      v4d p[V];
      for (int v = 0; v < V; ++v) p[v] = splat(1);
      for (; i < plan.group_end[g]; ++i, y += V) {
        v4d c = splat(col[i]);
        for (int v = 0; v < V; ++v) {
          y[v] = arith::fmadd(dir, c, y[v]);
          p[v] *= y[v];
        }
      }
      for (int v = 0; v < V; ++v) st.group[g * V + static_cast<std::size_t>(v)] = p[v];
    }
    add(st, odd);
  }
  Sum finish(const State& st) const { return st.acc.sums(plan); }
  void combine(Sum& total, const Sum& b) const { combine_mod_sums(total, b, plan); }
};

/// Exact fallback for large entries: one prime per walk, y and a2 held as residues.
template <int V>
struct ModPrimePolicy {
  static constexpr int lanes = 4 * V;
  const DenseInput& in;  // residues mod p
  double p, pinv;
  struct State {
    std::vector<v4d> y;
    ModAccumulators<V> acc;
  };
  using Sum = double;
  State make_state() const {
    State st;
    st.y.resize(static_cast<std::size_t>(in.n) * V);
    st.acc.acc.resize(V);
    return st;
  }
  void start(State& st, const std::uint64_t* masks) const {
    start_lanes<V>(in, masks, st.y.data(), [this](double x) { return arith::modreduce(x, p, pinv); });
    std::fill(st.acc.acc.begin(), st.acc.acc.end(), splat(0));
    v4d r[V], pv = splat(p), iv = splat(pinv);
    for (int v = 0; v < V; ++v) r[v] = st.y[static_cast<std::size_t>(v)];
    for (int i = 1; i < in.n; ++i)
      for (int v = 0; v < V; ++v) r[v] = arith::modmul(r[v], st.y[static_cast<std::size_t>(i * V + v)], pv, iv);
    st.acc.add(0, r, false, p, pinv);
  }
  void step(State& st, int j, v4d dir, bool odd) const {
    const double* col = in.a2.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(in.n);
    v4d* y = st.y.data();
    v4d r[V], pv = splat(p), iv = splat(pinv);
    for (int v = 0; v < V; ++v) r[v] = splat(1);
    for (int i = 0; i < in.n; ++i, y += V) {
      v4d c = splat(col[i]);
      for (int v = 0; v < V; ++v) {
        y[v] = arith::modreduce(arith::fmadd(dir, c, y[v]), pv, iv);
        r[v] = i == 0 ? y[v] : arith::modmul(r[v], y[v], pv, iv);
      }
    }
    st.acc.add(0, r, odd, p, pinv);
  }
  Sum finish(const State& st) const {
    double out = 0;
    st.acc.fold(0, out, p, pinv);
    return out;
  }
  void combine(Sum& total, const Sum& b) const { total = arith::modreduce(total + b, p, pinv); }
};

}  // namespace matchcount::engines
