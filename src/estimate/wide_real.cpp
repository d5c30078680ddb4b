// WideReal arithmetic and printing; estimator names.
#include <cmath>
#include <cstdio>
#include <limits>

#include "matchcount/estimate.hpp"

namespace matchcount {
namespace {

WideReal normalised(double m, std::int64_t e) {
  if (m == 0.0 || !std::isfinite(m)) return {m == 0.0 ? 0.0 : m, m == 0.0 ? 0 : e};
  int k;
  const double f = std::frexp(m, &k);
  return {f, e + k};
}

}  // namespace

WideReal WideReal::from(double x) { return normalised(x, 0); }

double WideReal::log10() const {
  if (mant == 0.0) return -std::numeric_limits<double>::infinity();
  return std::log10(mant) + static_cast<double>(exp) * 0.30102999566398119521;
}

double WideReal::to_double() const {
  if (exp > 2000) return std::numeric_limits<double>::infinity();
  if (exp < -2000) return 0.0;
  return std::ldexp(mant, static_cast<int>(exp));
}

std::string WideReal::to_string(int digits) const {
  if (mant == 0.0) return "0";
  digits = std::max(1, std::min(digits, 17));
  // Split log10 into a decimal exponent and a mantissa in [1, 10); the exponent part of
  // log10 is exact enough: |exp| < 2^40 keeps the fractional part good to ~1e-4 relative
  // at worst, and to ~1e-13 for values below 10^100000.
  const double l = log10();
  double e10 = std::floor(l);
  double m10 = std::pow(10.0, l - e10);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits - 1, m10);
  if (std::atof(buf) >= 10.0) {  // rounding carried into a new digit
    e10 += 1.0;
    m10 /= 10.0;
    std::snprintf(buf, sizeof buf, "%.*f", digits - 1, m10);
  }
  char out[96];
  std::snprintf(out, sizeof out, "%se%+.0f", buf, e10);
  return out;
}

WideReal WideReal::operator*(const WideReal& o) const { return normalised(mant * o.mant, exp + o.exp); }
WideReal WideReal::operator*(double x) const { return normalised(mant * x, exp); }

std::string to_string(EstimateMethod m) {
  switch (m) {
    case EstimateMethod::Rasmussen: return "rasmussen";
    case EstimateMethod::RasmussenPlus: return "rasmussen+";
    case EstimateMethod::Scaling: return "scaling";
    case EstimateMethod::ScalingPlus: return "scaling+";
    case EstimateMethod::GodsilGutman: return "godsil-gutman";
    case EstimateMethod::GodsilGutmanComplex: return "godsil-gutman-complex";
    case EstimateMethod::Barvinok: return "barvinok";
  }
  return "?";
}

std::vector<std::string> estimate_method_names() {
  return {"rasmussen", "rasmussen+", "scaling", "scaling+", "godsil-gutman", "godsil-gutman-complex", "barvinok"};
}

bool parse_estimate_method(const std::string& text, EstimateMethod& out) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t.size() > 5 && t.compare(t.size() - 5, 5, "-plus") == 0) t = t.substr(0, t.size() - 5) + "+";
  for (EstimateMethod m : {EstimateMethod::Rasmussen, EstimateMethod::RasmussenPlus, EstimateMethod::Scaling,
                           EstimateMethod::ScalingPlus, EstimateMethod::GodsilGutman,
                           EstimateMethod::GodsilGutmanComplex, EstimateMethod::Barvinok})
    if (to_string(m) == t) {
      out = m;
      return true;
    }
  return false;
}

int EstimateReport::significant_digits() const {
  if (exact) return 15;
  if (!(rel_std_error > 0.0) || !std::isfinite(rel_std_error)) return 2;
  // Digits up to the one the 2-sigma half-width touches.
  const int d = 1 + static_cast<int>(std::floor(-std::log10(2.0 * rel_std_error)));
  return std::max(1, std::min(d, 15));
}

}  // namespace matchcount
