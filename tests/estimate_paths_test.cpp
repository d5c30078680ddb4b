// Estimation's sample paths: the random stream, the exact expectation of every estimator
// (enumerating sample paths), the "+" methods' live entries, lanes sharing a sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "estimate/live_matching.hpp"
#include "estimate/philox.hpp"
#include "estimate/runner.hpp"
#include "estimate_helpers.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/matching.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace esttest;

/// A sparse n x n matrix with a perfect matching (a random permutation) and about `extra`
/// more entries per row: many of its entries lie in no perfect matching.
SparseMatrix<double> sparse_with_matching(std::mt19937_64& rng, int n, double extra) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SparseMatrix<double> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (perm[i] == j || u(rng) < extra / n) a.entries.push_back({i, j, j % 3 == 0 ? 1.0 : 0.5 + u(rng)});
  a.normalize();
  return a;
}

/// The k x k grid with the given cells removed (cells numbered row-major), as a biadjacency matrix.
SparseMatrix<double> grid_with_holes(int k, const std::vector<int>& holes) {
  const EdgeList g = grid_graph(k, k);
  std::vector<int> index(g.vertices, 0);
  for (int h : holes) index[h] = -1;
  EdgeList h;
  for (int v = 0; v < g.vertices; ++v)
    if (index[v] == 0) index[v] = h.vertices++;
  for (const auto& [a, b] : g.edges)
    if (index[a] >= 0 && index[b] >= 0) h.edges.push_back({index[a], index[b]});
  return as_double(biadjacency(h));
}

estimate::SamplerConfig sampler_config(EstimateMethod m, bool small_paths) {
  estimate::SamplerConfig cfg;
  cfg.method = static_cast<estimate::Method>(static_cast<int>(m));
  cfg.params = {4, 3};
  cfg.small_paths = small_paths;
  cfg.threads = 1;
  return cfg;
}

TEST(EstimatePhilox, MatchesRandom123KnownAnswers) {
  // Random123's tests/kat_vectors, the three "philox4x32 10" lines.
  using estimate::Philox4x32;
  auto r = estimate::philox4x32_10(Philox4x32{{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
  r = estimate::philox4x32_10(Philox4x32{{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u);
  EXPECT_EQ(r.v[0], 0x408f276du);
  EXPECT_EQ(r.v[1], 0x41c83b0eu);
  EXPECT_EQ(r.v[2], 0xa20bc7c6u);
  EXPECT_EQ(r.v[3], 0x6d5451fdu);
  r = estimate::philox4x32_10(Philox4x32{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0);
  EXPECT_EQ(r.v[0], 0xd16cfe09u);
  EXPECT_EQ(r.v[1], 0x94fdccebu);
  EXPECT_EQ(r.v[2], 0x5001e420u);
  EXPECT_EQ(r.v[3], 0x24126ea1u);
  estimate::SampleRng rng(7, 1, 2);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

// The expectation over every sample path is the permanent, for every method and scaling
// schedule: the estimators are unbiased by construction, not only on average over runs.
TEST(Estimate, EveryEstimatorsExpectationIsThePermanent) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 6;
    const double density = 0.35 + 0.1 * (trial % 7);
    const SparseMatrix<double> a =
        trial % 2 ? test::random_real(rng, n, density, 0.1, 3.0) : as_double(test::random_integer(rng, n, density, 1, 1));
    const double exact = exact_permanent(a);
    for (EstimateMethod m : kMethods) {
      EstimateOptions o;
      o.method = m;
      o.scale_interval = 1 + trial % 3;
      o.scale_iterations = trial % 4;
      const double e = estimator_expectation(a, o);
      ASSERT_NEAR(e, exact, 1e-10 * std::max(1.0, exact)) << "n=" << n << " trial " << trial << " " << to_string(m);
      // The same through Path where SmallPath (bit masks) ran above.
      estimate::SamplerConfig cfg;
      cfg.method = static_cast<estimate::Method>(static_cast<int>(m));
      cfg.params = {o.scale_interval, o.scale_iterations};
      cfg.small_paths = false;
      const double e2 = estimate::path_expectation(estimate::BlockData::from(a), cfg);
      ASSERT_NEAR(e2, exact, 1e-10 * std::max(1.0, exact)) << "n=" << n << " trial " << trial << " " << to_string(m);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 240);
}

// Sparse matrices with a perfect matching, where most entries lie in none: the expectation is
// still the permanent, and the "+" methods (which leave those entries out) never reach a
// dead end on any path, in both sample-path implementations.
TEST(Estimate, PlusPathsNeverDieAndStayExact) {
  std::mt19937_64 rng(23);
  int dead_plain = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 3 + trial % 9;
    const SparseMatrix<double> a = sparse_with_matching(rng, n, 1.0 + 0.5 * (trial % 4));
    const double exact = exact_permanent(a);
    ASSERT_GT(exact, 0);
    const estimate::BlockData data = estimate::BlockData::from(a);
    for (EstimateMethod m : kMethods)
      for (bool small : {true, false}) {
        std::uint64_t dead = 0;
        const double e = estimate::path_expectation(data, sampler_config(m, small), &dead);
        ASSERT_NEAR(e, exact, 1e-10 * exact) << "n=" << n << " trial " << trial << " " << to_string(m);
        if (m == EstimateMethod::RasmussenPlus || m == EstimateMethod::ScalingPlus) {
          ASSERT_EQ(dead, 0u) << "n=" << n << " trial " << trial << " " << to_string(m) << " small " << small;
        } else {
          dead_plain += dead > 0;
        }
      }
  }
  EXPECT_GT(dead_plain, 20);  // the plain methods do walk into dead ends here
}

// The "+" methods' live-entry test against an oracle: at every step of random placements on
// random sparse blocks (n = 12..60), LiveMatching says a column is possible exactly when the
// rest has a perfect matching (Hopcroft-Karp on the remainder), and its matching stays a
// perfect matching of the remainder. (Its backward search is kept across the candidates of a
// row; a search that meets midway through a column must keep that column's other rows, or
// it hides possible columns later: biased estimates, and a sample that never ends.)
// The live-entry search with batches of 1, 4 and 32 queued rows (as one GPU warp runs it,
// here with the lanes one after the other).
template <int Lanes>
void check_live_entries(std::uint64_t seed) {
  struct View {
    int n = 0;
    const int *row_start, *col_of, *col_start, *row_of;
  };
  std::mt19937_64 rng(seed);
  int tested = 0, refused = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 12 + trial % 49;
    const SparseMatrix<double> a = sparse_with_matching(rng, n, 1.5 + (trial % 5));
    const estimate::BlockData d = estimate::BlockData::from(a);
    ASSERT_FALSE(d.match0.empty());
    const View v{n, d.row_start.data(), d.col_of.data(), d.col_start.data(), d.row_of.data()};
    std::vector<int> row_deg(n, 1), col_deg(n, 1), store(6 * static_cast<std::size_t>(n));
    estimate::LiveMatching<View, int*> live;
    estimate::SerialLanes<Lanes> lanes;
    int* base = store.data();
    // One lane keeps both parents in one array, as a Workspace for one thread does.
    live.match = base, live.match_inv = base + n, live.mark = base + 2 * n, live.bparent = base + 3 * n,
    live.fparent = Lanes == 1 ? live.bparent : base + 4 * n, live.queue = base + 5 * n;
    live.start(v, d.match0.data());
    // Whether the rows and columns still open, less row r and column c, have a perfect matching.
    auto rest_matches = [&](int r, int c) {
      SparseMatrix<double> rest;
      rest.rows = rest.cols = n;
      for (const auto& e : a.entries)
        if (row_deg[e.row] >= 0 && col_deg[e.col] >= 0 && e.row != r && e.col != c) rest.entries.push_back(e);
      int open = 0;
      for (int i = 0; i < n; ++i) open += row_deg[i] >= 0 && i != r;
      return hopcroft_karp(Pattern::of(rest)).size == open;
    };
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int r : order) {
      live.begin_row(r, lanes);
      std::vector<int> ok;
      for (int k = d.row_start[r]; k < d.row_start[r + 1]; ++k) {
        const int c = d.col_of[k];
        if (col_deg[c] < 0) continue;
        const bool possible = live.possible(v, row_deg, col_deg, c, lanes);
        ASSERT_EQ(possible, rest_matches(r, c)) << "trial " << trial << " n=" << n << " row " << r << " column " << c;
        if (possible) ok.push_back(c);
        ++tested, refused += !possible;
      }
      ASSERT_FALSE(ok.empty());
      const int c = ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)];
      // Odd trials search for the placement first, as a GPU warp does; even ones leave it to
      // place(), which searches again when another candidate was searched last.
      if (trial % 2 == 1) {
        if (!live.path_ready(r, c)) live.search_for(v, row_deg, col_deg, c, lanes);
        ASSERT_TRUE(live.path_ready(r, c)) << "trial " << trial;
      }
      live.place(v, row_deg, col_deg, r, c);
      row_deg[r] = -1, col_deg[c] = -1;
      for (int i = 0; i < n; ++i)  // M matches the remainder
        if (row_deg[i] >= 0) {
          const int j = live.match[i];
          ASSERT_TRUE(col_deg[j] >= 0 && live.match_inv[j] == i) << "trial " << trial;
          bool entry = false;
          for (int k = d.row_start[i]; k < d.row_start[i + 1]; ++k) entry = entry || d.col_of[k] == j;
          ASSERT_TRUE(entry) << "trial " << trial;
        }
    }
  }
  EXPECT_GT(refused, tested / 10);  // many entries lie in no perfect matching here
  std::printf("%d lanes: %d candidate columns checked, %d refused\n", Lanes, tested, refused);
}

TEST(Estimate, LiveEntriesAreExactlyThoseInAPerfectMatching) {
  check_live_entries<1>(5);
  check_live_entries<4>(6);
  check_live_entries<32>(7);
}

// A warp's way of taking a sample (run_sample_lanes: the leader walks, the lanes share the
// live-entry searches and Sinkhorn sweeps), here with 32 lanes one after the other, gives
// the value of one thread's sample, bit for bit: the searches' answers do not depend on who
// ran them.
template <estimate::Method M>
void check_lane_samples(const estimate::BlockData& d, std::uint64_t samples) {
  const estimate::BlockView v = d.view();
  estimate::SampleParams params;
  std::vector<int> ints1(estimate::Workspace::ints(d.n, d.max_degree, M)),
      ints2(estimate::Workspace::ints(d.n, d.max_degree, M, true));
  std::vector<double> dbl1(estimate::Workspace::doubles(d.n, M)), dbl2(dbl1.size());
  estimate::Path<M> one(v, estimate::Workspace::bind(ints1.data(), dbl1.data(), 1, d.n, d.max_degree, M), params);
  estimate::Path<M> team(v, estimate::Workspace::bind(ints2.data(), dbl2.data(), 1, d.n, d.max_degree, M, true),
                         params);
  team.cooperate();
  estimate::SerialLanes<32> lanes;
  int nonzero = 0;
  for (std::uint64_t k = 0; k < samples; ++k) {
    estimate::SampleRng r1(9, 0, k), r2(9, 0, k);
    const estimate::WideValue a = estimate::run_sample(one, r1);
    const estimate::WideValue b = estimate::run_sample_lanes(team, r2, lanes, [](int x) { return x; });
    ASSERT_EQ(a.m, b.m) << "sample " << k << " n=" << d.n;
    ASSERT_EQ(a.e, b.e) << "sample " << k << " n=" << d.n;
    nonzero += a.m != 0.0;
  }
  EXPECT_EQ(nonzero, static_cast<int>(samples));  // "+" samples never die
}

TEST(Estimate, PlusSamplesByLanesAreOneThreadsSamples) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const estimate::BlockData d = estimate::BlockData::from(sparse_with_matching(rng, 20 + 9 * trial, 2.0 + trial % 3));
    check_lane_samples<estimate::Method::RasmussenPlus>(d, 20);
    check_lane_samples<estimate::Method::ScalingPlus>(d, 5);
  }
  const estimate::BlockData grid = estimate::BlockData::from(grid_with_holes(16, {}));
  check_lane_samples<estimate::Method::RasmussenPlus>(grid, 20);
  check_lane_samples<estimate::Method::ScalingPlus>(grid, 5);
}

// Grids with holes and the 12 x 12 and 16 x 16 grids, sampled whole (no Dulmage-Mendelsohn
// split first, so entries in no perfect matching are there from the start): no "+" sample
// is 0, and the estimate agrees with the exact count.
TEST(Estimate, PlusSamplesOnGridsAreNeverZero) {
  struct Case {
    SparseMatrix<double> a;
    double exact;
  };
  // Holes, as many of each colour: 8 x 8 without cells (1,1) and (4,5); 10 x 10 without
  // three 2 x 1 bars (cells row-major); the full 12 x 12 and 16 x 16 grids.
  std::vector<Case> cases;
  for (auto holes : {std::vector<int>{9, 37}, std::vector<int>{22, 23, 44, 45, 71, 81}}) {
    const int k = holes.size() == 2 ? 8 : 10;
    SparseMatrix<double> a = grid_with_holes(k, holes);
    cases.push_back({a, exact_permanent(a)});
    ASSERT_GT(cases.back().exact, 0);
  }
  cases.push_back({as_double(biadjacency(grid_graph(12, 12))), 53060477521960000.0});
  cases.push_back({as_double(biadjacency(grid_graph(16, 16))), 0});
  for (const auto& [a, exact] : cases) {
    ASSERT_EQ(a.rows, a.cols);
    const estimate::BlockData data = estimate::BlockData::from(a);
    for (EstimateMethod m : {EstimateMethod::RasmussenPlus, EstimateMethod::ScalingPlus})
      for (bool small : {true, false}) {
        if (small && a.rows > 64) continue;
        const std::uint64_t count = m == EstimateMethod::ScalingPlus && a.rows > 64 ? 200 : 2000;
        auto sampler = estimate::make_cpu_sampler(data, sampler_config(m, small));
        const estimate::SampleSums s = sampler->run(0, count);
        EXPECT_EQ(s.count, count);
        EXPECT_EQ(s.zeros, 0u) << a.rows << " rows, " << to_string(m) << " small " << small;
        if (exact > 0) {
          const double mean = std::ldexp(s.sum_m, static_cast<int>(s.sum_e)) / static_cast<double>(count);
          const double sq = std::ldexp(s.sq_m, static_cast<int>(s.sq_e)) / static_cast<double>(count);
          const double se = std::sqrt(std::max(0.0, sq - mean * mean) / static_cast<double>(count - 1));
          EXPECT_LE(std::fabs(mean - exact), 5 * se) << a.rows << " rows, " << to_string(m) << " small " << small;
        }
      }
  }
}

}  // namespace
}  // namespace matchcount
