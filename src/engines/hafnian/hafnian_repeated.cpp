// Repeated-row hafnians (hafnian_repeated.hpp): the pairing of the copies, the roots and
// chains of the walk of haf_rpt_walk.hpp, and its runs in work units (threads, checkpoints,
// MPI through runtime::run_units), exactly modulo small primes or in four float lanes.
#include "engines/hafnian/hafnian_repeated.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <omp.h>

#include "core/arith.hpp"
#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/common.hpp"
#include "engines/gpu_common.hpp"
#include "engines/hafnian/haf_rpt_layout.hpp"
#include "engines/hafnian/haf_rpt_walk.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_units.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using haf::cv4;
using haf::PairChain;
using haf::Root;
using Layout = haf::RptLayout;
using haf::layout_of;
using haf::bound_of;
using haf::rpt_entry;
using haf::rpt_loop_weight;

/// Units keep at least this many leaves, so that rebuilding a unit's chain stays cheap.
constexpr double kLeavesPerUnit = 2048;

/// The chain of `types` with lane weights (-1)^(r-k) C(r, k), each reduced by `reduce`.
template <class Reduce>
PairChain chain_of(const PairTypes& types, Reduce reduce) {
  PairChain c;
  c.mult = types.mult;
  int level = 0;
  for (int r : types.mult) {
    c.first.push_back(level);
    level += r;
    std::vector<v4d> w;
    for (int k = 0; k <= r; ++k) {
      Integer binom;
      mpz_bin_uiui(binom.get_mpz_t(), static_cast<unsigned long>(r), static_cast<unsigned long>(k));
      w.push_back(reduce((r - k) % 2 ? Integer(-binom) : binom));
    }
    c.weight.push_back(std::move(w));
  }
  const double leaves = types.leaves();
  double units = 1;
  while (c.unit_types < c.mult.size() && units * (c.mult[c.unit_types] + 1) * kLeavesPerUnit <= leaves)
    units *= c.mult[c.unit_types++] + 1;
  return c;
}

/// The input's fingerprint in a walk's tag, which only a checkpoint or MPI ranks read: a small
/// pattern would spend longer hashing its root than walking it.
bool tag_needed(const EngineOptions& opt) { return opt.journal != nullptr || opt.team != nullptr; }

template <class V>
std::uint64_t hash_of(const Root<V>& r, const PairChain& c, std::uint64_t h) {
  h = fnv1a64(r.b.data(), r.b.size() * sizeof(V), h);
  h = fnv1a64(r.d.data(), r.d.size() * sizeof(V), h);
  return fnv1a64(c.mult.data(), c.mult.size() * sizeof(int), h);
}

std::string tag_of(const char* policy, const Layout& L, std::uint64_t units, std::uint64_t h) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "hafnian-rpt/%s/N=%d/types=%zu/units=%llu/input=%016llx", policy, L.vertices,
                L.types.mult.size(), static_cast<unsigned long long>(units), static_cast<unsigned long long>(h));
  return buf;
}

/// Refuses what the walk cannot take; true when the value is settled without it (`settled`).
template <class T>
bool trivial(const RepeatedHafnian<T>& in, T& settled) {
  if (in.rpt.size() != static_cast<std::size_t>(in.n)) throw std::invalid_argument("hafnian_repeated: rpt length");
  std::uint64_t N = 0;
  for (auto r : in.rpt) {
    if (r > kRepeatedMaxVertices) N = kRepeatedMaxVertices + 1;
    else N += r;
  }
  if (N + (in.loops ? N % 2 : 0) > kRepeatedMaxVertices)
    throw RefusedError("hafnian_repeated: more than " + std::to_string(kRepeatedMaxVertices) +
                       " photons (the recursion's frames grow as N^3)");
  if (N == 0) return settled = T(1), true;
  if (N % 2 && !in.loops) return settled = T(0), true;
  if (pair_types(in.rpt, in.loops).leaves() > 0x1p62) throw RefusedError("hafnian_repeated: more than 2^62 leaves");
  return false;
}

template <class Ar>
std::unique_ptr<haf::WalkBase<Ar>> make_rpt_walk(const Ar& ar, const Root<typename Ar::V>& root, const PairChain& c) {
  return std::make_unique<haf::RptWalk<Ar>>(ar, root, c);
}

template <class T, class Ar, class ToLanes>
Approx<T> float_rpt(const RepeatedHafnian<T>& in, const EngineOptions& opt, const Ar& ar, typename Ar::V zero_v,
                    const char* policy, ToLanes to_lanes) {
  const Layout L = layout_of(in.rpt, in.loops);
  using V = typename Ar::V;
  const auto lanes = [&](auto value) {
    V v = zero_v;
    for (int l = 0; l < 4; ++l) to_lanes(v, l, value(l));
    return v;
  };
  const Root<V> root = haf::root_of<V>(
      L.vertices, in.loops, [&](int i, int j) { return lanes([&](int l) { return haf::rpt_lane_entry(in, L, l, i, j); }); },
      [&](int i) { return lanes([&](int l) { return haf::rpt_lane_entry(in, L, l, i, i); }); });
  const PairChain chain = chain_of(L.types, [](const Integer& w) {
    const double x = w.get_d();
    return v4d{x, x, x, x};
  });
  const std::uint64_t units = chain.units();
  const int threads = thread_count(opt, L.types.leaves() * L.vertices * (std::is_same_v<T, Complex> ? 2 : 1));
  std::vector<T> walks = haf::float_units<Ar>(
      units, threads, opt, tag_of(policy, L, units, tag_needed(opt) ? hash_of(root, chain, 0xcbf29ce484222325ULL) : 0),
      [&] { return make_rpt_walk(ar, root, chain); });
  for (int l = 0; l < 4; ++l) walks[static_cast<std::size_t>(l)] /= haf::rpt_lane_factor(in, l);
  return haf::float_estimate(walks, haf::rpt_excess(L));
}

/// Kan's formula where it costs less than the walk (or where MATCHCOUNT_HAFNIAN_RPT says so): a
/// Kan term costs in proportion to n^2 + N (far more in GMP), the walk to walk_work (exact: per
/// pass of four primes). The constants are fitted to measured patterns (docs/benchmarks.md,
/// "Repeated-row hafnians: walk or Kan").
bool kan_preferred(const std::vector<std::uint64_t>& rpt, bool loops, NumberKind kind) {
  const int knob = tuning::tuning().hafnian_rpt;
  if (knob != 0) return knob == 2;
  const bool exact = kind == NumberKind::Integer || kind == NumberKind::Rational;  // rationals walk as integers
  const double lanes = kind == NumberKind::Complex ? 4 : 1, n = double(rpt.size());
  double N = 0;
  for (auto r : rpt) N += double(r);
  const double kan = kan_terms(rpt) * (n * n + N + 4) * (exact ? 9.3 : 0.2) * lanes;
  const double walk = haf::rpt_walk_work(pair_types(rpt, loops), N + (loops ? std::fmod(N, 2.0) : 0.0)) * 0.7 *
                      (exact ? 1.5 : 1.0) * lanes;
  return kan < walk;
}
template <class T>
bool kan_preferred(const RepeatedHafnian<T>& in) {
  return kan_preferred(in.rpt, in.loops, number_kind<T>());
}

/// kan_preferred, said in the engine's note.
template <class T>
bool choose(const RepeatedHafnian<T>& in, const EngineOptions& opt) {
  const bool kan = kan_preferred(in);
  if (opt.stats) {
    char buf[160];
    if (kan) std::snprintf(buf, sizeof buf, "Kan's moment formula over the modes, %.4g terms", kan_terms(in.rpt));
    else std::snprintf(buf, sizeof buf, "the walk over repeated pair types, %.4g leaves", pair_types(in.rpt, in.loops).leaves());
    opt.stats->note = buf;
  }
  return kan;
}

}  // namespace

bool repeated_uses_walk(const RepeatedHafnian<Integer>& in) { return !kan_preferred(in); }
bool repeated_uses_walk(const RepeatedHafnian<double>& in) { return !kan_preferred(in); }
bool repeated_uses_walk(const RepeatedHafnian<Complex>& in) { return !kan_preferred(in); }

double PairTypes::leaves() const {
  double x = 1;
  for (int m : mult) x *= m + 1.0;
  return x;
}

PairTypes pair_types(const std::vector<std::uint64_t>& rpt, bool loops) {
  std::vector<std::pair<std::uint64_t, int>> left;  // (copies left, mode)
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < rpt.size(); ++i)
    if (rpt[i] > 0) left.emplace_back(rpt[i], static_cast<int>(i)), total += rpt[i];
  if (loops && total % 2) left.emplace_back(1, static_cast<int>(rpt.size()));
  PairTypes p;
  const auto by_count = [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; };
  while (!left.empty()) {
    std::sort(left.begin(), left.end(), by_count);
    if (left.size() == 1) {  // a mode alone: its copies pair among themselves (an even count)
      if (left[0].first >= 2) {
        p.a.push_back(left[0].second), p.b.push_back(left[0].second);
        p.mult.push_back(static_cast<int>(left[0].first / 2));
      }
      break;
    }
    const std::uint64_t k = left[1].first;  // the largest with the next largest, as often as it can
    p.a.push_back(left[0].second), p.b.push_back(left[1].second), p.mult.push_back(static_cast<int>(k));
    left[0].first -= k;
    left.erase(left.begin() + 1);
    if (left[0].first == 0) left.erase(left.begin());
  }
  // Larger multiplicities first: their chains run near the root, where nodes are few.
  std::vector<std::size_t> order(p.mult.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p.mult[x] > p.mult[y]; });
  PairTypes sorted;
  for (std::size_t t : order) sorted.a.push_back(p.a[t]), sorted.b.push_back(p.b[t]), sorted.mult.push_back(p.mult[t]);
  return sorted;
}

DevicePolicy repeated_device(const std::vector<std::uint64_t>& rpt, bool loops, NumberKind kind, DevicePolicy asked,
                             int cores) {
  if (kind == NumberKind::Rational) kind = NumberKind::Integer;  // counted over a common denominator
  if (asked == DevicePolicy::Cpu || kan_preferred(rpt, loops, kind)) return DevicePolicy::Cpu;
  const PairTypes types = pair_types(rpt, loops);
  double vertices = 0;
  for (int m : types.mult) vertices += 2.0 * m;
  if (vertices > kRepeatedGpuMaxVertices) return DevicePolicy::Cpu;
  if (asked == DevicePolicy::Gpu) return DevicePolicy::Gpu;
  const double primes = kind == NumberKind::Integer ? 2 + vertices / 2 : 0;  // a guess: about log2 of the bound / 23
  return gpu_available() && hafnian_repeated_seconds(types, primes, kind, cores) >= 0.5 ? DevicePolicy::Gpu : DevicePolicy::Cpu;
}

namespace {

/// The walk on the device repeated_device chose (the CPU where a GPU run fails).
template <class T>
auto walk_on_device(const RepeatedHafnian<T>& in, const EngineOptions& opt) {
  const int cores = std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads());
  if (repeated_device(in, cores) == DevicePolicy::Cpu) return hafnian_rpt_walk(in, opt);
  return gpu_else_cpu(opt, [&] { return gpu_hafnian_rpt_walk(in, opt); }, [&] { return hafnian_rpt_walk(in, opt); });
}

}  // namespace

Integer hafnian_repeated(const RepeatedHafnian<Integer>& in, const EngineOptions& opt) {
  Integer settled;
  if (trivial(in, settled)) return settled;
  return choose(in, opt) ? hafnian_kan(in) : walk_on_device(in, opt);
}
Approx<double> hafnian_repeated(const RepeatedHafnian<double>& in, const EngineOptions& opt) {
  double settled = 0;
  if (trivial(in, settled)) return {settled, 0.0};
  return choose(in, opt) ? hafnian_kan(in) : walk_on_device(in, opt);
}
Approx<Complex> hafnian_repeated(const RepeatedHafnian<Complex>& in, const EngineOptions& opt) {
  Complex settled;
  if (trivial(in, settled)) return {settled, 0.0};
  return choose(in, opt) ? hafnian_kan(in) : walk_on_device(in, opt);
}

Integer hafnian_rpt_walk(const RepeatedHafnian<Integer>& in, const EngineOptions& opt) {
  Integer settled;
  if (trivial(in, settled)) return settled;
  const Layout L = layout_of(in.rpt, in.loops);
  const std::vector<double> primes = haf::primes_for_bound(L.vertices / 2, bound_of(in));
  const std::vector<haf::ModArith> ariths = haf::prime_passes(primes);
  std::vector<Root<v4d>> roots;
  std::vector<PairChain> chains;
  std::uint64_t h = fnv1a64(primes.data(), primes.size() * sizeof(double));
  for (const haf::ModArith& ar : ariths) {
    const auto residue = [&](const Integer& x) { return haf::residues(x, ar); };
    roots.push_back(haf::root_of<v4d>(
        L.vertices, in.loops, [&](int i, int j) { return residue(rpt_entry(in, L.mode[std::size_t(i)], L.mode[std::size_t(j)])); },
        [&](int i) { return residue(rpt_loop_weight(in, L.mode[std::size_t(i)])); }));
    chains.push_back(chain_of(L.types, residue));
    if (tag_needed(opt)) h = hash_of(roots.back(), chains.back(), h);
  }
  const std::uint64_t per_pass = chains[0].units(), units = per_pass * ariths.size();
  const int threads = thread_count(opt, double(ariths.size()) * L.types.leaves() * L.vertices);
  return haf::exact_units(primes, ariths, per_pass, threads, opt, tag_of("exact", L, units, h),
                          [&](std::size_t q) { return make_rpt_walk(ariths[q], roots[q], chains[q]); });
}

Approx<double> hafnian_rpt_walk(const RepeatedHafnian<double>& in, const EngineOptions& opt) {
  double settled = 0;
  if (trivial(in, settled)) return {settled, 0.0};
  return float_rpt(in, opt, haf::RealArith{}, v4d{0, 0, 0, 0}, "real", [](v4d& v, int l, double x) { v[l] = x; });
}

Approx<Complex> hafnian_rpt_walk(const RepeatedHafnian<Complex>& in, const EngineOptions& opt) {
  Complex settled;
  if (trivial(in, settled)) return {settled, 0.0};
  return float_rpt(in, opt, haf::ComplexArith{}, cv4{{0, 0, 0, 0}, {0, 0, 0, 0}}, "complex",
                   [](cv4& v, int l, Complex x) { v.re[l] = x.real(), v.im[l] = x.imag(); });
}

double hafnian_repeated_seconds(const PairTypes& p, double primes, NumberKind kind, int cores) {
  // About N/2 multiply-adds of one 4-lane vector per leaf for the leaf and the updates above it.
  constexpr double kPerMadd = 1.75e-10, kFixed = 5e-5;
  double half = 0;
  for (int m : p.mult) half += m;
  const double lanes = kind == NumberKind::Integer ? std::max(1.0, std::ceil(primes / 4)) : kind == NumberKind::Complex ? 4.8 : 1.0;
  return kFixed + p.leaves() * (half + 4) * half * lanes * kPerMadd / std::max(cores, 1);
}

}  // namespace matchcount::engines
