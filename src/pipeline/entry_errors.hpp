// Private to the pipeline: what the entries and scale factors of a float count stand for.
//
// A real or complex count's printed bound must cover the distance to the permanent of the
// numbers the user wrote, not only the arithmetic on the doubles they became. Two things move
// the doubles away from those numbers before any engine runs:
//  - reading: a decimal is rounded to the nearest double, |x - v| <= u |v| (each part of a
//    complex value likewise, so |x - v| <= u |v| for the modulus too);
//  - preprocessing: Forbert-Marx merges and the hafnian's degree-2 folds compute new entries
//    (b*x + a*y, which may cancel), forced lines multiply entries into scale factors, and
//    branching multiplies a block's value by an entry.
// EntryErrors holds a bound for every value preprocessing computed, keyed by the value itself:
// blocks are split, reduced and branched by value-copying code that knows nothing of errors, so
// the bound travels with the value. When several values coincide, the key keeps the largest
// bound, which serves all of them; a value never computed is an input value (u |v|). Engines
// read it through EngineOptions::entry_error and scale factors through scale(), so the errors
// reach the plan's evaluation (evaluated.hpp), which carries them through products and sums.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/tracked.hpp"
#include "engines/engine.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/reduce.hpp"
#include "matchcount/value.hpp"
#include "pipeline/evaluated.hpp"

namespace matchcount::detail {

class EntryErrors {
 public:
  static constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
  /// A decimal rounded to a subnormal double is off by up to half its spacing, 2^-1075.
  static constexpr double kTiny = 0x1p-1074;

  /// |x - v| <= of(v) for the number x that a value v of this count stands for.
  double of(const Complex& v) const {
    const double input = kUnit * std::abs(v) + (v == Complex(0) ? 0.0 : kTiny);
    if (computed_.empty()) return input;
    const auto it = computed_.find(key(v));
    return it == computed_.end() ? input : std::max(input, it->second);
  }
  /// Records that a value computed by preprocessing is off by at most e.
  void record(const Complex& v, double e) {
    if (e <= of(v)) return;  // nothing beyond an input value's rounding
    computed_[key(v)] = e;
  }
  /// The engines' view (EngineOptions::entry_error); valid while this table lives.
  std::function<double(const Complex&)> lookup() const {
    return [this](const Complex& v) { return of(v); };
  }
  /// A plan node's scale factor with its error.
  template <class V>
  Approx<V> scale(const V& s) const {
    return {s, of(Complex(s))};  // a scale of 1 may be an entry too: u |1| is taken for it
  }
  /// s * f for a node's scale, recording the product's error.
  template <class V>
  V times(const V& s, const V& f) {
    const Tracked<V> p = Tracked<V>{s, of(Complex(s))} * Tracked<V>{f, of(Complex(f))};
    record(Complex(p.v), p.e);
    return p.v;
  }

  template <class V>
  SparseMatrix<Tracked<V>> tracked(SparseMatrix<V>&& a) const {
    SparseMatrix<Tracked<V>> t = convert<Tracked<V>>(a, [this](const V& v) { return Tracked<V>{v, of(Complex(v))}; });
    a = SparseMatrix<V>{};
    return t;
  }
  template <class V>
  SparseMatrix<V> untracked(SparseMatrix<Tracked<V>>&& t) {
    SparseMatrix<V> a = convert<V>(t, [this](const Tracked<V>& x) {
      record(Complex(x.v), x.e);
      return x.v;
    });
    t = SparseMatrix<Tracked<V>>{};
    return a;
  }

 private:
  struct Key {
    std::uint64_t re, im;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const { return std::hash<std::uint64_t>()(k.re * 0x9E3779B97F4A7C15ULL ^ k.im); }
  };
  static Key key(const Complex& v) {
    Key k;
    const double re = v.real() + 0.0, im = v.imag() + 0.0;  // -0.0 and 0.0 alike
    std::memcpy(&k.re, &re, sizeof re);
    std::memcpy(&k.im, &im, sizeof im);
    return k;
  }
  std::unordered_map<Key, double, Hash> computed_;
};

/// reduce_lines (Forbert-Marx) of a float block, on tracked values: the merged entries and the
/// factor come back as doubles whose errors `errors` records.
template <class V>
Reduced<V> reduce_tracked(SparseMatrix<V>&& b, ReduceStats& stats, EntryErrors& errors) {
  // No line of at most two entries: no rule applies, and the block is not copied to find that.
  std::vector<int> degree(2 * static_cast<std::size_t>(b.rows), 0);
  for (const auto& e : b.entries) ++degree[static_cast<std::size_t>(e.row)], ++degree[static_cast<std::size_t>(b.rows + e.col)];
  if (std::none_of(degree.begin(), degree.end(), [](int d) { return d <= 2; })) return reduce_lines(std::move(b), stats);
  Reduced<Tracked<V>> t = reduce_lines(errors.tracked(std::move(b)), stats);
  Reduced<V> out;
  out.zero = t.zero;
  out.changed = t.changed;
  out.factor = t.factor.v;
  errors.record(Complex(t.factor.v), t.factor.e);
  out.rest = errors.untracked(std::move(t.rest));
  return out;
}

/// reduce_graph (forced edges, loops, degree-2 folds) of a float block, on tracked values.
template <class V>
GraphReduced<V> reduce_graph_tracked(const SparseMatrix<V>& b, bool loops, EntryErrors& errors) {
  GraphReduced<Tracked<V>> t = reduce_graph(errors.tracked(SparseMatrix<V>(b)), loops);
  GraphReduced<V> out;
  out.zero = t.zero;
  out.changed = t.changed;
  out.forced = t.forced, out.folded = t.folded, out.loops_taken = t.loops_taken;
  out.factor = t.factor.v;
  errors.record(Complex(t.factor.v), t.factor.e);
  out.rest = errors.untracked(std::move(t.rest));
  return out;
}

/// The plan builders' steps for any number kind: floats with a table go through it; integers,
/// rationals and floats without one (the tests' direct calls) as before.
template <class T>
constexpr bool kFloat = std::is_same_v<T, double> || std::is_same_v<T, Complex>;

template <class T>
Reduced<T> reduce_block(SparseMatrix<T>&& b, ReduceStats& stats, EntryErrors* errors) {
  if constexpr (kFloat<T>)
    if (errors) return reduce_tracked(std::move(b), stats, *errors);
  return reduce_lines(std::move(b), stats);
}
template <class T>
GraphReduced<T> reduce_graph_block(const SparseMatrix<T>& b, bool loops, EntryErrors* errors) {
  if constexpr (kFloat<T>)
    if (errors) return reduce_graph_tracked(b, loops, *errors);
  return reduce_graph(b, loops);
}
/// s * f for a plan's scale factor.
template <class T>
T scale_times(const T& s, const T& f, EntryErrors* errors) {
  if constexpr (kFloat<T>)
    if (errors) return errors->times(s, f);
  return s * f;
}
/// A scale factor as a value of the evaluation, with its error.
template <class T>
typename Evaluated<T>::type scale_value(const T& s, const EntryErrors* errors) {
  if constexpr (kFloat<T>)
    if (errors) return errors->scale(s);
  return lift(s);
}
/// The entry errors for an engine counting a block of `errors`'s count.
template <class T>
void set_entry_errors(EngineOptions& eo, const EntryErrors* errors) {
  if constexpr (kFloat<T>)
    if (errors) eo.entry_error = errors->lookup();
}

/// count_permanent with the entry errors of an enclosing count (a bipartite block of a
/// hafnian, whose entries preprocessing may have computed); null: a table of its own.
CountReport count_permanent_with(const AnyMatrix& input, const CountOptions& options, EntryErrors* errors);

}  // namespace matchcount::detail
