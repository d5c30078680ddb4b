// Readers: DIMACS graphs, KONECT edge lists, banner-less coordinate files on any name, edge-list
// lines of one name (vertices without edges), and the zero hints that explain a count of 0.
#include <gtest/gtest.h>

#include <random>

#include "io_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace iotest;

// A 2 x 3 grid (vertices 1..6, rows of three) as DIMACS and as a plain edge list.
const std::string kGridDimacs =
    "c a 2 x 3 grid\nc second comment\np edge 6 7\ne 1 2\ne 2 3\ne 4 5\ne 5 6\ne 1 4\ne 2 5\n"
    "e 3 6\n";
const std::string kGridEdges = "1 2\n2 3\n4 5\n5 6\n1 4\n2 5\n3 6\n";

// ----------------------------------------------------------------------------------------------
// DIMACS

TEST(ReaderDimacs, ReadsAsTheSameGraphAsAnEdgeList) {
  const auto d = read_text(kGridDimacs, "grid.txt");
  const auto g = read_as(kGridEdges, InputFormat::Graph);
  EXPECT_EQ(d.format, "DIMACS graph (2-coloured)");
  EXPECT_EQ(rows_of(d.matrix), 3);
  EXPECT_EQ(cols_of(d.matrix), 3);
  EXPECT_EQ(by_name(d), by_name(g));
  EXPECT_EQ(by_name(d).size(), 7u);
  EXPECT_TRUE(d.notes.empty());
  EXPECT_TRUE(d.zero_hint.empty());
  // 'p col', --as dimacs, --as graph and standard input read it the same way.
  std::string col = kGridDimacs;
  col.replace(col.find("p edge"), 6, "p col");
  EXPECT_EQ(by_name(read_text(col, "<stdin>")), by_name(g));
  EXPECT_EQ(by_name(read_as(kGridDimacs, InputFormat::Dimacs, "x.edges")), by_name(g));
  EXPECT_EQ(by_name(read_as(kGridDimacs, InputFormat::Graph)), by_name(g));
  // Blank lines and comments anywhere.
  EXPECT_EQ(by_name(read_text("\np edge 2 1\nc x\n\ne 2 1\n")),
            by_name(read_as("1 2\n", InputFormat::Graph)));
}

TEST(ReaderDimacs, EdgesListedInBothDirectionsCountOnce) {
  const auto d = read_text("p edge 4 4\ne 1 2\ne 2 1\ne 2 3\ne 3 2\ne 3 4\ne 4 3\ne 4 1\ne 1 4\n");
  EXPECT_EQ(by_name(d), by_name(read_as("1 2\n2 3\n3 4\n4 1\n", InputFormat::Graph)));
  EXPECT_EQ(d.notes, (std::vector<std::string>{
                         "every edge is listed twice, as u v and v u: each pair is read as one edge"}));
  // M may count the lines instead of the edges.
  EXPECT_EQ(nnz_of(read_text("p edge 2 2\ne 1 2\ne 2 1\n").matrix), 1u);
  // A mixture is refused where the second direction of the first pair appears.
  EXPECT_EQ(error_text("p edge 3 3\ne 1 2\ne 2 3\ne 2 1\n"),
            "in.txt:4: duplicate edge 2 1 (first on line 2 as 1 2): 1 edge is listed in both "
            "directions but 1 only once; list every edge once or every edge in both directions "
            "(--sum-duplicates adds the weights of repeated edges)");
  // A plain repeat is a duplicate, as in edge lists.
  EXPECT_EQ(error_text("p edge 3 2\ne 1 2\ne 1 2\n"),
            "in.txt:3: duplicate edge 1 2 (first on line 2): --sum-duplicates adds the weights of "
            "repeated edges");
  ReadOptions sum;
  sum.sum_duplicates = true;
  const auto s = read_text("p edge 2 2\ne 1 2\ne 1 2\n", "in.txt", sum);
  EXPECT_EQ(triples<Integer>(s.matrix), ints({{0, 0, 2}}));
}

TEST(ReaderDimacs, IsolatedVerticesCountAndGiveAHint) {
  const auto d = read_text("p edge 5 1\ne 1 2\n");
  EXPECT_EQ(rows_of(d.matrix) + cols_of(d.matrix), 5);
  EXPECT_EQ(nnz_of(d.matrix), 1u);
  EXPECT_EQ(d.zero_hint,
            "vertex 3 has no edge (3 vertices have none): a perfect matching covers every vertex");
  EXPECT_EQ(read_text("p edge 0 0\n").zero_hint, "");
}

TEST(ReaderDimacs, MalformedFilesNameTheLine) {
  EXPECT_EQ(error_text("c only comments\n", "d.col", InputFormat::Dimacs),
            "d.col: missing the 'p edge N M' line: not a DIMACS graph");
  EXPECT_EQ(error_text("e 1 2\np edge 2 1\n", "d.col", InputFormat::Dimacs),
            "d.col:1: edge before the 'p edge N M' line");
  EXPECT_EQ(error_text("p edge 2 1\np edge 2 1\ne 1 2\n"),
            "in.txt:2: a second p line (the first is line 1)");
  EXPECT_EQ(error_text("p edge 3 1\ne 1 4\n"), "in.txt:2: vertex 4 outside 1..3 (the p line on line 1)");
  EXPECT_EQ(error_text("p edge 3 1\ne 0 1\n"), "in.txt:2: vertex 0 outside 1..3 (the p line on line 1)");
  EXPECT_EQ(error_text("p edge 3 1\ne 1 x\n"), "in.txt:2: malformed vertex 'x': expected a number 1..3");
  EXPECT_EQ(error_text("p edge 3 1\ne 1 2 3\n"), "in.txt:2: expected 'e U V', found 4 fields");
  EXPECT_EQ(error_text("p edge 3\n"), "in.txt:1: expected 'p edge N M', found 3 fields");
  EXPECT_EQ(error_text("p edge 3 x\n"),
            "in.txt:1: malformed size line: expected 'p edge N M', found 'x'");
  EXPECT_EQ(error_text("p sp 3 1\n", "d", InputFormat::Dimacs),
            "d:1: unsupported DIMACS problem 'sp': expected 'p edge N M' or 'p col N M'");
  EXPECT_EQ(error_text("p edge 3 1\nn 1 5\n"),
            "in.txt:2: unexpected line starting with 'n': a DIMACS graph has 'c', 'p edge N M' and "
            "'e U V' lines");
  EXPECT_EQ(error_text("p edge 4 1\ne 1 2\ne 3 4\n"), "in.txt:3: more edges than the 1 declared on line 1");
  EXPECT_EQ(error_text("p edge 4 1\ne 1 2\ne 3 4\ne 2 3\n"),
            "in.txt:3: more edges than the 1 declared on line 1");
  EXPECT_EQ(error_text("p edge 4 3\ne 1 2\ne 3 4\n"), "in.txt:3: only 2 of the 3 edges declared on line 1");
  // A vertex count far beyond what the input could describe is refused before any allocation.
  EXPECT_EQ(error_text("p edge 2000000000 1\ne 1 2\n"),
            "in.txt:1: 2000000000 vertices for an input of 26 bytes: more than the reader accepts "
            "(1048576, or 8 per byte)");
  EXPECT_EQ(error_text("p edge 2147483648 0\n"),
            "in.txt:1: vertices '2147483648' too large (at most 2147483647)");
  // A DIMACS file is an undirected graph, not a bipartite list or a digraph.
  EXPECT_EQ(error_text(kGridDimacs, "g.col", InputFormat::Bipartite),
            "g.col:3: a DIMACS file ('p edge N M') is an undirected graph, which --as bipartite "
            "does not read (--as auto recognises it)");
}

// ----------------------------------------------------------------------------------------------
// KONECT

TEST(ReaderDimacs, GeneralGraphsGiveTheirSymmetricAdjacencyMatrix) {
  // A self-loop lies in no perfect matching: dropped with a note (and a hint for a count of 0).
  const auto loop = read_text("p edge 4 2\ne 2 2\ne 3 4\n");
  EXPECT_FALSE(loop.symmetric_graph);
  EXPECT_CONTAINS(loop.notes.at(0), "1 self-loop (line 2) ignored");
  EXPECT_CONTAINS(loop.zero_hint, "--loop-hafnian");
  // A triangle is not bipartite: its adjacency matrix, both triangles stored.
  const auto odd = read_text("p edge 3 3\ne 1 2\ne 2 3\ne 3 1\n");
  EXPECT_TRUE(odd.symmetric_graph);
  EXPECT_EQ(odd.format, "DIMACS graph (symmetric adjacency matrix)");
  EXPECT_EQ(triples<Integer>(odd.matrix), ints({{0, 1, 1}, {0, 2, 1}, {1, 0, 1}, {1, 2, 1}, {2, 0, 1}, {2, 1, 1}}));
  // With loops kept (the loop hafnian), they sit on the diagonal.
  ReadOptions loops;
  loops.loops = true;
  std::istringstream in("p edge 2 2\ne 1 1\ne 1 2\n");
  const auto kept = read_input(in, "in.txt", loops);
  EXPECT_TRUE(kept.symmetric_graph);
  EXPECT_EQ(triples<Integer>(kept.matrix), ints({{0, 0, 1}, {0, 1, 1}, {1, 0, 1}}));
}

TEST(ReaderKonect, HeaderChoosesTheReading) {
  const auto bip = read_text("% bip unweighted\n% 3 2 2\n1 1\n1 2\n2 2\n");
  EXPECT_EQ(bip.format, "KONECT bipartite edge list");
  EXPECT_EQ(by_name(bip), by_name(read_as("1 1\n1 2\n2 2\n", InputFormat::Bipartite)));
  EXPECT_TRUE(bip.notes.empty());
  const auto sym = read_text("% sym unweighted\n1 2\n2 3\n3 4\n4 1\n");
  EXPECT_EQ(sym.format, "KONECT graph edge list (2-coloured)");
  EXPECT_EQ(by_name(sym), by_name(read_as("1 2\n2 3\n3 4\n4 1\n", InputFormat::Graph)));
  const auto asym = read_text("%asym positive\n1 2 3\n2 1\n1 1 2\n");
  EXPECT_EQ(asym.format, "KONECT digraph arc list");
  EXPECT_EQ(by_name(asym), by_name(read_as("1 2 3\n2 1\n1 1 2\n", InputFormat::Digraph)));
  // A bip file whose two sides reuse the numbers 1..n gets no hint about overlapping names.
  EXPECT_TRUE(read_text("% bip unweighted\n1 1\n1 2\n").zero_hint.find("--as graph") == std::string::npos);
}

TEST(ReaderKonect, TimestampsCountsAndExplicitReadings) {
  const auto t = read_text("% sym unweighted\n% 2 3 3\n1 2 1 1400000000\n2 3 1 1400000001\n");
  EXPECT_EQ(t.notes, (std::vector<std::string>{"the fourth column (a KONECT timestamp) is ignored on 2 lines",
                                               "the colour classes have 2 and 1 vertices: no perfect matching"}));
  const auto counts = read_text("% bip unweighted\n% 5 3 2\n1 1\n2 2\n");
  ASSERT_EQ(counts.notes.size(), 1u);
  EXPECT_EQ(counts.notes[0],
            "line 2 declares 5 edges and 3 + 2 vertices; the edges give 2 and 2 + 2 (vertices "
            "without edges are not read)");
  // --as wins over the header (with a note); four columns work with any explicit --as.
  const auto forced = read_as("% sym\n1 2 1 7\n2 1 1 8\n", InputFormat::Digraph);
  EXPECT_EQ(forced.format, "KONECT digraph arc list");
  EXPECT_EQ(forced.notes.at(0), "the KONECT header says 'sym' (graph), read as digraph as --as asks");
  EXPECT_EQ(by_name(read_as("a b 2 99\nb c 1 98\n", InputFormat::Graph)),
            by_name(read_as("a b 2\nb c 1\n", InputFormat::Graph)));
  EXPECT_EQ(error_text("% bip\n1 2 1 5 6\n"), "in.txt:2: expected 'u v [weight [timestamp]]' or a vertex 'u', found 5 fields");
  EXPECT_EQ(error_text("% bip\n1 2 1 x\n"), "in.txt:2: not a number: 'x' (the fourth column is a timestamp)");
}

TEST(ReaderKonect, RepeatedLinesSuggestSummingThem) {
  const std::string multi = "% bip unweighted\n1 1\n1 2\n1 1\n2 2\n";
  EXPECT_EQ(error_text(multi), "in.txt:4: duplicate edge 1 1 (first on line 2): --sum-duplicates adds the "
                               "weights of repeated edges");
  ReadOptions sum;
  sum.sum_duplicates = true;
  EXPECT_EQ(triples<Integer>(read_text(multi, "in.txt", sum).matrix), ints({{0, 0, 2}, {0, 1, 1}, {1, 1, 1}}));
}

// ----------------------------------------------------------------------------------------------
// Banner-less coordinate files on any name

TEST(ReaderBannerless, DetectedWhenTheWholeInputFits) {
  const std::string rect = "% SUPerman\n2 3 3\n1 1 2\n2 3 0.5\n1 2 -1\n";
  const auto r = read_text(rect, "<stdin>");
  EXPECT_EQ(r.format, "SUPerman coordinate (real)");
  EXPECT_EQ(triples<double>(r.matrix), (Triples<double>{{0, 0, 2.0}, {0, 1, -1.0}, {1, 2, 0.5}}));
  EXPECT_EQ(r.notes, (std::vector<std::string>{"read as a banner-less coordinate matrix: line 2 is its "
                                               "'rows cols nnz' size line and every entry fits it"}));
  const auto c = read_text("2 2 2\n1 1 0 1\n2 2 3 0\n", "m.dat");
  EXPECT_EQ(c.format, "SUPerman coordinate (complex)");
  EXPECT_EQ(triples<Complex>(c.matrix), (Triples<Complex>{{0, 0, {0, 1}}, {1, 1, {3, 0}}}));
  // The same entries as a Matrix Market file.
  const auto mm = read_text("%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 2\n2 3 0.5\n1 2 -1\n");
  EXPECT_EQ(triples<double>(mm.matrix), triples<double>(r.matrix));
}

TEST(ReaderBannerless, OtherwiseAnEdgeListWithAHint) {
  const struct {
    std::string text, why;
  } cases[] = {
      {"3 3 2\n1 2 1\n", "only 1 of the 2 entries it declares follow"},
      {"3 3 1\n1 2 1\n2 3 1\n", "line 3 is one more than the 1 entries it declares"},
      {"3 3 2\n1 2 1\n2 3\n", "line 3 has 2 fields, not 'i j value' or 'i j re im'"},
      {"3 3 2\n1 2 1\n2 4 1\n", "line 3 has column '4', not in 1..3"},
  };
  for (const auto& c : cases) {
    const auto r = read_text(c.text, "<stdin>");
    EXPECT_EQ(r.format, "bipartite edge list") << c.text;
    EXPECT_EQ(r.zero_hint, "the first line looks like the 'rows cols nnz' size line of a banner-less "
                           "coordinate matrix, but " + c.why + ": --as matrix reads the file as a matrix")
        << c.text;
  }
  // --as matrix then says what is wrong.
  EXPECT_EQ(error_text("3 3 2\n1 2 1\n2 4 1\n", "<stdin>", InputFormat::Matrix),
            "<stdin>:3: column index 4 out of range 1..3");
}

// ----------------------------------------------------------------------------------------------
// Zero hints

TEST(ReaderZeroHints, UndirectedListReadAsBipartite) {
  const std::string grid = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/grid8x8.edges";
  const auto b = read_input(grid, ReadOptions{});
  EXPECT_EQ(b.format, "bipartite edge list");
  EXPECT_EQ(b.zero_hint, "62 names appear both as u and as v, but a bipartite edge list keeps its two sides "
                         "apart: if the list is undirected, --as graph reads it as one graph");
  ReadOptions g;
  g.as = InputFormat::Graph;
  EXPECT_EQ(read_input(grid, g).zero_hint, "");
  // A bipartite list with equal sides and a perfect matching: no hint.
  EXPECT_EQ(read_text("a x\nb y\na y\n").zero_hint, "");
  // Names on both sides, but a line 'x x' that --as graph would refuse: no --as graph hint.
  EXPECT_EQ(read_text("1 1\n1 2\n2 2\n").zero_hint, "");
  EXPECT_EQ(read_text("1 2\n2 3\n").zero_hint,
            "1 name appears both as u and as v, but a bipartite edge list keeps its two sides apart: "
            "if the list is undirected, --as graph reads it as one graph");
}

TEST(ReaderZeroHints, UnequalSidesAndEmptyLines) {
  std::string text;
  for (int i = 0; i < 26; ++i) text += "l" + std::to_string(i) + " r" + std::to_string(i % 25) + "\n";
  EXPECT_EQ(read_text(text).zero_hint,
            "26 left vertices but 25 right vertices: a perfect matching needs equal sides");
  EXPECT_EQ(read_as("hub x\nhub y\nhub z\n", InputFormat::Graph).zero_hint,
            "the colour classes have 1 and 3 vertices: a perfect matching needs equal classes");
  // Equal classes in total, but each component is unbalanced.
  EXPECT_EQ(read_as("a b\nb c\nx y\nx z\n", InputFormat::Graph).zero_hint,
            "the connected component of vertex a has 2 and 1 vertices in its colour classes (2 "
            "components are unbalanced): a perfect matching needs them equal in every component");
  // A zero weight leaves a vertex without edges.
  EXPECT_EQ(read_text("a x 0\nb y\n").zero_hint,
            "left vertex a has no edge of nonzero weight (2 vertices have none): a perfect matching "
            "covers every vertex");
  EXPECT_EQ(read_as("a b\nb b\n", InputFormat::Digraph).zero_hint,
            "vertex a has no incoming arc (1 vertex has none): a cycle cover enters every vertex once");
  EXPECT_EQ(read_as("a b 0\nb b\nb a\n", InputFormat::Digraph).zero_hint,
            "vertex a has no outgoing arc of nonzero weight (1 vertex has none): a cycle cover leaves "
            "every vertex once");
}

TEST(ReaderZeroHints, MatricesNameAnEmptyLineOnTheShorterSide) {
  const std::string b = "%%MatrixMarket matrix coordinate integer general\n";
  EXPECT_EQ(read_text(b + "3 3 2\n1 1 1\n3 3 1\n").zero_hint,
            "row 2 has no nonzero entry (1 row has none): the permanent is 0");
  EXPECT_EQ(read_text(b + "3 3 3\n1 1 1\n2 1 1\n3 1 0\n").zero_hint,
            "row 3 has no nonzero entry (1 row has none): the permanent is 0");
  // 2 x 3: an empty column does not make the permanent 0, an empty row does.
  EXPECT_EQ(read_text(b + "2 3 2\n1 1 1\n2 2 1\n").zero_hint, "");
  EXPECT_EQ(read_text(b + "2 3 2\n1 1 1\n1 2 1\n").zero_hint,
            "row 2 has no nonzero entry (1 row has none): the permanent is 0");
  EXPECT_EQ(read_text(b + "3 2 1\n1 1 1\n").zero_hint,
            "column 2 has no nonzero entry (1 column has none): the permanent is 0");
  EXPECT_EQ(read_text("2 2 1\n1 1 5\n", "s.mtx").zero_hint,
            "row 2 has no nonzero entry (1 row has none): the permanent is 0");
}

// ----------------------------------------------------------------------------------------------
// Damaged text in the new formats

TEST(ReaderFuzz, NewTextFormatsOnlyReturnOrThrowInputError) {
  const std::vector<std::string> seeds = {kGridDimacs, "p edge 4 4\ne 1 2\ne 2 1\ne 3 4\ne 4 3\n",
                                          "% bip unweighted\n% 3 2 2\n1 1 1 5\n1 2\n2 2\n",
                                          "% sym\n1 2\n2 3 1 7\n", "2 3 2\n1 1 2\n2 3 0.5\n"};
  const std::string alphabet = "0123456789 \n.-epc%#abx";
  std::mt19937_64 rng(99);
  int reads = 0, errors = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = seeds[rng() % seeds.size()];
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      const std::size_t pos = rng() % (text.size() + 1);
      if (rng() % 2 != 0) text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      else if (pos < text.size()) text.erase(pos, 1);
    }
    for (InputFormat as : {InputFormat::Auto, InputFormat::Dimacs, InputFormat::Graph, InputFormat::Bipartite}) {
      ReadOptions o;
      o.as = as;
      o.sum_duplicates = (rng() & 1) != 0;
      try {
        const ReadResult r = read_text(text, "f.txt", o);
        EXPECT_GE(rows_of(r.matrix), 0);
        ++reads;
      } catch (const InputError&) {
        ++errors;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected exception " << e.what() << " for input:\n" << text;
      }
    }
  }
  EXPECT_GT(reads, 0);
  EXPECT_GT(errors, 0);
}

TEST(ReaderGraph, OneNameLinesDeclareVerticesWithoutEdges) {
  // A graph: an isolated vertex, which colours white (a row) and empties its row.
  const auto g = read_as("a b\nlonely\nb c\n", InputFormat::Graph);
  EXPECT_EQ(g.row_names, (std::vector<std::string>{"a", "lonely", "c"}));
  EXPECT_EQ(g.col_names, (std::vector<std::string>{"b"}));
  EXPECT_EQ(triples<Integer>(g.matrix), ints({{0, 0, 1}, {2, 0, 1}}));
  EXPECT_EQ(g.zero_hint, "vertex lonely has no edge (1 vertex has none): a perfect matching covers every vertex");
  // Symmetric (a hafnian's reading): one vertex, one empty row and column.
  ReadOptions haf;
  haf.hafnian = true;
  std::istringstream in("a b\nc\n");
  const auto h = read_input(in, "h.txt", haf);
  EXPECT_EQ(rows_of(h.matrix), 3);
  EXPECT_EQ(h.zero_hint, "vertex c has no edge (1 vertex has none): a perfect matching covers every vertex");
  // Bipartite: a left vertex; a file of vertices alone is not empty.
  const auto b = read_text("x y\nz\n");
  EXPECT_EQ(b.row_names, (std::vector<std::string>{"x", "z"}));
  EXPECT_EQ(b.col_names, (std::vector<std::string>{"y"}));
  const auto alone = read_as("v\nw\n", InputFormat::Graph);
  EXPECT_EQ(rows_of(alone.matrix) + cols_of(alone.matrix), 2);
  EXPECT_EQ(nnz_of(alone.matrix), 0u);
  // A name given twice is one vertex; so is a name that also has edges.
  EXPECT_EQ(rows_of(read_as("a\na\na b\n", InputFormat::Graph).matrix), 1);
}

}  // namespace
}  // namespace matchcount
