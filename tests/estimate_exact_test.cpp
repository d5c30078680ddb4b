// --estimate on blocks that are cheap to count exactly (the planner's prediction against the
// estimate's budget), and the whole-estimate progress reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount {
namespace {

// Blocks the planner counts well within the estimate's budget are counted, not sampled; 0
// still samples every block.
TEST(Estimate, CheapBlocksAreCountedExactly) {
  for (const auto& [k, exact] : {std::pair{8, 12988816.0}, std::pair{32, 0.0}}) {
    const AnyMatrix a = biadjacency(grid_graph(k, k));
    EstimateOptions o;
    o.samples = 500;
    const EstimateReport r = estimate_permanent(a, o);
    EXPECT_TRUE(r.exact) << k;
    EXPECT_EQ(r.samples, 0u) << k;
    EXPECT_EQ(r.rel_std_error, 0.0) << k;
    const double want = exact > 0 ? exact : std::get<Integer>(count_permanent(a).value.value).get_d();
    EXPECT_NEAR(r.estimate.to_double(), want, 1e-12 * want) << k;
    ASSERT_FALSE(r.notes.empty());
    EXPECT_NE(r.notes.back().find("counted exactly: predicted"), std::string::npos) << r.notes.back();
    o.exact_up_to = 0;
    const EstimateReport s = estimate_permanent(a, o);
    EXPECT_FALSE(s.exact) << k;
    EXPECT_EQ(s.samples, 500u) << k;
  }
  // A rel-error run with a cap plans within a tenth of it; an exact real block keeps its
  // rounding error.
  SparseMatrix<Integer> g6 = biadjacency(grid_graph(6, 6));
  SparseMatrix<double> w = convert<double>(g6, [](const Integer& v) { return v.get_d(); });
  std::mt19937_64 rng(5);
  for (auto& e : w.entries) e.value = std::uniform_real_distribution<double>(0.5, 1.5)(rng);
  EstimateOptions o;
  o.max_seconds = 30;
  const EstimateReport r = estimate_permanent(AnyMatrix(w), o);
  EXPECT_TRUE(r.exact);
  const CountReport c = count_permanent(AnyMatrix(w));
  const double v = std::get<double>(c.value.value);
  EXPECT_NEAR(r.estimate.to_double(), v, 1e-12 * v);
  EXPECT_LE(r.rel_std_error, 1e-10);
}

// Counted exactly after all, an estimate carries the exact count: an integer for integer
// entries (the 16 x 16 grid's count passes 2^53, where a double would round it).
TEST(Estimate, ExactBlocksGiveTheExactValue) {
  const AnyMatrix a = biadjacency(grid_graph(16, 16));
  EstimateOptions o;
  const EstimateReport r = estimate_permanent(a, o);
  ASSERT_TRUE(r.exact);
  ASSERT_TRUE(r.exact_value.has_value());
  EXPECT_EQ(r.exact_value->to_string(), count_permanent(a).value.to_string());
  EXPECT_GT(std::get<Integer>(r.exact_value->value), Integer(1) << 53);
  o.exact_up_to = 0;
  o.samples = 300;
  EXPECT_FALSE(estimate_permanent(a, o).exact_value.has_value());
}

// A rectangular matrix is estimated through rows of ones: the interval covers the exact sum
// over injective maps, and counted exactly it is that sum. Graphs with unequal sides give 0.
TEST(Estimate, RectangularMatricesAreEstimatedAsTheirPermanent) {
  std::mt19937_64 rng(11);
  SparseMatrix<double> a;
  a.rows = 9, a.cols = 14;
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j)
      if (rng() % 3 != 0) a.entries.push_back({i, j, std::uniform_real_distribution<double>(0.1, 1.0)(rng)});
  const double exact = std::get<double>(count_permanent(AnyMatrix(a)).value.value);
  EstimateOptions o;
  o.exact_up_to = 0;
  o.samples = 4000;
  o.seed = 3;
  for (const bool transposed : {false, true}) {
    const SparseMatrix<double> m = transposed ? transpose(a) : a;
    const EstimateReport r = estimate_permanent(AnyMatrix(m), o);
    EXPECT_FALSE(r.exact);
    EXPECT_NEAR(r.estimate.to_double(), exact, 4 * r.rel_std_error * exact) << transposed;
    EXPECT_LT(r.rel_std_error, 0.05);
    EXPECT_EQ(r.rows, m.rows);
  }
  EstimateOptions whole;  // cheap: counted exactly, padded and divided back
  const EstimateReport e = estimate_permanent(AnyMatrix(a), whole);
  ASSERT_TRUE(e.exact_value.has_value());
  EXPECT_NEAR(std::get<double>(e.exact_value->value), exact, 1e-12 * exact);
  whole.perfect_matchings = true;
  const EstimateReport z = estimate_permanent(AnyMatrix(a), whole);
  EXPECT_TRUE(z.exact);
  EXPECT_TRUE(z.estimate.zero());
  ASSERT_TRUE(z.exact_value.has_value());
  EXPECT_TRUE(z.exact_value->is_zero());
}

// Progress reports the whole estimate: samples over all blocks, their combined error.
TEST(Estimate, ProgressReportsTheWholeEstimate) {
  SparseMatrix<Integer> a;  // two 6 x 6 grid blocks
  const SparseMatrix<Integer> g = biadjacency(grid_graph(6, 6));
  a.rows = a.cols = 2 * g.rows;
  for (const auto& e : g.entries) a.entries.push_back(e), a.entries.push_back({g.rows + e.row, g.rows + e.col, e.value});
  a.normalize();
  for (const bool fixed : {true, false}) {
    EstimateOptions o;
    o.exact_up_to = 0;
    if (fixed) o.samples = 5000;
    else o.rel_error = 0.01, o.max_seconds = 0;
    std::vector<EstimateProgress> seen;
    o.progress = [&](const EstimateProgress& p) { seen.push_back(p); };
    const EstimateReport r = estimate_permanent(AnyMatrix(a), o);
    ASSERT_EQ(r.blocks.size(), 2u);
    ASSERT_GE(seen.size(), 4u);
    for (std::size_t i = 1; i < seen.size(); ++i) {
      EXPECT_GT(seen[i].samples, seen[i - 1].samples) << i;
      EXPECT_GE(seen[i].seconds, seen[i - 1].seconds) << i;
    }
    EXPECT_EQ(seen.back().samples, r.samples);
    EXPECT_EQ(seen.back().rel_error, r.rel_std_error);
    EXPECT_EQ(seen.back().sample_target, fixed ? 10000u : 0u);
    EXPECT_EQ(seen.back().rel_error_target, fixed ? 0.0 : 0.01);
    EXPECT_EQ(seen.back().max_seconds, 0.0);
    // The second block's reports include the first block's samples and error.
    const auto second = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.samples > r.blocks[0].samples; });
    ASSERT_NE(second, seen.end());
    EXPECT_GE(second->rel_error, r.blocks[0].rel_std_error * 0.999);
  }
}

}  // namespace
}  // namespace matchcount
