// The result type: a permanent that is either exact (integer or fraction) or a float with
// an error estimate.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// A floating result with its absolute rounding error: a proven bound, or (`estimated`) an
/// estimate that may undershoot (the dense hafnian's spread of vertex orders, the GPU walks'
/// entry rounding, the condition estimates of the Kasteleyn and Pfaffian factorisations).
template <class T>
struct Approx {
  T value{};
  double abs_error = 0.0;
  bool estimated = false;
};

/// A count known by its natural logarithm (CountOptions::log): sign * e^log_abs, for counts far
/// beyond double range (a 1000 x 1000 grid has about 10^126494 dimer coverings).
struct LogValue {
  int sign = 1;  ///< +1 or -1; 0 for a count of 0 (log_abs is then -inf)
  double log_abs = 0;  ///< ln |count|
  /// Bound on the error of log_abs; the count's relative error is expm1(error). Infinite when
  /// nothing is known (a floating-point 0 that may not be one, a bound too large to trust).
  double error = 0;
  /// True when `error` is an estimate rather than a proven bound (as Approx::estimated).
  bool estimated = false;
  /// log10 |count|.
  double log10_abs() const;
  /// The count in scientific notation with `digits` significant digits, "1.2345e+126494"
  /// ("-1.2e+300" for a negative count, "0" for 0).
  std::string scientific(int digits) const;
  /// The significant digits the error leaves, 1 to 17.
  int digits() const;
};

/// A permanent as reported to the user.
struct PermanentValue {
  /// Integer and Rational are exact; double and Complex are approximations.
  std::variant<Integer, Rational, double, Complex> value = Integer(0);
  /// Absolute error of a float value (0 for exact values): a proven bound unless
  /// `error_estimated`.
  double abs_error = 0.0;
  /// True when `abs_error` is an estimate that may undershoot, not a bound (Approx::estimated).
  bool error_estimated = false;
  /// Counts with CountOptions::log: the count as its logarithm. `value` then holds the count
  /// as a double (infinite beyond double range) and `abs_error` its error.
  std::optional<LogValue> log;

  bool exact() const { return !log && value.index() <= 1; }
  /// Decimal integer, reduced fraction "p/q", or a float printed with 17 significant
  /// digits ("re+imi" style "(re,im)" for complex); with `log`, ln |count| with 17 digits
  /// ("-inf" for a count of 0).
  std::string to_string() const;
  /// True when the value is exactly 0 (an exact zero, or a float 0 such as the count of a
  /// matrix without a perfect matching).
  bool is_zero() const;
  /// Relative error estimate (0 for exact values; inf when the value is 0 but uncertain).
  double rel_error() const;
};

}  // namespace matchcount
