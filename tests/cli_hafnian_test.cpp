// The program on general graphs and symmetric matrices: --as graph of a non-bipartite graph,
// --hafnian, --loop-hafnian, their errors and refusals, --json and --explain.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.hpp"

using matchcount::test::run_matchcount;
using matchcount::test::temp_file;

namespace {

// The Petersen graph: outer 5-cycle, inner pentagram, spokes; 6 perfect matchings.
const char* kPetersen =
    "0 1\n1 2\n2 3\n3 4\n4 0\n5 7\n7 9\n9 6\n6 8\n8 5\n0 5\n1 6\n2 7\n3 8\n4 9\n";

void expect_one_line_error(const matchcount::test::RunResult& r, int code, const std::string& start) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("matchcount: error: " + start, 0), 0u) << r.err;
}

}  // namespace

TEST(CliHafnian, GeneralGraphsAreCounted) {
  auto r = run_matchcount("--as graph -", kPetersen);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "6\n");
  EXPECT_EQ(r.err, "");
  // A triangle: no perfect matching; -v gives the witness.
  r = run_matchcount("-v --as graph -", "a b\nb c\nc a\nc d\nd e\ne c\n");
  EXPECT_EQ(r.out, "0\n");
  EXPECT_NE(r.err.find("odd component"), std::string::npos) << r.err;
  // A star with three leaves: the witness names the centre by its name in the file.
  r = run_matchcount("-v --hafnian -", "hub a\nhub b\nhub c\nd e\n");
  EXPECT_EQ(r.out, "0\n");
  EXPECT_NE(r.err.find("removing the vertex hub leaves 3 odd components"), std::string::npos) << r.err;
  // A self-loop is ignored, and a count of 0 says --loop-hafnian would count it.
  r = run_matchcount("--as graph -", "a b\nb c\nc a\nc c\n");
  EXPECT_EQ(r.out, "0\n");
  EXPECT_NE(r.err.find("--loop-hafnian"), std::string::npos) << r.err;
  r = run_matchcount("--loop-hafnian --as graph -", "a b\nb c\nc a\nc c\n");
  EXPECT_EQ(r.out, "1\n");  // c by its loop, a-b
}

TEST(CliHafnian, SymmetricMatrices) {
  const std::string m = temp_file(
      "%%MatrixMarket matrix coordinate integer symmetric\n4 4 7\n1 1 5\n2 1 1\n3 1 2\n3 2 3\n4 1 1\n4 2 1\n4 3 4\n",
      ".mtx");
  // haf = a12 a34 + a13 a24 + a14 a23 = 1*4 + 2*1 + 1*3 = 9; the diagonal (5) is ignored.
  auto r = run_matchcount("--hafnian '" + m + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "9\n");
  // lhaf adds the matchings with loops: only vertex 1 has one, so a loop at 1 needs an odd rest.
  r = run_matchcount("--loop-hafnian '" + m + "'");
  EXPECT_EQ(r.out, "9\n");
  const std::string real = temp_file("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 0.5\n2 2 2\n", ".mtx");
  r = run_matchcount("--loop-hafnian --exact '" + real + "'");
  EXPECT_EQ(r.out, "1/2\n");  // a12 only: vertex 1 has no loop
  r = run_matchcount("--json --hafnian '" + m + "'");
  EXPECT_NE(r.out.find("\"counts\":\"hafnian\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"graph\":{"), std::string::npos) << r.out;
  r = run_matchcount("--explain --hafnian '" + m + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hafnian of a graph with 4 vertices"), std::string::npos) << r.out;
}

TEST(CliHafnian, ErrorsAndRefusals) {
  const std::string asym =
      temp_file("%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 1 1\n3 2 7\n", ".mtx");
  expect_one_line_error(run_matchcount("--hafnian '" + asym + "'"), 2, asym + ":5: the matrix is not symmetric");
  expect_one_line_error(run_matchcount("--hafnian --as digraph -", "1 2\n"), 2, "--hafnian counts general graphs");
  // A NumPy array has no lines: the error names the entries. (A 3 x 3 int64 array [[0,1,2],[1,0,3],[2,4,0]].)
  std::string npy = std::string("\x93NUMPY\x01\x00\x76\x00", 10);
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 3), }";
  header.resize(117, ' ');
  npy += header + "\n";
  for (long v : {0, 1, 2, 1, 0, 3, 2, 4, 0}) npy += std::string(reinterpret_cast<const char*>(&v), 8);
  const std::string array = temp_file(npy, ".npy");
  expect_one_line_error(run_matchcount("--hafnian '" + array + "'"), 2,
                        array + ": the matrix is not symmetric: entry [1, 2] differs from entry [2, 1]");
  expect_one_line_error(run_matchcount("--hafnian --loop-hafnian -", "1 2\n"), 2, "--hafnian excludes --loop-hafnian");
  expect_one_line_error(run_matchcount("--estimate --loop-hafnian --as graph -", kPetersen), 3,
                        "--estimate does not estimate loop hafnians");
  expect_one_line_error(run_matchcount("--row-mult 1,2 --as graph -", kPetersen), 2, "--row-mult/--col-mult");
}
