// What the writers write, the readers read back (issue 22): every double, the shortest
// decimal of a subnormal included; sums of repeated entries; exact values at the readers'
// decimal exponent limit (kMaxDecimalExponent). An exact value beyond that limit has no text
// form that reads back, so the writers refuse it with one line naming it: it is never rounded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "io_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"

namespace matchcount {
namespace {

using iotest::read_text;

Integer power_of_ten(unsigned long k) {
  Integer p;
  mpz_ui_pow_ui(p.get_mpz_t(), 10, k);
  return p;
}

Rational power_of_two(long k) {
  Integer p;
  mpz_ui_pow_ui(p.get_mpz_t(), 2, static_cast<unsigned long>(std::labs(k)));
  return k >= 0 ? Rational(p) : Rational(Integer(1), p);
}

/// A 1 x n matrix holding `values`, one a column.
template <class T>
SparseMatrix<T> row_of(const std::vector<T>& values) {
  SparseMatrix<T> m;
  m.rows = 1, m.cols = static_cast<int>(values.size());
  for (std::size_t j = 0; j < values.size(); ++j) m.entries.push_back({0, static_cast<int>(j), values[j]});
  return m;
}

/// `m` written as Matrix Market and read again (decimals exactly with `exact`).
ReadResult write_and_read(const AnyMatrix& m, bool exact) {
  std::ostringstream text;
  write_matrix_market(text, m);
  ReadOptions o;
  o.exact = exact;
  return read_text(text.str(), "back.mtx", o);
}

/// The writer's refusal of `m` (empty when it wrote): one line, and nothing half written.
std::string refusal(const AnyMatrix& m) {
  std::ostringstream text;
  try {
    write_matrix_market(text, m);
  } catch (const RefusedError& e) {
    EXPECT_EQ(text.str(), "");
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

TEST(WriteReadBack, DoublesAtTheEdgesOfTheirRangeComeBackBitForBit) {
  constexpr double lim_max = std::numeric_limits<double>::max(), lim_min = std::numeric_limits<double>::min();
  constexpr double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> values = {
      0.1,  // a non-integral value keeps the copy real (a file of integers reads as integers)
      tiny, -tiny, 1e-320, 3 * tiny, lim_min, std::nextafter(lim_min, 0.0),
      lim_max, -lim_max, 1e300, std::nextafter(1.0, 2.0), -1.5e-300};
  const ReadResult back = write_and_read(AnyMatrix(row_of(values)), false);
  const auto got = iotest::triples<double>(back.matrix);
  ASSERT_EQ(got.size(), values.size());
  for (std::size_t j = 0; j < values.size(); ++j) EXPECT_EQ(std::get<2>(got[j]), values[j]) << "column " << j + 1;

  const std::vector<Complex> z = {{0.5, tiny}, {-lim_max, 1e-310}};
  const auto zback = iotest::triples<Complex>(write_and_read(AnyMatrix(row_of(z)), false).matrix);
  ASSERT_EQ(zback.size(), z.size());
  for (std::size_t j = 0; j < z.size(); ++j) EXPECT_EQ(std::get<2>(zback[j]), z[j]) << "column " << j + 1;
}

TEST(WriteReadBack, SumsOfRepeatedEntriesComeBack) {
  const std::string tiny = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e-320\n1 1 1e-320\n2 2 0.5\n";
  ReadOptions sum;
  sum.sum_duplicates = true;
  // As doubles: the exact sum 2e-320, rounded once.
  const ReadResult doubles = read_text(tiny, "in.mtx", sum);
  const auto d = iotest::triples<double>(write_and_read(doubles.matrix, false).matrix);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(std::get<2>(d[0]), std::get<2>(iotest::triples<double>(doubles.matrix)[0]));
  EXPECT_EQ(std::get<2>(d[0]), 2e-320);
  // Exactly (--exact): 2 / 10^320, written with 320 decimals.
  sum.exact = true;
  const ReadResult exact = read_text(tiny, "in.mtx", sum);
  const auto q = iotest::triples<Rational>(write_and_read(exact.matrix, true).matrix);
  ASSERT_EQ(q.size(), 2u);
  Rational two_e_320(Integer(2), power_of_ten(320));
  two_e_320.canonicalize();
  EXPECT_EQ(std::get<2>(q[0]), two_e_320);

  // 5e999 + 5e999 = 10^1000, at the limit: it comes back. 5e1000 + 5e1000 = 10^1001 does not
  // read back from any text, so the writer refuses it, naming the entry and the value.
  const auto huge = [](const std::string& v) {
    return "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 " + v + "\n1 1 " + v + "\n2 2 1\n";
  };
  sum.exact = false;
  const ReadResult at_limit = read_text(huge("5e999"), "in.mtx", sum);
  const auto a = iotest::triples<Integer>(write_and_read(at_limit.matrix, false).matrix);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(std::get<2>(a[0]), power_of_ten(1000));
  const ReadResult beyond = read_text(huge("5e1000"), "in.mtx", sum);
  EXPECT_EQ(std::get<2>(iotest::triples<Integer>(beyond.matrix)[0]), power_of_ten(1001));
  const std::string why = refusal(beyond.matrix);
  EXPECT_NE(why.find("entry (1, 1) = about 1e+1001"), std::string::npos) << why;
  EXPECT_NE(why.find("+-1000"), std::string::npos) << why;
}

TEST(WriteReadBack, ExactValuesAtTheLimitComeBackAndBeyondAreRefused) {
  // Within: 10^-1000, 3 / 2^1000 (1000 decimals), -7 * 10^1000, 10^1000 / 2^1000 = 5^1000.
  const std::vector<Rational> within = {Rational(Integer(1), power_of_ten(1000)), 3 * power_of_two(-1000),
                                        Rational(-7 * power_of_ten(1000)),
                                        Rational(power_of_ten(1000)) * power_of_two(-1000)};
  for (const Rational& v : within) EXPECT_TRUE(text_readable(v)) << v.get_str().substr(0, 40);
  const auto back = iotest::triples<Rational>(write_and_read(AnyMatrix(row_of(within)), true).matrix);
  ASSERT_EQ(back.size(), within.size());
  for (std::size_t j = 0; j < within.size(); ++j) EXPECT_EQ(std::get<2>(back[j]), within[j]) << "column " << j + 1;

  // Beyond: the smallest subnormal read exactly (a .npy file with --exact gives 2^-1074),
  // 10^-1001, 10^1001 as a rational and as an integer.
  const Rational subnormal(std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(subnormal, power_of_two(-1074));
  struct Case {
    AnyMatrix m;
    std::string named;
  } cases[] = {
      {AnyMatrix(row_of<Rational>({Rational(1, 2), subnormal})), "entry (1, 2) = about 4.94066e-324"},
      {AnyMatrix(row_of<Rational>({Rational(Integer(-1), power_of_ten(1001))})), "entry (1, 1) = about -1e-1001"},
      {AnyMatrix(row_of<Rational>({Rational(power_of_ten(1001))})), "entry (1, 1) = about 1e+1001"},
      {AnyMatrix(row_of<Integer>({Integer(3), 12 * power_of_ten(1001)})), "entry (1, 2) = about 1.2e+1002"},
  };
  for (const Case& c : cases) {
    const std::string why = refusal(c.m);
    EXPECT_NE(why.find(c.named), std::string::npos) << why;
    EXPECT_NE(why.find("cannot be written exactly"), std::string::npos) << why;
  }
  EXPECT_FALSE(text_readable(subnormal));
  EXPECT_FALSE(text_readable(power_of_ten(1001)));
  EXPECT_TRUE(text_readable(Integer(0)));
}

TEST(WriteReadBack, EveryTextWriterRefusesWhatNoReaderTakes) {
  SparseMatrix<Integer> sym;
  sym.rows = sym.cols = 2;
  sym.entries = {{0, 1, power_of_ten(1001)}, {1, 0, power_of_ten(1001)}};
  const AnyMatrix m(sym);
  const auto refused = [](const std::function<void(std::ostream&)>& write) {
    std::ostringstream out;
    EXPECT_THROW(write(out), RefusedError);
    EXPECT_EQ(out.str(), "");
  };
  refused([&](std::ostream& o) { write_matrix_market(o, m, "comment"); });
  refused([&](std::ostream& o) { write_matrix_market_symmetric(o, m); });
  refused([&](std::ostream& o) { write_graph_edges(o, m); });
  refused([&](std::ostream& o) { write_arc_list(o, sym, "comment"); });
  refused([&](std::ostream& o) { write_bipartite_edges(o, sym, "comment"); });
  // The same graph with weights the readers take is written and reads back.
  sym.entries = {{0, 1, power_of_ten(1000)}, {1, 0, power_of_ten(1000)}};
  std::ostringstream edges;
  write_graph_edges(edges, AnyMatrix(sym));
  ReadOptions graph;
  graph.as = InputFormat::Graph;
  const ReadResult back = read_text(edges.str(), "back.edges", graph);
  EXPECT_EQ(std::get<2>(iotest::triples<Integer>(back.matrix).at(0)), power_of_ten(1000));
}

}  // namespace
}  // namespace matchcount
