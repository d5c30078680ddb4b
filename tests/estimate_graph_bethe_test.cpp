// The Bethe scaling of the graph scaling methods (SampleParams::bethe, --bethe; graph_path.hpp):
// belief-propagation messages weight the draws and, in populations, the Bethe free energy
// twists the resampling. Every sample path stays unbiased, the messages and the free energy
// of a regular graph are the known fixed point, a population of one is the independent path's
// sample, populations average to the hafnian, intervals cover a known count, the automatic
// choice, and the refusals.
#include <gtest/gtest.h>

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


estimate::SampleParams bethe_params(int interval, int radius, bool track = false) {
  estimate::SampleParams p{interval, 1, radius};
  p.track_scales = track;
  p.bethe = true;
  return p;
}

// Any positive probabilities keep a path unbiased: every path, weighted by its probability,
// sums to the hafnian with full sweeps after every step, every second step and local ones,
// and no "+" path dies.
TEST(EstimateGraphBethe, EverySamplePathIsUnbiased) {
  for (int trial = 0; trial < 16; ++trial) {
    const int n = 6 + 2 * (trial % 4);
    const SparseMatrix<double> a = random_weighted_graph(n, 0.3 + 0.1 * (trial % 3), 300 + trial, trial % 2 == 0, 5);
    const double exact = exact_hafnian(a);
    if (exact == 0) continue;
    const estimate::GraphData g = estimate::GraphData::from(a, true);
    ASSERT_EQ(g.msg0.size(), g.adj.size());
    for (Method m : {Method::Scaling, Method::ScalingPlus})
      for (const estimate::SampleParams& p : {bethe_params(1, 0), bethe_params(2, 0), bethe_params(n, 1),
                                              bethe_params(n, 2, true)}) {
        estimate::SamplerConfig cfg;
        cfg.graph = true, cfg.method = m, cfg.params = p;
        std::uint64_t dead = 0;
        const double e = estimate::graph_path_expectation(g, cfg, &dead);
        EXPECT_NEAR(e, exact, 1e-10 * exact) << "trial " << trial << " interval " << p.scale_interval << " radius "
                                             << p.scale_radius;
        if (m == Method::ScalingPlus) {
          EXPECT_EQ(dead, 0u) << "trial " << trial;
        }
      }
  }
}

// On a d-regular graph every message is 1 / sqrt(d - 1) and the Bethe estimate of haf is
// ((d - 1)^(d - 1) / d^(d - 2))^(n / 2): a path's log_rest() at its start.
TEST(EstimateGraphBethe, RegularGraphGivesTheKnownFixedPoint) {
  for (int d : {3, 4}) {
    const int n = 60;
    const estimate::GraphData g = estimate::GraphData::from(as<double>(adjacency_matrix(random_regular_graph(n, d, 9))), true);
    for (double r : g.msg0) EXPECT_NEAR(r, 1 / std::sqrt(d - 1.0), 1e-5);
    estimate::GraphHolder<Method::ScalingPlus> h(g.view(), bethe_params(1, 0, true));
    h.path.start();
    const double bethe = 0.5 * n * ((d - 1) * std::log(d - 1.0) - (d - 2) * std::log(static_cast<double>(d)));
    EXPECT_NEAR(h.path.log_rest(), bethe, 1e-4) << "d = " << d;
  }
}

// A population of one never resamples and the Bethe twist telescopes: the estimate is the
// independent path's sample with the same random stream, with local and full sweeps.
TEST(EstimateGraphBethe, OneParticleIsTheIndependentSample) {
  const estimate::GraphData lattice = estimate::GraphData::from(as<double>(adjacency_matrix(triangular_graph(10, 10))), true);
  const estimate::GraphData expander =
      estimate::GraphData::from(as<double>(adjacency_matrix(random_regular_graph(80, 3, 4))), true);
  test::expect_population_of_one_is_the_path(lattice, bethe_params(100, 2), 30);
  test::expect_population_of_one_is_the_path(expander, bethe_params(1, 0), 30);
}

// Populations of 4 average to the hafnian (within 4.5 standard errors of 3000 estimates) on
// random weighted graphs and a lattice, twisted by the Bethe free energy kept up to date
// over full and local sweeps, with the plain scaling method's dead paths.
TEST(EstimateGraphBethe, PopulationsAverageToTheHafnian) {
  std::vector<SparseMatrix<double>> graphs;
  for (int t = 0; t < 3; ++t) graphs.push_back(random_weighted_graph(14 + 4 * t, 0.15, 60 + t, true, 3));
  graphs.push_back(as<double>(adjacency_matrix(triangular_graph(6, 8))));
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const double exact = exact_hafnian(graphs[gi]);
    ASSERT_GT(exact, 0);
    const estimate::GraphData g = estimate::GraphData::from(graphs[gi], true);
    for (Method m : {Method::ScalingPlus, Method::Scaling}) {
      estimate::SamplerConfig cfg;
      cfg.graph = true, cfg.method = m, cfg.threads = 2;
      cfg.params = gi == 3 ? bethe_params(g.n, 2) : bethe_params(1, 0);
      cfg.particles = 4, cfg.seed = 21 + gi;
      test::expect_samples_average_to(g, cfg, exact,
                                      "graph " + std::to_string(gi) + " method " + std::to_string(static_cast<int>(m)));
    }
  }
}

bool bethe_note(const EstimateReport& r) {
  for (const auto& n : r.notes)
    if (n.find("belief propagation") != std::string::npos) return true;
  return false;
}

// Over 40 seeds the 95% interval of 200 independent Bethe paths holds the count of a random
// 3-regular graph on 100 vertices at least 34 times (fewer has probability 0.3% at 95%).
TEST(EstimateGraphBethe, IntervalCoversAnExpanderCount) {
  const SparseMatrix<Integer> a = adjacency_matrix(random_regular_graph(100, 3, 1));
  const double exact = exact_hafnian(as<double>(a));
  int covered = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    EstimateOptions o;
    o.samples = 200, o.exact_up_to = 0, o.seed = seed, o.threads = 2, o.device = DevicePolicy::Cpu, o.bethe = 1;
    const EstimateReport r = estimate_hafnian(AnyMatrix(a), false, o);
    ASSERT_TRUE(bethe_note(r));
    covered += r.ci_low.to_double() <= exact && exact <= r.ci_high.to_double();
  }
  EXPECT_GE(covered, 34) << covered << " of 40";
}

// Automatic: Bethe on sparse blocks of 512 vertices or more (an expander with independent
// paths, a lattice with populations), Sinkhorn on smaller and denser ones, and as asked.
TEST(EstimateGraphBethe, AutomaticChoiceAndRefusals) {
  EstimateOptions o;
  o.samples = 2;
  o.exact_up_to = 0;
  o.device = DevicePolicy::Cpu;
  const AnyMatrix expander(adjacency_matrix(random_regular_graph(600, 3, 1)));
  const AnyMatrix lattice(adjacency_matrix(triangular_graph(24, 24)));
  const AnyMatrix small(adjacency_matrix(random_regular_graph(200, 3, 1)));
  std::mt19937_64 rng(3);
  const AnyMatrix dense(random_01(520, 0.05, false, rng));
  EXPECT_TRUE(bethe_note(estimate_hafnian(expander, false, o)));
  EXPECT_TRUE(bethe_note(estimate_hafnian(lattice, false, o)));
  EXPECT_FALSE(bethe_note(estimate_hafnian(small, false, o)));
  EXPECT_FALSE(bethe_note(estimate_hafnian(dense, false, o)));
  o.bethe = 0;
  EXPECT_FALSE(bethe_note(estimate_hafnian(expander, false, o)));
  o.bethe = 1;
  EXPECT_TRUE(bethe_note(estimate_hafnian(small, false, o)));
  o.method = EstimateMethod::RasmussenPlus;
  EXPECT_THROW(estimate_hafnian(small, false, o), UsageError);
  o.method = EstimateMethod::ScalingPlus;
  o.device = DevicePolicy::Gpu;
  EXPECT_THROW(estimate_hafnian(small, false, o), RefusedError);
  o.device = DevicePolicy::Cpu;
  o.bethe = 2;
  EXPECT_THROW(estimate_hafnian(small, false, o), UsageError);
  EstimateOptions p;
  p.bethe = 1;
  EXPECT_THROW(estimate_permanent(AnyMatrix(complete_bipartite(4)), p), UsageError);
  const std::string file = test::temp_file("0 1\n1 2\n2 0\n0 3\n1 4\n2 5\n", ".edges");
  const auto r = test::run_matchcount("--estimate --bethe -3 --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace matchcount
