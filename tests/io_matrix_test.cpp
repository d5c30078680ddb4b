// Readers: Matrix Market files and SUPerman's banner-less coordinate files.
#include <gtest/gtest.h>

#include "io_helpers.hpp"

namespace matchcount {
namespace {

using namespace iotest;

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
  EXPECT_TRUE(p.notes.empty());  // a rectangular matrix has a permanent: no note
  EXPECT_EQ(rows_of(p.matrix), 2);
  EXPECT_EQ(cols_of(p.matrix), 3);
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
  EXPECT_TRUE(g.notes.empty());
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
  // Other names and standard input: when the whole input has that shape.
  EXPECT_EQ(read_text(bare, "m.txt").format, "SUPerman coordinate (real)");
  EXPECT_EQ(read_text(bare, "<stdin>").format, "SUPerman coordinate (real)");
  EXPECT_EQ(read_text("2 2 2\n1 2 5\n", "m.txt").format, "bipartite edge list");
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
  // Rectangular files are read with their shape (their permanent is the rectangular one).
  const auto rect = read_text("2 3 2\n1 3 7\n2 1 -1\n", "s.mtx");
  EXPECT_EQ(rows_of(rect.matrix), 2);
  EXPECT_EQ(cols_of(rect.matrix), 3);
  EXPECT_EQ(triples<Integer>(rect.matrix), ints({{0, 2, 7}, {1, 0, -1}}));
  EXPECT_TRUE(rect.notes.empty());
  EXPECT_EQ(error_text("2 3 1\n3 1 1\n", "s.mtx"), "s.mtx:2: row index 3 out of range 1..2");
  EXPECT_EQ(error_text("2 3 7\n", "s.mtx"), "s.mtx:1: nnz 7 exceeds the 6 positions of a 2x3 matrix");
}

TEST(ReaderSuperman, Errors) {
  EXPECT_EQ(error_text("2 2\n1 1 1\n", "s.mtx"),
            "s.mtx:1: expected the 'rows cols nnz' size line of a banner-less coordinate file, found 2 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n2 2 1 0\n", "s.mtx"),
            "s.mtx:3: expected 'i j value' like line 2, found 4 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1\n", "s.mtx"),
            "s.mtx:2: expected 'i j value' or 'i j re im', found 2 fields");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n", "s.mtx"), "s.mtx:2: only 1 of the 2 entries declared on line 1");
  EXPECT_EQ(error_text("2 2 1\n1 1 1\n2 2 1\n", "s.mtx"),
            "s.mtx:3: more entries than the 1 declared on line 1");
  EXPECT_EQ(error_text("2 2 2\n1 1 1\n1 1 2\n", "s.mtx"), "s.mtx:3: duplicate entry 1 1 (first on line 2)");
  EXPECT_EQ(error_text("2 2 1\n3 1 1\n", "s.mtx"), "s.mtx:2: row index 3 out of range 1..2");
  EXPECT_EQ(error_text("", "s.mtx"), "s.mtx: empty input: missing the 'rows cols nnz' size line");
  EXPECT_EQ(error_text("-2 -2 1\n", "s.mtx"), "s.mtx:1: negative rows '-2' in the size line");
  EXPECT_EQ(error_text("a b\n", "s.mtx"),
            "s.mtx:1: expected the 'rows cols nnz' size line of a banner-less coordinate file, found 2 fields");
}

}  // namespace
}  // namespace matchcount
