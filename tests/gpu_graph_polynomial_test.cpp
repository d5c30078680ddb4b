// The matching polynomial's frontier DP on the GPU (gpu_graph_frontier_matching_polynomial)
// against the CPU run bit for bit: random graphs with unit and signed integer weights, grids up
// to 16 x 16 (129 coefficients, the J = 8 kernel), and the pipeline's --device gpu note.
// Skipped where no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "engines/graph_frontier/graph_frontier.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matchings.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {


TEST(GpuGraphPolynomial, AgreesWithTheCpuRun) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 40);
    std::vector<std::pair<int, int>> e;
    std::vector<long> w;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (j == i + 1 || rng() % 6 == 0) e.emplace_back(i, j), w.push_back(trial % 2 ? static_cast<long>(rng() % 11) - 5 : 1);
    for (std::size_t k = 0; k < e.size(); ++k)
      if (w[k] == 0) w[k] = 3;
    const auto a = test::weighted_adjacency(n, e, w);
    EngineStats stats;
    EngineOptions o;
    o.stats = &stats;
    EXPECT_EQ(engines::gpu_graph_frontier_matching_polynomial(a, o), engines::graph_frontier_matching_polynomial(a, {}))
        << "trial " << trial << " n " << n;
    EXPECT_EQ(stats.device, "gpu");
  }
  for (auto [rows, cols] : {std::pair{6, 6}, {11, 11}, {16, 16}, {2, 300}}) {
    const EdgeList g = grid_graph(rows, cols);
    const auto a = test::weighted_adjacency(g.vertices, g.edges);
    EXPECT_EQ(engines::gpu_graph_frontier_matching_polynomial(a, {}), engines::graph_frontier_matching_polynomial(a, {}))
        << rows << " x " << cols;
  }
}

TEST(GpuGraphPolynomial, ThePipelineSaysWhereItRan) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const EdgeList g = grid_graph(10, 10);
  CountOptions o;
  o.device = DevicePolicy::Gpu;
  PermanentValue one;
  one.value = Integer(1);
  const CountReport r = count_matchings_report(AnyMatrix(test::weighted_adjacency(g.vertices, g.edges)), one, true, o);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("frontier DP of polynomials (width 10) on the GPU") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(std::get<Integer>(r.polynomial[50].value), Integer("258584046368"));  // 10 x 10 domino tilings
}

}  // namespace
}  // namespace matchcount
