// The estimators' 95% intervals keep their promise: over fixed seeds, an interval misses the
// exact count without a heavy_tail flag in at most 10% of runs (the full table, with 100 seeds
// a case, is matchcount-coverage's: docs/estimation.md, "Coverage").
#include <gtest/gtest.h>

#include "coverage.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/report.hpp"

using namespace matchcount;

namespace {

cli::Coverage run(const cli::CoverageCase& c, EstimateMethod method, std::uint64_t samples) {
  cli::CoverageRun r;
  r.method = method;
  r.samples = samples;
  r.seeds = 40;
  return cli::measure_coverage(c, r);
}

}  // namespace

// Rasmussen+'s weights on this matrix are so skewed that the sample variance runs low exactly
// when the mean does (docs/estimation.md): such runs must carry the heavy-tail flag.
TEST(Coverage, SkewedEstimatesSaySo) {
  const auto c = cli::coverage_case("er 30 p=0.15", AnyMatrix(erdos_renyi_bipartite(30, 0.15, 4)));
  const cli::Coverage r = run(c, EstimateMethod::RasmussenPlus, 3000);
  EXPECT_EQ(r.runs, 40);
  EXPECT_LE(r.unflagged_misses, 4) << "covered " << r.covered << ", flagged " << r.flagged;
  EXPECT_GE(r.flagged, 30) << "the mean of 3000 such samples is skewed in every run";
}

// The default estimator covers at its nominal rate without flags on typical inputs.
TEST(Coverage, ScalingPlusCoversWithoutFlags) {
  for (const auto& c : {cli::coverage_case("grid 10x10", AnyMatrix(biadjacency(grid_graph(10, 10)))),
                        cli::coverage_case("er 30 p=0.15", AnyMatrix(erdos_renyi_bipartite(30, 0.15, 4)))}) {
    const cli::Coverage r = run(c, EstimateMethod::ScalingPlus, 1000);
    EXPECT_GE(r.covered, 36) << c.label;
    EXPECT_LE(r.unflagged_misses, 4) << c.label;
    EXPECT_LE(r.flagged, 4) << c.label;
    EXPECT_NEAR(r.median_ratio, 1.0, 0.02) << c.label;
  }
}

// The flag names the skew and the samples that would take it away; a run of that many is
// not flagged for it.
TEST(Coverage, SkewFlagSaysHowManySamplesWouldDo) {
  EstimateOptions o;
  o.method = EstimateMethod::RasmussenPlus;
  o.exact_up_to = 0;
  o.samples = 2000;
  const AnyMatrix a(erdos_renyi_bipartite(30, 0.15, 4));
  const EstimateReport r = estimate_permanent(a, o);
  ASSERT_TRUE(r.heavy_tail);
  const BlockEstimate* big = &r.blocks.front();
  for (const auto& b : r.blocks) big = b.n > big->n ? &b : big;
  EXPECT_GT(big->mean_skewness, kMaxMeanSkewness);
  const std::string text = estimate_text(r, ReadResult{}, RunInfo{}, false);
  EXPECT_NE(text.find("the 95% interval covers less often than it says"), std::string::npos) << text;
  // Skewness falls as 1/sqrt(samples): (skew / 0.5)^2 times as many samples, and a margin, clear it.
  o.samples = static_cast<std::uint64_t>(2000 * 1.3 * std::pow(big->mean_skewness / kMaxMeanSkewness, 2));
  const EstimateReport more = estimate_permanent(a, o);
  for (const auto& b : more.blocks) EXPECT_LE(b.mean_skewness, kMaxMeanSkewness) << b.n;
}
