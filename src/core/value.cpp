#include "matchcount/value.hpp"

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

std::string PermanentValue::to_string() const {
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
  if (exact()) return 0.0;
  double magnitude = value.index() == 2 ? std::abs(std::get<double>(value))
                                        : std::abs(std::get<Complex>(value));
  if (magnitude == 0.0) return abs_error == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return abs_error / magnitude;
}

bool PermanentValue::is_zero() const {
  return std::visit([](const auto& v) { return v == std::decay_t<decltype(v)>(0); }, value);
}

}  // namespace matchcount
