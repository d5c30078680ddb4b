// Values of evaluated plans, shared by the square and rectangular paths: exact integers, or
// floats with an absolute error bound (or estimate) that every product and sum carries along.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

template <class T> struct Evaluated { using type = Approx<T>; };
template <> struct Evaluated<Integer> { using type = Integer; };

constexpr double kEps = std::numeric_limits<double>::epsilon();

/// An exact rational as a count's value: an Integer when its denominator is 1, else the reduced
/// fraction; and back (an exact value's Rational).
inline PermanentValue exact_value(Rational q) {
  q.canonicalize();
  PermanentValue v;
  if (q.get_den() == 1) v.value = Integer(q.get_num());
  else v.value = q;
  return v;
}
inline Rational rational_of(const PermanentValue& v) {
  if (const auto* i = std::get_if<Integer>(&v.value)) return Rational(*i);
  return std::get<Rational>(v.value);
}

inline Integer lift(const Integer& s) { return s; }
template <class V> Approx<V> lift(const V& s) { return {s, 0.0}; }

inline Integer mul(const Integer& a, const Integer& b) { return a * b; }
/// The rounding of a product: u |ab| for reals, at most sqrt(2) gamma_2 |a||b| < 3u |a||b| for
/// complex numbers (Higham, Lemma 3.5); twice that is taken, for the bound's own roundings.
template <class V>
constexpr double kMulRounding = std::is_same_v<V, Complex> ? 3 * kEps : kEps;

template <class V>
Approx<V> mul(const Approx<V>& a, const Approx<V>& b) {
  const V v = a.value * b.value;
  return {v, std::abs(a.value) * b.abs_error + std::abs(b.value) * a.abs_error + a.abs_error * b.abs_error +
                 kMulRounding<V> * std::abs(a.value) * std::abs(b.value),
          a.estimated || b.estimated};
}
inline Integer add(const Integer& a, const Integer& b) { return a + b; }
template <class V>
Approx<V> add(const Approx<V>& a, const Approx<V>& b) {
  const V v = a.value + b.value;
  return {v, a.abs_error + b.abs_error + kEps * std::abs(v), a.estimated || b.estimated};
}

/// Stores `v` and its error bound as the report's value; a value beyond the double range is
/// refused (--exact counts such matrices exactly) rather than printed as inf. `what`: "the
/// permanent", "the hafnian", for the message.
template <class V>
void store_float(CountReport& report, const Approx<V>& v, const char* what = "the permanent") {
  if (!std::isfinite(std::abs(v.value)))
    throw RefusedError(std::string(what) + " is beyond the range of double precision (about 1e308); "
                       "--exact counts it exactly");
  report.value.value = v.value;
  report.value.abs_error = v.abs_error;
  report.value.error_estimated = v.estimated;
}

}  // namespace matchcount::detail
