// The "hafnian" engine: the walk of haf_walk.hpp run in work units through runtime::run_units,
// exactly modulo small primes (four in the lanes of a vector, more primes more passes) or in
// floating point in four lanes: three vertex orders, whose spread is the arithmetic's error
// estimate, and the walk of |A|, which bounds what the entries' own errors move (haf_setup.hpp).
#include "engines/hafnian/hafnian.hpp"

#include <cstdio>

#include "core/hashing.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_units.hpp"
#include "engines/hafnian/haf_walk.hpp"

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
    const std::vector<haf::ModArith> ariths = haf::prime_passes(primes);
    const std::vector<Integer> dense = a.dense();
    std::vector<Root<v4d>> roots;
    // The walk's input in its tag, for a checkpoint or MPI ranks only: hashing every root costs
    // more than a small hafnian's walk.
    const bool tagged = opt.journal || opt.team;
    std::uint64_t h = fnv1a64(primes.data(), primes.size() * sizeof(double));
    for (const haf::ModArith& ar : ariths) {
      roots.push_back(make_root<v4d>(n0, loops, v4d{1, 1, 1, 1}, [&](int i, int j) {
        return haf::residues(dense[static_cast<std::size_t>(i) * static_cast<std::size_t>(n0) + static_cast<std::size_t>(j)], ar);
      }));
      if (tagged) h = hash_root(roots.back(), h);
    }
    const int depth = unit_depth(roots[0].m);
    const std::uint64_t per_pass = std::uint64_t{1} << depth, units = per_pass * ariths.size();
    const int threads = thread_count(opt, double(ariths.size()) * hafnian_work(n0, loops));
    return haf::exact_units(primes, ariths, per_pass, threads, opt, walk_tag("exact", n0, loops, depth, units, h),
                            [&](std::size_t q) { return haf::make_walk(ariths[q], roots[q], depth); });
  }

  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    const std::vector<double> d = a.dense();
    const auto orders = haf::float_orders(a.rows);
    Root<v4d> root = make_root<v4d>(a.rows, loops, v4d{1, 1, 1, 1}, [&](int i, int j) {
      v4d r{};
      for (int l = 0; l < 4; ++l) r[l] = haf::walk_entry(d, a.rows, orders, l, i, j);
      return r;
    });
    const std::vector<double> walks = float_walk<haf::RealArith>(haf::RealArith{}, root, a.rows, loops, "real", opt);
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
    const std::vector<Complex> walks =
        float_walk<haf::ComplexArith>(haf::ComplexArith{}, root, a.rows, loops, "complex", opt);
    return haf::float_estimate(walks, haf::hafnian_excess(a, loops, opt));
  }

 private:
  /// The float walk: the four lanes walk the matrix in the four orders of haf::float_orders
  /// (haf_units.hpp sums them); each lane's value.
  template <class Ar>
  static std::vector<std::conditional_t<std::is_same_v<Ar, haf::ComplexArith>, Complex, double>> float_walk(
      const Ar& ar, const Root<typename Ar::V>& root, int n0, bool loops, const char* policy, const EngineOptions& opt) {
    const int depth = unit_depth(root.m);
    const std::uint64_t units = std::uint64_t{1} << depth;
    const int threads = thread_count(opt, hafnian_work(n0, loops) * (sizeof(typename Ar::V) == 64 ? 4.0 : 1.0));
    const std::uint64_t h = opt.journal || opt.team ? hash_root(root, 0xcbf29ce484222325ULL) : 0;  // as in count
    return haf::float_units<Ar>(units, threads, opt, walk_tag(policy, n0, loops, depth, units, h),
                                [&] { return haf::make_walk(ar, root, depth); });
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
std::size_t hafnian_prime_count(int n, const Integer& bound) { return haf::primes_for_bound((n + 1) / 2, bound).size(); }

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
