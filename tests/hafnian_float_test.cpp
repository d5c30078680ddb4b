// The float hafnian's error estimate (the spread of three walks in different vertex orders)
// against exact values: it covers the actual error at about its nominal rate (0.999 for
// normal, independent rounding errors) and is not vacuous. Inputs are integers times 2^-k
// (edges) and 2^-(k/2) (loops), so the exact value is the integer hafnian times 2^-(k n/2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "catalog/catalog.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "symmetric_helpers.hpp"

using namespace matchcount;
using namespace matchcount::test::symmetric_helpers;


TEST(HafnianFloat, EstimateCoversTheActualErrorAndIsTight) {
  const auto fast = make_graph_engine("hafnian");
  std::mt19937_64 rng(2026);
  int trials = 0, missed = 0, erred = 0;
  std::vector<double> ratios;  // estimate / actual error, where the error is not 0
  for (int t = 0; t < 400; ++t) {
    const int n = 8 + t % 17;
    const bool loops = t % 4 == 3;
    const bool complex_input = t % 3 == 0;
    // Odd blocks need loops; complex input has none (a complex unit on loops does not factor
    // out of the loop hafnian).
    if ((n % 2 && !loops) || (complex_input && loops)) continue;
    // Wide integers, so that the float walks round (entries to 2^40, products far beyond 2^53).
    const auto b = random_int(n, -(1 << 30), 1 << 30, rng, 0.9);
    const double want = exact_scaled(fast->hafnian(b, loops, {}), n, 30);
    double err = 0, est = 0;
    if (complex_input) {
      const auto r = fast->hafnian(scaled<Complex>(b, 30, Complex(0.6, 0.8)), loops, {});
      // (0.6 + 0.8i) on every edge: haf scales by (0.6 + 0.8i)^(n/2).
      err = std::abs(r.value - std::pow(Complex(0.6, 0.8), n / 2) * want), est = r.abs_error;
    } else {
      const auto r = fast->hafnian(scaled<double>(b, 30, 1.0), loops, {});
      err = std::fabs(r.value - want), est = r.abs_error;
    }
    ++trials;
    missed += err > est;
    if (err > 0) ratios.push_back(est / err), ++erred;
  }
  ASSERT_GT(trials, 200);
  ASSERT_GT(erred, trials / 2) << "the inputs should round";
  // Nominal 0.999: allow 1% (more would be about 10 sigma over the nominal).
  EXPECT_LE(missed, trials / 100) << missed << " of " << trials;
  std::sort(ratios.begin(), ratios.end());
  // Not vacuous: the typical estimate is within 1000 of the actual error.
  EXPECT_LT(ratios[ratios.size() / 2], 1e3);
  std::printf("float hafnian estimate: %d of %d missed; estimate/error median %.3g, 1%% %.3g, 99%% %.3g\n", missed,
              trials, ratios[ratios.size() / 2], ratios[ratios.size() / 100], ratios[ratios.size() * 99 / 100]);
}

// Three walks that agree to the bit say nothing of an error common to them. The values are
// those of three GPU walks of a 12-vertex matrix (random 21-bit integers times 2^-20) and its
// exact hafnian (docs/engines.md, "Dense hafnian"); the spread counts at least the noise of
// the values' spacing.
TEST(HafnianFloat, WalksThatAgreeToTheBitStillLeaveTheirSpacing) {
  const double v = -1.4377809310593921, exact = -1.4377809310593914, ulp = std::nextafter(1.5, 2.0) - 1.5;
  const auto r = engines::haf::float_estimate<double>({v, v, v, 2.0}, 0.0);
  EXPECT_EQ(r.value, v);
  EXPECT_GE(r.abs_error, std::abs(v - exact));
  EXPECT_GE(r.abs_error, 18.3 * ulp / std::sqrt(12.0));
  EXPECT_LT(r.abs_error, 12 * ulp);  // and no more than that
  // Complex walks: the spacing of the largest modulus.
  const Complex z(v, 0.5);
  const auto c = engines::haf::float_estimate<Complex>({z, z, z, Complex(2.0, 0)}, 0.0);
  EXPECT_GE(c.abs_error, 18.3 * ulp / std::sqrt(12.0));
}
