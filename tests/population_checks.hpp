// Checks shared by the population tests (estimate_graph_smc_test.cpp with the Sinkhorn twist,
// estimate_graph_bethe_test.cpp with the Bethe one).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "estimate/graph_smc.hpp"
#include "estimate/runner.hpp"

namespace matchcount::test {

inline double wide_to_double(const estimate::WideValue& x) { return std::ldexp(x.m, static_cast<int>(x.e)); }

/// With one particle a population never resamples and its twist telescopes back to the path's
/// own weights: `samples` population estimates equal the independent path's samples drawn with
/// the same random streams.
inline void expect_population_of_one_is_the_path(const estimate::GraphData& g, const estimate::SampleParams& p,
                                                 std::uint64_t samples) {
  using estimate::Method;
  estimate::GraphHolder<Method::ScalingPlus> path(g.view(), p);
  estimate::GraphSmc<Method::ScalingPlus> population(g.view(), p, 1);
  for (std::uint64_t k = 0; k < samples; ++k) {
    estimate::SampleRng r1(7, 0, k), r2(7, 0, k);
    const double alone = wide_to_double(path.sample(r1)), smc = wide_to_double(population.sample(r2));
    ASSERT_GT(alone, 0);
    EXPECT_NEAR(smc, alone, 1e-9 * alone) << k;
  }
}

/// 3000 samples of `cfg` (populations or paths) average to `exact` within 4.5 standard errors,
/// and that standard error is under 5% of it (so the first check has teeth).
inline void expect_samples_average_to(const estimate::GraphData& g, const estimate::SamplerConfig& cfg, double exact,
                                      const std::string& what) {
  const estimate::SampleSums s = estimate::make_graph_cpu_sampler(g, cfg)->run(0, 3000);
  const double n = static_cast<double>(s.count);
  const double mean = std::ldexp(s.sum_m, static_cast<int>(s.sum_e)) / n;
  const double var = std::ldexp(s.sq_m, static_cast<int>(s.sq_e)) / n - mean * mean;
  EXPECT_NEAR(mean, exact, 4.5 * std::sqrt(var / n)) << what;
  EXPECT_LT(std::sqrt(var / n), 0.05 * exact) << what;
}

}  // namespace matchcount::test
