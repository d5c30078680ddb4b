// The memory budget of issue 22 (--max-memory, CountOptions::max_memory): sizes as people write
// them, usage errors for bad ones, refusals naming the stage or engine, predicted memory in
// --explain and --json, and planning of large sparse inputs in bounded memory.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "engines/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/pipeline.hpp"
#include "measured_run.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using Json = nlohmann::json;
using test::baseline_peak_bytes;
using test::Measured;
using test::quoted;
using test::run_measured;

/// A matrix written to a temporary Matrix Market file.
std::string mtx_file(const SparseMatrix<Integer>& m) {
  std::ostringstream out;
  write_matrix_market(out, AnyMatrix(m));
  return test::temp_file(out.str(), ".mtx");
}
using test::edge_file;
using test::one_line;

TEST(MemoryBudget, SizesReadAsPeopleWriteThem) {
  EXPECT_EQ(parse_memory_size("200M"), 200.0 * (1 << 20));
  EXPECT_EQ(parse_memory_size("8G"), 8.0 * (1ull << 30));
  EXPECT_EQ(parse_memory_size("1.5GiB"), 1.5 * (1ull << 30));
  EXPECT_EQ(parse_memory_size("512 KB"), 512e3);
  EXPECT_EQ(parse_memory_size("3gb"), 3e9);
  EXPECT_EQ(parse_memory_size("1e9"), 1e9);
  EXPECT_EQ(parse_memory_size(" 4096 "), 4096.0);
  EXPECT_EQ(parse_memory_size("2T"), 2.0 * (1ull << 40));
  for (const char* bad : {"", "M", "abc", "-5M", "5X", "5 M B", "nan", "inf", "1e400", "0x10", "+1G"})
    EXPECT_FALSE(parse_memory_size(bad)) << bad;
  EXPECT_EQ(memory_text(200.0 * (1 << 20)), "200 MiB");
  EXPECT_EQ(memory_text(3.1 * (1ull << 30)), "3.1 GiB");
  EXPECT_EQ(memory_text(512), "512 bytes");
  // The default is a share of what the system lets this process use.
  EXPECT_GT(default_max_memory(), 0);
  EXPECT_LE(default_max_memory(), available_memory());
}

TEST(MemoryBudget, BadValuesAreUsageErrors) {
  const std::string file = quoted(std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/band12.mtx");
  for (const char* bad : {"abc", "-1", "5XB", "''", "nan"}) {
    const auto r = test::run_matchcount(std::string("--max-memory ") + bad + " " + file);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
    EXPECT_TRUE(one_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
  }
  // "none" and 0 lift the budget; a generous one changes nothing.
  for (const char* ok : {"none", "0", "1G", "1.5GiB"}) {
    const auto r = test::run_matchcount(std::string("--max-memory ") + ok + " " + file);
    EXPECT_EQ(r.exit_code, 0) << ok << ": " << r.err;
  }
}

TEST(MemoryBudget, RegularGraphUnder200MRefusesWithinTheBudget) {
  // A random 3-regular bipartite graph on 20000 + 20000 vertices: planning once grew with the
  // square of n (a branching tree of copies); now it stays far below the budget and the count
  // is refused, with one line and nothing on standard output.
  const std::string file = mtx_file(random_regular_bipartite(20000, 3, 1));
  const Measured r = run_measured("--max-memory 200M " + quoted(file));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("cannot be counted"), std::string::npos) << r.err;
  if (test::kPeakMemoryMeasurable) {  // AddressSanitizer's shadow memory counts as resident
    const double baseline = baseline_peak_bytes();
    EXPECT_LT(r.peak_bytes - baseline, 200.0 * (1 << 20)) << "baseline " << baseline;
  }
}

TEST(MemoryBudget, StagesAndEnginesBeyondTheBudgetAreRefusedByName) {
  // Reading: the 150 x 150 grid's 44 700 edges do not fit 1 MiB; the refusal names the file
  // and the line it stopped at, long before the end of the file.
  const std::string grid = edge_file(grid_graph(150, 150));
  const auto reading = test::run_matchcount("--as graph --max-memory 1M " + quoted(grid));
  EXPECT_EQ(reading.exit_code, 3) << reading.err;
  EXPECT_TRUE(one_line(reading.err)) << reading.err;
  EXPECT_NE(reading.err.find(grid + ": reading needs more than the memory budget of 1 MiB"), std::string::npos)
      << reading.err;
  EXPECT_NE(reading.err.find("entries read by line 8"), std::string::npos) << reading.err;  // 8195 or so
  // Planning itself: the grid's copies (about 24 MB) do not fit 12 MiB, though reading does.
  const auto planning = test::run_matchcount("--as graph --max-memory 12M " + quoted(grid));
  EXPECT_EQ(planning.exit_code, 3) << planning.err;
  EXPECT_TRUE(one_line(planning.err)) << planning.err;
  EXPECT_NE(planning.err.find("planning needs about"), std::string::npos) << planning.err;
  EXPECT_NE(planning.err.find("--max-memory"), std::string::npos) << planning.err;
  // The planner: Kasteleyn's band matrices for a 300 x 300 grid with real weights (planar,
  // frontier width 300) do not fit 100 MiB, though planning does, and no other engine can
  // count the block. (Exact counts take nested dissection, whose fronts fit: planned.)
  std::ostringstream weighted;
  for (const auto& [u, v] : grid_graph(300, 300).edges) weighted << u << " " << v << " 0.5\n";
  const std::string grid300 = test::temp_file(weighted.str(), ".edges");
  const auto planner = test::run_matchcount("--as graph --max-memory 100M " + quoted(grid300));
  EXPECT_EQ(planner.exit_code, 3) << planner.err;
  EXPECT_TRUE(one_line(planner.err)) << planner.err;
  EXPECT_NE(planner.err.find("Kasteleyn would need about"), std::string::npos) << planner.err;
  // A forced engine checks its own tables.
  const auto forced = test::run_matchcount("--as graph --engine kasteleyn --max-memory 100M " + quoted(grid300));
  EXPECT_EQ(forced.exit_code, 3) << forced.err;
  EXPECT_NE(forced.err.find("kasteleyn: banded elimination"), std::string::npos) << forced.err;
  EXPECT_NE(forced.err.find("--max-memory"), std::string::npos) << forced.err;
  const auto exact = test::run_matchcount("--as graph --explain --max-memory 100M " + quoted(edge_file(grid_graph(300, 300))));
  EXPECT_EQ(exact.exit_code, 0) << exact.err;
  EXPECT_NE(exact.out.find("kasteleyn"), std::string::npos) << exact.out;
}

TEST(MemoryBudget, PlannerPassesOverEnginesThatDoNotFit) {
  const auto g = biadjacency(grid_graph(40, 40));
  const EnginePlan roomy = plan_engine(g, DevicePolicy::Cpu, 2);
  ASSERT_EQ(roomy.engine, "kasteleyn");
  EXPECT_GT(roomy.predicted_bytes, 0);
  EXPECT_TRUE(roomy.why.empty());
  // Under a budget below Kasteleyn's prediction nothing else can count the block.
  const EnginePlan tight = plan_engine(g, DevicePolicy::Cpu, 2, roomy.predicted_bytes / 4);
  EXPECT_FALSE(std::isfinite(tight.predicted_seconds));
  EXPECT_NE(tight.why.find("--max-memory"), std::string::npos) << tight.why;
  // The frontier DP of a narrow torus (not planar): its tables under the budget, or passed over.
  const auto strip = biadjacency(torus_graph(8, 200));
  const EnginePlan frontier = plan_engine(strip, DevicePolicy::Cpu, 1);
  ASSERT_EQ(frontier.engine, "frontier") << frontier.engine;
  EXPECT_GT(frontier.predicted_bytes, 0);
  // Exact counts carry fewer primes a pass to fit a smaller budget; not one prime's tables do not.
  EXPECT_EQ(plan_engine(strip, DevicePolicy::Cpu, 1, frontier.predicted_bytes / 2).engine, "frontier");
  EXPECT_NE(plan_engine(strip, DevicePolicy::Cpu, 1, 1024).engine, "frontier");
  const auto real = convert<double>(strip, [](const Integer& v) { return 0.5 * v.get_d(); });
  const EnginePlan real_plan = plan_engine(real, DevicePolicy::Cpu, 1);
  ASSERT_EQ(real_plan.engine, "frontier");
  EXPECT_NE(plan_engine(real, DevicePolicy::Cpu, 1, real_plan.predicted_bytes / 2).engine, "frontier");
  // Engines called by name refuse tables beyond EngineOptions::max_bytes.
  EngineOptions eo;
  eo.max_bytes = 1 << 16;
  EXPECT_THROW(make_engine("kasteleyn")->permanent(g, eo), BudgetError);
  EXPECT_THROW(make_engine("frontier")->permanent(strip, eo), BudgetError);
  eo.max_bytes = std::numeric_limits<double>::infinity();
  EXPECT_EQ(make_engine("frontier")->permanent(biadjacency(grid_graph(4, 4)), eo), 36);
}

TEST(MemoryBudget, ExplainAndJsonShowPredictedMemory) {
  const std::string grid = edge_file(grid_graph(40, 40));
  const auto text = test::run_matchcount("--as graph --explain --max-memory 2G " + quoted(grid));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("kasteleyn: 1 block(s)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("MiB"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("memory: planning about"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("budget 2 GiB"), std::string::npos) << text.out;

  const auto json = test::run_matchcount("--as graph --explain --json --max-memory 2G " + quoted(grid));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j["memory"]["budget"].get<double>(), 2.0 * (1ull << 30));
  EXPECT_GT(j["memory"]["planning_bytes"].get<double>(), 0);
  ASSERT_EQ(j["engine_runs"].size(), 1u);
  EXPECT_GT(j["engine_runs"][0]["predicted_bytes"].get<double>(), 0);
  // Without a budget the JSON says none.
  const Json none = Json::parse(test::run_matchcount("--as graph --explain --json --max-memory none " + quoted(grid)).out);
  EXPECT_TRUE(none["memory"]["budget"].is_null());
}

TEST(MemoryBudget, LargeSparseInputsPlanInBoundedMemory) {
  // A 300 x 300 grid (Kasteleyn's, planned with the planarity test) and a random 3-regular
  // graph on 10^5 vertices (no engine: refused at once); both only planned. No timing
  // assertions: the bound is on memory, measured in the child.
  struct Case {
    std::string label, args;
    int exit_code;
    double max_mib;
  } cases[] = {
      {"grid 300 x 300", "--as graph --explain " + quoted(edge_file(grid_graph(300, 300))), 0, 300},
      {"3-regular, 10^5 vertices", quoted(mtx_file(random_regular_bipartite(50000, 3, 2))), 3, 300},
  };
  for (const Case& c : cases) {
    const Measured r = run_measured(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.label << ": " << r.err;
    if (test::kPeakMemoryMeasurable) {
      EXPECT_LT(r.peak_bytes - baseline_peak_bytes(), c.max_mib * (1 << 20)) << c.label;
    }
  }
}

TEST(MemoryBudget, CountOptionsCarryTheBudget) {
  // The library's default is a share of the memory available; an explicit one is kept, and
  // infinity means none.
  const AnyMatrix m(biadjacency(grid_graph(4, 4)));
  EXPECT_EQ(std::get<Integer>(count_permanent(m).value.value), 36);
  EXPECT_NEAR(count_permanent(m).max_memory, default_max_memory(), 0.05 * default_max_memory());
  CountOptions o;
  o.max_memory = 1e9;
  EXPECT_EQ(count_permanent(m, o).max_memory, 1e9);
  o.max_memory = 1000;  // below the planning of even this matrix
  EXPECT_THROW(count_permanent(m, o), BudgetError);
  o.max_memory = std::numeric_limits<double>::infinity();
  EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(adjacency_matrix(petersen_graph())), false, o).value.value), 6);
}

TEST(MemoryBudget, RefusalsTheBudgetCausedAreBudgetErrors) {
  // BudgetError (Python's BudgetExceeded) where a larger budget may count, RefusedError where
  // no budget would: planning, the planner's passed-over engines, the time cap.
  CountOptions o;
  o.max_memory = 100.0 * (1 << 20);
  // Real weights: the band's LU (exact counts take nested dissection, which fits).
  SparseMatrix<double> halves;
  const auto ones = biadjacency(grid_graph(300, 300));
  halves.rows = halves.cols = ones.rows;
  for (const auto& e : ones.entries) halves.entries.push_back({e.row, e.col, 0.5});
  const AnyMatrix grid(halves);
  try {
    count_permanent(grid, o);
    ADD_FAILURE() << "counted a 300 x 300 grid with real weights within 100 MiB";
  } catch (const BudgetError& e) {
    EXPECT_NE(std::string(e.what()).find("Kasteleyn would need about"), std::string::npos) << e.what();
  }
  o.max_memory = std::numeric_limits<double>::infinity();
  o.max_seconds = 1;
  // Random 0-1 matrices of density 0.8: a Ryser walk of 2^n steps, no structure to exploit.
  const auto dense = [](int n) {
    std::mt19937_64 rng(7);
    SparseMatrix<Integer> a;
    a.rows = a.cols = n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (rng() % 10 < 8) a.entries.push_back({i, j, Integer(1)});
    return AnyMatrix(a);
  };
  EXPECT_THROW(count_permanent(dense(40), o), BudgetError);
  // Beyond every engine's own limit (n = 70: past Ryser's, frontier width past the DP's), with
  // no budget at all: a refusal, not a budget's.
  o.max_seconds = 0;
  const std::string line = [&] {
    try {
      count_permanent(dense(70), o);
    } catch (const BudgetError& e) {
      return std::string("BudgetError: ") + e.what();
    } catch (const RefusedError& e) {
      return std::string(e.what());
    }
    return std::string("counted");
  }();
  EXPECT_EQ(line.find("a block of"), 0u) << line;
}

}  // namespace
}  // namespace matchcount

// A count on a GPU holds the CUDA context, runtime and NVRTC in host memory (measured in
// docs/benchmarks.md): a budget below what the catalog charges for it passes over the GPU engines.
namespace matchcount {

TEST(GpuMemory, CudaRuntimeCountsAgainstTheBudget) {
  std::mt19937_64 rng(7);
  const SparseMatrix<Integer> dense = test::random_integer(rng, 30, 0.9, 1, 1);
  const EnginePlan roomy = plan_engine(dense, DevicePolicy::Gpu, 2);
  if (roomy.engine.rfind("gpu-", 0) != 0) GTEST_SKIP() << "the planner takes no GPU engine here: " << roomy.engine;
  EXPECT_GE(roomy.predicted_bytes, 128.0 * (1 << 20));
  const EnginePlan tight = plan_engine(dense, DevicePolicy::Gpu, 2, 100.0 * (1 << 20));
  EXPECT_EQ(tight.engine.rfind("gpu-", 0), std::string::npos) << tight.engine;
}

}  // namespace matchcount
