// The result type: a permanent that is either exact (integer or fraction) or a float with
// an error estimate.
#pragma once

#include <string>
#include <variant>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// A floating result with an estimate of its absolute rounding error.
template <class T>
struct Approx {
  T value{};
  double abs_error = 0.0;
};

/// A permanent as reported to the user.
struct PermanentValue {
  /// Integer and Rational are exact; double and Complex are approximations.
  std::variant<Integer, Rational, double, Complex> value = Integer(0);
  /// Estimated absolute error of a float value (0 for exact values).
  double abs_error = 0.0;

  bool exact() const { return value.index() <= 1; }
  /// Decimal integer, reduced fraction "p/q", or a float printed with 17 significant
  /// digits ("re+imi" style "(re,im)" for complex).
  std::string to_string() const;
  /// True when the value is exactly 0 (an exact zero, or a float 0 such as the count of a
  /// matrix without a perfect matching).
  bool is_zero() const;
  /// Relative error estimate (0 for exact values; inf when the value is 0 but uncertain).
  double rel_error() const;
};

}  // namespace matchcount
