// A sample's value and the sums over samples, kept apart from the path that draws a sample:
// the GPU kernels, the CPU sampler and the cluster's sample sharing all accumulate and merge
// these, written once for the host and the device.
#pragma once

#include <cmath>
#include <cstdint>

#include "estimate/philox.hpp"

namespace matchcount::estimate {

/// A nonnegative sample value m * 2^e (m in (2^-500, 1] while nonzero): products of n row
/// masses overflow a double long before n = 5000.
struct WideValue {
  double m = 1.0;
  long long e = 0;
  MC_HD void mul(double f) {
    int k;
    m *= ::frexp(f, &k);
    e += k;
    if (m < 0x1p-500) {
      m = ::frexp(m, &k);
      e += k;
    }
  }
};

/// A sample abandoned at its stop time (the CPU's samples under a time cap): a negative
/// mantissa, which no value has.
MC_HD WideValue abandoned_sample() { return {-1.0, 0}; }
MC_HD bool is_abandoned(const WideValue& x) { return x.m < 0.0; }
/// The stop test of samples that always run to the end (the GPU's, and the enumerations).
struct NoStop {
  MC_HD bool operator()() const { return false; }
};

/// Sums over samples: the mean and its standard error, and heavy-tail diagnostics. Merging
/// in a fixed order makes results independent of how samples were spread over threads.
struct SampleSums {
  std::uint64_t count = 0, zeros = 0;
  double sum_m = 0.0, sq_m = 0.0, max_m = 0.0;  // sum, sum of squares, largest: m * 2^e
  long long sum_e = 0, sq_e = 0, max_e = 0;
  std::uint64_t log_n = 0;  // Welford over ln(sample), nonzero samples
  double log_mean = 0.0, log_m2 = 0.0;

  MC_HD static void add_to(double& sm, long long& se, double m, long long e) {
    if (m == 0.0) return;
    if (sm == 0.0) {
      sm = m, se = e;
      return;
    }
    if (e > se) {
      sm = ::ldexp(sm, static_cast<int>(se - e < -4000 ? -4000 : se - e)) + m;
      se = e;
    } else {
      sm += ::ldexp(m, static_cast<int>(e - se < -4000 ? -4000 : e - se));
    }
    if (sm >= 0x1p64) {
      int k;
      sm = ::frexp(sm, &k);
      se += k;
    }
  }
  MC_HD static bool greater(double am, long long ae, double bm, long long be) {
    if (bm == 0.0) return am > 0.0;
    if (am == 0.0) return false;
    int ka, kb;
    const double fa = ::frexp(am, &ka), fb = ::frexp(bm, &kb);
    return ae + ka != be + kb ? ae + ka > be + kb : fa > fb;
  }
  MC_HD void add_log(std::uint64_t n, double mean, double m2) {
    if (n == 0) return;
    const std::uint64_t t = log_n + n;
    const double d = mean - log_mean;
    log_mean += d * static_cast<double>(n) / static_cast<double>(t);
    log_m2 += m2 + d * d * static_cast<double>(log_n) * static_cast<double>(n) / static_cast<double>(t);
    log_n = t;
  }

  MC_HD void add(const WideValue& x) {
    ++count;
    if (x.m == 0.0) {
      ++zeros;
      return;
    }
    add_to(sum_m, sum_e, x.m, x.e);
    add_to(sq_m, sq_e, x.m * x.m, 2 * x.e);
    if (greater(x.m, x.e, max_m, max_e)) max_m = x.m, max_e = x.e;
    add_log(1, ::log(x.m) + static_cast<double>(x.e) * 0.69314718055994530942, 0.0);
  }
  MC_HD void merge(const SampleSums& o) {
    count += o.count, zeros += o.zeros;
    add_to(sum_m, sum_e, o.sum_m, o.sum_e);
    add_to(sq_m, sq_e, o.sq_m, o.sq_e);
    if (greater(o.max_m, o.max_e, max_m, max_e)) max_m = o.max_m, max_e = o.max_e;
    add_log(o.log_n, o.log_mean, o.log_m2);
  }
};

}  // namespace matchcount::estimate
