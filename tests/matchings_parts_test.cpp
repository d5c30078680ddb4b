// All matchings, the polynomial's parts (src/pipeline/matchings.cpp, src/engines/matchings): the
// classical recursion for forests and components multiplied, the checkpoint of --polynomial,
// and the counted memory floor of the DP of polynomials.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <random>
#include <vector>

#include "core/tuning.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/matchings/tree_polynomial.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/matchings.hpp"
#include "matchings_support.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using matchtest::brute_sizes;
using matchtest::of;
using matchtest::polynomial;

// Forests by the classical recursion (tree_polynomial.hpp): paths against C(n - k, k), random
// weighted forests against the frontier DP of polynomials, a cycle refused by the recursion, and
// graphs of several components (trees and not) through the pipeline against enumeration.
TEST(Matchings, TreesByTheClassicalRecursion) {
  for (int n : {1, 2, 7, 40}) {
    std::vector<std::pair<int, int>> e;
    for (int i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
    const auto a = test::weighted_adjacency(n, e, std::vector<long>(e.size(), 1));
    ASSERT_TRUE(engines::is_forest(a));
    const auto m = engines::tree_matching_polynomial(a);
    ASSERT_EQ(m.size(), static_cast<std::size_t>(n / 2 + 1));
    for (int k = 0; k <= n / 2; ++k) {
      Integer binom;
      mpz_bin_uiui(binom.get_mpz_t(), static_cast<unsigned long>(n - k), static_cast<unsigned long>(k));
      EXPECT_EQ(m[static_cast<std::size_t>(k)], binom) << "P_" << n << " k " << k;
    }
  }
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 30);
    std::vector<std::pair<int, int>> e;
    std::vector<long> ew;
    for (int v = 1; v < n; ++v)
      if (rng() % 6) e.emplace_back(static_cast<int>(rng() % static_cast<std::uint64_t>(v)), v), ew.push_back(static_cast<long>(rng() % 9) - 4);
    for (std::size_t i = 0; i < ew.size(); ++i)
      if (ew[i] == 0) ew[i] = 3;
    const auto a = test::weighted_adjacency(n, e, ew);
    ASSERT_TRUE(engines::is_forest(a));
    EXPECT_EQ(engines::tree_matching_polynomial(a), engines::graph_frontier_matching_polynomial(a, {})) << "trial " << trial;
    EXPECT_EQ(polynomial(a), engines::graph_frontier_matching_polynomial(a, {})) << "trial " << trial;
  }
  const auto cycle = test::weighted_adjacency(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}}, std::vector<long>(5, 1));
  EXPECT_FALSE(engines::is_forest(cycle));
  EXPECT_THROW(engines::tree_matching_polynomial(cycle), std::invalid_argument);
  // Several components, some trees, some with cycles: the product against enumeration.
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 4 + static_cast<int>(rng() % 9);
    std::vector<std::vector<long>> w(static_cast<std::size_t>(n), std::vector<long>(static_cast<std::size_t>(n), 0));
    std::vector<std::pair<int, int>> e;
    std::vector<long> ew;
    const int cut = n / 2;  // no edge crosses it: at least two components
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if ((i < cut) == (j < cut) && rng() % 3 == 0) {
          const long x = 1 + static_cast<long>(rng() % 3);
          w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = x;
          e.emplace_back(i, j), ew.push_back(x);
        }
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    std::vector<Integer> sizes(static_cast<std::size_t>(n / 2 + 1), 0);
    brute_sizes(n, w, used, 1, 0, sizes);
    EXPECT_EQ(polynomial(test::weighted_adjacency(n, e, ew)), sizes) << "trial " << trial;
  }
}

// --checkpoint with --polynomial: a stop asked for before every run saves one more piece and
// throws Interrupted; the runs together give the polynomial and total of one run without a
// checkpoint (integer and float weights, a tree component and one by interpolation).
TEST(Matchings, PolynomialResumesFromItsCheckpoint) {
  std::vector<std::pair<int, int>> e{{0, 1}, {1, 2}, {2, 3}, {1, 4}};  // a tree
  for (int i = 5; i < 11; ++i)
    for (int j = i + 1; j < 11; ++j)
      if ((i + j) % 3) e.emplace_back(i, j);
  std::vector<long> ew;
  for (std::size_t i = 0; i < e.size(); ++i) ew.push_back(1 + static_cast<long>(i % 4));
  const SparseMatrix<Integer> z = test::weighted_adjacency(11, e, ew);
  SparseMatrix<double> d{11, 11, {}};
  for (const auto& x : z.entries) d.entries.push_back({x.row, x.col, x.value.get_d() / 3});
  tuning::Tuning t = tuning::tuning();
  t.matching_polynomial = 2;  // interpolation: a piece per point
  const tuning::ScopedTuning scoped(t);
  PermanentValue y;
  y.value = Integer(2);
  for (const AnyMatrix& a : {AnyMatrix(z), AnyMatrix(d)}) {
    const CountReport plain = count_matchings_report(a, y, true, {});
    const std::string path = test::temp_file("", ".ckpt");
    std::filesystem::remove(path);
    int runs = 0;
    for (;; ++runs) {
      ASSERT_LT(runs, 40);
      Checkpoint cp(path, 0.0);
      CountOptions o;
      o.checkpoint = &cp;
      cp.request_stop(SIGTERM);
      try {
        const CountReport r = count_matchings_report(a, y, true, o);
        ASSERT_EQ(r.polynomial.size(), plain.polynomial.size());
        for (std::size_t k = 0; k < r.polynomial.size(); ++k) {
          EXPECT_EQ(r.polynomial[k].value, plain.polynomial[k].value) << k;
          EXPECT_EQ(r.polynomial[k].abs_error, plain.polynomial[k].abs_error) << k;
        }
        EXPECT_EQ(r.value.value, plain.value.value);
        break;
      } catch (const Interrupted&) {
      }
    }
    EXPECT_GE(runs, 3) << "the pieces were saved one at a time";
    EXPECT_FALSE(std::filesystem::exists(path)) << "a finished count removes its checkpoint";
  }
}

// The counted memory floor of the DP of polynomials (docs/benchmarks.md): every subset of the
// frontier is a state (twice the perfect-matching plan's parity-constrained ones), and one edge
// gives 2 states, then 1.
TEST(Matchings, PolynomialTrafficCountsTheStates) {
  for (int s : {4, 6, 9}) {
    const auto a = of(grid_graph(s, s));
    const auto t = engines::graph_frontier_polynomial_traffic(a);
    // (The plan counts one state for frontiers of 0 and 1 vertices alike: off by one there.)
    EXPECT_NEAR(t.states, 2 * engines::graph_frontier_polynomial_plan(a).states, double(s * s)) << s;
    EXPECT_GT(t.bytes_per_prime, 8 * t.states);
    EXPECT_GE(t.primes, 1);
  }
  const auto p = test::weighted_adjacency(2, {{0, 1}}, {1});
  const auto t = engines::graph_frontier_polynomial_traffic(p);
  EXPECT_EQ(t.states, 3);  // {}, {0} after vertex 0; {} after vertex 1
  // Written: 2 states x 1 degree, then 1 x 2 degrees; read: 1 x 1, then 2 x 1.
  EXPECT_EQ(t.bytes_per_prime, 8.0 * (2 + 2 + 1 + 2));
}

}  // namespace
}  // namespace matchcount
