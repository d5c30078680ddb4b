// Local rescaling of the graph scaling methods (graph_path.hpp, scale_radius) and the GPU
// sampler of general graphs (src/estimate/cuda/graph_launch.cu): every sample path stays
// unbiased, the automatic radius is local on lattices only, the intervals cover lattice
// counts, and the GPU draws the CPU's samples. The GPU tests skip where no GPU is visible.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "estimate/runner.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/pipeline.hpp"
#include "symmetric_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace test::symmetric_helpers;

estimate::SamplerConfig config(estimate::Method m, estimate::SampleParams p) {
  estimate::SamplerConfig cfg;
  cfg.graph = true;
  cfg.method = m;
  cfg.params = p;
  return cfg;
}

// Local sweeps change the probabilities, never the expectation: every path, weighted by its
// probability, still sums to the hafnian, with local sweeps alone and mixed with full ones.
TEST(EstimateGraphLocal, EverySamplePathStaysUnbiased) {
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 6 + 2 * (trial % 3);
    const SparseMatrix<double> a = random_weighted_graph(n, 0.3, 100 + trial, true, 7);
    const double exact = exact_hafnian(a);
    ASSERT_GT(exact, 0) << trial;
    const estimate::GraphData g = estimate::GraphData::from(a);
    for (auto m : {estimate::Method::Scaling, estimate::Method::ScalingPlus})
      for (estimate::SampleParams p : {estimate::SampleParams{n, 3, 1}, estimate::SampleParams{n, 2, 2},
                                       estimate::SampleParams{2, 3, 1}}) {
        const double e = estimate::graph_path_expectation(g, config(m, p));
        EXPECT_NEAR(e, exact, 1e-10 * exact) << "trial " << trial << " radius " << p.scale_radius;
      }
  }
}

EstimateReport estimate_with(const SparseMatrix<Integer>& a, int radius, int samples = 400) {
  EstimateOptions o;
  o.samples = static_cast<std::uint64_t>(samples);
  o.exact_up_to = 0;
  o.seed = 5;
  o.threads = 2;
  o.device = DevicePolicy::Cpu;
  o.scale_radius = radius;
  return estimate_hafnian(AnyMatrix(a), false, o);
}

// The automatic radius (-1) rescales locally (radius 2) on a lattice and globally (0) on an
// expander, and the two settings give different samples (so the comparison can fail).
TEST(EstimateGraphLocal, AutomaticRadiusIsLocalOnLatticesOnly) {
  const auto lattice = adjacency_matrix(triangular_graph(16, 16));
  const EstimateReport automatic = estimate_with(lattice, -1), local = estimate_with(lattice, 2),
                       global = estimate_with(lattice, 0);
  EXPECT_EQ(automatic.estimate.mant, local.estimate.mant);
  EXPECT_EQ(automatic.estimate.exp, local.estimate.exp);
  EXPECT_NE(automatic.estimate.mant, global.estimate.mant);
  const auto expander = adjacency_matrix(random_regular_graph(400, 3, 2));
  const EstimateReport automatic2 = estimate_with(expander, -1, 100), global2 = estimate_with(expander, 0, 100),
                       local2 = estimate_with(expander, 2, 100);
  EXPECT_EQ(automatic2.estimate.mant, global2.estimate.mant);
  EXPECT_EQ(automatic2.estimate.exp, global2.estimate.exp);
  EXPECT_NE(automatic2.estimate.mant, local2.estimate.mant);
  EstimateOptions bad;
  bad.scale_radius = -2;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(lattice), false, bad), UsageError);
}

// With local rescaling (the default on lattices) the 95% interval covers the exact count of
// a triangular and a king lattice at about its nominal rate over 40 seeds.
TEST(EstimateGraphLocal, IntervalCoversLatticeCounts) {
  constexpr int kRuns = test::kSanitized ? 12 : 40;
  // At a true rate of 95%, P(fewer than 34 of 40) = 0.3%.
  const int floor = test::kSanitized ? test::coverage_floor(kRuns, 0.95) : 34;
  for (const auto& [name, edges] : {std::pair{"triangular 12x12", triangular_graph(12, 12)},
                                    std::pair{"king 10x10", king_graph(10, 10)}}) {
    const SparseMatrix<Integer> a = adjacency_matrix(edges);
    const double exact = exact_hafnian(as<double>(a));
    int covered = 0;
    for (int seed = 1; seed <= kRuns; ++seed) {
      EstimateOptions o;
      o.samples = 250;
      o.exact_up_to = 0;
      o.seed = static_cast<std::uint64_t>(seed);
      o.threads = 2;
      o.device = DevicePolicy::Cpu;
      const EstimateReport r = estimate_hafnian(AnyMatrix(a), false, o);
      covered += r.ci_low.to_double() <= exact && exact <= r.ci_high.to_double();
    }
    EXPECT_GE(covered, floor) << name << ": " << covered << " of " << kRuns << " intervals cover " << exact;
  }
}

// The GPU draws the CPU's samples: the same count, zeros and (up to the rounding of
// contracted multiply-adds) the same sum and largest sample, for every sequential method, on
// a lattice (local rescaling), an expander and a dense weighted graph.
TEST(GpuGraphSampler, DrawsTheCpuSamples) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const std::vector<SparseMatrix<double>> graphs = {as<double>(adjacency_matrix(triangular_graph(12, 12))),
                                                    as<double>(adjacency_matrix(random_regular_graph(60, 3, 4))),
                                                    random_weighted_graph(40, 0.5, 9, true, 7)};
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const estimate::GraphData g = estimate::GraphData::from(graphs[gi]);
    for (auto m : {estimate::Method::Rasmussen, estimate::Method::RasmussenPlus, estimate::Method::Scaling,
                   estimate::Method::ScalingPlus}) {
      estimate::SamplerConfig cfg = config(m, {gi == 0 ? g.n : 1, 5, gi == 0 ? 2 : 0});
      cfg.seed = 3 + gi;
      cfg.threads = 2;
      const estimate::SampleSums cpu = estimate::make_graph_cpu_sampler(g, cfg)->run(1000, 3000);
      const estimate::SampleSums gpu = estimate::make_gpu_graph_sampler(g, cfg)->run(1000, 3000);
      const std::string what = "graph " + std::to_string(gi) + " method " + std::to_string(static_cast<int>(m));
      EXPECT_EQ(gpu.count, cpu.count) << what;
      EXPECT_EQ(gpu.zeros, cpu.zeros) << what;
      ASSERT_GT(cpu.count, cpu.zeros) << what;
      EXPECT_NEAR(std::ldexp(gpu.sum_m, static_cast<int>(gpu.sum_e - cpu.sum_e)), cpu.sum_m, 1e-9 * cpu.sum_m) << what;
      EXPECT_NEAR(std::ldexp(gpu.max_m, static_cast<int>(gpu.max_e - cpu.max_e)), cpu.max_m, 1e-9 * cpu.max_m) << what;
    }
  }
  estimate::SamplerConfig det = config(estimate::Method::GodsilGutman, {});
  EXPECT_THROW(estimate::make_gpu_graph_sampler(estimate::GraphData::from(graphs[2]), det), GpuError);
}

// `--device gpu --estimate` on a general graph samples on the GPU and covers the exact count;
// a determinant estimator there is refused (exit 3).
TEST(GpuGraphSampler, CommandLine) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::string edges;
  for (const auto& [u, v] : triangular_graph(16, 16).edges) edges += std::to_string(u) + " " + std::to_string(v) + "\n";
  const std::string file = test::temp_file(edges, ".edges");
  auto r = test::run_matchcount("--estimate --device gpu --exact-up-to 0 --samples 20000 --json --as graph '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("on cpu"), std::string::npos) << r.err;
  const double exact = exact_hafnian(as<double>(adjacency_matrix(triangular_graph(16, 16))));
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["value"].get<double>(), exact, exact * 5 * j["rel_std_error"].get<double>());
  r = test::run_matchcount("--estimate --device gpu --method barvinok --samples 100 --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace matchcount
