// The writers of generate.hpp read back by read_input, and the bundled datasets against the
// generators and known counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "generate_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"

using namespace matchcount;
using namespace matchcount::gentest;

namespace {

ReadResult read_text(const std::string& text, const std::string& name, InputFormat as,
                     bool exact = false) {
  std::istringstream in(text);
  ReadOptions options;
  options.as = as;
  options.exact = exact;
  return read_input(in, name, options);
}

/// The number in a vertex name such as "12", "r3", "c0".
int name_number(const std::string& name) {
  return std::stoi(name.substr(name.find_first_of("0123456789")));
}

}  // namespace

// --- writers ---------------------------------------------------------------------------------

TEST(GenerateWriters, ExactDecimal) {
  std::string s;
  EXPECT_TRUE(exact_decimal(Rational(1, 8), s));
  EXPECT_EQ(s, "0.125");
  EXPECT_TRUE(exact_decimal(Rational(-5, 2), s));
  EXPECT_EQ(s, "-2.5");
  EXPECT_TRUE(exact_decimal(Rational(3), s));
  EXPECT_EQ(s, "3");
  EXPECT_TRUE(exact_decimal(Rational(7, 20), s));
  EXPECT_EQ(s, "0.35");
  EXPECT_TRUE(exact_decimal(Rational(-1, 1024), s));
  EXPECT_EQ(s, "-0.0009765625");
  EXPECT_TRUE(exact_decimal(Rational(0), s));
  EXPECT_EQ(s, "0");
  EXPECT_TRUE(exact_decimal(Rational(123456789, 1000), s));
  EXPECT_EQ(s, "123456.789");
  EXPECT_FALSE(exact_decimal(Rational(1, 3), s));
  EXPECT_FALSE(exact_decimal(Rational(1, 6), s));
}

TEST(GenerateWriters, TextFormats) {
  std::ostringstream edges;
  write_edge_list(edges, grid_graph(1, 3), "a 1 x 3 grid\nsecond line");
  EXPECT_EQ(edges.str(),
            "# a 1 x 3 grid\n# second line\n# undirected graph: 3 vertices 0..2, 2 edges\n0 1\n1 2\n");

  SparseMatrix<Integer> m;
  m.rows = 2;
  m.cols = 3;
  m.entries = {{1, 2, Integer(-4)}, {0, 0, Integer(1)}};
  std::ostringstream mtx;
  write_matrix_market(mtx, AnyMatrix(m), "note");
  EXPECT_EQ(mtx.str(), "%%MatrixMarket matrix coordinate integer general\n% note\n2 3 2\n1 1 1\n2 3 -4\n");
  std::ostringstream bip;
  write_bipartite_edges(bip, m);
  EXPECT_EQ(bip.str(), "# bipartite graph: rows r0..r1, columns c0..c2, 2 edges\n"
                       "# 1 vertices without edges are not in this file: c1\nr0 c0\nr1 c2 -4\n");

  SparseMatrix<Rational> q;
  q.rows = q.cols = 1;
  q.entries = {{0, 0, Rational(1, 3)}};
  std::ostringstream refused;
  EXPECT_THROW(write_matrix_market(refused, AnyMatrix(q)), RefusedError);
  EXPECT_TRUE(refused.str().empty());
  SparseMatrix<double> inf;
  inf.rows = inf.cols = 1;
  inf.entries = {{0, 0, 1.0 / 0.0}};
  EXPECT_THROW(write_matrix_market(refused, AnyMatrix(inf)), RefusedError);
  std::ostringstream arcs;
  EXPECT_THROW(write_arc_list(arcs, m), UsageError);  // not square
}

TEST(GenerateWriters, EdgeListRoundTrip) {
  for (const EdgeList& g : {grid_graph(4, 5), aztec_diamond_graph(3), hypercube_graph(4), torus_graph(4, 6)}) {
    std::ostringstream out;
    write_edge_list(out, g, "round trip");
    const ReadResult r = read_text(out.str(), "g.edges", InputFormat::Graph);
    const auto& a = std::get<SparseMatrix<Integer>>(r.matrix);
    ASSERT_EQ(r.row_names.size(), static_cast<std::size_t>(a.rows));
    ASSERT_EQ(r.col_names.size(), static_cast<std::size_t>(a.cols));
    std::vector<std::pair<int, int>> back;
    for (const auto& e : a.entries) {
      EXPECT_EQ(e.value, 1);
      const int u = name_number(r.row_names[e.row]), v = name_number(r.col_names[e.col]);
      back.emplace_back(std::min(u, v), std::max(u, v));
    }
    std::sort(back.begin(), back.end());
    EXPECT_EQ(back, g.edges);
    EXPECT_EQ(a.rows + a.cols, g.vertices);
    EXPECT_EQ(permanent(a), Integer(static_cast<unsigned long>(graph_matchings(g))));
  }
}

TEST(GenerateWriters, ArcAndBipartiteRoundTrip) {
  for (const auto& d : {complete_loopless_digraph(6), random_digraph(9, 0.5, 4, true)}) {
    std::ostringstream out;
    write_arc_list(out, d, "digraph");
    const ReadResult r = read_text(out.str(), "d.arcs", InputFormat::Digraph);
    const auto& a = std::get<SparseMatrix<Integer>>(r.matrix);
    SparseMatrix<Integer> back;
    back.rows = back.cols = d.rows;
    for (const auto& e : a.entries)
      back.entries.push_back({name_number(r.row_names[e.row]), name_number(r.col_names[e.col]), e.value});
    back.normalize();
    EXPECT_TRUE(same_entries(back, d));
    EXPECT_EQ(permanent(a), permanent(d));
  }
  const auto m = random_integer_matrix(7, 0.6, -50, 50, 3);
  std::ostringstream out;
  write_bipartite_edges(out, m, "weighted");
  const ReadResult r = read_text(out.str(), "m.txt", InputFormat::Auto);
  const auto& a = std::get<SparseMatrix<Integer>>(r.matrix);
  SparseMatrix<Integer> back;
  back.rows = back.cols = m.rows;
  for (const auto& e : a.entries)
    back.entries.push_back({name_number(r.row_names[e.row]), name_number(r.col_names[e.col]), e.value});
  back.normalize();
  EXPECT_TRUE(same_entries(back, m));
}

TEST(GenerateWriters, MatrixMarketRoundTrip) {
  auto check = [](const AnyMatrix& m, bool exact) {
    std::ostringstream out;
    write_matrix_market(out, m, "round trip\nof a generated matrix");
    const ReadResult r = read_text(out.str(), "m.mtx", InputFormat::Auto, exact);
    ASSERT_EQ(r.matrix.index(), m.index()) << out.str();
    std::visit(
        [&](const auto& want) {
          using M = std::decay_t<decltype(want)>;
          EXPECT_TRUE(same_entries(std::get<M>(r.matrix), want)) << out.str();
        },
        m);
  };
  check(AnyMatrix(biadjacency(aztec_diamond_graph(3))), false);
  check(AnyMatrix(random_integer_matrix(9, 0.5, -1000000, 1000000, 8)), false);
  check(AnyMatrix(random_real_matrix(9, 0.5, -1e-3, 1e5, 8)), false);
  check(AnyMatrix(random_complex_matrix(9, 0.5, 8)), false);
  SparseMatrix<Rational> q;
  q.rows = 2;
  q.cols = 3;
  q.entries = {{0, 1, Rational(-1, 8)}, {1, 0, Rational(7, 20)}, {1, 2, Rational(1, 3125)}};
  check(AnyMatrix(q), true);
  // Larger integers than any machine word survive.
  SparseMatrix<Integer> big;
  big.rows = big.cols = 1;
  big.entries = {{0, 0, Integer("-123456789012345678901234567890")}};
  check(AnyMatrix(big), false);
}

// --- bundled datasets ------------------------------------------------------------------------

TEST(GenerateDatasets, BundledFilesMatchGeneratorsAndCounts) {
  const std::string dir = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/";
  auto body = [](const std::string& text) {  // the lines that are not comments
    std::istringstream in(text);
    std::string out, line;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#' && line[0] != '%') out += line + "\n";
    return out;
  };
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  struct Bundled {
    std::string file;
    std::string text;  // regenerated
    InputFormat as;
    Integer count;
  };
  std::vector<Bundled> files;
  auto edges = [](const EdgeList& g) {
    std::ostringstream o;
    write_edge_list(o, g);
    return o.str();
  };
  auto mtx = [](const SparseMatrix<Integer>& m) {
    std::ostringstream o;
    write_matrix_market(o, AnyMatrix(m));
    return o.str();
  };
  std::ostringstream arcs;
  write_arc_list(arcs, complete_loopless_digraph(8));
  files.push_back({"grid8x8.edges", edges(grid_graph(8, 8)), InputFormat::Graph, 12988816});
  files.push_back({"aztec4.edges", edges(aztec_diamond_graph(4)), InputFormat::Graph, 1024});
  files.push_back({"hypercube4.edges", edges(hypercube_graph(4)), InputFormat::Graph, 272});
  files.push_back({"derangements8.arcs", arcs.str(), InputFormat::Digraph, 14833});
  files.push_back({"band12.mtx", mtx(band_matrix(12, 2)), InputFormat::Auto, 11854});
  files.push_back({"random_int10.mtx", mtx(random_integer_matrix(10, 0.5, -5, 5, 1)), InputFormat::Auto,
                   Integer(-3866240)});
  for (const auto& b : files) {
    SCOPED_TRACE(b.file);
    const std::string text = slurp(dir + b.file);
    ASSERT_FALSE(text.empty()) << "missing " << dir + b.file;
    EXPECT_EQ(body(text), body(b.text)) << "regenerate with datasets/regenerate.sh";
    const ReadResult r = read_text(text, b.file, b.as);
    const auto& a = std::get<SparseMatrix<Integer>>(r.matrix);
    if (b.file == "grid8x8.edges") continue;  // 13 million leaves: left to the engines' tests
    EXPECT_EQ(permanent(a), b.count);
  }
}
