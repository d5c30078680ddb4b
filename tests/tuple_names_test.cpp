// Tuple names in edge lists: networkx's write_edgelist writes vertex (0, 1) as "(0, 1)", with a
// space inside; a name that starts with '(' runs to its matching ')' and is kept in Python's
// spelling (src/io/names.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io_helpers.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;
using namespace matchcount::iotest;

namespace {

/// Every vertex name of a graph reading, both colour classes.
std::vector<std::string> all_names(const ReadResult& r) {
  std::vector<std::string> names = r.row_names;
  if (!r.symmetric_graph) names.insert(names.end(), r.col_names.begin(), r.col_names.end());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(ReaderTupleNames, NetworkxGridEdgeList) {
  // nx.write_edgelist(nx.grid_2d_graph(2, 3), f, data=False)
  const std::string text =
      "(0, 0) (1, 0)\n(0, 0) (0, 1)\n(0, 1) (1, 1)\n(0, 1) (0, 2)\n(0, 2) (1, 2)\n(1, 0) (1, 1)\n(1, 1) (1, 2)\n";
  const auto g = read_as(text, InputFormat::Graph);
  EXPECT_EQ(all_names(g), (std::vector<std::string>{"(0, 0)", "(0, 1)", "(0, 2)", "(1, 0)", "(1, 1)", "(1, 2)"}));
  EXPECT_EQ(nnz_of(g.matrix), 7u);
  CountOptions o;
  o.perfect_matchings = true;
  EXPECT_EQ(std::get<Integer>(count_permanent(g.matrix, o).value.value), 3);
  // Read as a bipartite list by default: two fields a line, not four.
  EXPECT_EQ(read_text(text).row_names.front(), "(0, 0)");
}

TEST(ReaderTupleNames, SpellingsOfOneTupleAreOneVertex) {
  const auto g = read_as("(0,1) (2, 3)\n( 2 ,3 ) (4,\t5)\n(4,  5)\t(0, 1)\n", InputFormat::Graph);
  EXPECT_EQ(all_names(g), (std::vector<std::string>{"(0, 1)", "(2, 3)", "(4, 5)"}));
  EXPECT_TRUE(g.symmetric_graph);  // a triangle
  // One-tuples, nesting, quotes (spaces inside kept) and names running on after ')'.
  const auto n = read_as("(0,) ((1, 2), 'a  b')\n('x)', \"it's\") (1)suffix\n", InputFormat::Graph);
  EXPECT_EQ(all_names(n), (std::vector<std::string>{"('x)', \"it's\")", "((1, 2), 'a  b')", "(0,)", "(1)suffix"}));
  // A name without '(' in front is a plain token, as before.
  EXPECT_EQ(all_names(read_as("a(1, 2)\n", InputFormat::Graph)), (std::vector<std::string>{"2)", "a(1,"}));
}

TEST(ReaderTupleNames, WeightsDictsAndSingleVertices) {
  const auto w = read_text("(0, 0) (0, 1) 2.5\n(1, 0) (1, 1) {'weight': 3}\n(2, 2)\n");
  EXPECT_EQ(w.row_names, (std::vector<std::string>{"(0, 0)", "(1, 0)", "(2, 2)"}));
  EXPECT_EQ(w.col_names, (std::vector<std::string>{"(0, 1)", "(1, 1)"}));
  const auto values = triples<double>(w.matrix);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(std::get<2>(values[0]), 2.5);
  EXPECT_EQ(std::get<2>(values[1]), 3.0);
  // A mixed line: one tuple name, one plain name.
  EXPECT_EQ(read_text("alice (0, 1)\n").col_names, (std::vector<std::string>{"(0, 1)"}));
  EXPECT_EQ(read_text("(0, 1) bob 2\n").row_names, (std::vector<std::string>{"(0, 1)"}));
}

TEST(ReaderTupleNames, UnclosedParenthesisIsAnError) {
  EXPECT_EQ(error_text("(0, 0) (0, 1)\n(0, 0 (1, 1)\n", "g.edges", InputFormat::Graph),
            "g.edges:2: unclosed '(' in the vertex name '(0, 0 (1, 1)': a name that starts with '(' ends at its "
            "matching ')'");
  EXPECT_CONTAINS(error_text("a (b\n"), "in.txt:1: unclosed '('");
  EXPECT_CONTAINS(error_text("('a, 1) b\n"), "in.txt:1: unclosed '('");
  // The program: one line, exit code 2.
  const auto run = test::run_matchcount("--as graph " + test::temp_file("(0, 0) (0, 1)\n(1, 0 (1, 1)\n", ".edges"));
  if (run.exit_code < 0) GTEST_SKIP() << "matchcount is not built";
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_CONTAINS(run.err, ":2: unclosed '(' in the vertex name");
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}
