// Estimation end to end: unbiasedness on random matrices and grids, reproducibility whatever
// the threads, blocks, refusals, the GPU against the CPU, the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "estimate/runner.hpp"
#include "estimate_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace esttest;

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

// A stop inside a batch keeps the samples that batch finished (a prefix of the round, with
// run()'s bits), so that a first round of one batch, which one thread may not finish within a
// short cap, still gives an estimate.
TEST(Estimate, AStopInsideABatchKeepsItsFinishedSamples) {
  const estimate::BlockData d = estimate::BlockData::from(as_double(random_regular_bipartite(200, 3, 5)));
  const std::uint64_t batch = estimate::batch_samples(d.n);
  ASSERT_EQ(batch, estimate::kBatch);
  estimate::SamplerConfig cfg;
  cfg.method = estimate::Method::ScalingPlus;
  cfg.threads = 1;
  const auto sampler = estimate::make_cpu_sampler(d, cfg);
  auto t0 = std::chrono::steady_clock::now();
  (void)sampler->run(0, 32);
  const auto sixteen = (std::chrono::steady_clock::now() - t0) / 2;
  const auto never = std::chrono::steady_clock::time_point::max();
  // About 16 samples of batch 0, with margins of 16 both ways.
  sampler->stop_at(std::chrono::steady_clock::now() + sixteen);
  const estimate::SampleSums part = sampler->run_until(7, 2 * batch, never);
  EXPECT_GT(part.count, 0u);
  EXPECT_LT(part.count, batch);
  sampler->stop_at(never);
  const estimate::SampleSums same = sampler->run(7, part.count);
  EXPECT_EQ(part.count, same.count);
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
