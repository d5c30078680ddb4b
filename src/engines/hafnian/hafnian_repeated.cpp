// Repeated-row hafnians (hafnian_repeated.hpp): the pairing of the copies, the roots and
// chains of the walk of haf_rpt_walk.hpp, and its runs in work units (threads, checkpoints,
// MPI through runtime::run_units), exactly modulo small primes or in four float lanes.
#include "engines/hafnian/hafnian_repeated.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/arith.hpp"
#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/common.hpp"
#include "engines/hafnian/haf_rpt_walk.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_units.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using haf::cv4;
using haf::PairChain;
using haf::Root;

/// Units keep at least this many leaves, so that rebuilding a unit's chain stays cheap.
constexpr double kLeavesPerUnit = 2048;

/// The expanded problem: the modes of the positions of the recursion (position 2l + 1 and 2l
/// are eliminated at level m - 1 - l) and the chain of pair types over the levels.
struct Layout {
  PairTypes types;
  std::vector<int> mode;  // mode of each position (n: the loop's extra vertex)
  int vertices = 0;
};

Layout layout_of(const std::vector<std::uint64_t>& rpt, bool loops) {
  Layout L;
  L.types = pair_types(rpt, loops);
  for (int m : L.types.mult) L.vertices += 2 * m;
  L.mode.assign(static_cast<std::size_t>(L.vertices), 0);
  int level = 0;
  for (std::size_t t = 0; t < L.types.mult.size(); ++t)
    for (int j = 0; j < L.types.mult[t]; ++j, ++level) {
      const int u = L.vertices - 1 - 2 * level;  // the level's pair (u, u - 1)
      L.mode[static_cast<std::size_t>(u)] = L.types.a[t];
      L.mode[static_cast<std::size_t>(u) - 1] = L.types.b[t];
    }
  return L;
}

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

/// Exact: |haf| <= prod_i (|mu_i| + sqrt(R_i))^rpt_i, R_i the off-diagonal row sum of |A| over
/// the copies (resume.cpp's log_bound on the expanded matrix), rounded up.
Integer bound_of(const RepeatedHafnian<Integer>& in) {
  Integer bound = 1;
  for (int i = 0; i < in.n; ++i) {
    const auto r = in.rpt[static_cast<std::size_t>(i)];
    if (r == 0) continue;
    Integer row = 0;
    for (int j = 0; j < in.n; ++j) {
      const auto rj = in.rpt[static_cast<std::size_t>(j)] - (i == j ? 1 : 0);
      row += abs(in.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(j)]) *
             Integer(static_cast<unsigned long>(rj));
    }
    Integer root;
    mpz_sqrt(root.get_mpz_t(), row.get_mpz_t());
    Integer f = root + 1 + (in.loops ? abs(in.mu[static_cast<std::size_t>(i)]) : Integer(0));
    Integer power;
    mpz_pow_ui(power.get_mpz_t(), f.get_mpz_t(), static_cast<unsigned long>(r));
    bound *= power;
  }
  return bound;
}

/// Entry of the root at positions (i, j) from the mode matrix; the extra vertex has no edge.
template <class T>
T entry(const RepeatedHafnian<T>& in, int p, int q) {
  if (p >= in.n || q >= in.n) return T(0);
  return in.a[static_cast<std::size_t>(p) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(q)];
}
template <class T>
T loop_weight(const RepeatedHafnian<T>& in, int p) {
  return p >= in.n ? T(1) : in.mu[static_cast<std::size_t>(p)];
}

template <class Ar>
std::unique_ptr<haf::WalkBase<Ar>> make_rpt_walk(const Ar& ar, const Root<typename Ar::V>& root, const PairChain& c) {
  return std::make_unique<haf::RptWalk<Ar>>(ar, root, c);
}

/// Float lanes: lanes 0-2 walk the pattern with the modes scaled by d_i (haf(D A D) = prod d_i^rpt_i
/// haf A, undone at the end) and, in lanes 1 and 2, each pair's two copies swapped: their
/// roundings differ, and their spread is the error estimate. Lane 3 walks |A| and |mu| for what
/// the entries' own errors move.
double lane_scale(int lane, int mode) { return lane == 0 || lane == 3 ? 1.0 : 1.0 + ((mode * 5 + lane * 3) % 7 - 3) / 32.0; }

template <class T, class Ar, class ToLanes>
Approx<T> float_rpt(const RepeatedHafnian<T>& in, const EngineOptions& opt, const Ar& ar, typename Ar::V zero_v,
                    const char* policy, ToLanes to_lanes) {
  const Layout L = layout_of(in.rpt, in.loops);
  const auto pos_mode = [&](int lane, int p) {  // lanes 1 and 2 swap the copies of each pair
    const int q = (lane == 1 || lane == 2) ? (p ^ 1) : p;
    return L.mode[static_cast<std::size_t>(q)];
  };
  using V = typename Ar::V;
  const auto scale_of = [&](int lane, int mode) { return mode < in.n ? lane_scale(lane, mode) : 1.0; };
  const auto value = [&](int lane, T x, int mi, int mj) {
    if (lane == 3) return T(std::abs(x));
    return x * scale_of(lane, mi) * (mj < 0 ? 1.0 : scale_of(lane, mj));
  };
  const Root<V> root = haf::root_of<V>(
      L.vertices, in.loops,
      [&](int i, int j) {
        V v = zero_v;
        for (int l = 0; l < 4; ++l) {
          const int mi = pos_mode(l, i), mj = pos_mode(l, j);
          to_lanes(v, l, value(l, entry(in, mi, mj), mi, mj));
        }
        return v;
      },
      [&](int i) {
        V v = zero_v;
        for (int l = 0; l < 4; ++l) {
          const int mi = pos_mode(l, i);
          to_lanes(v, l, value(l, loop_weight(in, mi), mi, -1));
        }
        return v;
      });
  const PairChain chain = chain_of(L.types, [](const Integer& w) {
    const double x = w.get_d();
    return v4d{x, x, x, x};
  });
  const std::uint64_t units = chain.units();
  const int threads = thread_count(opt, L.types.leaves() * L.vertices * (std::is_same_v<T, Complex> ? 2 : 1));
  std::vector<T> walks = haf::float_units<Ar>(
      units, threads, opt, tag_of(policy, L, units, tag_needed(opt) ? hash_of(root, chain, 0xcbf29ce484222325ULL) : 0),
      [&] { return make_rpt_walk(ar, root, chain); });
  for (int l = 0; l < 4; ++l) {
    long double scale = 1;  // prod d_i^rpt_i of the lane (the extra vertex: 1)
    for (int i = 0; i < in.n; ++i) scale *= std::pow(static_cast<long double>(lane_scale(l, i)), in.rpt[static_cast<std::size_t>(i)]);
    walks[static_cast<std::size_t>(l)] /= static_cast<double>(scale);
  }
  // Every entry and loop weight stands for a decimal within u of itself; a matching's product
  // of at most N of them moves by at most (1 + u)^N - 1 of itself.
  const double excess = std::expm1(L.vertices * std::log1p(0x1p-53)) * (1 + 1e-9);
  return haf::float_estimate(walks, excess);
}

/// The walk's work in vector multiply-adds: each include at a level of s vertices updates tri(s)
/// polynomials by truncated products (about m^2 / 2 each), once per node above it; plus m a
/// leaf.
double walk_work(const PairTypes& types, double vertices) {
  const double m = vertices / 2;
  double nodes = 1, level = 0, work = 0;
  for (int r : types.mult) {
    for (int j = 0; j < r; ++j) {
      const double s = vertices - 2 * (level + j);
      work += nodes * s * (s - 1) / 2 * m * m / 2;
    }
    nodes *= r + 1.0, level += r;
  }
  return work + nodes * m;
}

/// Kan's formula where it costs less than the walk (or where MATCHCOUNT_HAFNIAN_RPT says so): a
/// Kan term costs in proportion to n^2 + N (far more in GMP), the walk to walk_work (exact: per
/// pass of four primes). The constants are fitted to measured patterns (docs/benchmarks.md,
/// "Repeated-row hafnians: walk or Kan").
template <class T>
bool kan_preferred(const RepeatedHafnian<T>& in) {
  const int knob = tuning::tuning().hafnian_rpt;
  if (knob != 0) return knob == 2;
  constexpr bool exact = std::is_same_v<T, Integer>;
  double N = 0;
  for (auto r : in.rpt) N += double(r);
  const double kan = kan_terms(in.rpt) * (double(in.n) * in.n + N + 4) * (exact ? 9.3 : 0.2) *
                    (std::is_same_v<T, Complex> ? 4 : 1);
  const double walk = walk_work(pair_types(in.rpt, in.loops), N + (in.loops ? std::fmod(N, 2.0) : 0.0)) * 0.7 *
                      (exact ? 1.5 : 1.0) * (std::is_same_v<T, Complex> ? 4 : 1);
  return kan < walk;
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

Integer hafnian_repeated(const RepeatedHafnian<Integer>& in, const EngineOptions& opt) {
  Integer settled;
  if (trivial(in, settled)) return settled;
  return choose(in, opt) ? hafnian_kan(in) : hafnian_rpt_walk(in, opt);
}
Approx<double> hafnian_repeated(const RepeatedHafnian<double>& in, const EngineOptions& opt) {
  double settled = 0;
  if (trivial(in, settled)) return {settled, 0.0};
  return choose(in, opt) ? hafnian_kan(in) : hafnian_rpt_walk(in, opt);
}
Approx<Complex> hafnian_repeated(const RepeatedHafnian<Complex>& in, const EngineOptions& opt) {
  Complex settled;
  if (trivial(in, settled)) return {settled, 0.0};
  return choose(in, opt) ? hafnian_kan(in) : hafnian_rpt_walk(in, opt);
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
        L.vertices, in.loops, [&](int i, int j) { return residue(entry(in, L.mode[std::size_t(i)], L.mode[std::size_t(j)])); },
        [&](int i) { return residue(loop_weight(in, L.mode[std::size_t(i)])); }));
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
