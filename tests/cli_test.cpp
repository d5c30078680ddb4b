// The matchcount program itself: output discipline, exit codes, one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "matchcount/engine.hpp"
#include "matchcount/generate.hpp"
#include "test_support.hpp"

using matchcount::test::run_matchcount;
using matchcount::test::temp_file;

namespace {

std::string source(const std::string& relative) {
  return std::string("'") + MATCHCOUNT_SOURCE_DIR + "/" + relative + "'";
}

// Exit 2, nothing on stdout, exactly one stderr line "matchcount: error: <where>...".
void expect_input_error(const std::string& args, const std::string& where, const std::string& stdin_text = "") {
  const auto r = run_matchcount(args, stdin_text);
  EXPECT_EQ(r.exit_code, 2) << args << "\nstderr: " << r.err;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
  EXPECT_EQ(r.err.rfind("matchcount: error: " + where, 0), 0u) << args << "\nstderr: " << r.err;
}

}  // namespace

TEST(Cli, CountsTheBundledGrid) {
  const auto r = run_matchcount("--as graph " + source("datasets/grid8x8.edges"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "12988816\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, ReadsStandardInputAndDigraphs) {
  auto r = run_matchcount("-", "a x\na y\nb x\nb y\n");
  EXPECT_EQ(r.out, "2\n");
  r = run_matchcount("--as digraph -", "1 2\n2 3\n3 1\n1 1\n2 2\n3 3\n");
  EXPECT_EQ(r.out, "2\n");  // the 3-cycle and the three loops
  r = run_matchcount("--as graph -", "1 2\n2 3\n3 4\n4 1\n");
  EXPECT_EQ(r.out, "2\n");
}

TEST(Cli, UnequalSidesGiveZeroWithAReason) {
  const auto r = run_matchcount("--json -", "a x\nb x\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("\"value\":\"0\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left"), std::string::npos) << r.out;
}

TEST(Cli, JsonReportsStagesAndEngines) {
  const auto r = run_matchcount("--json --as graph " + source("datasets/grid8x8.edges"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"\"value\":\"12988816\"", "\"exact\":true", "\"dulmage_mendelsohn\"", "\"forbert_marx\"",
                          "\"engine_runs\"", "\"seconds\"", "\"matching_size\":32"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

TEST(Cli, FloatingResultsSayTheyAreApproximate) {
  const auto path = temp_file("%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 0.5\n1 2 0.25\n2 1 1\n2 2 1\n", ".mtx");
  auto r = run_matchcount("'" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.75\n");
  EXPECT_NE(r.err.find("approximate"), std::string::npos);
  r = run_matchcount("--exact '" + path + "'");
  EXPECT_EQ(r.out, "3/4\n");
  EXPECT_EQ(r.err, "");
}

TEST(Cli, HelpAndVersion) {
  auto r = run_matchcount("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("perfect matchings"), std::string::npos);
  r = run_matchcount("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("matchcount"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  for (const char* args : {"", "--engine nonsense x", "--no-such-option x", "--threads -1 x", "--as tree x"}) {
    const auto r = run_matchcount(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err.rfind("matchcount: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

TEST(Cli, BadInputsExitTwoWithFileAndLine) {
  expect_input_error("/no/such/file.edges", "/no/such/file.edges");
  struct Case {
    std::string text, suffix, args;
    int line;
  };
  const std::vector<Case> cases = {
      {"a b\nc d 1 2 3\n", ".edges", "", 2},                                    // malformed line
      {"a b\na b\n", ".edges", "", 2},                                          // duplicate edge
      {"a b x1\n", ".edges", "", 1},                                            // non-numeric weight
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", ".mtx", "", 3},       // index out of range
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", ".mtx", "", 0},       // too few entries
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", ".mtx", "", 4}, // too many
      {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n", ".mtx", "", 4}, // duplicate
      {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 5\n", ".mtx", "", 3},    // field mismatch
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", ".mtx", "", 3},     // non-numeric
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", ".mtx", "", 3},         // missing value
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", ".mtx", "", 3},  // not an integer
      {"%%MatrixMarket matrix tensor real general\n", ".mtx", "", 1},                         // bad banner
      {std::string("a b\n\0\x01\x02junk", 11), ".edges", "", 0},                              // binary junk
      {"", ".edges", "", 0},                                                                   // empty file
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1\n", ".mtx", "--hafnian", 3},  // asymmetric
  };
  for (const auto& c : cases) {
    const std::string path = temp_file(c.text, c.suffix);
    const std::string where = c.line > 0 ? path + ":" + std::to_string(c.line) + ":" : path + ":";
    expect_input_error(c.args + " '" + path + "'", where);
  }
}

TEST(Cli, RefusalsExitThree) {
  // The brute-force oracle refuses large blocks rather than run for ages.
  std::string dense;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j) dense += "r" + std::to_string(i) + " c" + std::to_string(j) + "\n";
  const auto r = run_matchcount("--engine brute -", dense);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("matchcount: error: ", 0), 0u);
}

TEST(Cli, KasteleynOnANonPlanarGraphIsRefused) {
  // The 6 x 6 torus is not planar: --engine kasteleyn exits 3 with one line saying so.
  std::ostringstream torus;
  matchcount::write_edge_list(torus, matchcount::torus_graph(6, 6));
  const std::string path = temp_file(torus.str(), ".edges");
  const auto r = run_matchcount("--engine kasteleyn --as graph '" + path + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("matchcount: error: kasteleyn: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("not planar"), std::string::npos) << r.err;
  // The grid is planar: the same engine counts it (and the planner picks it for a large grid).
  std::ostringstream grid;
  matchcount::write_edge_list(grid, matchcount::grid_graph(20, 20));
  const std::string gpath = temp_file(grid.str(), ".edges");
  const auto g = run_matchcount("--engine kasteleyn --as graph '" + gpath + "'");
  EXPECT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.out, "1269984011256235834242602753102293934298576249856\n");
  const auto j = run_matchcount("--json --as graph '" + gpath + "'");
  EXPECT_NE(j.out.find("\"engine\":\"kasteleyn\""), std::string::npos) << j.out;
}

TEST(Cli, DeviceChoice) {
  const std::string grid = " --as graph " + source("datasets/grid8x8.edges");
  const auto cpu = run_matchcount("--device cpu --json" + grid);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("\"device\":\"cpu\""), std::string::npos) << cpu.out;
  EXPECT_EQ(run_matchcount("--device tpu" + grid).exit_code, 2);
  // --device gpu without a device is refused up front; with one, the count is the same.
  const auto gpu = run_matchcount("--device gpu" + grid);
  if (matchcount::gpu_available()) {
    EXPECT_EQ(gpu.exit_code, 0) << gpu.err;
    EXPECT_EQ(gpu.out, "12988816\n");
  } else {
    EXPECT_EQ(gpu.exit_code, 3);
    EXPECT_EQ(gpu.out, "");
    EXPECT_NE(gpu.err.find("--device gpu"), std::string::npos) << gpu.err;
  }
  // The GPU engine forced on a machine without a GPU still counts (on the CPU), silently.
  const auto forced = run_matchcount("--engine gpu-ryser --no-jit" + grid);
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(forced.out, "12988816\n");
  if (!matchcount::gpu_available()) {
    EXPECT_EQ(forced.err, "");
  }
}

TEST(Cli, ExplainPrintsThePlanAndCountsNothing) {
  const std::string grid = " --as graph " + source("datasets/grid8x8.edges");
  const auto r = run_matchcount("--explain" + grid);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"plan for", "block(s) of size", "predicted", "not run"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << " in " << r.out;
  EXPECT_EQ(r.out.find("12988816"), std::string::npos);
  const auto j = run_matchcount("--explain --json" + grid);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"value\":null"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"predicted_seconds\""), std::string::npos) << j.out;
}
