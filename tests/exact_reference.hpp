// Exact references for the float error-bound tests (error_bound_test.cpp and
// error_bound_graph_test.cpp): matrices of random decimals, their Matrix Market text (read back
// through the program's reader, so that the entries' rounding to double is part of what is
// tested), their permanents and hafnians in exact Gaussian rationals, and the tally of printed
// bounds against actual errors both suites keep.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "matchcount/io.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::test::exact {

/// A Gaussian rational.
struct CQ {
  Rational re = 0, im = 0;
};
inline CQ operator*(const CQ& a, const CQ& b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline CQ& operator+=(CQ& a, const CQ& b) {
  a.re += b.re, a.im += b.im;
  return a;
}
inline bool is_zero(const CQ& a) { return sgn(a.re) == 0 && sgn(a.im) == 0; }

/// One decimal: its text and its exact value.
struct Decimal {
  std::string text;
  Rational value;
};
inline Decimal decimal(const std::string& text) {
  Decimal d{text, 0};
  if (!parse_exact_decimal(text, d.value)) throw std::invalid_argument("not a decimal: " + text);
  return d;
}

/// The text of a rational that is a finite decimal (a denominator of 2s and 5s).
inline std::string decimal_text(const Rational& q) {
  Rational x = q;
  int scale = 0;
  while (x.get_den() != 1) x *= 10, ++scale;
  return x.get_num().get_str() + "e-" + std::to_string(scale);
}
inline Decimal decimal_of(const Rational& q) { return decimal(decimal_text(q)); }

/// A random decimal: a sign, `digits` significant digits and the decimal exponent `exp10` of
/// its leading digit; `zero_chance` of 0.
inline Decimal random_decimal(std::mt19937_64& rng, int digits, int exp10, double zero_chance = 0) {
  if (std::uniform_real_distribution<double>(0, 1)(rng) < zero_chance) return decimal("0");
  std::string mant;
  mant += char('1' + rng() % 9);
  for (int k = 1; k < digits; ++k) mant += char('0' + rng() % 10);
  return decimal((rng() % 2 ? "-" : "") + mant + "e" + std::to_string(exp10 - digits + 1));
}

/// A dense rows x cols matrix of decimals (imaginary parts empty for real matrices).
struct DecimalMatrix {
  int rows = 0, cols = 0;
  bool complex = false;
  std::vector<Decimal> re, im;  // row-major
  CQ at(int i, int j) const {
    const auto k = static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j);
    return {re[k].value, complex ? im[k].value : Rational(0)};
  }
  bool zero(int i, int j) const { return is_zero(at(i, j)); }
};

/// How the text stores the matrix: every entry, or the lower triangle with the upper one its
/// mirror (symmetric) or conjugate mirror (hermitian); the matrix must have that symmetry.
enum class Storage { General, Symmetric, Hermitian };

inline std::string matrix_market(const DecimalMatrix& m, Storage s) {
  std::ostringstream body;
  int count = 0;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) {
      if ((s != Storage::General && j > i) || m.zero(i, j)) continue;
      const auto k = static_cast<std::size_t>(i) * static_cast<std::size_t>(m.cols) + static_cast<std::size_t>(j);
      body << i + 1 << ' ' << j + 1 << ' ' << m.re[k].text;
      if (m.complex) body << ' ' << m.im[k].text;
      body << '\n';
      ++count;
    }
  const char* storage = s == Storage::General ? "general" : s == Storage::Symmetric ? "symmetric" : "hermitian";
  return std::string("%%MatrixMarket matrix coordinate ") + (m.complex ? "complex " : "real ") + storage + "\n" +
         std::to_string(m.rows) + " " + std::to_string(m.cols) + " " + std::to_string(count) + "\n" + body.str();
}

/// The matrix as the program reads it: decimals rounded to doubles.
inline AnyMatrix read(const DecimalMatrix& m, Storage s, bool hafnian = false) {
  std::istringstream in(matrix_market(m, s));
  ReadOptions o;
  o.hafnian = hafnian;
  return read_input(in, "case.mtx", o).matrix;
}

/// The permanent of an m x n matrix, m <= n: the sum over injective maps from rows to columns,
/// row by row over the sets of used columns.
inline CQ permanent(const DecimalMatrix& a) {
  std::vector<CQ> f(std::size_t{1} << a.cols);
  f[0] = {1, 0};
  for (int i = 0; i < a.rows; ++i) {
    std::vector<CQ> g(f.size());
    for (std::size_t s = 0; s < f.size(); ++s) {
      if (std::popcount(s) != i || is_zero(f[s])) continue;
      for (int j = 0; j < a.cols; ++j)
        if (!(s >> j & 1) && !a.zero(i, j)) g[s | std::size_t{1} << j] += f[s] * a.at(i, j);
    }
    f.swap(g);
  }
  CQ total;
  for (std::size_t s = 0; s < f.size(); ++s)
    if (std::popcount(s) == a.rows) total += f[s];
  return total;
}

/// The hafnian (with `loops` the loop hafnian) of a symmetric matrix: the lowest uncovered
/// vertex is matched to a later one or, with loops, covered by its loop; memoised by the set
/// covered.
inline CQ hafnian(const DecimalMatrix& a, bool loops) {
  const int n = a.rows;
  std::vector<CQ> memo(std::size_t{1} << n);
  std::vector<char> known(memo.size(), 0);
  auto rec = [&](auto& self, std::size_t covered) -> CQ {
    if (covered + 1 == memo.size()) return {1, 0};
    if (known[covered]) return memo[covered];
    int i = 0;
    while (covered >> i & 1) ++i;
    CQ sum;
    if (loops && !a.zero(i, i)) sum += a.at(i, i) * self(self, covered | std::size_t{1} << i);
    for (int j = i + 1; j < n; ++j)
      if (!(covered >> j & 1) && !a.zero(i, j))
        sum += a.at(i, j) * self(self, covered | std::size_t{1} << i | std::size_t{1} << j);
    known[covered] = 1;
    return memo[covered] = sum;
  };
  return rec(rec, 0);
}

/// |computed - exact| / bound, the larger of the real and imaginary parts', exactly (the
/// difference in rationals); infinite when the bound is 0 and the difference is not.
inline double error_ratio(const Complex& computed, double bound, const CQ& want) {
  const Rational dre = abs(Rational(computed.real()) - want.re), dim = abs(Rational(computed.imag()) - want.im);
  const Rational& d = dre > dim ? dre : dim;
  if (sgn(d) == 0) return 0;
  if (!(bound > 0)) return std::numeric_limits<double>::infinity();
  if (!std::isfinite(bound)) return 0;
  return Rational(d / Rational(bound)).get_d();
}

/// A report's value as a complex double (exact kinds converted).
inline Complex value_of(const CountReport& r) {
  if (const auto* c = std::get_if<Complex>(&r.value.value)) return *c;
  if (const auto* d = std::get_if<double>(&r.value.value)) return *d;
  if (const auto* z = std::get_if<Integer>(&r.value.value)) return z->get_d();
  return std::get<Rational>(r.value.value).get_d();
}

/// error_ratio of a report; an exact value (an input whose decimals are all integers) must
/// equal the reference (0, else infinite).
inline double report_ratio(const CountReport& r, const CQ& want) {
  if (r.value.exact()) {
    const Rational v = r.value.value.index() == 0 ? Rational(std::get<Integer>(r.value.value))
                                                  : std::get<Rational>(r.value.value);
    return v == want.re && sgn(want.im) == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return error_ratio(value_of(r), r.value.abs_error, want);
}

/// Under a sanitizer (5-10x slower) the suites take an eighth of the cases.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
constexpr int kScale = 8;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr int kScale = 8;
#else
constexpr int kScale = 1;
#endif
#else
constexpr int kScale = 1;
#endif

/// Per engine: the cases checked and bound / actual error where the error is not 0; a case
/// whose error exceeds its bound fails the test (the first five with the matrix's text).
struct Tally {
  std::map<std::string, int> runs;
  std::map<std::string, std::vector<double>> looseness;
  double worst = 0;  // the largest actual / bound
  int failures = 0;

  void check(const std::string& who, const CountReport& r, const CQ& want, const std::string& what) {
    const double ratio = report_ratio(r, want);
    const Complex v = value_of(r);
    ++runs[who];
    worst = std::max(worst, ratio);
    if (ratio > 0) looseness[who].push_back(1 / ratio);
    if (ratio > 1 && ++failures <= 5)
      ADD_FAILURE() << who << ": error " << ratio << " times the bound " << r.value.abs_error << " (value "
                    << v << ", exact " << want.re.get_d() << " + " << want.im.get_d() << "i)\n" << what;
  }
  void print(const char* title) const {
    std::printf("%s: worst error/bound %.3g\n", title, worst);
    for (const auto& [who, l] : looseness) {
      std::vector<double> s = l;
      std::sort(s.begin(), s.end());
      std::printf("  %-28s %5d cases, %5zu with an error: bound/error 1%% %.3g, median %.3g, 99%% %.3g\n", who.c_str(),
                  runs.at(who), s.size(), s[s.size() / 100], s[s.size() / 2], s[s.size() * 99 / 100]);
    }
  }
};

}  // namespace matchcount::test::exact
