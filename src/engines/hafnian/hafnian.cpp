// The "hafnian" engine: the walk of haf_walk.hpp run in work units through runtime::run_units,
// exactly modulo small primes (four in the lanes of a vector, more primes more passes) or in
// floating point in four lanes: three vertex orders, whose spread is the arithmetic's error
// estimate, and the walk of |A|, which bounds what the entries' own errors move (haf_setup.hpp).
#include "engines/hafnian/hafnian.hpp"

#include <cstdio>

#include "core/hashing.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_walk.hpp"
#include "runtime/thread_walk.hpp"

namespace matchcount::engines {
namespace {

using haf::cv4;
using haf::Root;

/// Unit depth: 2^depth units of 2^(m-depth) leaves each (a pass), a function of n only. Units
/// keep 2^12 leaves so that recomputing the last levels of a unit's path stays cheap.
int unit_depth(int m) { return std::clamp(m - 12, 0, 20); }

/// Root polynomials from dense values: val(i, j) the lane value of an entry; odd n (loops
/// only) gains a vertex with loop `one` and no edge.
template <class V, class Val>
Root<V> make_root(int n0, bool loops, V one, Val val) {
  return haf::root_of<V>(n0 + n0 % 2, loops, [&](int i, int j) { return i < n0 ? val(i, j) : V{}; },
                         [&](int i) { return i < n0 ? val(i, i) : one; });
}

template <class V>
std::uint64_t hash_root(const Root<V>& r, std::uint64_t h) {
  h = fnv1a64(r.b.data(), r.b.size() * sizeof(V), h);
  return fnv1a64(r.d.data(), r.d.size() * sizeof(V), h);
}

std::string walk_tag(const char* policy, int n, bool loops, int depth, std::uint64_t units, std::uint64_t h) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "hafnian/%s/n=%d/loops=%d/depth=%d/units=%llu/input=%016llx", policy, n,
                loops ? 1 : 0, depth, static_cast<unsigned long long>(units), static_cast<unsigned long long>(h));
  return buf;
}

class HafnianEngine final : public GraphEngine {
 public:
  std::string name() const override { return "hafnian"; }
  int max_n() const override { return kHafnianMaxN; }
  bool loops() const override { return true; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const override {
    const int n0 = a.rows;
    const std::vector<double> primes = haf::primes_for(a, loops);
    const std::size_t passes = (primes.size() + 3) / 4;
    const std::vector<Integer> dense = a.dense();
    std::vector<Root<v4d>> roots;
    std::vector<haf::ModArith> ariths;
    std::uint64_t h = fnv1a64(primes.data(), primes.size() * sizeof(double));
    for (std::size_t q = 0; q < passes; ++q) {
      v4d p{}, pinv{};
      for (int l = 0; l < 4; ++l) {
        // A pass short of primes repeats its last one; the repeats are ignored at the end.
        p[l] = primes[std::min(4 * q + static_cast<std::size_t>(l), primes.size() - 1)];
        pinv[l] = 1.0 / p[l];
      }
      ariths.push_back({p, pinv});
      roots.push_back(make_root<v4d>(n0, loops, v4d{1, 1, 1, 1}, [&](int i, int j) {
        v4d r{};
        for (int l = 0; l < 4; ++l) {
          double x = residue_of(dense[static_cast<std::size_t>(i) * static_cast<std::size_t>(n0) + static_cast<std::size_t>(j)], p[l]);
          r[l] = x > p[l] / 2 ? x - p[l] : x;
        }
        return r;
      }));
      h = hash_root(roots.back(), h);
    }
    const int m = roots[0].m, depth = unit_depth(m);
    const std::uint64_t per_pass = std::uint64_t{1} << depth, units = per_pass * passes;
    const int threads = thread_count(opt, double(passes) * hafnian_work(n0, loops));
    struct State {
      std::size_t pass = ~std::size_t{0};
      std::unique_ptr<haf::WalkBase<haf::ModArith>> walk;
    };
    const std::vector<double> zero(4 * passes, 0.0);
    auto walk_unit = [&](State& st, std::uint64_t b) {
      const std::size_t q = static_cast<std::size_t>(b / per_pass);
      if (st.pass != q) {
        st.walk = haf::make_walk(ariths[q], roots[q], depth);
        st.pass = q;
      }
      const v4d s = st.walk->run(b % per_pass).s;
      std::vector<double> out = zero;
      for (int l = 0; l < 4; ++l) out[4 * q + static_cast<std::size_t>(l)] = s[l];
      return out;
    };
    auto combine = [&](std::vector<double>& total, const std::vector<double>& s) {
      if (total.empty()) total = zero;
      for (std::size_t i = 0; i < total.size(); ++i) {
        const double p = ariths[i / 4].p[i % 4];
        total[i] = arith::modreduce(total[i] + s[i], p, 1.0 / p);
      }
    };
    const std::vector<double> sums = runtime::run_units<std::vector<double>>(
        units, threads, opt, walk_tag("exact", n0, loops, depth, units, h), zero, [] { return State{}; },
        walk_unit, combine);
    std::vector<std::uint64_t> residues, ps;
    for (std::size_t k = 0; k < primes.size(); ++k) {
      const auto p = static_cast<std::uint64_t>(primes[k]);
      double x = k < sums.size() ? sums[k] : 0.0;
      x = arith::modreduce(x, primes[k], 1.0 / primes[k]);
      residues.push_back(to_residue(x, p));
      ps.push_back(p);
    }
    return crt_symmetric(residues, ps);
  }

  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    const std::vector<double> d = a.dense();
    const auto orders = haf::float_orders(a.rows);
    Root<v4d> root = make_root<v4d>(a.rows, loops, v4d{1, 1, 1, 1}, [&](int i, int j) {
      v4d r{};
      for (int l = 0; l < 4; ++l) r[l] = haf::walk_entry(d, a.rows, orders, l, i, j);
      return r;
    });
    // Per unit: each lane's sum as a double-double.
    auto to_sum = [](const haf::RealArith::Acc& acc) {
      std::vector<double> w;
      for (int l = 0; l < 4; ++l) w.push_back(acc.hi[l]), w.push_back(acc.lo[l]);
      return w;
    };
    const std::vector<double> s = float_walk<haf::RealArith>(haf::RealArith{}, root, a.rows, loops, "real", to_sum, opt);
    std::vector<double> walks;
    for (int l = 0; l < 4; ++l) walks.push_back(s[2 * l] + s[2 * l + 1]);
    return haf::float_estimate(walks, haf::hafnian_excess(a, loops, opt));
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const override {
    const std::vector<Complex> d = a.dense();
    const auto orders = haf::float_orders(a.rows);
    Root<cv4> root = make_root<cv4>(a.rows, loops, cv4{{1, 1, 1, 1}, {0, 0, 0, 0}}, [&](int i, int j) {
      cv4 r{};
      for (int l = 0; l < 4; ++l) {
        const Complex x = haf::walk_entry(d, a.rows, orders, l, i, j);
        r.re[l] = x.real(), r.im[l] = x.imag();
      }
      return r;
    });
    auto to_sum = [](const haf::ComplexArith::Acc& acc) {
      std::vector<double> w;
      for (int l = 0; l < 4; ++l)
        w.push_back(acc.re_hi[l]), w.push_back(acc.re_lo[l]), w.push_back(acc.im_hi[l]), w.push_back(acc.im_lo[l]);
      return w;
    };
    const std::vector<double> s =
        float_walk<haf::ComplexArith>(haf::ComplexArith{}, root, a.rows, loops, "complex", to_sum, opt);
    std::vector<Complex> walks;
    for (int l = 0; l < 4; ++l) walks.emplace_back(s[4 * l] + s[4 * l + 1], s[4 * l + 2] + s[4 * l + 3]);
    return haf::float_estimate(walks, haf::hafnian_excess(a, loops, opt));
  }

 private:
  /// The float walk: the four lanes walk the matrix in the four orders of haf::float_orders;
  /// unit sums are double-double pairs (one per lane, or per lane and part), combined in unit
  /// order.
  template <class Ar, class ToSum>
  static std::vector<double> float_walk(const Ar& ar, const Root<typename Ar::V>& root, int n0, bool loops,
                                        const char* policy, ToSum to_sum, const EngineOptions& opt) {
    const int m = root.m, depth = unit_depth(m);
    const std::uint64_t units = std::uint64_t{1} << depth;
    const int threads = thread_count(opt, hafnian_work(n0, loops) * (sizeof(typename Ar::V) == 64 ? 4.0 : 1.0));
    const std::uint64_t h = hash_root(root, 0xcbf29ce484222325ULL);
    const std::size_t words = sizeof(typename Ar::V) == 64 ? 16 : 8;
    const std::vector<double> zero(words, 0.0);
    auto make = [&] { return haf::make_walk(ar, root, depth); };
    auto walk_unit = [&](std::unique_ptr<haf::WalkBase<Ar>>& w, std::uint64_t b) { return to_sum(w->run(b)); };
    auto combine = [&](std::vector<double>& total, const std::vector<double>& s) {
      if (total.empty()) total = zero;
      for (std::size_t k = 0; k + 1 < words; k += 2) {
        DDSum v{total[k], total[k + 1], 0};
        v.add(s[k]), v.add(s[k + 1]);
        total[k] = v.hi, total[k + 1] = v.lo;
      }
    };
    return runtime::run_units<std::vector<double>>(units, threads, opt,
                                                   walk_tag(policy, n0, loops, depth, units, h), zero, make,
                                                   walk_unit, combine);
  }
};

}  // namespace

double hafnian_work(int n, bool loops) {
  const int m = (n + 1) / 2;
  const double P = 0.5 * m * m + 2.0 * m;  // one truncated product, with the blocks' waste
  double w = std::ldexp(double(m) + (loops ? P : 0.0), m - 1);
  for (int i = 2; i <= m; ++i) {
    double node = (i - 1.0) * (2.0 * i - 3) * 2 * P + P;
    if (loops) node += (2.0 * i - 2) * 2 * P + P;
    w += std::ldexp(node, m - i);
  }
  return w;
}

std::size_t hafnian_prime_count(const SparseMatrix<Integer>& a, bool loops) { return haf::primes_for(a, loops).size(); }

double hafnian_seconds(int n, double primes, NumberKind kind, bool loops, int cores) {
  // Seconds per 4-lane multiply-add on one core, measured on the walk itself; complex lanes
  // take four multiply-adds each.
  constexpr double kPerMadd = 1.75e-10, kFixed = 5e-5;
  const double work = hafnian_work(n, loops);
  double units = 0;
  switch (kind) {
    case NumberKind::Integer:
    case NumberKind::Rational: units = std::max(1.0, std::ceil(primes / 4)); break;
    case NumberKind::Real: units = 1.0; break;     // four orders in the four lanes
    case NumberKind::Complex: units = 4.8; break;
  }
  const double c = std::clamp(work * units / 2e6, 1.0, double(std::max(cores, 1)));
  return kFixed + work * units * kPerMadd / c;
}

std::unique_ptr<GraphEngine> make_hafnian() { return std::make_unique<HafnianEngine>(); }

}  // namespace matchcount::engines
