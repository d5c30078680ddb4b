// The printed error of float permanents is a bound that holds (issue 32, item 6): random
// matrices of decimal entries are written as Matrix Market text and read back by the program's
// reader, so the decimals' rounding to double is part of what is checked; every CPU engine that
// takes floats counts them (forced, with and without preprocessing, so Forbert-Marx merges, DM
// blocks and scale factors are in it too), and each result must lie within its abs_error of the
// permanent of the decimals themselves, computed in Gaussian rationals, in the real and the
// imaginary part. Families: dense and sparse, one magnitude or entries from 1e-8 to 1e8, real
// and complex, Hermitian and symmetric storage, permanents that cancel to 0 or to almost
// nothing beside perm(|A|), rows of one decimal times powers of two (the exact integer-rows
// path), repeated columns (the repeated-lines engine), and rectangular ones.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "catalog/catalog.hpp"
#include "exact_reference.hpp"
#include "matchcount/pipeline.hpp"

using namespace matchcount;
using namespace matchcount::test::exact;

namespace {

/// The CPU engines of square blocks that count floats.
std::vector<std::string> float_engines() {
  std::vector<std::string> out;
  for (const auto& row : catalog::rows())
    if (row.make && !row.gpu && (row.kinds & catalog::kReal)) out.push_back(row.name);
  return out;
}

/// Counts `m` by the pipeline's own choice, then by every engine forced with and without
/// preprocessing (engines that refuse the block, e.g. kasteleyn a non-planar one, are skipped).
void check_all(Tally& t, const DecimalMatrix& m, Storage s, const std::string& family) {
  const CQ want = permanent(m);
  const AnyMatrix a = read(m, s);
  const std::string text = matrix_market(m, s);
  CountOptions o;
  o.threads = 1;
  t.check("pipeline", count_permanent(a, o), want, text);
  if (m.rows != m.cols) {
    for (const char* e : {"rect-ryser", "rect-dp", "ryser"}) {  // ryser: padded to square
      o.engine = e;
      t.check(std::string("rect:") + e, count_permanent(a, o), want, text);
    }
    return;
  }
  for (const std::string& e : float_engines())
    for (bool pre : {true, false}) {
      o.engine = e, o.preprocess = pre;
      try {
        t.check(e + (pre ? "" : " (whole)"), count_permanent(a, o), want, family + "\n" + text);
      } catch (const RefusedError&) {
      }
    }
}

/// n x n (or rows x cols) random decimals of `digits` digits, exponents of the leading digit in
/// [lo, hi], zeros with `zero_chance`.
DecimalMatrix random_matrix(std::mt19937_64& rng, int rows, int cols, bool complex, int digits, int lo, int hi,
                            double zero_chance) {
  DecimalMatrix m{rows, cols, complex, {}, {}};
  std::uniform_int_distribution<int> ex(lo, hi);
  for (int k = 0; k < rows * cols; ++k) {
    const bool zero = std::uniform_real_distribution<double>(0, 1)(rng) < zero_chance;
    const int e = ex(rng);
    m.re.push_back(zero ? decimal("0") : random_decimal(rng, digits, e));
    if (complex) m.im.push_back(zero ? decimal("0") : random_decimal(rng, digits, e, 0.1));
  }
  return m;
}

/// The lower triangle mirrored: conjugated (hermitian, real diagonal) or not (symmetric).
void mirror(DecimalMatrix& m, bool conjugate) {
  for (int i = 0; i < m.rows; ++i)
    for (int j = i; j < m.cols; ++j) {
      const auto up = static_cast<std::size_t>(i * m.cols + j), low = static_cast<std::size_t>(j * m.cols + i);
      m.re[up] = m.re[low];
      if (!m.complex) continue;
      if (i == j && conjugate) m.im[up] = decimal("0");
      else m.im[up] = conjugate ? decimal_of(-m.im[low].value) : m.im[low];
    }
}

/// Sets entry (0, 0) to a decimal of `digits` digits near -R / C (perm = a00 C + R), so that the
/// permanent is tiny beside perm(|A|); with `zero`, makes rows and columns 0, 1 a block of
/// permanent exactly 0 (x, y; kx, -ky) below a zero block, so the permanent is exactly 0.
void cancel_entries(DecimalMatrix& m, int digits, bool zero, std::mt19937_64& rng) {
  const int n = m.rows;
  auto set = [&](int i, int j, const CQ& v) {
    m.re[static_cast<std::size_t>(i * n + j)] = decimal_of(v.re);
    if (m.complex) m.im[static_cast<std::size_t>(i * n + j)] = decimal_of(v.im);
  };
  if (zero) {
    const CQ x = m.at(0, 0), y = m.at(0, 1), k{Rational(static_cast<long>(rng() % 5) + 1), 0};
    set(1, 0, k * x), set(1, 1, k * CQ{-y.re, -y.im});
    for (int i = 2; i < n; ++i) set(i, 0, {}), set(i, 1, {});
    return;
  }
  set(0, 0, {});
  const CQ r = permanent(m);
  set(0, 0, {1, 0});
  CQ c = permanent(m);
  c.re -= r.re, c.im -= r.im;  // the cofactor of (0, 0)
  const Complex cd(c.re.get_d(), c.im.get_d()), target = -Complex(r.re.get_d(), r.im.get_d()) / cd;
  if (!std::isfinite(std::abs(target))) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, target.real());
  m.re[0] = decimal(buf);
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, target.imag());
  if (m.complex) m.im[0] = decimal(buf);
}

}  // namespace

TEST(ErrorBound, RandomDecimalPermanents) {
  std::mt19937_64 rng(32);
  Tally t;
  const int cases = 2400 / kScale;
  for (int c = 0; c < cases; ++c) {
    const int n = 2 + static_cast<int>(rng() % 7);  // 2..8
    const bool complex = rng() % 2;
    const int family = c % 6;
    const int digits = 1 + static_cast<int>(rng() % 17);
    const bool mixed = family == 1 || family == 4;
    DecimalMatrix m = random_matrix(rng, n, n, complex, digits, mixed ? -8 : 0, mixed ? 8 : 0,
                                    family >= 3 ? 0.5 : 0.0);
    Storage s = Storage::General;
    if (family == 2) {
      s = complex && rng() % 2 ? Storage::Hermitian : Storage::Symmetric;
      mirror(m, s == Storage::Hermitian);
    }
    if (family == 5 && n >= 3) cancel_entries(m, 3 + static_cast<int>(rng() % 12), rng() % 3 == 0, rng);
    check_all(t, m, s, "family " + std::to_string(family) + ", case " + std::to_string(c));
  }
  t.print("float permanents of random decimals");
  EXPECT_EQ(t.failures, 0);
  for (const std::string& e : float_engines())
    EXPECT_GE(t.runs[e], e == "kasteleyn" || e == "repeated" ? cases / 20 : cases / 2) << e;
}

// Rows of one decimal times +-2^j: counted exactly as integers and scaled (integer_rows.cpp),
// whose bound must cover the decimals' rounding too, through perm(|B|) when B has signs.
// Repeated columns: the repeated-lines engine's walk, and its deviation term.
TEST(ErrorBound, IntegerRowsAndRepeatedColumns) {
  std::mt19937_64 rng(33);
  Tally t;
  for (int c = 0; c < 400 / kScale; ++c) {
    const int n = 3 + static_cast<int>(rng() % 6);
    const bool complex = c % 2 && c % 4 != 1;
    DecimalMatrix m{n, n, complex, {}, {}};
    if (c % 4 < 2) {  // integer rows (real only for the exact path; complex walks them)
      for (int i = 0; i < n; ++i) {
        const Decimal d = random_decimal(rng, 1 + static_cast<int>(rng() % 17), static_cast<int>(rng() % 9) - 4);
        for (int j = 0; j < n; ++j) {
          const long k = rng() % 3 == 0 ? 0 : (rng() % 2 ? -1L : 1L) << (rng() % 4);
          m.re.push_back(decimal_of(d.value * k));
          if (complex) m.im.push_back(decimal("0"));
        }
      }
    } else {  // three distinct columns, repeated
      DecimalMatrix cols = random_matrix(rng, n, 3, complex, 1 + static_cast<int>(rng() % 17), -3, 3, 0.2);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const auto k = static_cast<std::size_t>(i * 3 + static_cast<int>(j % 3));
          m.re.push_back(cols.re[k]);
          if (complex) m.im.push_back(cols.im[k]);
        }
    }
    check_all(t, m, Storage::General, "integer rows / repeated columns, case " + std::to_string(c));
  }
  t.print("integer rows and repeated columns");
  EXPECT_EQ(t.failures, 0);
  EXPECT_GT(t.runs["repeated"], 50 / kScale);  // the repeated-columns half of the cases reaches it
}

TEST(ErrorBound, RectangularDecimals) {
  std::mt19937_64 rng(34);
  Tally t;
  for (int c = 0; c < 400 / kScale; ++c) {
    const int cols = 3 + static_cast<int>(rng() % 6), rows = 1 + static_cast<int>(rng() % (cols - 1));
    const bool mixed = c % 3 == 1;
    DecimalMatrix m = random_matrix(rng, rows, cols, c % 2, 1 + static_cast<int>(rng() % 17), mixed ? -8 : 0,
                                    mixed ? 8 : 0, c % 3 == 2 ? 0.4 : 0.0);
    if (rng() % 2) {  // the transpose: more rows than columns
      DecimalMatrix tr{cols, rows, m.complex, {}, {}};
      for (int i = 0; i < cols; ++i)
        for (int j = 0; j < rows; ++j) {
          tr.re.push_back(m.re[static_cast<std::size_t>(j * cols + i)]);
          if (m.complex) tr.im.push_back(m.im[static_cast<std::size_t>(j * cols + i)]);
        }
      const CQ want = permanent(m);
      CountOptions o;
      o.threads = 1;
      t.check("rect:transposed", count_permanent(read(tr, Storage::General), o), want, matrix_market(tr, Storage::General));
      continue;
    }
    check_all(t, m, Storage::General, "rectangular, case " + std::to_string(c));
  }
  t.print("rectangular permanents of random decimals");
  EXPECT_EQ(t.failures, 0);
}

// The case of the report, in kind: an 8 x 8 complex Hermitian matrix of three-digit decimals
// whose permanent Forbert-Marx reduces entirely (one line multiplied out, seven merges). Its
// exact permanent is real; the imaginary part of the result is rounding, and the printed error
// covered only the scale factor's rounding, not the merges' (figures in docs/benchmarks.md,
// "Float Ryser walks with an error bound that holds").
TEST(ErrorBound, ReportedHermitianCase) {
  const std::string text =
      "%%MatrixMarket matrix coordinate complex hermitian\n8 8 15\n"
      "1 1 0.621 0\n2 2 -0.350 0\n3 3 0.516 0\n4 3 0.769 0.035\n4 4 0.678 0\n5 4 -0.873 0.603\n"
      "5 5 -0.189 0\n6 3 -0.018 -0.717\n6 6 -0.223 0\n7 1 0.729 -0.915\n7 2 0.072 0.513\n7 7 0.592 0\n"
      "8 1 0.441 0.789\n8 6 -0.792 0.519\n8 8 -0.803 0\n";
  std::istringstream in(text);
  const ReadResult r = read_input(in, "reported.mtx", {});
  // The exact matrix: the same decimals in rationals, mirrored with conjugates.
  DecimalMatrix m{8, 8, true, std::vector<Decimal>(64, decimal("0")), std::vector<Decimal>(64, decimal("0"))};
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line), std::getline(lines, line);
  int i = 0, j = 0;
  std::string re, im;
  while (lines >> i >> j >> re >> im) {
    m.re[static_cast<std::size_t>((i - 1) * 8 + j - 1)] = m.re[static_cast<std::size_t>((j - 1) * 8 + i - 1)] = decimal(re);
    m.im[static_cast<std::size_t>((i - 1) * 8 + j - 1)] = decimal(im);
    m.im[static_cast<std::size_t>((j - 1) * 8 + i - 1)] = decimal_of(-decimal(im).value);
  }
  const CQ want = permanent(m);
  EXPECT_EQ(sgn(want.im), 0);
  Tally t;
  CountOptions o;
  const CountReport plain = count_permanent(r.matrix, o);
  EXPECT_GT(plain.reduce.merges, 0u) << "the case is about the merges' roundings";
  t.check("pipeline", plain, want, text);
  for (const std::string& e : float_engines())
    for (bool pre : {true, false}) {
      o.engine = e, o.preprocess = pre;
      try {
        t.check(e, count_permanent(r.matrix, o), want, text);
      } catch (const RefusedError&) {
      }
    }
  EXPECT_EQ(t.failures, 0);
  // Not vacuous: the bound stays within a few thousand times the actual error.
  const double err = error_ratio(value_of(plain), 1.0, want);
  EXPECT_LT(plain.value.abs_error, 1e4 * std::max(err, 1e-17));
}
