// Readers: edge lists, graphs, digraphs, Matrix Market and SUPerman's banner-less files.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

#include "matchcount/error.hpp"
#include "matchcount/io.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

ReadResult read_text(const std::string& text, const std::string& name = "in.txt",
                     ReadOptions options = {}) {
  std::istringstream in(text);
  return read_input(in, name, options);
}

ReadResult read_as(const std::string& text, InputFormat as, const std::string& name = "in.txt") {
  ReadOptions o;
  o.as = as;
  return read_text(text, name, o);
}

template <class T>
using Triples = std::vector<std::tuple<int, int, T>>;

template <class T>
Triples<T> triples(const AnyMatrix& m) {
  const auto* s = std::get_if<SparseMatrix<T>>(&m);
  EXPECT_NE(s, nullptr) << "matrix kind is " << m.index();
  Triples<T> out;
  if (s != nullptr)
    for (const auto& e : s->entries) out.emplace_back(e.row, e.col, e.value);
  return out;
}

Triples<Integer> ints(std::initializer_list<std::tuple<int, int, long>> list) {
  Triples<Integer> out;
  for (const auto& [r, c, v] : list) out.emplace_back(r, c, Integer(v));
  return out;
}

Rational q(const char* s) {
  Rational x(s);
  x.canonicalize();
  return x;
}

/// what() of the InputError thrown by `f`, or a failure.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no error";
  return {};
}

std::string error_text(const std::string& text, const std::string& name = "in.txt",
                       InputFormat as = InputFormat::Auto, bool exact = false) {
  ReadOptions o;
  o.as = as;
  o.exact = exact;
  return error_of([&] { read_text(text, name, o); });
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// ----------------------------------------------------------------------------------------------
// Numbers

TEST(ReaderNumbers, ParseExactDecimalAccepts) {
  const std::vector<std::pair<std::string, std::string>> good = {
      {"-12", "-12"},        {"+3", "3"},         {"0.91", "91/100"},   {".5", "1/2"},
      {"5.", "5"},           {"-.00038", "-19/50000"}, {"2e-5", "1/50000"}, {"1E+4", "10000"},
      {".5e-3", "1/2000"},   {"0", "0"},          {"-0.0e7", "0"},      {"007", "7"},
      {"1.2500", "5/4"},     {"12345678901234567890123.5", "24691357802469135780247/2"},
      {"1e1000", ""},        {"0e99999999999999", "0"}};
  for (const auto& [text, value] : good) {
    Rational r;
    ASSERT_TRUE(parse_exact_decimal(text, r)) << text;
    if (!value.empty()) {
      EXPECT_EQ(r, q(value.c_str())) << text;
    }
  }
  Rational r;
  ASSERT_TRUE(parse_exact_decimal("1e1000", r));
  Integer p;
  mpz_ui_pow_ui(p.get_mpz_t(), 10, 1000);
  EXPECT_EQ(r, Rational(p));
}

TEST(ReaderNumbers, ParseExactDecimalRejects) {
  for (const char* text : {"", "+", "-", ".", "e5", "1e", "1e+", "nan", "NaN", "inf", "-inf",
                           "0x10", "1/2", "1,5", "--1", "1.2.3", " 1", "1 ", "1e5.0", "1d3",
                           "one", "1e1001", "1e-1001", "1e99999999999999999"}) {
    Rational r;
    EXPECT_FALSE(parse_exact_decimal(text, r)) << "'" << text << "'";
  }
}

TEST(ReaderNumbers, DoublesAreCorrectlyRounded) {
  const auto res = read_text(
      "a x 0.1\nb y 1.7976931348623157e308\nc z 2.2250738585072014e-308\n"
      "d w 0.12345678901234567890123\ne v 9007199254740993.5\nf u 4.9e-324\n");
  const auto t = triples<double>(res.matrix);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(std::get<2>(t[0]), 0.1);
  EXPECT_EQ(std::get<2>(t[1]), 1.7976931348623157e308);
  EXPECT_EQ(std::get<2>(t[2]), 2.2250738585072014e-308);
  EXPECT_EQ(std::get<2>(t[3]), 0.12345678901234567890123);
  EXPECT_EQ(std::get<2>(t[4]), 9007199254740994.0);
  EXPECT_EQ(std::get<2>(t[5]), 4.9e-324);
  // Summed duplicates round once: 0.1 + 0.2 is exactly 0.3, whose double is not 0.1 + 0.2.
  ReadOptions o;
  o.sum_duplicates = true;
  const auto s = read_text("a b 0.1\na b 0.2\n", "in.txt", o);
  EXPECT_EQ(std::get<2>(triples<double>(s.matrix).at(0)), 0.3);
  // Beyond the double range.
  EXPECT_CONTAINS(error_text("a b 1" + std::string(400, '0') + ".5\n"),
                  "in.txt:1: value too large for a double");
  const auto tiny = read_text("a b 1e-400\nc d 0.5\n");
  EXPECT_EQ(nnz_of(tiny.matrix), 1u);
  ASSERT_EQ(tiny.notes.size(), 1u);
  EXPECT_CONTAINS(tiny.notes[0], "below the double range");
}

// ----------------------------------------------------------------------------------------------
// Bipartite edge lists

TEST(ReaderBipartite, NamesCommentsAndOrder) {
  const auto res = read_text(
      "# a comment\n% another\n\n  alice\tjob2  \r\nbob job1\r\nalice job1 3\n\ncarol job3 -2\n"
      "   # indented comment\n");
  EXPECT_EQ(res.format, "bipartite edge list");
  EXPECT_EQ(res.row_names, (std::vector<std::string>{"alice", "bob", "carol"}));
  EXPECT_EQ(res.col_names, (std::vector<std::string>{"job2", "job1", "job3"}));
  EXPECT_EQ(rows_of(res.matrix), 3);
  EXPECT_EQ(cols_of(res.matrix), 3);
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {0, 1, 3}, {1, 1, 1}, {2, 2, -2}}));
  EXPECT_TRUE(res.notes.empty());
}

TEST(ReaderBipartite, SidesHaveSeparateNameSpaces) {
  const auto res = read_text("1 1\n1 2\n2 1\n");
  EXPECT_EQ(res.row_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(res.col_names, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {0, 1, 1}, {1, 0, 1}}));
}

TEST(ReaderBipartite, NumericAndOtherNamesAreDistinct) {
  // Small decimal names take a fast path; "07", "+7", "7.0" and big numbers are other names.
  std::string text;
  const std::vector<std::string> names = {"7",  "07",      "+7",       "7.0",    "x",
                                          "0",  "00",      "1048575",  "1048576", "99999999999",
                                          "-1", "1234567", "12345678", "\xC3\xA9"};
  for (std::size_t i = 0; i < names.size(); ++i) text += names[i] + " " + names[names.size() - 1 - i] + "\n";
  for (std::size_t i = 0; i < names.size(); ++i) text += names[i] + " " + names[i] + "\n";
  const auto res = read_text(text);
  EXPECT_EQ(res.row_names, names);
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  EXPECT_EQ(res.col_names, reversed);
  EXPECT_EQ(nnz_of(res.matrix), 2 * names.size());
  EXPECT_EQ(error_text(text + "1048576 1048576\n"),
            "in.txt:29: duplicate edge 1048576 1048576 (first on line 23)");
}

TEST(ReaderBipartite, UnequalSidesGiveARectangularMatrixAndANote) {
  const auto res = read_text("a x\nb x\nc y\n");
  EXPECT_EQ(rows_of(res.matrix), 3);
  EXPECT_EQ(cols_of(res.matrix), 2);
  ASSERT_EQ(res.notes.size(), 1u);
  EXPECT_EQ(res.notes[0], "3 left vertices but 2 right vertices: no perfect matching");
}

TEST(ReaderBipartite, DuplicatesAreErrorsUnlessSummed) {
  const std::string text = "a x 2\nb y\n# c\na y\nb y 5\na x 1.5\n";
  EXPECT_EQ(error_text(text), "in.txt:5: duplicate edge b y (first on line 2)");
  ReadOptions o;
  o.sum_duplicates = true;
  o.exact = true;
  const auto res = read_text(text, "in.txt", o);
  EXPECT_EQ(triples<Rational>(res.matrix),
            (Triples<Rational>{{0, 0, q("7/2")}, {0, 1, 1}, {1, 1, 6}}));
  // Weights summing to zero drop the entry but keep the vertices.
  const auto z = read_text("a x 1\na x -1\nb y 1\n", "in.txt", o);
  EXPECT_EQ(triples<Integer>(z.matrix), ints({{1, 1, 1}}));
  EXPECT_EQ(rows_of(z.matrix), 2);
}

TEST(ReaderBipartite, NumberKinds) {
  EXPECT_EQ(kind_of(read_text("a b 2\nc d 1e3\ne f 2.50e1\n").matrix), NumberKind::Integer);
  EXPECT_EQ(triples<Integer>(read_text("a b 2\nc d 1e3\ne f 2.50e1\n").matrix),
            ints({{0, 0, 2}, {1, 1, 1000}, {2, 2, 25}}));
  const auto real = read_text("a b 0.25\nc d 3\n");
  EXPECT_EQ(triples<double>(real.matrix), (Triples<double>{{0, 0, 0.25}, {1, 1, 3.0}}));
  ReadOptions o;
  o.exact = true;
  const auto exact = read_text("a b 0.1\nc d 3\n", "in.txt", o);
  EXPECT_EQ(triples<Rational>(exact.matrix), (Triples<Rational>{{0, 0, q("1/10")}, {1, 1, 3}}));
  const auto zero = read_text("a b 0\nc d 1\n");
  EXPECT_EQ(triples<Integer>(zero.matrix), ints({{1, 1, 1}}));
  EXPECT_EQ(zero.notes, (std::vector<std::string>{"1 edge of weight 0 dropped"}));
}

TEST(ReaderBipartite, NetworkxAttributeDicts) {
  const auto res = read_text("0 1 {}\n1 2 {'weight': 3}\n2 0 {\"color\": 'red', \"weight\": -2}\n");
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {1, 1, 3}, {2, 2, -2}}));
  EXPECT_EQ(error_text("0 1 {'weight': x}\n"), "in.txt:1: not a number: 'x'");
  EXPECT_CONTAINS(error_text("0 1\n0 2 {'weight' 3\n"), "in.txt:2: malformed attribute dict");
}

TEST(ReaderBipartite, BadLines) {
  EXPECT_EQ(error_text("a b\nc d 1 2\n"), "in.txt:2: expected 'u v [weight]', found 4 fields");
  EXPECT_EQ(error_text("a b\n\nlonely\n"), "in.txt:3: expected 'u v [weight]', found 1 field");
  EXPECT_EQ(error_text("a b\nc d x1\n"), "in.txt:2: not a number: 'x1'");
  EXPECT_EQ(error_text("a b nan\n"), "in.txt:1: not a number: 'nan'");
  EXPECT_EQ(error_text("a b 0x10\n"), "in.txt:1: not a number: '0x10'");
  EXPECT_CONTAINS(error_text("a b 1e5000\n"), "in.txt:1: number out of range: '1e5000'");
  EXPECT_EQ(error_text(""), "in.txt: empty input: no edges");
  EXPECT_EQ(error_text("# only\n% comments\n\n \t\n"), "in.txt: empty input: no edges");
}

TEST(ReaderBipartite, LooksLikeABannerlessMatrixNote) {
  const auto res = read_text("2 2 2\n1 2 0.5\n2 1 0.5\n");
  ASSERT_EQ(res.notes.size(), 1u);
  EXPECT_CONTAINS(res.notes[0], "'n n nnz' size line");
}

// ----------------------------------------------------------------------------------------------
// Graphs

TEST(ReaderGraph, TwoColoursAPath) {
  const auto res = read_as("a b\nc b 2\nc d\n", InputFormat::Graph);
  EXPECT_EQ(res.format, "graph edge list (2-coloured)");
  EXPECT_EQ(res.row_names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(res.col_names, (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {1, 0, 2}, {1, 1, 1}}));
  EXPECT_TRUE(res.notes.empty());
}

TEST(ReaderGraph, ComponentsAndUnbalancedClasses) {
  // Two components: a 4-cycle and a star with three leaves.
  const auto res = read_as("1 2\n2 3\n3 4\n4 1\nhub x\nhub y\nhub z\n", InputFormat::Graph);
  EXPECT_EQ(res.row_names, (std::vector<std::string>{"1", "3", "hub"}));
  EXPECT_EQ(res.col_names, (std::vector<std::string>{"2", "4", "x", "y", "z"}));
  EXPECT_EQ(triples<Integer>(res.matrix),
            ints({{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 2, 1}, {2, 3, 1}, {2, 4, 1}}));
  ASSERT_EQ(res.notes.size(), 1u);
  EXPECT_EQ(res.notes[0], "the colour classes have 3 and 5 vertices: no perfect matching");
}

TEST(ReaderGraph, OddCyclesAndLoopsAreNotBipartite) {
  const std::string e = error_text("a b\nb c\nc d\nd e\ne a\n", "g.txt", InputFormat::Graph);
  EXPECT_CONTAINS(e, "graph is not bipartite: odd cycle ");
  EXPECT_CONTAINS(e, "hafnian, which matchcount does not count");
  EXPECT_CONTAINS(e, "g.txt:");
  EXPECT_EQ(error_text("a b\nc c\n", "g.txt", InputFormat::Graph),
            "g.txt:2: self-loop on c: the graph is not bipartite (perfect matchings of general "
            "graphs are a hafnian, which matchcount does not count)");
}

TEST(ReaderGraph, ReversedEdgesAreDuplicates) {
  EXPECT_EQ(error_text("a b\nb c\nb a\n", "g.txt", InputFormat::Graph),
            "g.txt:3: duplicate edge b a (first on line 1)");
  ReadOptions o;
  o.as = InputFormat::Graph;
  o.sum_duplicates = true;
  const auto res = read_text("a b\nb c\nb a 4\n", "g.txt", o);
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 5}, {1, 0, 1}}));
}

// ----------------------------------------------------------------------------------------------
// Digraphs

TEST(ReaderDigraph, ArcsWithLoops) {
  const auto res = read_as("x y\ny x 2\nx x\nz x\n", InputFormat::Digraph);
  EXPECT_EQ(res.format, "digraph arc list");
  EXPECT_EQ(res.row_names, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(res.col_names, res.row_names);
  EXPECT_EQ(rows_of(res.matrix), 3);
  EXPECT_EQ(cols_of(res.matrix), 3);
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {0, 1, 1}, {1, 0, 2}, {2, 0, 1}}));
  EXPECT_EQ(error_text("x y\ny x\nx y\n", "d.txt", InputFormat::Digraph),
            "d.txt:3: duplicate arc x y (first on line 1)");
}

TEST(ReaderDigraph, MatrixMarketBannerIsNotAnEdgeList) {
  EXPECT_CONTAINS(error_text("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n",
                             "d.txt", InputFormat::Digraph),
                  "d.txt:1: a Matrix Market file is a matrix, not an edge list");
}

// ----------------------------------------------------------------------------------------------
// Matrix Market

TEST(ReaderMatrixMarket, CoordinateGeneral) {
  const auto res = read_text(
      "%%MatrixMarket matrix coordinate real general\n% comment\n%\n\n3 3 4\n1 1 2.5\n3 2 -1\n"
      "2 3 0\n1 3 4\n");
  EXPECT_EQ(res.format, "Matrix Market coordinate real general");
  EXPECT_EQ(triples<double>(res.matrix),
            (Triples<double>{{0, 0, 2.5}, {0, 2, 4.0}, {2, 1, -1.0}}));
  EXPECT_EQ(res.notes, (std::vector<std::string>{"1 explicit zero entry dropped"}));
  EXPECT_TRUE(res.row_names.empty());
  // Integer values in a real file give an Integer matrix.
  const auto i = read_text("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 -3\n");
  EXPECT_EQ(triples<Integer>(i.matrix), ints({{0, 0, 1}, {1, 1, -3}}));
}

TEST(ReaderMatrixMarket, BannerWordsAnyCaseAndDoubleField) {
  const auto res = read_text("%%matrixmarket MATRIX Coordinate DOUBLE General\n1 1 1\n1 1 7\n");
  EXPECT_EQ(res.format, "Matrix Market coordinate real general");
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 7}}));
}

TEST(ReaderMatrixMarket, PatternAndIntegerFields) {
  const auto p = read_text("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 2\n");
  EXPECT_EQ(triples<Integer>(p.matrix), ints({{0, 0, 1}, {0, 1, 1}, {1, 2, 1}}));
  EXPECT_EQ(p.notes, (std::vector<std::string>{"matrix is 2x3, not square: no perfect matching"}));
  const auto i = read_text("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 1 +12\n");
  EXPECT_EQ(triples<Integer>(i.matrix), ints({{0, 1, -7}, {1, 0, 12}}));
}

TEST(ReaderMatrixMarket, SymmetricIsMirrored) {
  const auto res = read_text(
      "%%MatrixMarket matrix coordinate integer symmetric\n3 3 4\n1 1 5\n2 1 2\n3 1 -1\n3 3 4\n");
  EXPECT_EQ(res.format, "Matrix Market coordinate integer symmetric (mirrored)");
  EXPECT_EQ(triples<Integer>(res.matrix),
            ints({{0, 0, 5}, {0, 1, 2}, {0, 2, -1}, {1, 0, 2}, {2, 0, -1}, {2, 2, 4}}));
  const auto p = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n2 2\n");
  EXPECT_EQ(triples<Integer>(p.matrix), ints({{0, 1, 1}, {1, 0, 1}, {1, 1, 1}}));
}

TEST(ReaderMatrixMarket, SkewSymmetricIsNegated) {
  ReadOptions o;
  o.exact = true;
  const auto res = read_text(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 0.5\n3 2 -2\n", "m.mtx", o);
  EXPECT_EQ(res.format, "Matrix Market coordinate real skew-symmetric (mirrored)");
  EXPECT_EQ(triples<Rational>(res.matrix),
            (Triples<Rational>{{0, 1, q("-1/2")}, {1, 0, q("1/2")}, {1, 2, 2}, {2, 1, -2}}));
  // A zero on the diagonal is allowed (and dropped); a nonzero one is not.
  const auto z = read_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 2\n1 1 0\n2 1 3\n");
  EXPECT_EQ(triples<Integer>(z.matrix), ints({{0, 1, -3}, {1, 0, 3}}));
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 2 3\n"),
            "in.txt:3: nonzero diagonal entry 2 2 in a skew-symmetric matrix");
}

TEST(ReaderMatrixMarket, HermitianIsConjugated) {
  const auto res = read_text(
      "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 2 0\n2 1 1.5 -0.5\n");
  EXPECT_EQ(res.format, "Matrix Market coordinate complex hermitian (mirrored)");
  EXPECT_EQ(triples<Complex>(res.matrix),
            (Triples<Complex>{{0, 0, {2, 0}}, {0, 1, {1.5, 0.5}}, {1, 0, {1.5, -0.5}}}));
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 2 1\n"),
            "in.txt:3: diagonal entry 1 1 of a hermitian matrix has a nonzero imaginary part");
}

TEST(ReaderMatrixMarket, ComplexFields) {
  const auto c = read_text("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 0 1\n2 2 3 0\n");
  EXPECT_EQ(triples<Complex>(c.matrix), (Triples<Complex>{{0, 0, {0, 1}}, {1, 1, {3, 0}}}));
  // All values real integers: an Integer matrix.
  const auto i = read_text("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 1 2 0\n2 2 -3 0.0\n");
  EXPECT_EQ(triples<Integer>(i.matrix), ints({{0, 0, 2}, {1, 1, -3}}));
  // Real but not integer: stays complex.
  const auto r = read_text("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 0.5 0\n");
  EXPECT_EQ(triples<Complex>(r.matrix), (Triples<Complex>{{0, 0, {0.5, 0}}}));
  // 0 + 0i is an explicit zero.
  const auto z = read_text("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 0 0\n");
  EXPECT_EQ(nnz_of(z.matrix), 0u);
}

TEST(ReaderMatrixMarket, ArrayFormat) {
  // Column-major: [[1 3] [2 4]] with a zero dropped in a 2x3.
  const auto g = read_text("%%MatrixMarket matrix array integer general\n% c\n2 3\n1\n2\n3\n4\n0\n6\n");
  EXPECT_EQ(g.format, "Matrix Market array integer general");
  EXPECT_EQ(triples<Integer>(g.matrix), ints({{0, 0, 1}, {0, 1, 3}, {1, 0, 2}, {1, 1, 4}, {1, 2, 6}}));
  EXPECT_TRUE(g.notes.size() == 1 && g.notes[0] == "matrix is 2x3, not square: no perfect matching");
  // Symmetric: lower triangle column by column (a11 a21 a31 a22 a32 a33).
  const auto s = read_text("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  EXPECT_EQ(triples<Integer>(s.matrix), ints({{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {1, 0, 2}, {1, 1, 4},
                                              {1, 2, 5}, {2, 0, 3}, {2, 1, 5}, {2, 2, 6}}));
  // Skew-symmetric: strictly lower triangle (a21 a31 a32).
  const auto k = read_text("%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n");
  EXPECT_EQ(triples<Integer>(k.matrix),
            ints({{0, 1, -1}, {0, 2, -2}, {1, 0, 1}, {1, 2, -3}, {2, 0, 2}, {2, 1, 3}}));
  const auto c = read_text("%%MatrixMarket matrix array complex general\n1 2\n1 2\n0 -1\n");
  EXPECT_EQ(triples<Complex>(c.matrix), (Triples<Complex>{{0, 0, {1, 2}}, {0, 1, {0, -1}}}));
  EXPECT_EQ(error_text("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n"),
            "in.txt:5: only 3 of the 4 entries declared on line 2");
  EXPECT_EQ(error_text("%%MatrixMarket matrix array real general\n1 1\n1\n2\n"),
            "in.txt:4: more entries than the 1 declared on line 2");
  EXPECT_EQ(error_text("%%MatrixMarket matrix array real general\n1 1\n1 1 1\n"),
            "in.txt:3: expected 'value', found 3 fields");
}

TEST(ReaderMatrixMarket, EmptyMatrices) {
  const auto z = read_text("%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  EXPECT_EQ(rows_of(z.matrix), 0);
  EXPECT_EQ(cols_of(z.matrix), 0);
  EXPECT_EQ(kind_of(z.matrix), NumberKind::Integer);
  const auto a = read_text("%%MatrixMarket matrix array real general\n0 0\n");
  EXPECT_EQ(rows_of(a.matrix), 0);
  const auto n = read_text("%%MatrixMarket matrix coordinate real general\n3 3 0\n");
  EXPECT_EQ(rows_of(n.matrix), 3);
  EXPECT_EQ(nnz_of(n.matrix), 0u);
}

TEST(ReaderMatrixMarket, BannerErrors) {
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n"),
            "in.txt:1: incomplete Matrix Market banner: expected '%%MatrixMarket matrix FORMAT "
            "FIELD SYMMETRY'");
  EXPECT_CONTAINS(error_text("%%MatrixMarket matrix coordinate real general extra\n"),
                  "in.txt:1: unexpected word 'extra' in the Matrix Market banner");
  EXPECT_CONTAINS(error_text("%%MatrixMarketmatrix coordinate real general\n"),
                  "in.txt:1: malformed Matrix Market banner");
  EXPECT_EQ(error_text("%%MatrixMarket vector coordinate real general\n"),
            "in.txt:1: unsupported Matrix Market object 'vector' (only 'matrix')");
  EXPECT_EQ(error_text("%%MatrixMarket matrix sparse real general\n"),
            "in.txt:1: unknown Matrix Market format 'sparse' (coordinate or array)");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate quaternion general\n"),
            "in.txt:1: unknown Matrix Market field 'quaternion' (pattern, integer, real or complex)");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate real upper\n"),
            "in.txt:1: unknown Matrix Market symmetry 'upper' (general, symmetric, "
            "skew-symmetric or hermitian)");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n"),
            "in.txt:1: a pattern matrix cannot be skew-symmetric");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate pattern hermitian\n1 1 0\n"),
            "in.txt:1: a pattern matrix cannot be hermitian");
  EXPECT_EQ(error_text("%%MatrixMarket matrix array pattern general\n1 1\n"),
            "in.txt:1: the pattern field needs the coordinate format, not array");
}

TEST(ReaderMatrixMarket, SizeLineErrors) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n% c\n";
  EXPECT_EQ(error_text(b), "in.txt:2: missing size line");
  EXPECT_EQ(error_text(b + "3 3\n"), "in.txt:3: malformed size line: expected 'rows cols nnz', found 2 fields");
  EXPECT_EQ(error_text(b + "3 -3 1\n"), "in.txt:3: negative cols '-3' in the size line");
  EXPECT_EQ(error_text(b + "3 3 x\n"), "in.txt:3: malformed size line: expected 'rows cols nnz', found 'x'");
  EXPECT_EQ(error_text(b + "3.0 3 1\n"), "in.txt:3: malformed size line: expected 'rows cols nnz', found '3.0'");
  EXPECT_EQ(error_text(b + "2147483648 1 1\n"),
            "in.txt:3: rows '2147483648' too large (at most 2147483647)");
  EXPECT_EQ(error_text(b + "1 1 99999999999999999999999\n"),
            "in.txt:3: nnz '99999999999999999999999' too large (at most 18446744073709551615)");
  EXPECT_EQ(error_text(b + "2 2 5\n"), "in.txt:3: nnz 5 exceeds the 4 positions of a 2x2 matrix");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n"),
            "in.txt:2: a symmetric matrix must be square, not 2x3");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n"),
            "in.txt:2: nnz 4 exceeds the 3 positions of a 2x2 triangle matrix");
  // Huge sizes with few entries are read without allocating by size.
  const auto big = read_text(b + "2147483647 2147483647 1\n2147483647 1 1\n");
  EXPECT_EQ(rows_of(big.matrix), 2147483647);
}

TEST(ReaderMatrixMarket, EntryErrors) {
  const std::string b = "%%MatrixMarket matrix coordinate real general\n3 3 2\n";
  EXPECT_EQ(error_text(b + "1 1 1\n"), "in.txt:3: only 1 of the 2 entries declared on line 2");
  EXPECT_EQ(error_text(b + "1 1 1\n2 2 2\n3 3 3\n"),
            "in.txt:5: more entries than the 2 declared on line 2");
  EXPECT_EQ(error_text(b + "1 1 1\n4 1 1\n"), "in.txt:4: row index 4 out of range 1..3");
  EXPECT_EQ(error_text(b + "1 0 1\n"), "in.txt:3: column index 0 out of range 1..3");
  EXPECT_EQ(error_text(b + "1 -1 1\n"), "in.txt:3: malformed column index '-1'");
  EXPECT_EQ(error_text(b + "1.5 1 1\n"), "in.txt:3: malformed row index '1.5'");
  EXPECT_EQ(error_text(b + "99999999999999999999999 1 1\n"),
            "in.txt:3: row index '99999999999999999999999' out of range 1..3");
  EXPECT_EQ(error_text(b + "1 1 x\n"), "in.txt:3: not a number: 'x'");
  EXPECT_EQ(error_text(b + "1 1\n"), "in.txt:3: expected 'i j value', found 2 fields");
  EXPECT_EQ(error_text(b + "1 1 1\n2 2 2 2\n"), "in.txt:4: expected 'i j value', found 4 fields");
  EXPECT_EQ(error_text(b + "1 1 1\n% c\n1 1 2\n"), "in.txt:5: duplicate entry 1 1 (first on line 3)");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n"),
            "in.txt:3: expected 'i j', found 3 fields");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1\n"),
            "in.txt:3: expected 'i j re im', found 3 fields");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n"),
            "in.txt:3: non-integer value '1.5' in an integer matrix");
  EXPECT_EQ(error_text("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n"),
            "in.txt:3: entry 1 2 above the diagonal: a symmetric file stores only the lower "
            "triangle");
  ReadOptions o;
  o.sum_duplicates = true;
  const auto s = read_text(b + "1 1 1\n1 1 2\n", "in.txt", o);
  EXPECT_EQ(triples<Integer>(s.matrix), ints({{0, 0, 3}}));
}

TEST(ReaderMatrixMarket, ForcedMatrixReadingAndBannerDetection) {
  // A banner makes any name a Matrix Market file; without one only *.mtx is a matrix.
  const std::string mm = "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n";
  EXPECT_EQ(read_text(mm, "graph.txt").format, "Matrix Market coordinate pattern general");
  EXPECT_EQ(read_text("  " + mm, "graph.txt").format, "Matrix Market coordinate pattern general");
  EXPECT_EQ(read_as(mm, InputFormat::Matrix, "x").format, "Matrix Market coordinate pattern general");
  const std::string bare = "2 2 1\n1 2 5\n";
  EXPECT_EQ(read_text(bare, "m.MTX").format, "SUPerman coordinate (real)");
  EXPECT_EQ(read_as(bare, InputFormat::Matrix, "-").format, "SUPerman coordinate (real)");
  EXPECT_EQ(read_text(bare, "m.txt").format, "bipartite edge list");
}

// ----------------------------------------------------------------------------------------------
// SUPerman's banner-less files

TEST(ReaderSuperman, RealAndComplex) {
  const auto r = read_text("2 2 3\n1 1 0.91\n1 2 0.5\n2 2 0\n", "s.mtx");
  EXPECT_EQ(r.format, "SUPerman coordinate (real)");
  EXPECT_EQ(triples<double>(r.matrix), (Triples<double>{{0, 0, 0.91}, {0, 1, 0.5}}));
  const auto i = read_text("2 2 2\n1 1 3\n2 2 4\n", "s.mtx");
  EXPECT_EQ(triples<Integer>(i.matrix), ints({{0, 0, 3}, {1, 1, 4}}));
  const auto c = read_text("2 2 2\n1 1 0 1\n2 1 1 -2.5\n", "s.mtx");
  EXPECT_EQ(c.format, "SUPerman coordinate (complex)");
  EXPECT_EQ(triples<Complex>(c.matrix), (Triples<Complex>{{0, 0, {0, 1}}, {1, 0, {1, -2.5}}}));
  const auto ci = read_text("2 2 2\n1 1 2 0\n2 1 1 0\n", "s.mtx");
  EXPECT_EQ(triples<Integer>(ci.matrix), ints({{0, 0, 2}, {1, 0, 1}}));
}

TEST(ReaderSuperman, Errors) {
  EXPECT_EQ(error_text("2 3 1\n1 1 1\n", "s.mtx"),
            "s.mtx:1: a banner-less coordinate file must be square ('n n nnz'), not 2x3");
  EXPECT_EQ(error_text("2 2\n1 1 1\n", "s.mtx"),
            "s.mtx:1: expected the 'n n nnz' size line of a banner-less coordinate file, found 2 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n2 2 1 0\n", "s.mtx"),
            "s.mtx:3: expected 'i j value' like line 2, found 4 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1\n", "s.mtx"),
            "s.mtx:2: expected 'i j value' or 'i j re im', found 2 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n", "s.mtx"), "s.mtx:2: only 1 of the 2 entries declared on line 1");
  EXPECT_EQ(error_text("2 2 1\n1 1 1\n2 2 1\n", "s.mtx"),
            "s.mtx:3: more entries than the 1 declared on line 1");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n1 1 2\n", "s.mtx"), "s.mtx:3: duplicate entry 1 1 (first on line 2)");
  EXPECT_EQ(error_text("2 2 1\n3 1 1\n", "s.mtx"), "s.mtx:2: row index 3 out of range 1..2");
  EXPECT_EQ(error_text("", "s.mtx"), "s.mtx: empty input: missing the 'n n nnz' size line");
  EXPECT_EQ(error_text("-2 -2 1\n", "s.mtx"), "s.mtx:1: negative rows '-2' in the size line");
  EXPECT_EQ(error_text("a b\n", "s.mtx"),
            "s.mtx:1: expected the 'n n nnz' size line of a banner-less coordinate file, found 2 fields");
}

// ----------------------------------------------------------------------------------------------
// Files, streams and damaged input

TEST(ReaderInput, FilesAndMissingFiles) {
  const std::string path = test::temp_file("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n", ".dat");
  const auto res = read_input(path, ReadOptions{});
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}}));
  std::filesystem::remove(path);
  EXPECT_EQ(error_of([&] { read_input(path, ReadOptions{}); }),
            path + ": cannot open: No such file or directory");
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(error_of([&] { read_input(dir, ReadOptions{}); }), dir + ": cannot open: Is a directory");
  const std::string mtx = test::temp_file("1 1 1\n1 1 2\n", ".mtx");
  EXPECT_EQ(read_input(mtx, ReadOptions{}).format, "SUPerman coordinate (real)");
  std::filesystem::remove(mtx);
}

TEST(ReaderInput, BinaryDataLineEndingsAndByteOrderMarks) {
  EXPECT_EQ(error_text("a b\nc d\x01\n"), "in.txt:2: binary data, not a text file");
  EXPECT_EQ(error_text(std::string("a b\n\0\0\0", 7)), "in.txt:2: binary data, not a text file");
  EXPECT_EQ(error_text(std::string("%%MatrixMarket matrix coordinate real general\n% \x7f\n")),
            "in.txt:2: binary data, not a text file");
  // CRLF, old Mac CR inside a line, a BOM and a missing final newline.
  const auto res = read_text("\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\r\n2 2 2\r\n"
                             "1 1 1\r\n2 2 2");
  EXPECT_EQ(triples<Integer>(res.matrix), ints({{0, 0, 1}, {1, 1, 2}}));
  const auto utf8 = read_text("caf\xC3\xA9 b\n");
  EXPECT_EQ(utf8.row_names, (std::vector<std::string>{"caf\xC3\xA9"}));
}

TEST(ReaderInput, LongLinesAcrossBlocks) {
  // Names longer than the read block, and many lines, survive block boundaries.
  std::string text;
  const std::string long_name(70000, 'x');
  text += long_name + " y\n";
  for (int i = 0; i < 20000; ++i) {
    const std::string k = std::to_string(i);
    text.append("r").append(k).append(" c").append(k).append(" 2\n");
  }
  text.append("a ").append(long_name);
  const auto res = read_text(text);
  EXPECT_EQ(rows_of(res.matrix), 20002);
  EXPECT_EQ(cols_of(res.matrix), 20002);
  EXPECT_EQ(res.row_names[0], long_name);
  EXPECT_EQ(res.col_names.back(), long_name);
}

TEST(ReaderInput, ManyEdges) {
  // 300000 edges: hashed names on the left, numbers (some beyond the fast path) on the right.
  std::string text;
  const int n = 300000;
  text.reserve(static_cast<std::size_t>(n) * 24);
  for (int i = 0; i < n; ++i) {
    const int col = i < n / 2 ? i : 2000000 + i;
    text.append("r").append(std::to_string((i * 7919LL) % 5003)).append("\t");
    text.append(std::to_string(col)).append(" 0.5\n");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto res = read_text(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("read_seconds", std::to_string(seconds));  // about 0.1 s in a release build
  ASSERT_EQ(nnz_of(res.matrix), static_cast<std::size_t>(n));
  ASSERT_EQ(rows_of(res.matrix), 5003);
  ASSERT_EQ(cols_of(res.matrix), n);
  EXPECT_EQ(kind_of(res.matrix), NumberKind::Real);
  EXPECT_EQ(res.row_names[1], "r2916");
  EXPECT_EQ(res.col_names[n - 1], std::to_string(2000000 + n - 1));
  const auto& m = std::get<SparseMatrix<double>>(res.matrix);
  for (std::size_t k = 0; k < m.entries.size(); k += 997) {
    const auto& e = m.entries[k];
    const int i = std::stoi(res.col_names[static_cast<std::size_t>(e.col)]);
    const int row = i < n / 2 ? i : i - 2000000;
    EXPECT_EQ(res.row_names[static_cast<std::size_t>(e.row)], "r" + std::to_string((row * 7919LL) % 5003));
  }
}

TEST(ReaderFuzz, OnlyReturnsOrThrowsInputError) {
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1.5\n2 1 -2e3\n3 3 .5\n", "a.mtx"},
      {"%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 0 1\n", "b.mtx"},
      {"%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n", "c.mtx"},
      {"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n", "d.mtx"},
      {"2 2 2\n1 1 0.91\n2 2 1e-3\n", "e.mtx"},
      {"2 2 2\n1 1 0 1\n2 2 1 0\n", "f.mtx"},
      {"# edges\na b 1\nb c\nc d 2.5\nd a {'weight': 3}\n", "g.txt"},
  };
  const std::string alphabet = "0123456789 \t\n\r.-+eE%#abcxyz{}':,\x01";
  std::mt19937_64 rng(12345);
  int errors = 0, reads = 0;
  // MATCHCOUNT_READER_FUZZ=k runs k times as many cases (for sanitizer builds).
  const char* scale_env = std::getenv("MATCHCOUNT_READER_FUZZ");
  const int scale = scale_env != nullptr ? std::max(1, std::atoi(scale_env)) : 1;
  auto run = [&](const std::string& text, const std::string& name) {
    for (InputFormat as : {InputFormat::Auto, InputFormat::Graph, InputFormat::Digraph,
                           InputFormat::Matrix}) {
      ReadOptions o;
      o.as = as;
      o.sum_duplicates = (rng() & 1) != 0;
      o.exact = (rng() & 1) != 0;
      try {
        std::istringstream in(text);
        const ReadResult r = read_input(in, name, o);
        EXPECT_GE(rows_of(r.matrix), 0);
        ++reads;
      } catch (const InputError&) {
        ++errors;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected exception " << e.what() << " for input:\n" << text;
      }
    }
  };
  for (int iter = 0; iter < 12000 * scale; ++iter) {
    const auto& [seed, name] = seeds[rng() % seeds.size()];
    std::string text = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const std::size_t pos = text.empty() ? 0 : rng() % text.size();
      switch (rng() % 4) {
        case 0: if (!text.empty()) text[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 2: if (!text.empty()) text.erase(pos, 1 + rng() % 3); break;
        default: text.insert(pos, text.substr(pos, rng() % 12)); break;
      }
    }
    run(text, name);
  }
  for (int iter = 0; iter < 4000 * scale; ++iter) {
    std::string text(rng() % 200, '\0');
    for (auto& c : text) c = (rng() % 4 == 0) ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
    run(text, iter % 2 ? "r.mtx" : "r.txt");
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(reads, 0);
}

// ----------------------------------------------------------------------------------------------
// The shared matrices

TEST(ReaderShared, MatricesReadWithTheirSizes) {
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "no shared data folder";
  const std::string base = *shared + "/datasets/";
  std::ifstream values(base + "values.tsv");
  ASSERT_TRUE(values) << "values.tsv";
  std::string line;
  int checked = 0;
  while (std::getline(values, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("file\t", 0) == 0) continue;
    std::istringstream fields(line);
    std::string file;
    int n = 0;
    std::size_t nnz = 0;
    fields >> file >> n >> nnz;
    const ReadResult r = read_input(base + file, ReadOptions{});
    EXPECT_EQ(rows_of(r.matrix), n) << file;
    EXPECT_EQ(cols_of(r.matrix), n) << file;
    EXPECT_EQ(nnz_of(r.matrix), nnz) << file;
    ++checked;
  }
  EXPECT_GE(checked, 13);

  const std::map<std::string, NumberKind> kinds = {
      {"curtis54.mtx", NumberKind::Integer},     {"mycielskian6.mtx", NumberKind::Integer},
      {"football.mtx", NumberKind::Integer},     {"impcol_b.mtx", NumberKind::Real},
      {"d_ss.mtx", NumberKind::Real},            {"bcsstk01.mtx", NumberKind::Real},
      {"dense.mtx", NumberKind::Real},           {"complex.mtx", NumberKind::Complex},
      {"world_record_62.mtx", NumberKind::Real}, {"sparse.mtx", NumberKind::Real}};
  for (const auto& [file, kind] : kinds)
    EXPECT_EQ(kind_of(read_input(base + "matrices/" + file, ReadOptions{}).matrix), kind) << file;
  ReadOptions exact;
  exact.exact = true;
  EXPECT_EQ(kind_of(read_input(base + "matrices/d_ss.mtx", exact).matrix), NumberKind::Rational);
  const auto m = read_input(base + "matrices/mycielskian6.mtx", ReadOptions{});
  EXPECT_EQ(m.format, "Matrix Market coordinate pattern symmetric (mirrored)");
  EXPECT_EQ(read_input(base + "matrices/complex.mtx", ReadOptions{}).format,
            "SUPerman coordinate (complex)");
  // Every other matrix there reads too.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(base + "matrices"))
    if (entry.path().extension() == ".mtx") {
      EXPECT_NO_THROW(read_input(entry.path().string(), ReadOptions{})) << entry.path();
    }
}

}  // namespace
}  // namespace matchcount
