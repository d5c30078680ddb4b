// Random symmetric matrices (generate.hpp), the symmetric writers read back by read_input, and
// matchcount-generate's general-graph and symmetric families. Graph structure and counts:
// generate_graphs_test.cpp.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "generate_helpers.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"
#include "test_support.hpp"

using namespace matchcount;
using namespace matchcount::gentest;

namespace {


ReadResult read_symmetric_text(const std::string& text, const std::string& name, InputFormat as, bool loops) {
  std::istringstream in(text);
  ReadOptions options;
  options.as = as;
  options.hafnian = true;
  options.loops = loops;
  return read_input(in, name, options);
}

/// The matrix read from an edge list, renumbered by its vertex names back to 0..n-1.
template <class T>
SparseMatrix<T> by_names(const SparseMatrix<T>& m, const std::vector<std::string>& names, int n) {
  SparseMatrix<T> out;
  out.rows = out.cols = n;
  for (const auto& e : m.entries)
    out.entries.push_back({std::stoi(names.at(e.row)), std::stoi(names.at(e.col)), e.value});
  out.normalize();
  return out;
}

}  // namespace

TEST(GenerateGraphsSymmetric, FixedOutputOnEveryPlatform) {
  // Raw mt19937_64 output and our own arithmetic: the same matrices with any compiler.
  EXPECT_EQ(fingerprint(random_symmetric_01(9, 0.5, true, 42)), 2224748748600548310ull);
  EXPECT_EQ(fingerprint(random_symmetric_integer(8, 0.6, -1000, 1000, true, 42)), 5922134847470588318ull);
  EXPECT_EQ(fingerprint(random_symmetric_real(6, 0.7, -2.5, 4.0, false, 42)), 13158547514707006115ull);
  EXPECT_EQ(fingerprint(random_symmetric_complex(5, 0.8, true, 42)), 1387906963564945477ull);
}

// --- symmetric matrices -------------------------------------------------------------------

TEST(GenerateGraphsSymmetric, SymmetricDeterministicAndInRange) {
  for (bool diagonal : {false, true}) {
    SCOPED_TRACE(diagonal ? "diagonal" : "no diagonal");
    const auto z = random_symmetric_01(30, 0.4, diagonal, 3);
    const auto i = random_symmetric_integer(30, 0.5, -3, 4, diagonal, 3);
    const auto r = random_symmetric_real(30, 0.5, -2.0, 5.0, diagonal, 3);
    const auto c = random_symmetric_complex(30, 0.5, diagonal, 3);
    EXPECT_TRUE(is_symmetric(AnyMatrix(z)));
    EXPECT_TRUE(is_symmetric(AnyMatrix(i)));
    EXPECT_TRUE(is_symmetric(AnyMatrix(r)));
    EXPECT_TRUE(is_symmetric(AnyMatrix(c)));
    EXPECT_TRUE(same_entries(z, random_symmetric_01(30, 0.4, diagonal, 3)));
    EXPECT_TRUE(same_entries(i, random_symmetric_integer(30, 0.5, -3, 4, diagonal, 3)));
    EXPECT_TRUE(same_entries(r, random_symmetric_real(30, 0.5, -2.0, 5.0, diagonal, 3)));
    EXPECT_TRUE(same_entries(c, random_symmetric_complex(30, 0.5, diagonal, 3)));
    EXPECT_FALSE(same_entries(z, random_symmetric_01(30, 0.4, diagonal, 4)));
    auto diagonal_entries = [](const auto& m) {
      return std::count_if(m.entries.begin(), m.entries.end(), [](const auto& e) { return e.row == e.col; });
    };
    if (diagonal) {
      EXPECT_GT(diagonal_entries(z) + diagonal_entries(i) + diagonal_entries(r), 0);
    } else {
      EXPECT_EQ(diagonal_entries(z) + diagonal_entries(i) + diagonal_entries(r) + diagonal_entries(c), 0);
    }
    for (const auto& e : z.entries) EXPECT_EQ(e.value, 1);
    for (const auto& e : i.entries) {
      EXPECT_NE(e.value, 0);
      EXPECT_TRUE(e.value >= -3 && e.value <= 4);
    }
    for (const auto& e : r.entries) EXPECT_TRUE(e.value != 0.0 && e.value >= -2.0 && e.value < 5.0);
    for (const auto& e : c.entries)
      EXPECT_TRUE(std::abs(e.value.real()) <= 1.0 && std::abs(e.value.imag()) <= 1.0);
  }
  EXPECT_EQ(random_symmetric_01(10, 1.0, false, 1).nnz(), 90u);
  EXPECT_EQ(random_symmetric_01(10, 1.0, true, 1).nnz(), 100u);
  EXPECT_EQ(random_symmetric_01(10, 0.0, true, 1).nnz(), 0u);
  // Without the diagonal, symmetric-01 is G(n, p)'s adjacency matrix: the same draws.
  EXPECT_TRUE(same_entries(random_symmetric_01(25, 0.3, false, 9), adjacency_matrix(erdos_renyi_graph(25, 0.3, 9))));
  EXPECT_THROW(random_symmetric_integer(4, 0.5, 3, 1, false, 1), UsageError);
  EXPECT_THROW(random_symmetric_integer(4, 0.5, 0, 0, false, 1), UsageError);
  EXPECT_THROW(random_symmetric_real(4, 2.0, 0, 1, false, 1), UsageError);
  EXPECT_THROW(random_symmetric_complex(-2, 0.5, false, 1), UsageError);
}

TEST(GenerateGraphsSymmetric, AdjacencyMatrixAndSymmetryTest) {
  const auto a = adjacency_matrix(triangular_graph(2, 2));
  EXPECT_EQ(a.rows, 4);
  EXPECT_EQ(a.nnz(), 10u);  // 5 edges, both triangles
  EXPECT_TRUE(is_symmetric(AnyMatrix(a)));
  SparseMatrix<Integer> m;
  m.rows = m.cols = 2;
  m.entries = {{0, 1, Integer(2)}, {1, 0, Integer(3)}};
  EXPECT_FALSE(is_symmetric(AnyMatrix(m)));
  m.cols = 3;
  EXPECT_FALSE(is_symmetric(AnyMatrix(m)));
}

// --- writers and reading back --------------------------------------------------------------

TEST(GenerateGraphsWriters, TextFormats) {
  SparseMatrix<Integer> m;
  m.rows = m.cols = 4;
  m.entries = {{0, 1, Integer(1)}, {1, 0, Integer(1)}, {1, 2, Integer(-3)}, {2, 1, Integer(-3)}, {2, 2, Integer(5)}};
  std::ostringstream mtx;
  write_matrix_market_symmetric(mtx, AnyMatrix(m), "note");
  EXPECT_EQ(mtx.str(), "%%MatrixMarket matrix coordinate integer symmetric\n% note\n4 4 3\n2 1 1\n3 2 -3\n3 3 5\n");
  std::ostringstream edges;
  write_graph_edges(edges, AnyMatrix(m), "note");
  EXPECT_EQ(edges.str(),
            "# note\n# undirected graph: 4 vertices 0..3, 2 edges, 1 loops (weights on the diagonal); "
            "\"u v w\" is the entry A(u, v) = A(v, u), w = 1 when not written\n"
            "# 1 vertices without edges are not in this file: 3\n0 1\n1 2 -3\n2 2 5\n");
  m.entries.pop_back();
  m.entries.push_back({2, 3, Integer(1)});  // no mirror (3, 2)
  std::ostringstream none;
  EXPECT_THROW(write_matrix_market_symmetric(none, AnyMatrix(m)), UsageError);
  EXPECT_THROW(write_graph_edges(none, AnyMatrix(m)), UsageError);
  EXPECT_EQ(none.str(), "");
  EXPECT_THROW(write_graph_edges(none, AnyMatrix(random_symmetric_complex(3, 1.0, false, 1))), RefusedError);
}

TEST(GenerateGraphsWriters, SymmetricMatrixMarketReadsBack) {
  const std::vector<std::pair<std::string, AnyMatrix>> cases = {
      {"c60 adjacency", AnyMatrix(adjacency_matrix(c60_graph()))},
      {"symmetric-01", AnyMatrix(random_symmetric_01(20, 0.3, true, 5))},
      {"symmetric-int", AnyMatrix(random_symmetric_integer(15, 0.6, -50, 50, true, 5))},
      {"symmetric-real", AnyMatrix(random_symmetric_real(12, 0.6, -1.5, 2.5, true, 5))},
      {"symmetric-complex", AnyMatrix(random_symmetric_complex(10, 0.6, true, 5))},
  };
  for (const auto& [name, m] : cases) {
    SCOPED_TRACE(name);
    std::ostringstream out;
    write_matrix_market_symmetric(out, m);
    const ReadResult r = read_symmetric_text(out.str(), "m.mtx", InputFormat::Auto, true);
    EXPECT_NE(r.format.find("symmetric"), std::string::npos) << r.format;
    ASSERT_EQ(r.matrix.index(), m.index());
    std::visit(
        [&](const auto& want) {
          using M = std::decay_t<decltype(want)>;
          EXPECT_TRUE(same_entries(std::get<M>(r.matrix), want));
        },
        m);
  }
}

TEST(GenerateGraphsWriters, EdgeListsReadBackAsGraphs) {
  // Unweighted graphs through write_edge_list, weighted symmetric matrices (with loops) through
  // write_graph_edges; both read with --as graph to the symmetric adjacency matrix.
  for (const EdgeList& g : {triangular_graph(3, 4), king_graph(3, 3, {true, true}), c60_graph(), petersen_graph()}) {
    std::ostringstream out;
    write_edge_list(out, g);
    const ReadResult r = read_symmetric_text(out.str(), "g.edges", InputFormat::Graph, false);
    EXPECT_TRUE(r.symmetric_graph);
    const auto& read = std::get<SparseMatrix<Integer>>(r.matrix);
    EXPECT_TRUE(same_entries(by_names(read, r.row_names, g.vertices), adjacency_matrix(g)));
  }
  const auto weighted = random_symmetric_integer(10, 0.7, -4, 4, true, 8);
  std::ostringstream out;
  write_graph_edges(out, AnyMatrix(weighted));
  const ReadResult r = read_symmetric_text(out.str(), "w.edges", InputFormat::Graph, true);
  const auto back = by_names(std::get<SparseMatrix<Integer>>(r.matrix), r.row_names, 10);
  EXPECT_TRUE(same_entries(back, weighted));
  // The hafnian and the loop hafnian survive the round trip.
  EXPECT_EQ(test::naive_hafnian(back, true), test::naive_hafnian(weighted, true));
  EXPECT_EQ(test::naive_hafnian(back, false), test::naive_hafnian(weighted, false));

  const auto real = random_symmetric_real(8, 0.8, -1.0, 3.0, false, 8);
  std::ostringstream rout;
  write_graph_edges(rout, AnyMatrix(real));
  const ReadResult rr = read_symmetric_text(rout.str(), "r.edges", InputFormat::Graph, false);
  EXPECT_TRUE(same_entries(by_names(std::get<SparseMatrix<double>>(rr.matrix), rr.row_names, 8), real));
}

TEST(GenerateGraphsWriters, LoopHafnianOfSmallCases) {
  // Loop hafnian of J_3 with unit diagonal: the 4 ways to cover 3 vertices by loops and one
  // edge or three loops (3 + 1); of the all-ones 4 x 4: 10 (telephone number T(4)).
  EXPECT_EQ(test::naive_hafnian(random_symmetric_01(3, 1.0, true, 1), true), 4);
  EXPECT_EQ(test::naive_hafnian(random_symmetric_01(4, 1.0, true, 1), true), 10);
  EXPECT_EQ(test::naive_hafnian(random_symmetric_01(4, 1.0, true, 1), false), 3);
}

// --- the program --------------------------------------------------------------------------

namespace {

struct GeneratedOutput {
  int exit_code = -1;
  std::string out, err;
};

/// Runs matchcount-generate (built next to matchcount) with the arguments.
GeneratedOutput generate_output(const std::string& args) {
  const auto bin = std::filesystem::path(MATCHCOUNT_BINARY).parent_path() / "matchcount-generate";
  GeneratedOutput g;
  if (!std::filesystem::exists(bin)) return g;
  const std::string out = test::temp_file("", ".out"), err = test::temp_file("", ".err");
  const int status = std::system(("'" + bin.string() + "' " + args + " >'" + out + "' 2>'" + err + "'").c_str());
  g.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream o(out), e(err);
  std::stringstream so, se;
  so << o.rdbuf();
  se << e.rdbuf();
  g.out = so.str();
  g.err = se.str();
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return g;
}

}  // namespace

TEST(GenerateGraphsCli, FamiliesAndFormats) {
  if (generate_output("--help").exit_code < 0) GTEST_SKIP() << "matchcount-generate is not built";
  // A general graph as an edge list and as its symmetric adjacency matrix.
  const GeneratedOutput c60 = generate_output("c60");
  ASSERT_EQ(c60.exit_code, 0) << c60.err;
  const ReadResult edges = read_symmetric_text(c60.out, "c60.edges", InputFormat::Graph, false);
  EXPECT_TRUE(same_entries(by_names(std::get<SparseMatrix<Integer>>(edges.matrix), edges.row_names, 60),
                           adjacency_matrix(c60_graph())));
  const GeneratedOutput mtx = generate_output("triangular 3 4 --periodic-x --format mtx");
  ASSERT_EQ(mtx.exit_code, 0) << mtx.err;
  EXPECT_NE(mtx.out.find("%%MatrixMarket matrix coordinate integer symmetric"), std::string::npos);
  EXPECT_NE(mtx.err.find("not bipartite"), std::string::npos) << mtx.err;
  const ReadResult tri = read_symmetric_text(mtx.out, "t.mtx", InputFormat::Auto, false);
  EXPECT_TRUE(same_entries(std::get<SparseMatrix<Integer>>(tri.matrix),
                           adjacency_matrix(triangular_graph(3, 4, {false, true}))));
  EXPECT_EQ(generate_output("king 3 3 --format bipartite").exit_code, 3);
  EXPECT_EQ(generate_output("king 2 3 --periodic").exit_code, 2);
  // Bipartite families keep their biadjacency matrix; --format adjacency gives the symmetric one.
  EXPECT_NE(generate_output("grid 2 3 --format mtx").out.find("integer general\n"), std::string::npos);
  EXPECT_NE(generate_output("grid 2 3 --format adjacency").out.find("integer symmetric\n"), std::string::npos);
  // Symmetric matrices: same seed, same file; the edge form reads back to the same matrix.
  const GeneratedOutput s1 = generate_output("symmetric-int 9 --density 0.5 --diagonal --seed 4");
  ASSERT_EQ(s1.exit_code, 0) << s1.err;
  EXPECT_EQ(s1.out, generate_output("symmetric-int 9 --density 0.5 --diagonal --seed 4").out);
  EXPECT_NE(s1.out.find("generated by: matchcount-generate symmetric-int 9 --density 0.5 --lo -9 --hi 9 "
                        "--diagonal --seed 4"),
            std::string::npos);
  const auto want = random_symmetric_integer(9, 0.5, -9, 9, true, 4);
  EXPECT_TRUE(same_entries(std::get<SparseMatrix<Integer>>(read_symmetric_text(s1.out, "s.mtx", InputFormat::Auto, true).matrix), want));
  const GeneratedOutput s2 = generate_output("symmetric-int 9 --density 0.5 --diagonal --seed 4 --format edges");
  ASSERT_EQ(s2.exit_code, 0) << s2.err;
  const ReadResult se = read_symmetric_text(s2.out, "s.edges", InputFormat::Graph, true);
  EXPECT_TRUE(same_entries(by_names(std::get<SparseMatrix<Integer>>(se.matrix), se.row_names, 9), want));
  EXPECT_EQ(generate_output("symmetric-complex 4 --format edges").exit_code, 2);  // not offered
  EXPECT_EQ(generate_output("random-regular 7 3").exit_code, 2);
  const GeneratedOutput rr = generate_output("random-regular 20 3 --seed 5 --format adjacency");
  ASSERT_EQ(rr.exit_code, 0) << rr.err;
  EXPECT_TRUE(same_entries(std::get<SparseMatrix<Integer>>(read_symmetric_text(rr.out, "r.mtx", InputFormat::Auto, false).matrix),
                           adjacency_matrix(random_regular_graph(20, 3, 5))));
}
