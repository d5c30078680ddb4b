// Readers: numbers, edge lists, graphs and digraphs; files, streams and damaged input.
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

#include "io_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace iotest;

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
            "in.txt:29: duplicate edge 1048576 1048576 (first on line 23): --sum-duplicates adds "
            "the weights of repeated edges");
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
  EXPECT_EQ(error_text(text),
            "in.txt:5: duplicate edge b y (first on line 2): --sum-duplicates adds the weights of "
            "repeated edges");
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
  EXPECT_EQ(error_text("a b\nc d 1 2\n"),
            "in.txt:2: expected 'u v [weight]' or a vertex 'u', found 4 fields (a fourth column, such as KONECT's "
            "timestamps, is read with --as bipartite, graph or digraph)");
  EXPECT_EQ(error_text("a b\nc d 1 2 3\n", "in.txt", InputFormat::Graph),
            "in.txt:2: expected 'u v [weight [timestamp]]' or a vertex 'u', found 5 fields");
  EXPECT_EQ(error_text("a b\nc d x1\n"), "in.txt:2: not a number: 'x1'");
  EXPECT_EQ(error_text("a b nan\n"), "in.txt:1: not a number: 'nan'");
  EXPECT_EQ(error_text("a b 0x10\n"), "in.txt:1: not a number: '0x10'");
  EXPECT_CONTAINS(error_text("a b 1e5000\n"), "in.txt:1: number out of range: '1e5000'");
  EXPECT_EQ(error_text(""), "in.txt: empty input: no edges");
  EXPECT_EQ(error_text("# only\n% comments\n\n \t\n"), "in.txt: empty input: no edges");
}

TEST(ReaderBipartite, LooksLikeABannerlessMatrixNote) {
  // The size line fits but one index does not: an edge list, with a note and a zero hint.
  const auto res = read_text("2 2 2\n1 2 0.5\n3 1 0.5\n");
  EXPECT_EQ(res.format, "bipartite edge list");
  ASSERT_EQ(res.notes.size(), 2u);  // and "3 left vertices but 2 right vertices"
  EXPECT_EQ(res.notes[0],
            "the first line looks like the 'rows cols nnz' size line of a banner-less coordinate "
            "matrix, but line 3 has row '3', not in 1..2: read as an edge list");
  EXPECT_CONTAINS(res.zero_hint, "line 3 has row '3', not in 1..2: --as matrix reads the file as a matrix");
  // A weighted edge list whose first line cannot be a size line (nnz > rows * cols) gets neither.
  const auto plain = read_text("1 2 5\n2 3 1\n");
  EXPECT_TRUE(plain.notes.empty());
  EXPECT_EQ(plain.zero_hint.find("--as matrix"), std::string::npos);
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

TEST(ReaderGraph, OddCyclesGiveTheSymmetricAdjacencyMatrix) {
  const auto c5 = read_as("a b\nb c\nc d\nd e\ne a\n", InputFormat::Graph);
  EXPECT_TRUE(c5.symmetric_graph);
  EXPECT_EQ(c5.row_names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(c5.col_names, c5.row_names);
  EXPECT_EQ(nnz_of(c5.matrix), 10u);
  EXPECT_CONTAINS(c5.notes.at(0), "not bipartite: its perfect matchings are counted as a hafnian");
  // A self-loop is dropped (it is in no perfect matching) and the rest is still bipartite.
  const auto loop = read_as("a b\nc c\n", InputFormat::Graph);
  EXPECT_FALSE(loop.symmetric_graph);
  EXPECT_CONTAINS(loop.notes.at(0), "1 self-loop (line 2) ignored");
  // A hafnian asks for the symmetric matrix even of a bipartite graph, and a plain list is then
  // read as one graph.
  ReadOptions haf;
  haf.hafnian = true;
  std::istringstream in("a b 2\nb c\n");
  const auto path = read_input(in, "p.txt", haf);
  EXPECT_TRUE(path.symmetric_graph);
  EXPECT_EQ(triples<Integer>(path.matrix), ints({{0, 1, 2}, {1, 0, 2}, {1, 2, 1}, {2, 1, 1}}));
}

TEST(ReaderMatrix, HafnianMatricesMustBeSymmetric) {
  ReadOptions haf;
  haf.hafnian = true;
  const auto read = [&](const std::string& text) {
    std::istringstream in(text);
    return read_input(in, "m.mtx", haf);
  };
  // A symmetric banner mirrors the lower triangle.
  EXPECT_EQ(nnz_of(read("%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n2 1 5\n3 3 1\n").matrix), 3u);
  const std::string general = "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 5\n2 1 5\n3 1 1\n";
  EXPECT_EQ(nnz_of(read("%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n2 1 5\n").matrix), 2u);
  try {
    read(general);
    FAIL() << "an asymmetric matrix was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "m.mtx:5: the matrix is not symmetric: entry (3, 1) has no entry at (1, 3) (the hafnian needs a "
              "symmetric matrix)");
  }
  try {
    read("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 5\n2 1 4\n");
    FAIL() << "an asymmetric matrix was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "m.mtx:3: the matrix is not symmetric: entry (1, 2) differs from entry (2, 1) on line 4 (the hafnian "
              "needs a symmetric matrix)");
  }
  EXPECT_THROW(read("%%MatrixMarket matrix coordinate integer general\n2 3 1\n1 2 5\n"), InputError);
}

TEST(ReaderGraph, ReversedEdgesAreDuplicates) {
  EXPECT_EQ(error_text("a b\nb c\nb a\n", "g.txt", InputFormat::Graph),
            "g.txt:3: duplicate edge b a (first on line 1 as a b): 1 edge is listed in both "
            "directions but 1 only once; list every edge once or every edge in both directions "
            "(--sum-duplicates adds the weights of repeated edges)");
  EXPECT_EQ(error_text("a b\nb c\na b\n", "g.txt", InputFormat::Graph),
            "g.txt:3: duplicate edge a b (first on line 1): --sum-duplicates adds the weights of "
            "repeated edges");
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
            "d.txt:3: duplicate arc x y (first on line 1): --sum-duplicates adds the weights of "
            "repeated arcs");
}

TEST(ReaderDigraph, MatrixMarketBannerIsNotAnEdgeList) {
  EXPECT_CONTAINS(error_text("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n",
                             "d.txt", InputFormat::Digraph),
                  "d.txt:1: a Matrix Market file is a matrix, not an edge list");
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
  RecordProperty("read_seconds", std::to_string(seconds));  // linear-time reading: well under a second in a release build
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
