// A floating-point value with a bound on its distance from the number it stands for, for the
// preprocessing of float counts: the Forbert-Marx merges and the hafnian's degree-2 folds
// compute new entries (b*x + a*y), and forced lines multiply entries into a factor. Run on
// Tracked values (reduce_lines and reduce_graph are instantiated for them), every such entry
// comes out with the bound the pipeline hands to the engines, so that the printed error covers
// the roundings of preprocessing as well as those of the engines.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace matchcount {

/// value v and e >= 0 with |x - v| <= e for the exact number x. Invariant: a value that carries
/// an error is never 0 (see normalise), so `== 0` still means an exact zero, which the
/// preprocessing drops as a structural zero.
template <class V>
struct Tracked {
  static constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;  // u
  // A complex product rounds by at most sqrt(2) gamma_2 |x||y| < 3u |x||y| (Higham, Lemma 3.5);
  // a real one by u |xy|. Sums round by u |result| in either case (each part by u |part|).
  static constexpr double kMulRounding = std::is_same_v<V, double> ? kUnit : 3 * kUnit;
  // The bound's own arithmetic rounds too: a few roundings of u each, upwards by this factor.
  static constexpr double kUp = 1 + 8 * kUnit;

  V v{};
  double e = 0;

  Tracked() = default;
  Tracked(int k) : v(k) {}  // NOLINT: T(0) and T(1) in the reductions' code
  Tracked(const V& value, double error) : v(value), e(error) {}

  friend Tracked operator*(const Tracked& a, const Tracked& b) {
    const double x = std::abs(a.v), y = std::abs(b.v);
    return normalise({a.v * b.v, (x * b.e + y * a.e + a.e * b.e + kMulRounding * x * y) * kUp});
  }
  Tracked& operator*=(const Tracked& b) { return *this = *this * b; }
  Tracked& operator+=(const Tracked& b) {
    const V s = v + b.v;
    *this = normalise({s, (e + b.e + kUnit * std::abs(s)) * kUp});
    return *this;
  }
  friend Tracked operator+(Tracked a, const Tracked& b) { return a += b; }
  friend bool operator==(const Tracked& a, const Tracked& b) { return a.v == b.v && a.e == b.e; }
  friend bool operator!=(const Tracked& a, const Tracked& b) { return !(a == b); }

  /// A sum that cancelled to exactly 0 although its exact value may not be 0 (|x| <= e) is
  /// stored as e with error 2e: it stays an entry (dropping it would change the structure the
  /// bound was derived for) and stays nonzero (a zero is taken for a structural one).
  static Tracked normalise(Tracked t) {
    if (t.v == V(0) && t.e > 0) t = {V(t.e), 2 * t.e};
    return t;
  }
};

}  // namespace matchcount
