// Regression tests of issue 32's reliability findings that live in the readers and the pipeline:
// crashes on inputs without a perfect matching, misspelt Matrix Market banners, and the time
// cap while reading. (The checkpoint, memory and error-bound findings have their own suites.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>

#include "io_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using test::run_matchcount;

/// The edge list of the rows x cols grid, as matchcount-generate writes it.
std::string grid_edges(int rows, int cols) {
  std::ostringstream out;
  write_edge_list(out, grid_graph(rows, cols));
  return out.str();
}

// Each of these crashed (exit 139): a block without a perfect matching reached the planner or
// left no engine run to annotate.
TEST(Reliability, InputsWithoutPerfectMatchingDoNotCrash) {
  for (int side : {3, 5, 7}) {
    const auto r = run_matchcount("--loop-hafnian -", grid_edges(side, side));
    EXPECT_EQ(r.exit_code, 0) << side << ": " << r.err;
    EXPECT_EQ(r.out, "0\n") << side;
  }
  // An odd grid with loops that can cover a vertex: still counted (1 loop of weight 1 at the
  // corner; the rest is a 5x5 grid less a corner: even, with perfect matchings).
  {
    const auto r = run_matchcount("--loop-hafnian --as graph -", grid_edges(5, 5) + "0 0\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out, "0\n");
  }
  {
    const auto r = run_matchcount("--hafnian --no-preprocess --as graph -", "a a\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "0\n");
  }
  const std::string one_edge = "%%MatrixMarket matrix coordinate integer symmetric\n3 3 1\n2 1 1\n";
  for (const char* flags : {"--hafnian --no-preprocess", "--hafnian", "--loop-hafnian --no-preprocess", "--json --hafnian --no-preprocess"}) {
    const auto r = run_matchcount(std::string(flags) + " " + test::temp_file(one_edge, ".mtx"));
    EXPECT_EQ(r.exit_code, 0) << flags << ": " << r.err;
    if (std::string(flags).find("json") == std::string::npos) {
      EXPECT_EQ(r.out, "0\n") << flags;
    }
  }
}

// In the library too: the unbalanced bipartite block is 0 with a note, for every number kind.
TEST(Reliability, UnbalancedBipartiteBlocksAreZero) {
  SparseMatrix<Integer> path;  // the path 0-1-2: bipartite with classes of 2 and 1
  path.rows = path.cols = 3;
  path.entries = {{0, 1, Integer(1)}, {1, 0, Integer(1)}, {1, 2, Integer(1)}, {2, 1, Integer(1)}};
  for (bool loops : {false, true})
    for (bool preprocess : {false, true}) {
      CountOptions o;
      o.preprocess = preprocess;
      const CountReport r = count_hafnian(AnyMatrix(path), loops, o);
      EXPECT_TRUE(r.value.is_zero()) << loops << preprocess;
    }
  SparseMatrix<double> real;
  real.rows = real.cols = 3;
  real.entries = {{0, 1, 0.5}, {1, 0, 0.5}, {1, 2, 2.0}, {2, 1, 2.0}};
  CountOptions o;
  o.preprocess = false;
  EXPECT_TRUE(count_hafnian(AnyMatrix(real), true, o).value.is_zero());
}

// A first line that was meant as a Matrix Market banner but is not one used to pass for a
// banner-less file's comment, and gave 0 where the banner gives 2.
TEST(Reliability, MisspeltBannersAreErrors) {
  const std::string body = "2 2 3\n1 1 1\n2 1 1\n2 2 1\n";
  for (const char* banner : {"%%MatrixMarkt matrix coordinate integer symmetric", "%MatrixMarket matrix coordinate integer symmetric",
                             "%% MatrixMarket matrix coordinate integer symmetric", "%%Matrix-Market matrix coordinate real general",
                             "%%MM matrix coordinate real general", "% matrix array real general", "%%%MatrixMarket matrix coordinate real general"}) {
    const std::string what = iotest::error_of([&] { iotest::read_text(std::string(banner) + "\n" + body, "a.mtx"); });
    EXPECT_NE(what.find("a.mtx:1:"), std::string::npos) << banner << ": " << what;
    EXPECT_NE(what.find("looks like a Matrix Market banner"), std::string::npos) << banner << ": " << what;
    for (const char* as : {"", "--as matrix ", "--as graph "}) {
      const auto r = run_matchcount(std::string(as) + test::temp_file(std::string(banner) + "\n" + body, ".mtx"));
      EXPECT_EQ(r.exit_code, 2) << banner << " " << as;
      EXPECT_TRUE(r.out.empty());
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  // The right banner gives the count 2 (a symmetric file: both triangles).
  const auto r = run_matchcount(test::temp_file("%%MatrixMarket matrix coordinate integer symmetric\n" + body, ".mtx"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
  // Comments that are not banners stay comments: KONECT headers, words about matrices.
  EXPECT_NO_THROW(iotest::read_text("% sym unweighted\n1 2\n2 3\n", "g.edges"));
  EXPECT_NO_THROW(iotest::read_text("% a matrix of my market data\n2 2 2\n1 1 1\n2 2 1\n", "a.mtx"));
  EXPECT_NO_THROW(iotest::read_text("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n", "a.mtx"));
}

/// An edge list of `edges` lines (a long path), large enough to take a while to read.
std::string long_path(int edges) {
  std::string s;
  s.reserve(static_cast<std::size_t>(edges) * 16);
  for (int i = 0; i < edges; ++i) s += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  return s;
}

// A 2-second cap took 5.5 to 7.2 s on 10^7-edge inputs: reading was not cut short.
TEST(Reliability, TimeCapBindsWhileReading) {
  const std::string text = long_path(400000);
  ReadOptions o;
  o.as = InputFormat::Graph;
  o.max_seconds = 1e-6;
  try {
    iotest::read_text(text, "big.edges", o);
    ADD_FAILURE() << "read past the time cap";
  } catch (const BudgetError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("big.edges: reading did not finish within the time cap", 0), 0u) << what;
    EXPECT_NE(what.find("line "), std::string::npos) << what;
  }
  o.max_seconds = 0;  // no cap: the same input reads
  const ReadResult whole = iotest::read_text(text, "big.edges", o);
  EXPECT_EQ(rows_of(whole.matrix) + cols_of(whole.matrix), 400001);  // a path: bipartite

  // The program: exit 3, one line, nothing on stdout, well before the input could be read.
  const std::string file = test::temp_file(long_path(3000000), ".edges");
  for (const char* mode : {"--as graph", "--as graph --estimate"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run_matchcount(std::string(mode) + " --max-seconds 0.05 " + file);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.exit_code, 3) << mode << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << mode;
    EXPECT_NE(r.err.find("reading did not finish within the time cap"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(took, 5.0) << mode;
  }
}

// Found by fuzz_count: --estimate of a 31 x 8282 matrix without entries padded it to 8282 x
// 8282 with rows of ones (2.1 GB, 6 s) before seeing that its rows are empty.
TEST(Reliability, EstimatesOfWideMatricesKeepToTheBudget) {
  const auto empty = run_matchcount("--estimate --max-memory 64M " + test::temp_file("31 8282 0\n", ".mtx"));
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "0\n");
  // Empty columns of the longer side are dropped: 2 x 8000 with entries in 3 columns is a 2 x 3.
  const auto narrow = run_matchcount("--estimate --max-memory 64M --seed 3 " +
                                     test::temp_file("2 8000 4\n1 1 1\n1 5000 1\n2 5000 1\n2 7999 1\n", ".mtx"));
  EXPECT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_EQ(narrow.out, "3\n");  // counted exactly: (1,5000)(2,7999), (1,1)(2,5000), (1,1)(2,7999)
  // A wide matrix that needs its padding is refused when the rows of ones exceed the budget.
  std::string wide = "3 6000 6000\n";
  for (int c = 1; c <= 6000; ++c) wide += std::to_string(1 + c % 3) + " " + std::to_string(c) + " 1\n";
  const auto refused = run_matchcount("--estimate --max-memory 64M " + test::temp_file(wide, ".mtx"));
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("memory budget"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty());
}

}  // namespace
}  // namespace matchcount
