// The Pfaffian (FKT) engine: random planar graphs against the naive hafnian, known counts of
// triangular lattices, triangle graphs and C60, refusals of non-planar graphs, odd cycles,
// disconnected graphs, and the error estimate of the floating-point path.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <numeric>
#include <random>
#include <set>

#include "engines/common.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "hafnian_oracle.hpp"
#include "core/tuning.hpp"
#include "matchcount/error.hpp"

namespace matchcount {
namespace {

using engines::make_pfaffian;
using Edges = std::vector<std::pair<int, int>>;

/// The symmetric matrix of a simple graph (both triangles), weights from `weight()`.
template <class T, class W>
SparseMatrix<T> graph_matrix(int n, const Edges& edges, W weight) {
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  for (auto [u, v] : edges) {
    const T w = weight();
    a.entries.push_back({u, v, w});
    a.entries.push_back({v, u, w});
  }
  a.normalize();
  return a;
}
SparseMatrix<Integer> unit_matrix(int n, const Edges& edges) {
  return graph_matrix<Integer>(n, edges, [] { return Integer(1); });
}

/// The triangular lattice: the r x c grid with the diagonal (i, j) - (i+1, j+1) in each square.
Edges triangular_lattice(int r, int c) {
  Edges e;
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) {
      const int v = i * c + j;
      if (j + 1 < c) e.emplace_back(v, v + 1);
      if (i + 1 < r) e.emplace_back(v, v + c);
      if (i + 1 < r && j + 1 < c) e.emplace_back(v, v + c + 1);
    }
  return e;
}

/// The triangle graph of order k (rows of 1..k vertices, each joined to its neighbours in its
/// row and to two in the next), without the apex when k mod 4 is 1 or 2 (as OEIS A178446).
std::pair<int, Edges> triangle_graph(int k) {
  const bool drop = k % 4 == 1 || k % 4 == 2;
  std::vector<std::vector<int>> id(std::size_t(k + 1));
  int n = 0;
  for (int i = 1; i <= k; ++i)
    for (int j = 0; j < i; ++j) id[std::size_t(i)].push_back(drop && i == 1 ? -1 : n++);
  Edges e;
  auto add = [&](int u, int v) {
    if (u >= 0 && v >= 0) e.emplace_back(std::min(u, v), std::max(u, v));
  };
  for (int i = 1; i <= k; ++i)
    for (int j = 0; j < i; ++j) {
      const int v = id[std::size_t(i)][std::size_t(j)];
      if (j + 1 < i) add(v, id[std::size_t(i)][std::size_t(j + 1)]);
      if (i < k) add(v, id[std::size_t(i + 1)][std::size_t(j)]), add(v, id[std::size_t(i + 1)][std::size_t(j + 1)]);
    }
  return {n, e};
}

/// C60, the truncated icosahedron: one vertex per directed edge u -> v of the icosahedron;
/// (u->v)-(v->u), and (u->v)-(u->w) when v and w are adjacent.
Edges fullerene_c60() {
  const double phi = (1 + std::sqrt(5.0)) / 2;
  std::vector<std::array<double, 3>> p;
  for (double s : {-1.0, 1.0})
    for (double t : {-phi, phi}) p.push_back({0, s, t}), p.push_back({s, t, 0}), p.push_back({t, 0, s});
  auto adjacent = [&](int u, int v) {
    double d = 0;
    for (int k = 0; k < 3; ++k) d += (p[std::size_t(u)][std::size_t(k)] - p[std::size_t(v)][std::size_t(k)]) *
                                     (p[std::size_t(u)][std::size_t(k)] - p[std::size_t(v)][std::size_t(k)]);
    return std::abs(d - 4) < 1e-9;
  };
  std::vector<std::pair<int, int>> darts;
  for (int u = 0; u < 12; ++u)
    for (int v = 0; v < 12; ++v)
      if (u != v && adjacent(u, v)) darts.emplace_back(u, v);
  Edges e;
  for (int i = 0; i < int(darts.size()); ++i)
    for (int j = i + 1; j < int(darts.size()); ++j) {
      auto [u, v] = darts[std::size_t(i)];
      auto [x, w] = darts[std::size_t(j)];
      if ((u == w && v == x) || (u == x && adjacent(v, w))) e.emplace_back(i, j);
    }
  return e;
}

/// A random planar graph on n >= 3 vertices: a stacked triangulation (each new vertex joined to
/// the corners of a random face) or a triangular lattice with diagonals of random direction,
/// each edge kept with probability `keep`, vertices numbered at random.
Edges random_planar(std::mt19937_64& rng, int n, double keep) {
  std::uniform_real_distribution<double> u(0, 1);
  std::set<std::pair<int, int>> e;
  auto add = [&](int a, int b) { e.emplace(std::min(a, b), std::max(a, b)); };
  if (rng() % 2) {
    std::vector<std::array<int, 3>> faces{{0, 1, 2}, {0, 2, 1}};
    add(0, 1), add(1, 2), add(0, 2);
    for (int v = 3; v < n; ++v) {
      const std::size_t f = rng() % faces.size();
      const auto [a, b, c] = faces[f];
      add(v, a), add(v, b), add(v, c);
      faces[f] = {a, b, v};
      faces.push_back({b, c, v}), faces.push_back({c, a, v});
    }
  } else {
    int c = 2;
    while (c * c < n) ++c;
    for (int v = 0; v < n; ++v) {
      const int i = v / c, j = v % c;
      if (j + 1 < c && v + 1 < n) add(v, v + 1);
      if (v + c < n) add(v, v + c);
      if (j + 1 < c && v + c + 1 < n && rng() % 2) add(v, v + c + 1);
      else if (j + 1 < c && v + c < n && i >= 0) add(v + 1, v + c);
    }
  }
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Edges out;
  for (auto [a, b] : e)
    if (u(rng) < keep) out.emplace_back(perm[std::size_t(a)], perm[std::size_t(b)]);
  return out;
}

template <class T>
T haf(const SparseMatrix<T>& a) {
  return make_pfaffian()->hafnian(a, false, EngineOptions{});
}
template <class T>
Approx<T> haf_approx(const SparseMatrix<T>& a) {
  return make_pfaffian()->hafnian(a, false, EngineOptions{});
}

TEST(PfaffianRandom, IntegerAgainstOracle) {
  std::mt19937_64 rng(7);
  int nonzero = 0;
  for (int it = 0; it < 500; ++it) {
    const int n = 4 + 2 * int(rng() % 7);  // 4..16
    const Edges e = random_planar(rng, n, 0.5 + 0.5 * double(rng() % 100) / 100);
    const bool big = it % 50 == 0;  // weights beyond 2^50 take the GMP residues
    const auto a = graph_matrix<Integer>(n, e, [&] {
      Integer w = long(rng() % 7) - 3;
      if (w == 0) w = 1;
      return big ? w * (Integer(1) << 60) + long(rng() % 1000) : w;
    });
    const Integer want = test::naive_hafnian(a);
    ASSERT_EQ(haf(a), want) << "iteration " << it << ", n = " << n;
    nonzero += want != 0;
  }
  EXPECT_GT(nonzero, 300);
}

TEST(PfaffianRandom, RealAndComplexAgainstOracle) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> w(-1, 1);
  for (int it = 0; it < 300; ++it) {
    const int n = 4 + 2 * int(rng() % 7);
    const Edges e = random_planar(rng, n, 0.6 + 0.4 * double(rng() % 100) / 100);
    const auto a = graph_matrix<double>(n, e, [&] { return w(rng); });
    const double want = test::naive_hafnian(a);
    const Approx<double> got = haf_approx(a);
    EXPECT_LE(std::abs(got.value - want), got.abs_error + 1e-14) << "iteration " << it;
    EXPECT_LE(got.abs_error, 1e-9) << "iteration " << it;
    const auto c = graph_matrix<Complex>(n, e, [&] { return Complex(w(rng), w(rng)); });
    const Complex cwant = test::naive_hafnian(c);
    const Approx<Complex> cgot = haf_approx(c);
    EXPECT_LE(std::abs(cgot.value - cwant), cgot.abs_error + 1e-14) << "iteration " << it;
    EXPECT_LE(cgot.abs_error, 1e-9) << "iteration " << it;
  }
}

// Known counts: triangular lattices (OEIS A309117 for width 4; the n x n values also by a
// transfer-matrix count), triangle graphs (OEIS A178446), C60 (12500 Kekule structures).
TEST(PfaffianKnown, TriangularLattices) {
  const auto small = unit_matrix(36, triangular_lattice(6, 6));
  EXPECT_EQ(test::naive_hafnian(small), Integer(56568));
  EXPECT_EQ(haf(small), Integer(56568));
  EXPECT_EQ(haf(unit_matrix(64, triangular_lattice(8, 8))), Integer("1848358752"));
  EXPECT_EQ(haf(unit_matrix(100, triangular_lattice(10, 10))), Integer("1852300296658080"));
  EXPECT_EQ(haf(unit_matrix(80, triangular_lattice(20, 4))), Integer("71184183353"));
  EXPECT_EQ(haf(unit_matrix(80, triangular_lattice(4, 20))), Integer("71184183353"));
  EXPECT_EQ(haf(unit_matrix(49, triangular_lattice(7, 7))), Integer(0));  // odd: the guard
}

TEST(PfaffianKnown, TriangleGraphsAndC60) {
  const std::pair<int, const char*> known[] = {{4, "6"}, {5, "28"}, {8, "37004"}, {9, "957304"},
                                               {12, "216893681800"},
                                               {20, "6408743336016148761893699822360672"}};
  for (auto [k, value] : known) {
    const auto [n, e] = triangle_graph(k);
    EXPECT_EQ(haf(unit_matrix(n, e)), Integer(value)) << "order " << k;
  }
  const Edges c60 = fullerene_c60();
  ASSERT_EQ(c60.size(), 90u);
  EXPECT_EQ(haf(unit_matrix(60, c60)), Integer(12500));
  const Approx<double> f = haf_approx(graph_matrix<double>(60, c60, [] { return 1.0; }));
  EXPECT_NEAR(f.value, 12500, f.abs_error);
  EXPECT_LT(f.abs_error, 1e-6);
}

TEST(PfaffianRefuses, NonPlanar) {
  Edges k33, k5;
  for (int i = 0; i < 3; ++i)
    for (int j = 3; j < 6; ++j) k33.emplace_back(i, j);
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) k5.emplace_back(i, j);
  k5.emplace_back(4, 5);  // K5 with a pendant vertex: 6 vertices
  Edges petersen;
  for (int i = 0; i < 5; ++i)
    petersen.emplace_back(i, (i + 1) % 5), petersen.emplace_back(i, i + 5), petersen.emplace_back(5 + i, 5 + (i + 2) % 5);
  for (const auto& [n, e] : {std::pair{6, k33}, std::pair{6, k5}, std::pair{10, petersen}}) {
    try {
      haf(unit_matrix(n, e));
      ADD_FAILURE() << "no refusal";
    } catch (const RefusedError& err) {
      EXPECT_NE(std::string(err.what()).find("pfaffian: the graph is not planar"), std::string::npos);
    }
    EXPECT_THROW(haf_approx(graph_matrix<double>(n, e, [] { return 1.0; })), RefusedError);
    EXPECT_FALSE(engines::plan_pfaffian(engines::pattern_of(unit_matrix(n, e)), n).planar);
  }
}

TEST(PfaffianKnown, OddCyclesAndDisconnected) {
  std::mt19937_64 rng(3);
  auto weight = [&] { return Integer(long(rng() % 9) - 4 == 0 ? 5 : long(rng() % 9) - 4); };
  // A triangle with pendant edges; a wheel (odd rim) with pendants; a 5-cycle plus a pendant.
  const Edges triangle{{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 4}, {2, 5}};
  const Edges pentagon{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {4, 5}};
  Edges wheel;
  for (int i = 1; i <= 7; ++i) wheel.emplace_back(0, i), wheel.emplace_back(i, i % 7 + 1);
  for (int i = 1; i <= 7; i += 2) wheel.emplace_back(i, 7 + (i + 1) / 2);  // pendants 8..11
  for (const auto& [n, e] : {std::pair{6, triangle}, std::pair{6, pentagon}, std::pair{12, wheel}}) {
    for (int rep = 0; rep < 5; ++rep) {
      const auto a = graph_matrix<Integer>(n, e, weight);
      EXPECT_EQ(haf(a), test::naive_hafnian(a)) << "n = " << n;
    }
  }
  // Disconnected: the blocks' hafnians multiply; an odd component makes it 0.
  Edges parts = triangle;
  for (auto [u, v] : pentagon) parts.emplace_back(u + 6, v + 6);
  for (auto [u, v] : triangular_lattice(2, 3)) parts.emplace_back(u + 12, v + 12);
  for (int rep = 0; rep < 5; ++rep) {
    const auto a = graph_matrix<Integer>(18, parts, weight);
    EXPECT_EQ(haf(a), test::naive_hafnian(a));
  }
  Edges odd = triangle;
  odd.emplace_back(6, 7), odd.emplace_back(7, 8), odd.emplace_back(6, 8), odd.emplace_back(9, 10), odd.emplace_back(10, 11);
  EXPECT_EQ(haf(unit_matrix(12, odd)), Integer(0));
  EXPECT_EQ(haf_approx(graph_matrix<double>(12, odd, [] { return 1.0; })).value, 0.0);
}

// Matchings that cancel: a 4-cycle weighted 1, 1, 1, -1 has hafnian 1 - 1 = 0 (the elimination
// meets a zero pivot row), alone and beside a triangular lattice.
TEST(PfaffianKnown, CancellingMatchings) {
  Edges e{{0, 1}, {1, 2}, {2, 3}, {0, 3}};
  for (auto [u, v] : triangular_lattice(4, 4)) e.emplace_back(u + 4, v + 4);
  for (const std::size_t m : {std::size_t(4), e.size()}) {
    const Edges part(e.begin(), e.begin() + std::ptrdiff_t(m));
    const int n = m == 4 ? 4 : 20;
    std::size_t k = 0;
    EXPECT_EQ(haf(graph_matrix<Integer>(n, part, [&] { return Integer(k++ == 3 ? -1 : 1); })), Integer(0));
    k = 0;
    const Approx<double> f = haf_approx(graph_matrix<double>(n, part, [&] { return k++ == 3 ? -1.0 : 1.0; }));
    EXPECT_LE(std::abs(f.value), f.abs_error + 1e-300);
    EXPECT_LE(f.abs_error, 1e-10);
  }
}

// The float path's error estimate against exact values: integer weights (both signs) scaled by
// a real or complex factor c, so that haf(cA) = c^(n/2) haf(A).
TEST(PfaffianFloat, ErrorEstimateAgainstExact) {
  std::mt19937_64 rng(5);
  for (int it = 0; it < 40; ++it) {
    // Weights spread over 2^0 .. 2^40 get an honest but loose estimate (it is normwise), so
    // for them only the first check; they stay on small lattices to keep the values in range.
    const bool wide = it % 4 == 0;
    const int side = 4 + 2 * int(rng() % (wide ? 3 : 8));  // lattices 4x4 .. 18x18, edges dropped
    Edges e;
    for (auto edge : triangular_lattice(side, side))
      if (rng() % 10 != 0) e.push_back(edge);
    const int n = side * side;
    const auto a = graph_matrix<Integer>(n, e, [&]() -> Integer {  // not a gmpxx expression
      const long x = long(rng() % 9) - 4;
      return Integer(x == 0 ? 1 : x) << (wide ? int(rng() % 41) : 0);
    });
    const Integer exact = haf(a);
    if (exact == 0) continue;
    const double c = wide ? 0x1p-40 : 0.7;
    const Complex z(0.6, 0.8);
    const auto ar = convert<double>(a, [&](const Integer& v) { return v.get_d() * c; });
    const auto az = convert<Complex>(a, [&](const Integer& v) { return v.get_d() * c * z; });
    const Approx<double> r = haf_approx(ar);
    const Approx<Complex> rz = haf_approx(az);
    // exact * c^(n/2) in long double: its own rounding is far below the estimates.
    long e2 = 0;  // exact = m 2^e2, |m| in [1/2, 1): exact itself may be beyond double range
    const double m = mpz_get_d_2exp(&e2, exact.get_mpz_t());
    const long double want = wide ? std::ldexp(static_cast<long double>(m), int(e2 - 40 * (n / 2)))
                                  : std::ldexp(static_cast<long double>(m), int(e2)) * std::pow(static_cast<long double>(c), n / 2);
    EXPECT_LE(std::abs(double(r.value - want)), r.abs_error) << "side " << side;
    if (!wide) {  // mixed signs cancel, so the estimate may be far above the error, not absurdly
      EXPECT_LE(r.abs_error, 1e-2 * std::abs(double(want))) << "side " << side;
    }
    const Complex zwant = double(want) * std::pow(z, n / 2);
    EXPECT_LE(std::abs(rz.value - zwant), rz.abs_error + 1e-12 * std::abs(zwant)) << "side " << side;
    if (!wide) {
      EXPECT_LE(rz.abs_error, 1e-2 * std::abs(zwant)) << "side " << side;
    }
  }
}

TEST(PfaffianPlan, BandAndPrediction) {
  const auto a = unit_matrix(100, triangular_lattice(10, 10));
  const engines::PfaffianPlan p = engines::plan_pfaffian(engines::pattern_of(a), 100);
  EXPECT_TRUE(p.planar);
  EXPECT_EQ(p.n, 100);
  EXPECT_LE(p.band, 11);
  EXPECT_GT(p.updates, 0);
  EXPECT_GT(p.bytes, 0);
  EXPECT_GT(engines::pfaffian_seconds(p, 5, 2), 0);
  EXPECT_LT(engines::pfaffian_seconds(p, 5, 2), 1);
  EXPECT_EQ(make_pfaffian()->name(), "pfaffian");
  EXPECT_FALSE(make_pfaffian()->loops());
}

/// haf by the engine with its exact elimination forced (MATCHCOUNT_PFAFFIAN_METHOD: 1 band,
/// 2 nested dissection).
Integer haf_by(const SparseMatrix<Integer>& a, int method) {
  tuning::Tuning t = tuning::tuning();
  t.pfaffian_method = method;
  const tuning::ScopedTuning knobs(t);
  return haf(a);
}

// Nested dissection with 2 x 2 pivots against the band: random planar graphs with unit,
// signed (cancelling: zero pivot pairs, exchanges, primes counted again by the band) and
// 2^60-sized weights, and triangular lattices with +-1 weights.
TEST(PfaffianNested, AgreesWithTheBand) {
  std::mt19937_64 rng(41);
  int nonzero = 0;
  for (int it = 0; it < 120; ++it) {
    const int n = 20 + 2 * int(rng() % 90);
    const Edges e = random_planar(rng, n, 0.75 + 0.25 * double(rng() % 100) / 100);
    const int kind = it % 3;
    const auto a = graph_matrix<Integer>(n, e, [&] {
      Integer w = long(rng() % 5) - 2;
      if (w == 0) w = 1;
      return kind == 0 ? Integer(1) : kind == 1 ? w : w * (Integer(1) << 60) + long(rng() % 1000);
    });
    const Integer band = haf_by(a, 1);
    ASSERT_EQ(haf_by(a, 2), band) << "iteration " << it << ", n = " << n;
    nonzero += band != 0;
  }
  EXPECT_GT(nonzero, 60);
  for (int side : {12, 16, 20}) {
    const auto a = graph_matrix<Integer>(side * side, triangular_lattice(side, side),
                                         [&] { return rng() % 2 ? Integer(1) : Integer(-1); });
    EXPECT_EQ(haf_by(a, 2), haf_by(a, 1)) << "side " << side;
  }
  EXPECT_EQ(haf_by(unit_matrix(1600, triangular_lattice(40, 40)), 2), haf_by(unit_matrix(1600, triangular_lattice(40, 40)), 1));
}

// Exact counts plan nested dissection where its fronts cost less than the band (large
// lattices), and the band on small ones and for floats.
TEST(PfaffianPlan, NestedWhereItCostsLess) {
  for (int side : {8, 200}) {
    const auto a = unit_matrix(side * side, triangular_lattice(side, side));
    engines::PfaffianPlan p = engines::plan_pfaffian(engines::pattern_of(a), side * side);
    const double band = p.updates;
    engines::plan_pfaffian_fronts(p, engines::pattern_of(a), side * side);
    EXPECT_EQ(p.nested, side == 200) << "side " << side;
    if (p.nested) {
      EXPECT_LT(p.updates, band);
    }
  }
}

}  // namespace
}  // namespace matchcount
