#include "matchcount/value.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace matchcount {

std::string to_string(NumberKind kind) {
  switch (kind) {
    case NumberKind::Integer: return "integer";
    case NumberKind::Rational: return "rational";
    case NumberKind::Real: return "real";
    case NumberKind::Complex: return "complex";
  }
  return "unknown";
}

namespace {
// 17 significant digits round-trip every double.
std::string format_double(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
}  // namespace

double LogValue::log10_abs() const { return log_abs / std::log(10.0); }

int LogValue::digits() const {
  if (!(error < 1)) return 1;
  const double rel = std::max(std::expm1(error), std::numeric_limits<double>::epsilon());
  return std::clamp(int(std::floor(-std::log10(rel))), 1, 17);
}

std::string LogValue::scientific(int digits) const {
  if (sign == 0) return "0";
  // log10 |count| = e + f, f in [0, 1): the mantissa is 10^f. The exponent is exact; f keeps
  // the digits that the double log10 holds (about 16 - log10(e) of them).
  const double l10 = log10_abs();
  double e = std::floor(l10);
  double mant = std::pow(10.0, l10 - e);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", std::clamp(digits, 1, 17) - 1, mant);
  std::string m = buf;  // "d.ddde+00", or "1.000e+01" when rounding reached 10
  if (m.find("e+01") != std::string::npos) {
    e += 1;
    std::snprintf(buf, sizeof buf, "%.*e", std::clamp(digits, 1, 17) - 1, mant / 10);
    m = buf;
  }
  m = m.substr(0, m.find('e'));
  std::snprintf(buf, sizeof buf, "e%+.0f", e);
  return (sign < 0 ? "-" : "") + m + buf;
}

std::string PermanentValue::to_string() const {
  if (log) return log->sign == 0 ? "-inf" : format_double(log->log_abs);
  switch (value.index()) {
    case 0: return std::get<Integer>(value).get_str();
    case 1: {
      Rational q = std::get<Rational>(value);
      q.canonicalize();
      return q.get_den() == 1 ? q.get_num().get_str() : q.get_str();
    }
    case 2: return format_double(std::get<double>(value));
    default: {
      const Complex z = std::get<Complex>(value);
      std::string im = format_double(std::abs(z.imag()));
      return format_double(z.real()) + (std::signbit(z.imag()) ? "-" : "+") + im + "i";
    }
  }
}

double PermanentValue::rel_error() const {
  if (log) return log->sign == 0 ? (log->error > 0 ? std::numeric_limits<double>::infinity() : 0.0) : std::expm1(log->error);
  if (exact()) return 0.0;
  double magnitude = value.index() == 2 ? std::abs(std::get<double>(value))
                                        : std::abs(std::get<Complex>(value));
  if (magnitude == 0.0) return abs_error == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return abs_error / magnitude;
}

bool PermanentValue::is_zero() const {
  if (log) return log->sign == 0;
  return std::visit([](const auto& v) { return v == std::decay_t<decltype(v)>(0); }, value);
}

}  // namespace matchcount
