// Estimation: the random stream, the exact expectation of every estimator (enumerating
// sample paths), unbiasedness on random matrices and grids, reproducibility, refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "../src/estimate/live_matching.hpp"
#include "../src/estimate/philox.hpp"
#include "../src/estimate/runner.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

const EstimateMethod kMethods[] = {EstimateMethod::Rasmussen, EstimateMethod::RasmussenPlus, EstimateMethod::Scaling,
                                   EstimateMethod::ScalingPlus};

double exact_permanent(const SparseMatrix<double>& a) {
  CountOptions o;
  o.device = DevicePolicy::Cpu;
  return std::get<double>(count_permanent(AnyMatrix(a), o).value.value);
}

SparseMatrix<double> as_double(const SparseMatrix<Integer>& a) {
  return convert<double>(a, [](const Integer& v) { return v.get_d(); });
}

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
// row; a search that met midway through a column once lost that column's other rows, which
// hid possible columns later: biased estimates, and a sample that never ended.)
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

// Random matrices with known permanents: each estimate lies within 4 standard errors.
TEST(Estimate, EstimatesLieWithinFourStandardErrors) {
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 8 + trial % 5;
    const SparseMatrix<Integer> a = erdos_renyi_bipartite(n, 0.3 + 0.05 * (trial % 4), 100 + trial);
    const double exact = exact_permanent(as_double(a));
    if (exact == 0) continue;
    for (EstimateMethod m : kMethods) {
      EstimateOptions o;
      o.method = m;
      o.samples = 4000;
      o.exact_up_to = 0;
      o.seed = 5 + trial;
      const EstimateReport r = estimate_permanent(AnyMatrix(a), o);
      const double est = r.estimate.to_double();
      EXPECT_LE(std::fabs(est - exact), 4 * r.rel_std_error * est + 1e-9 * exact)
          << "trial " << trial << " " << to_string(m) << " est " << est << " exact " << exact;
      EXPECT_EQ(r.samples, 4000u * r.blocks.size() - 4000u * std::count_if(r.blocks.begin(), r.blocks.end(), [](auto& b) { return b.exact; }));
    }
  }
}

// Independent runs (different seeds): their mean converges to the permanent.
TEST(Estimate, MeanOfIndependentRunsConverges) {
  const SparseMatrix<Integer> a = erdos_renyi_bipartite(12, 0.35, 3);
  const double exact = exact_permanent(as_double(a));
  ASSERT_GT(exact, 0);
  for (EstimateMethod m : {EstimateMethod::Rasmussen, EstimateMethod::ScalingPlus}) {
    const int runs = 40;
    double sum = 0, sq = 0;
    for (int s = 0; s < runs; ++s) {
      EstimateOptions o;
      o.method = m;
      o.samples = 300;
      o.exact_up_to = 0;
      o.seed = 1000 + s;
      const double est = estimate_permanent(AnyMatrix(a), o).estimate.to_double();
      sum += est, sq += est * est;
    }
    const double mean = sum / runs, sd = std::sqrt(std::max(0.0, sq / runs - mean * mean));
    EXPECT_LE(std::fabs(mean - exact), 4 * sd / std::sqrt(runs)) << to_string(m);
    EXPECT_GT(sd, 0.0);
  }
}

TEST(Estimate, SeedsReproduceWhateverTheThreadCount) {
  const AnyMatrix a = biadjacency(grid_graph(6, 6));
  EstimateOptions o;
  o.samples = 3000;
  o.exact_up_to = 0;
  o.threads = 1;
  const EstimateReport one = estimate_permanent(a, o);
  o.threads = 2;
  const EstimateReport two = estimate_permanent(a, o);
  EXPECT_EQ(one.estimate.mant, two.estimate.mant);
  EXPECT_EQ(one.estimate.exp, two.estimate.exp);
  EXPECT_EQ(one.rel_std_error, two.rel_std_error);
  o.seed = 2;
  const EstimateReport other = estimate_permanent(a, o);
  EXPECT_NE(one.estimate.mant, other.estimate.mant);
}

// Large blocks sum in small batches (one thread's unit of work), so that a first round of
// slow samples keeps every core busy; the sums still do not depend on the thread count.
TEST(Estimate, LargeBlocksSumInSmallBatchesWhateverTheThreadCount) {
  const estimate::BlockData d =
      estimate::BlockData::from(as_double(random_regular_bipartite(estimate::kSmallBatchRows, 3, 8)));
  estimate::SamplerConfig cfg;
  cfg.method = estimate::Method::Rasmussen;
  cfg.threads = 1;
  const std::vector<estimate::SampleSums> one = estimate::make_cpu_sampler(d, cfg)->run_parts(0, 100);
  cfg.threads = 2;
  const std::vector<estimate::SampleSums> two = estimate::make_cpu_sampler(d, cfg)->run_parts(0, 100);
  ASSERT_EQ(one.size(), (100 + estimate::batch_samples(d.n) - 1) / estimate::batch_samples(d.n));
  EXPECT_GT(one.size(), 2u);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].count, two[i].count);
    EXPECT_EQ(one[i].sum_m, two[i].sum_m);
    EXPECT_EQ(one[i].sum_e, two[i].sum_e);
  }
  EXPECT_EQ(estimate::batch_samples(estimate::kSmallBatchRows - 1), estimate::kBatch);
}

TEST(Estimate, TimeCappedRoundsStopBetweenBatchesAtAPrefix) {
  const estimate::BlockData d =
      estimate::BlockData::from(as_double(random_regular_bipartite(estimate::kSmallBatchRows, 3, 9)));
  const std::uint64_t batch = estimate::batch_samples(d.n);
  estimate::SamplerConfig cfg;
  cfg.method = estimate::Method::RasmussenPlus;
  cfg.threads = 2;
  const auto sampler = estimate::make_cpu_sampler(d, cfg);
  const auto now = std::chrono::steady_clock::now();
  // A deadline already past: batch 0 alone.
  const estimate::SampleSums past = sampler->run_until(40, 10 * batch, now - std::chrono::seconds(1));
  EXPECT_EQ(past.count, batch);
  // Far away: the whole round, the bits of run().
  const estimate::SampleSums whole = sampler->run_until(40, 10 * batch, now + std::chrono::hours(1));
  const estimate::SampleSums plain = sampler->run(40, 10 * batch);
  EXPECT_EQ(whole.count, plain.count);
  EXPECT_EQ(whole.sum_m, plain.sum_m);
  EXPECT_EQ(whole.sum_e, plain.sum_e);
  // In between (how far it gets depends on the machine): whole batches from the start, with
  // the bits of run() over the same samples.
  const auto t0 = std::chrono::steady_clock::now();
  (void)sampler->run(0, 2 * batch);
  const auto two_batches = std::chrono::steady_clock::now() - t0;
  const estimate::SampleSums part = sampler->run_until(40, 64 * batch, std::chrono::steady_clock::now() + 3 * two_batches);
  ASSERT_GE(part.count, batch);
  EXPECT_EQ(part.count % batch, 0u);
  const estimate::SampleSums same = sampler->run(40, part.count);
  EXPECT_EQ(part.sum_m, same.sum_m);
  EXPECT_EQ(part.sum_e, same.sum_e);
}

// Grids against the Kasteleyn product (known-families.tsv): 12 x 12 has 53060477521960000.
TEST(Estimate, GridDimersAgreeWithTheExactCount) {
  const AnyMatrix a = biadjacency(grid_graph(12, 12));
  const double exact = 53060477521960000.0;
  for (EstimateMethod m : {EstimateMethod::Scaling, EstimateMethod::ScalingPlus}) {
    EstimateOptions o;
    o.method = m;
    o.samples = 4000;
    o.exact_up_to = 0;  // sample it, though the planner counts it exactly in milliseconds
    const EstimateReport r = estimate_permanent(a, o);
    EXPECT_LE(std::fabs(r.estimate.to_double() / exact - 1), 4 * r.rel_std_error) << to_string(m);
    EXPECT_LT(r.rel_std_error, 0.05) << to_string(m);
    EXPECT_FALSE(r.heavy_tail) << to_string(m);
  }
}

// Rasmussen on a 16 x 16 grid: almost every sample dies, a handful carry the sum. The report
// must say the error bar is unreliable instead of printing a confident interval.
TEST(Estimate, HeavyTailsAreReported) {
  const AnyMatrix a = biadjacency(grid_graph(16, 16));
  EstimateOptions o;
  o.method = EstimateMethod::Rasmussen;
  o.samples = 2000;
  o.exact_up_to = 0;
  const EstimateReport r = estimate_permanent(a, o);
  EXPECT_TRUE(r.heavy_tail);
  ASSERT_EQ(r.blocks.size(), 1u);
  EXPECT_TRUE(r.blocks[0].heavy_tail);
  EXPECT_GT(r.zero_samples, 1900u);
}

TEST(Estimate, BlocksMultiplyAndSmallBlocksAreExact) {
  // Block diagonal: J_3 (perm 6), a 4-cycle (2) and a 10x10 grid-like block.
  SparseMatrix<Integer> a;
  a.rows = a.cols = 3 + 2 + 30;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.entries.push_back({i, j, 1});
  a.entries.push_back({3, 3, 1}), a.entries.push_back({3, 4, 1}), a.entries.push_back({4, 3, 1}), a.entries.push_back({4, 4, 1});
  const SparseMatrix<Integer> g = biadjacency(grid_graph(6, 10));
  for (const auto& e : g.entries) a.entries.push_back({5 + e.row, 5 + e.col, e.value});
  a.normalize();
  const double exact = 12.0 * exact_permanent(as_double(g));
  EstimateOptions o;
  o.samples = 5000;
  o.exact_up_to = 0;
  EstimateReport r = estimate_permanent(AnyMatrix(a), o);
  EXPECT_EQ(r.blocks.size(), 3u);
  EXPECT_FALSE(r.exact);
  EXPECT_LE(std::fabs(r.estimate.to_double() / exact - 1), 4 * r.rel_std_error);
  o.exact_up_to = 30;
  r = estimate_permanent(AnyMatrix(a), o);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.rel_std_error, 0.0);
  EXPECT_NEAR(r.estimate.to_double(), exact, 1e-9 * exact);
}

TEST(Estimate, RelativeErrorTargetStopsSampling) {
  const AnyMatrix a = biadjacency(grid_graph(8, 8));
  EstimateOptions o;
  o.rel_error = 0.02;
  o.exact_up_to = 0;
  const EstimateReport r = estimate_permanent(a, o);
  EXPECT_TRUE(r.target_met);
  EXPECT_LE(r.rel_std_error, 0.02);
  EXPECT_LT(r.samples, 1'000'000u);
}

TEST(Estimate, RefusesNegativeAndComplexAndCountsZeroExactly) {
  SparseMatrix<double> neg;
  neg.rows = neg.cols = 2;
  neg.entries = {{0, 0, 1.0}, {0, 1, -1.0}, {1, 0, 1.0}, {1, 1, 1.0}};
  EXPECT_THROW(estimate_permanent(AnyMatrix(neg)), RefusedError);
  SparseMatrix<Complex> c;
  c.rows = c.cols = 1;
  c.entries = {{0, 0, Complex(1, 1)}};
  EXPECT_THROW(estimate_permanent(AnyMatrix(c)), RefusedError);
  SparseMatrix<Integer> none;  // two rows share their only column
  none.rows = none.cols = 2;
  none.entries = {{0, 0, 1}, {1, 0, 1}};
  const EstimateReport r = estimate_permanent(AnyMatrix(none));
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(r.estimate.zero());
}

TEST(Estimate, WideRealsPrintBeyondDoubleRange) {
  WideReal x = WideReal::from(1.5);
  for (int i = 0; i < 40; ++i) x = x * WideReal::from(1e100);  // 1.5e4000
  EXPECT_EQ(x.to_string(3), "1.50e+4000");
  EXPECT_EQ(WideReal::from(9.996).to_string(3), "1.00e+1");
  EXPECT_EQ(WideReal::from(0.0).to_string(3), "0");
  EXPECT_EQ(WideReal::from(12345.0).to_string(1), "1e+4");
  EstimateMethod m;
  EXPECT_TRUE(parse_estimate_method("Scaling-plus", m));
  EXPECT_EQ(m, EstimateMethod::ScalingPlus);
  EXPECT_TRUE(parse_estimate_method("rasmussen", m));
  EXPECT_EQ(m, EstimateMethod::Rasmussen);
  EXPECT_FALSE(parse_estimate_method("glauber", m));
}

// The GPU runs the same sample paths with the same random streams; its estimates agree with
// the CPU's (to rounding, or statistically where contracted arithmetic flips a draw).
TEST(EstimateGpu, AgreesWithTheCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const AnyMatrix grid = biadjacency(grid_graph(12, 12));
  std::vector<AnyMatrix> cases = {grid};
  for (int t = 0; t < 6; ++t) cases.push_back(AnyMatrix(erdos_renyi_bipartite(20 + 4 * t, 0.25, 40 + t)));
  int close = 0, total = 0;
  for (const auto& a : cases)
    for (EstimateMethod m : kMethods) {
      EstimateOptions o;
      o.method = m;
      o.samples = 20000;
      o.exact_up_to = 0;
      o.device = DevicePolicy::Cpu;
      const EstimateReport cpu = estimate_permanent(a, o);
      o.device = DevicePolicy::Gpu;
      const EstimateReport gpu = estimate_permanent(a, o);
      const EstimateReport again = estimate_permanent(a, o);
      EXPECT_EQ(gpu.estimate.mant, again.estimate.mant);
      EXPECT_EQ(gpu.samples, cpu.samples);
      for (const auto& b : gpu.blocks)
        if (!b.exact) {
          EXPECT_NE(b.device, "cpu");
        }
      const double c = cpu.estimate.to_double(), g = gpu.estimate.to_double();
      const double se = std::hypot(cpu.rel_std_error * c, gpu.rel_std_error * g);
      EXPECT_LE(std::fabs(c - g), 4 * se + 1e-12 * c) << to_string(m);
      close += std::fabs(c - g) <= 1e-9 * c;
      ++total;
    }
  EXPECT_GE(close, total / 2) << "GPU and CPU should draw the same samples";
}

// Rasmussen+ with one warp per sample (lanes sharing the live-entry searches), forced on
// small blocks, against the CPU and against one thread per sample: on 0-1 blocks every
// draw and factor is exact, so all three take the same samples. Scaling+ with and without
// the lanes' searches likewise. The 3-regular
// block of 3000 rows keeps a warp's scratch arrays in global memory, the others in shared.
TEST(EstimateGpu, WarpPerSamplePlusGivesTheCpusSums) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<SparseMatrix<Integer>> blocks = {biadjacency(grid_graph(20, 20)), random_regular_bipartite(300, 3, 4),
                                                     random_regular_bipartite(3000, 3, 5),
                                                     erdos_renyi_bipartite(80, 0.06, 6)};
  for (const auto& a : blocks) {
    const estimate::BlockData d = estimate::BlockData::from(as_double(a));
    ASSERT_FALSE(d.match0.empty());
    estimate::SamplerConfig cfg;
    cfg.method = estimate::Method::RasmussenPlus;
    cfg.small_paths = false;
    const std::uint64_t samples = d.n > 1000 ? 64 : 600;
    const estimate::SampleSums cpu = estimate::make_cpu_sampler(d, cfg)->run(0, samples);
    cfg.warp_plus_rows = 0;
    const estimate::SampleSums warp = estimate::make_gpu_sampler(d, cfg)->run(0, samples);
    cfg.warp_plus_rows = 1 << 30;
    const estimate::SampleSums thread = estimate::make_gpu_sampler(d, cfg)->run(0, samples);
    for (const estimate::SampleSums* g : {&warp, &thread}) {
      EXPECT_EQ(g->count, samples);
      EXPECT_EQ(g->zeros, 0u) << "n=" << d.n;
      // The same samples, summed in another order (per thread or warp, not per batch).
      auto log2_of = [](double m, long long e) { return std::log2(m) + static_cast<double>(e); };
      EXPECT_NEAR(log2_of(g->sum_m, g->sum_e), log2_of(cpu.sum_m, cpu.sum_e), 1e-9) << "n=" << d.n;
      EXPECT_NEAR(log2_of(g->sq_m, g->sq_e), log2_of(cpu.sq_m, cpu.sq_e), 1e-9) << "n=" << d.n;
      EXPECT_EQ(g->max_m, cpu.max_m) << "n=" << d.n;
      EXPECT_EQ(g->max_e, cpu.max_e) << "n=" << d.n;
    }
    if (d.n > 1000) continue;
    // Scaling+ (always a warp per sample) with and without the lanes' searches: the same
    // kernel arithmetic and summing order, so the same bits.
    cfg.method = estimate::Method::ScalingPlus;
    cfg.warp_plus_rows = 0;
    const estimate::SampleSums shared = estimate::make_gpu_sampler(d, cfg)->run(0, 256);
    cfg.warp_plus_rows = 1 << 30;
    const estimate::SampleSums alone = estimate::make_gpu_sampler(d, cfg)->run(0, 256);
    EXPECT_EQ(shared.zeros, 0u);
    EXPECT_EQ(shared.sum_m, alone.sum_m) << "n=" << d.n;
    EXPECT_EQ(shared.sum_e, alone.sum_e) << "n=" << d.n;
    EXPECT_EQ(shared.sq_m, alone.sq_m) << "n=" << d.n;
  }
}

TEST(EstimateCli, PrintsTheEstimateAndErrorBars) {
  const std::string grid = test::temp_file("0 1\n1 2\n2 3\n3 0\n0 4\n1 5\n2 6\n3 7\n4 5\n5 6\n6 7\n7 4\n", ".edges");
  auto r = test::run_matchcount("--estimate --samples 2000 --exact-up-to 0 --as graph " + grid);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("relative standard error"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("e+"), std::string::npos) << r.out;
  r = test::run_matchcount("--estimate --json --samples 2000 --method rasmussen+ --as graph " + grid);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"method\":\"rasmussen+\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"ci95\""), std::string::npos) << r.out;
  // One sample: no variance estimate, so no interval (not an interval of NaNs).
  r = test::run_matchcount("--estimate --samples 1 --exact-up-to 0 --as graph " + grid);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no interval"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("nan"), std::string::npos) << r.err;
  r = test::run_matchcount("--estimate --json --samples 1 --exact-up-to 0 --as graph " + grid);
  EXPECT_NE(r.out.find("\"ci95\":null"), std::string::npos) << r.out;
  r = test::run_matchcount("--estimate --method glauber " + grid);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  const std::string neg = test::temp_file("%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n1 2 -1\n2 1 1\n2 2 1\n", ".mtx");
  r = test::run_matchcount("--estimate " + neg);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("nonnegative"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace matchcount
