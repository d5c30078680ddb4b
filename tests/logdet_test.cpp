// Log-determinants of planar blocks (planar::sparse_log_det and the Kasteleyn and Pfaffian
// functions on it): grids against the Temperley-Fisher product, lattice pieces and weighted
// graphs against the exact engines, error bounds that cover the actual error, refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "engines/planar/sparse_logdet.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {
namespace {

using engines::kasteleyn_log_permanent;
using engines::pfaffian_log_hafnian;

#define REQUIRE_SPARSE_LU()                                                  \
  if (!engines::planar::sparse_lu_available()) GTEST_SKIP() << "built without SuiteSparse"

/// ln of the number of dimer coverings of the m x n grid by Temperley and Fisher:
/// (1/4) sum over j <= m, k <= n of ln(4 cos^2(pi j/(m+1)) + 4 cos^2(pi k/(n+1))).
long double temperley_fisher(int m, int n) {
  long double sum = 0, carry = 0;  // Kahan: 10^6 terms keep 1e-16 of the sum
  for (int j = 1; j <= m; ++j)
    for (int k = 1; k <= n; ++k) {
      const long double a = std::cos(std::numbers::pi_v<long double> * j / (m + 1));
      const long double b = std::cos(std::numbers::pi_v<long double> * k / (n + 1));
      const long double y = std::log(4 * a * a + 4 * b * b) - carry, t = sum + y;
      carry = (t - sum) - y, sum = t;
    }
  return sum / 4;
}

/// ln|x| of an exact count.
double log_of(const Integer& x) {
  long e = 0;
  const double d = mpz_get_d_2exp(&e, x.get_mpz_t());
  return std::log(std::fabs(d)) + double(e) * std::numbers::ln2;
}

SparseMatrix<Integer> grid(int m, int n) { return biadjacency(grid_graph(m, n)); }

TEST(LogDet, GridsAgainstTemperleyFisher) {
  REQUIRE_SPARSE_LU();
  for (auto [m, n] : {std::pair{2, 2}, {2, 3}, {8, 8}, {7, 10}, {10, 7}, {31, 64}, {100, 100}, {64, 150}}) {
    const auto r = kasteleyn_log_permanent(grid(m, n), INFINITY);
    const double want = double(temperley_fisher(m, n));
    EXPECT_EQ(r.sign, 1) << m << "x" << n;
    EXPECT_NEAR(r.log_abs, want, 1e-12 * want) << m << "x" << n;
    EXPECT_LE(std::fabs(r.log_abs - want), r.error) << m << "x" << n;  // the bound covers it
    EXPECT_LT(r.error, 1e-9 * want + 1e-12) << m << "x" << n;           // and says something
  }
  const auto r = kasteleyn_log_permanent(grid(8, 8), INFINITY);
  EXPECT_NEAR(r.log_abs, std::log(12988816.0), 1e-13 * std::log(12988816.0));
}

TEST(LogDet, NoPerfectMatchingIsExactlyZero) {
  REQUIRE_SPARSE_LU();
  SparseMatrix<Integer> a;  // both rows meet column 0 only
  a.rows = a.cols = 2;
  a.entries = {{0, 0, 1}, {1, 0, 1}};
  const auto r = kasteleyn_log_permanent(a, INFINITY);
  EXPECT_EQ(r.sign, 0);
  EXPECT_EQ(r.log_abs, -INFINITY);
  EXPECT_EQ(r.error, 0);
}

/// A random planar bipartite block: the m x k grid with some vertices and edges removed,
/// the classes made equal, weights from `weight`.
template <class W>
SparseMatrix<Integer> holey_grid(std::mt19937_64& rng, int m, int k, double drop, W weight) {
  EdgeList g = grid_graph(m, k);
  std::uniform_real_distribution<double> u(0, 1);
  std::erase_if(g.edges, [&](const auto&) { return u(rng) < drop; });
  SparseMatrix<Integer> a = biadjacency(g);  // colours by BFS per component
  for (auto& e : a.entries) e.value = weight();
  return a;
}

TEST(LogDet, KasteleynAgainstExactCounts) {
  REQUIRE_SPARSE_LU();
  std::mt19937_64 rng(7);
  auto exact = engines::make_kasteleyn();
  int compared = 0;
  for (int it = 0; it < 60; ++it) {
    const int m = 4 + int(rng() % 9), k = 4 + int(rng() % 9);
    const bool weighted = it % 3 != 0, signed_weights = it % 3 == 2;
    std::uniform_int_distribution<int> w(signed_weights ? -5 : 1, 5);
    auto weight = [&] { int v = 0; while (v == 0) v = weighted ? w(rng) : 1; return Integer(v); };
    SparseMatrix<Integer> a;
    try {
      a = holey_grid(rng, m, k, it % 2 ? 0.1 : 0.0, weight);
    } catch (const RefusedError&) {
      continue;  // unequal colour classes
    }
    if (a.rows != a.cols || a.rows == 0) continue;
    const Integer want = exact->permanent(a, {});
    const auto r = kasteleyn_log_permanent(a, INFINITY);
    if (want == 0) {
      EXPECT_TRUE(r.sign == 0 || r.error == INFINITY || r.log_abs < 0) << "it " << it;
      continue;
    }
    ++compared;
    EXPECT_EQ(r.sign, sgn(want)) << "it " << it;
    const double lw = log_of(want);
    EXPECT_NEAR(r.log_abs, lw, 1e-12 * std::max(1.0, std::fabs(lw)) + (signed_weights ? 1e-9 : 0)) << "it " << it;
    EXPECT_LE(std::fabs(r.log_abs - lw), r.error) << "it " << it;
  }
  EXPECT_GT(compared, 30);
}

TEST(LogDet, RealWeightsAgainstTheFloatEngine) {
  REQUIRE_SPARSE_LU();
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0.1, 3);
  auto exact = engines::make_kasteleyn();
  for (int it = 0; it < 20; ++it) {
    auto a = convert<double>(grid(6 + it % 5, 8), [](const Integer& v) { return v.get_d(); });
    for (auto& e : a.entries) e.value = u(rng);
    const auto want = exact->permanent(a, {});  // banded LU, error bound of its own
    const auto r = kasteleyn_log_permanent(a, INFINITY);
    EXPECT_EQ(r.sign, 1);
    EXPECT_NEAR(r.log_abs, std::log(want.value), 1e-12 * std::fabs(std::log(want.value)) + 1e-13) << "it " << it;
  }
}

TEST(LogDet, PfaffianAgainstExactCounts) {
  REQUIRE_SPARSE_LU();
  auto exact = engines::make_pfaffian();
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<int> w(1, 7);
  for (auto [m, n] : {std::pair{2, 3}, {4, 4}, {6, 7}, {10, 10}, {12, 15}}) {
    for (bool weighted : {false, true}) {
      SparseMatrix<Integer> a;  // the triangular lattice, both triangles of each weight alike
      const EdgeList g = triangular_graph(m, n);
      a.rows = a.cols = g.vertices;
      for (auto [x, y] : g.edges) {
        const Integer v = weighted ? w(rng) : 1;
        a.entries.push_back({x, y, v}), a.entries.push_back({y, x, v});
      }
      a.normalize();
      const Integer want = exact->hafnian(a, false, {});
      const auto r = pfaffian_log_hafnian(a, INFINITY);
      const double lw = log_of(want);
      EXPECT_EQ(r.sign, 1) << m << "x" << n;
      EXPECT_NEAR(r.log_abs, lw, 1e-12 * std::max(1.0, lw)) << m << "x" << n;
      EXPECT_LE(std::fabs(r.log_abs - lw), r.error) << m << "x" << n;
    }
  }
  const auto c60 = pfaffian_log_hafnian(adjacency_matrix(c60_graph()), INFINITY);
  EXPECT_NEAR(c60.log_abs, std::log(12500.0), 1e-13 * std::log(12500.0));
}

// Two fill-reducing orders round differently; both logarithms lie within their bounds of
// each other (and of the exact count where it is known).
TEST(LogDet, OrderingsAgreeWithinTheirBounds) {
  REQUIRE_SPARSE_LU();
  using engines::planar::Ordering;
  const auto g = grid(60, 70);
  const auto amd = kasteleyn_log_permanent(g, INFINITY, Ordering::Amd);
  const auto metis = kasteleyn_log_permanent(g, INFINITY, Ordering::Metis);
  EXPECT_EQ(amd.ordering, "amd");
  EXPECT_EQ(metis.ordering, "metis");
  EXPECT_LE(std::fabs(amd.log_abs - metis.log_abs), amd.error + metis.error);
  const auto tri = adjacency_matrix(triangular_graph(30, 40));
  const auto ta = pfaffian_log_hafnian(tri, INFINITY, Ordering::Amd);
  const auto tm = pfaffian_log_hafnian(tri, INFINITY, Ordering::Metis);
  EXPECT_EQ(ta.ordering, "colamd");
  EXPECT_LE(std::fabs(ta.log_abs - tm.log_abs), ta.error + tm.error);
  const double want = log_of(engines::make_pfaffian()->hafnian(tri, false, {}));
  EXPECT_LE(std::fabs(ta.log_abs - want), ta.error);
  EXPECT_LT(ta.error, 1e-10 * want);  // partial pivoting keeps the Pfaffian's bound small
}

TEST(LogDet, Refusals) {
  REQUIRE_SPARSE_LU();
  // K_{3,3} (the all-ones 3 x 3 matrix) is not planar; neither is K_5.
  SparseMatrix<Integer> k33;
  k33.rows = k33.cols = 3;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) k33.entries.push_back({i, j, 1});
  EXPECT_THROW(kasteleyn_log_permanent(k33, INFINITY), RefusedError);
  EXPECT_THROW(pfaffian_log_hafnian(adjacency_matrix(complete_graph(6)), INFINITY), RefusedError);
  auto tri = adjacency_matrix(triangular_graph(4, 4));
  for (auto& e : tri.entries) e.value = -e.value;
  EXPECT_THROW(pfaffian_log_hafnian(tri, INFINITY), RefusedError);  // the sign is unknown
  EXPECT_THROW(kasteleyn_log_permanent(grid(40, 40), 1e3), RefusedError);  // the memory budget
}

// The bound's two factors are reported, and a weighted block whose permanent cancels gets a
// wide (or infinite) error rather than a confident wrong value.
TEST(LogDet, CancellationWidensTheError) {
  REQUIRE_SPARSE_LU();
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<double> u(-1, 1);
  auto exact = engines::make_kasteleyn();
  for (int it = 0; it < 20; ++it) {
    auto a = convert<double>(grid(6, 6), [](const Integer& v) { return v.get_d(); });
    for (auto& e : a.entries) e.value = u(rng);
    const auto want = exact->permanent(a, {});
    const auto r = kasteleyn_log_permanent(a, INFINITY);
    EXPECT_GT(r.max_inverse, 0);
    EXPECT_GT(r.backward, 0);
    if (want.value == 0 || want.abs_error >= 0.01 * std::fabs(want.value)) continue;
    EXPECT_EQ(r.sign, want.value > 0 ? 1 : -1) << "it " << it;
    EXPECT_LE(std::fabs(r.log_abs - std::log(std::fabs(want.value))), r.error + want.abs_error / std::fabs(want.value))
        << "it " << it;
  }
}

}  // namespace
}  // namespace matchcount
