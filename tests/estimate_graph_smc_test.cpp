// Resampled populations of graph sample paths (src/estimate/graph_smc.hpp, --particles): the
// twist telescopes (a population of one is the independent path's sample), the estimates
// average to the hafnian, the interval covers a lattice count, the bits do not depend on the
// threads, the automatic choice, and the refusals.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "estimate/graph_smc.hpp"
#include "estimate/runner.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "population_checks.hpp"
#include "symmetric_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace test::symmetric_helpers;

using estimate::Method;


// With one particle the population never resamples, and the twisted weights telescope back to
// the path's own: the estimate is the independent sample with the same random stream.
TEST(EstimateGraphSmc, OneParticleIsTheIndependentSample) {
  const estimate::GraphData g = estimate::GraphData::from(as<double>(adjacency_matrix(triangular_graph(10, 10))));
  test::expect_population_of_one_is_the_path(g, estimate::SampleParams{g.n, 5, 2}, 50);
}

// The population estimates average to the hafnian (within 4.5 standard errors of 3000
// estimates) for the scaling methods (twisted) and Rasmussen+ (plain weights), with the
// plain scaling method's dead paths, on random weighted graphs and a lattice.
TEST(EstimateGraphSmc, EstimatesAverageToTheHafnian) {
  std::vector<SparseMatrix<double>> graphs;
  for (int t = 0; t < 4; ++t) graphs.push_back(random_weighted_graph(14 + 4 * t, 0.15, 40 + t, true, 3));
  graphs.push_back(as<double>(adjacency_matrix(triangular_graph(6, 8))));
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const double exact = exact_hafnian(graphs[gi]);
    ASSERT_GT(exact, 0);
    const estimate::GraphData g = estimate::GraphData::from(graphs[gi]);
    for (Method m : {Method::ScalingPlus, Method::Scaling, Method::RasmussenPlus}) {
      estimate::SamplerConfig cfg;
      cfg.graph = true, cfg.method = m, cfg.params = {g.n, 3, gi == 4 ? 2 : 0}, cfg.threads = 2;
      cfg.particles = 4, cfg.seed = 11 + gi;
      test::expect_samples_average_to(g, cfg, exact,
                                      "graph " + std::to_string(gi) + " method " + std::to_string(static_cast<int>(m)));
    }
  }
}

EstimateReport smc_estimate(const SparseMatrix<Integer>& a, std::uint64_t seed, int threads, int particles = 10) {
  EstimateOptions o;
  o.samples = 60;
  o.exact_up_to = 0;
  o.seed = seed;
  o.threads = threads;
  o.particles = particles;
  o.device = DevicePolicy::Cpu;
  return estimate_hafnian(AnyMatrix(a), false, o);
}

// Over 40 seeds the 95% interval of 60 populations of 10 holds the 8x10 triangular lattice's
// count at least 34 times (at a true 95%, fewer happens with probability 0.3%).
TEST(EstimateGraphSmc, IntervalCoversALatticeCount) {
  const SparseMatrix<Integer> a = adjacency_matrix(triangular_graph(8, 10));
  const double exact = exact_hafnian(as<double>(a));
  const int runs = test::kSanitized ? 12 : 40, floor = test::kSanitized ? test::coverage_floor(runs, 0.95) : 34;
  int covered = 0;
  for (int seed = 1; seed <= runs; ++seed) {
    const EstimateReport r = smc_estimate(a, std::uint64_t(seed), 2);
    covered += r.ci_low.to_double() <= exact && exact <= r.ci_high.to_double();
  }
  EXPECT_GE(covered, floor) << covered << " of " << runs;
}

TEST(EstimateGraphSmc, SameBitsWhateverTheThreadsAndTheAutomaticChoice) {
  const SparseMatrix<Integer> a = adjacency_matrix(triangular_graph(10, 10));
  const EstimateReport one = smc_estimate(a, 3, 1), two = smc_estimate(a, 3, 2);
  EXPECT_EQ(one.estimate.mant, two.estimate.mant);
  EXPECT_EQ(one.estimate.exp, two.estimate.exp);
  EXPECT_EQ(one.rel_std_error, two.rel_std_error);
  EXPECT_NE(smc_estimate(a, 4, 2).estimate.mant, one.estimate.mant);
  // Automatic: populations on a large lattice (a note says so), independent paths on a small one.
  const auto note = [](const EstimateReport& r) {
    for (const auto& n : r.notes)
      if (n.find("resampled paths") != std::string::npos) return true;
    return false;
  };
  EstimateOptions o;
  o.samples = 4;
  o.exact_up_to = 0;
  o.device = DevicePolicy::Cpu;
  EXPECT_TRUE(note(estimate_hafnian(AnyMatrix(adjacency_matrix(triangular_graph(24, 24))), false, o)));
  EXPECT_FALSE(note(estimate_hafnian(AnyMatrix(a), false, o)));
  o.particles = 0;
  EXPECT_FALSE(note(estimate_hafnian(AnyMatrix(adjacency_matrix(triangular_graph(24, 24))), false, o)));
}

TEST(EstimateGraphSmc, TimeCapBindsInsideASample) {
  // A sampler told to stop in the past abandons its first sample and returns no samples; told
  // never to stop, it gives run()'s sums.
  const SparseMatrix<Integer> tri = adjacency_matrix(triangular_graph(10, 10));
  const estimate::GraphData g =
      estimate::GraphData::from(convert<double>(tri, [](const Integer& v) { return v.get_d(); }));
  estimate::SamplerConfig cfg;
  cfg.graph = true;
  cfg.particles = 4;
  cfg.threads = 2;
  cfg.params = {1, 5};
  const auto sampler = estimate::make_graph_cpu_sampler(g, cfg);
  const auto never = std::chrono::steady_clock::time_point::max();
  sampler->stop_at(std::chrono::steady_clock::now() - std::chrono::seconds(1));
  EXPECT_EQ(sampler->run_until(0, 16, never).count, 0u);
  sampler->stop_at(never);
  const estimate::SampleSums all = sampler->run_until(0, 16, never), plain = sampler->run(0, 16);
  EXPECT_EQ(all.count, 16u);
  EXPECT_EQ(all.sum_m, plain.sum_m);
  EXPECT_EQ(all.sum_e, plain.sum_e);
  // End to end: one population of 200 paths over 4096 vertices takes far longer than 20 ms, so
  // no sample finishes within the cap and the estimate is refused (it used to run on until its
  // first batch was done, however long past the cap that was).
  EstimateOptions o;
  o.max_seconds = 0.02;
  o.particles = 200;
  o.exact_up_to = 0;
  o.device = DevicePolicy::Cpu;
  try {
    estimate_hafnian(AnyMatrix(adjacency_matrix(triangular_graph(64, 64))), false, o);
    FAIL() << "estimated within 20 ms";
  } catch (const RefusedError& e) {
    EXPECT_NE(std::string(e.what()).find("vertices finished within the time cap of 0.02 s"),
              std::string::npos)
        << e.what();
  }
}

TEST(EstimateGraphSmc, PopulationsFitTheMemoryBudget) {
  // The 24 x 24 lattice takes populations of 50 paths by default, about 3 MB a thread; within
  // 1 MiB the automatic choice falls back to independent paths (with a note), and populations
  // asked for are refused as over the budget.
  const AnyMatrix lattice(adjacency_matrix(triangular_graph(24, 24)));
  EstimateOptions o;
  o.samples = 8;
  o.exact_up_to = 0;
  o.threads = 1;
  o.device = DevicePolicy::Cpu;
  o.max_memory = 1 << 20;
  const EstimateReport r = estimate_hafnian(lattice, false, o);
  EXPECT_EQ(r.samples, 8u);
  bool fell_back = false;
  for (const auto& n : r.notes) fell_back = fell_back || n.find("independent paths instead") != std::string::npos;
  EXPECT_TRUE(fell_back);
  o.particles = 50;
  try {
    estimate_hafnian(lattice, false, o);
    FAIL() << "populations within 1 MiB";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("sampling needs about"), std::string::npos) << e.what();
  }
  o.max_memory = 1e9;
  EXPECT_EQ(estimate_hafnian(lattice, false, o).samples, 8u);
}

TEST(EstimateGraphSmc, Refusals) {
  const SparseMatrix<Integer> tri = adjacency_matrix(triangular_graph(6, 6));
  EstimateOptions o;
  o.particles = -2;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(tri), false, o), UsageError);
  o.particles = 8;
  o.method = EstimateMethod::GodsilGutman;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(tri), false, o), UsageError);
  o.method = EstimateMethod::ScalingPlus;
  o.device = DevicePolicy::Gpu;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(tri), false, o), RefusedError);
  EstimateOptions p;
  p.particles = 8;
  EXPECT_THROW(estimate_permanent(AnyMatrix(complete_bipartite(4)), p), UsageError);
  const std::string file = test::temp_file("0 1\n1 2\n2 0\n0 3\n1 4\n2 5\n", ".edges");
  const auto r = test::run_matchcount("--estimate --particles -3 --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace matchcount
