// Issue 32, item 4: --max-memory bounds what a count really holds, not only what its plan
// predicts. The frontier DPs' tables are charged to a meter before they are written and never
// pass what the budget leaves the engine (growing_array.hpp); the engines get the budget less
// what the count already holds (pipeline/memory_budget.hpp). Peaks are measured in a child
// process (measured_run.hpp) beyond the program's own baseline.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/resident.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/frontier/frontier_run.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/graph_frontier/graph_frontier_run.hpp"
#include "engines/growing_array.hpp"
#include "engines/modular_tables.hpp"
#include "matchcount/error.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "measured_run.hpp"
#include "pipeline/memory_budget.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using test::edge_file;
using test::one_line;
using test::quoted;
constexpr double kMiB = 1 << 20;
constexpr std::uint64_t kPrime = (std::uint64_t{1} << 49) + 9;  // any odd modulus below 2^50 will do

/// What a run added to the program's own peak.
double added_peak(const test::Measured& r) { return r.peak_bytes - test::baseline_peak_bytes(); }

TEST(MemoryPeak, FrontierCountsWithinTheBudget) {
  // The 12 x 12 torus, bipartite: the frontier DP over 72 rows, width 23, 2.7e6 states at its
  // peak (41 MiB with one prime a pass). Its tables were sized by their sources (four times the
  // states), written in chunks spread over them and grown by doubling, and passed the budget
  // (docs/benchmarks.md, "Memory budget against the measured peak").
  const std::string torus = edge_file(torus_graph(12, 12));
  for (int threads : {1, 2}) {
    const auto r = test::run_measured("--device cpu --as graph --threads " + std::to_string(threads) + " --max-memory 64M " + quoted(torus));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "4161957566985310208\n");
    if (test::kPeakMemoryMeasurable) {
      EXPECT_LE(added_peak(r), 64 * kMiB) << threads << " thread(s)";
    }
  }
  // Below one prime's tables the count is refused at once, in one line, within the budget.
  const auto tight = test::run_measured("--device cpu --as graph --threads 2 --max-memory 40M " + quoted(torus));
  EXPECT_EQ(tight.exit_code, 3) << tight.err;
  EXPECT_TRUE(tight.out.empty()) << tight.out;
  EXPECT_TRUE(one_line(tight.err)) << tight.err;
  EXPECT_NE(tight.err.find("--max-memory"), std::string::npos) << tight.err;
  if (test::kPeakMemoryMeasurable) {
    EXPECT_LE(added_peak(tight), 40 * kMiB);
  }
}

TEST(MemoryPeak, GraphFrontierCountsWithinTheBudget) {
  // C_11 x C_14 is not bipartite: graph-frontier, width 23, 64 MiB of tables a prime. Its
  // tables came from malloc's heap, which kept the ones freed as they grew and between passes,
  // past the budget.
  const std::string torus = edge_file(torus_graph(11, 14));
  const auto r = test::run_measured("--device cpu --as graph --threads 2 --max-memory 80M " + quoted(torus));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "47217865780262297342\n");
  if (test::kPeakMemoryMeasurable) {
    EXPECT_LE(added_peak(r), 80 * kMiB);
  }
}

TEST(MemoryPeak, GenerousBudgetsStayWithinThePrediction) {
  // With room for every prime in one pass, the peak stays within what --json predicts for the
  // engine and planning (the planner's figures are bounds, not guesses), and the value is right.
  const std::string torus = edge_file(torus_graph(12, 12));
  const auto r = test::run_measured("--device cpu --as graph --json --threads 2 --max-memory 1G " + quoted(torus));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["value"].get<std::string>(), "4161957566985310208");
  ASSERT_EQ(j["engine_runs"].size(), 1u);
  const double predicted = j["engine_runs"][0]["predicted_bytes"].get<double>() + j["memory"]["planning_bytes"].get<double>();
  EXPECT_GT(predicted, 40 * kMiB);  // every prime: more than one prime's 41 MiB
  if (test::kPeakMemoryMeasurable) {
    EXPECT_LE(added_peak(r), predicted + 2 * kMiB) << "predicted " << predicted;
  }
}

TEST(MemoryPeak, RectangularDpKeepsToTheBudget) {
  // rect-dp's tables of 2^m row sets ignored the budget; now the pipeline passes over it and,
  // forced, it refuses.
  std::mt19937_64 rng(7);
  SparseMatrix<Integer> a;
  a.rows = 18, a.cols = 22;
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j)
      if (rng() % 10 < 4) a.entries.push_back({i, j, Integer(1)});
  std::ostringstream text;
  write_matrix_market(text, AnyMatrix(a));
  const std::string file = quoted(test::temp_file(text.str(), ".mtx"));
  const auto roomy = test::run_matchcount("--engine rect-dp --max-memory 1G " + file);  // 4 MiB of tables
  ASSERT_EQ(roomy.exit_code, 0) << roomy.err;
  const auto forced = test::run_matchcount("--engine rect-dp --max-memory 3M " + file);
  EXPECT_EQ(forced.exit_code, 3) << forced.err;
  EXPECT_TRUE(one_line(forced.err)) << forced.err;
  EXPECT_NE(forced.err.find("rect-dp needs tables of about 4 MiB, over the memory budget of 3 MiB"), std::string::npos)
      << forced.err;
  const auto chosen = test::run_matchcount("-v --device cpu --max-memory 3M " + file);
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_EQ(chosen.out, roomy.out);
  EXPECT_EQ(chosen.err.find("engine rect-dp"), std::string::npos) << chosen.err;
}

TEST(MemoryPeak, TablesChargeTheirPagesBeforeWritingThem) {
  engines::TableMeter meter(64 * kMiB, true);
  {
    engines::GrowingArray<std::uint64_t> t(&meter);
    t.resize(std::size_t{1} << 20);  // 8 MiB: a mapping in huge pages
    EXPECT_EQ(meter.used(), 8 * kMiB);
    t.resize(1000);  // the pages stay resident, and charged
    EXPECT_EQ(meter.used(), 8 * kMiB);
    t.trim();  // all but the huge page holding the contents go back
    EXPECT_EQ(meter.used(), 2 * kMiB);
    t.resize(std::size_t{1} << 20);
    t.settle(10);  // only the first page was written: the rest was never touched
    EXPECT_EQ(meter.used(), 2 * kMiB);
    engines::GrowingArray<std::uint64_t> moved(std::move(t));  // the charge moves with the pages
    EXPECT_EQ(meter.used(), 2 * kMiB);
    EXPECT_EQ(moved.charged(), 2 * kMiB);
  }
  EXPECT_EQ(meter.used(), 0);
  EXPECT_EQ(meter.peak(), 8 * kMiB);
  EXPECT_TRUE(meter.fits(64 * kMiB));
  EXPECT_FALSE(meter.fits(64 * kMiB + 1));
  if (!test::kPeakMemoryMeasurable) return;
  // What the meter charges is what becomes resident, and trim gives it back.
  engines::GrowingArray<std::uint64_t> big(&meter);
  const double before = resident_bytes();
  big.resize(std::size_t{4} << 20);  // 32 MiB
  std::memset(big.data(), 1, big.n * sizeof(std::uint64_t));
  const double grown = resident_bytes() - before;
  EXPECT_GE(grown, 31 * kMiB);
  EXPECT_LE(grown, meter.used() + kMiB);
  big.n = 0;
  big.trim();
  EXPECT_LE(resident_bytes() - before, 2 * kMiB);
}

/// A DP state word modulo kPrime, every entry 1 (the patterns are 0-1): the policies of both
/// runs, without the engines' residue tables.
struct UnitMod {
  using Word = std::uint64_t;
  static constexpr int words = 1, abs_word = -1;
  std::vector<Word> one() const { return {1}; }
  void set(Word* d, const Word* s, int) const { d[0] = s[0]; }
  void add(Word* d, const Word* s, int) const { d[0] = (d[0] + s[0]) % kPrime; }
  void zero(Word* d) const { d[0] = 0; }
  void finish(Word*) const {}
};

TEST(MemoryPeak, FrontierRunStopsAtItsMeter) {
  // Large enough for two threads to share its rows (thread_count), so that both ways of
  // writing a table run: packed by one thread, in chunks by several.
  const auto a = biadjacency(torus_graph(12, 12));
  const auto plan = engines::plan_frontier(engines::pattern_of(a), a.rows);
  const auto steps = engines::frontier_steps(a, plan);
  const std::uint64_t expected = Integer(Integer("4161957566985310208") % kPrime).get_ui();
  const double predicted = engines::frontier_bytes(plan, 1);
  for (int threads : {1, 2}) {
    // The tables stay within the prediction, however the threads write them.
    EngineOptions opt;
    opt.threads = threads;
    engines::TableMeter meter(predicted, true);
    EXPECT_EQ(engines::frontier_detail::FrontierRun<UnitMod>(UnitMod{}, opt, meter).run(steps)[0], expected);
    EXPECT_LE(meter.peak(), predicted);
    EXPECT_EQ(meter.used(), 0);  // the run's tables are gone with it
    // A meter short of the tables stops the run with the budget's refusal, naming the row.
    engines::TableMeter small(predicted / 3, true);
    try {
      engines::frontier_detail::FrontierRun<UnitMod>(UnitMod{}, opt, small).run(steps);
      ADD_FAILURE() << "ran in a third of its tables";
    } catch (const BudgetError& e) {
      EXPECT_NE(std::string(e.what()).find("frontier: at row"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--max-memory"), std::string::npos) << e.what();
    }
    EXPECT_LE(small.peak(), predicted / 3);
  }
}

TEST(MemoryPeak, GraphFrontierRunStopsAtItsMeter) {
  const EdgeList g = torus_graph(7, 10);  // not bipartite: C_7
  const auto a = adjacency_matrix(g);
  std::vector<std::pair<int, int>> pattern;
  for (const auto& e : a.entries) pattern.emplace_back(e.row, e.col);
  const auto plan = engines::plan_graph_frontier(pattern, a.rows);
  const auto steps = engines::graph_frontier_steps(a, false, plan);
  const Integer hafnian = make_graph_engine("graph-frontier")->hafnian(a, false, {});
  const std::uint64_t expected = Integer(hafnian % kPrime).get_ui();
  const double predicted = engines::graph_frontier_bytes(plan, 1);
  engines::TableMeter meter(predicted, true);
  EXPECT_EQ(engines::graph_frontier_detail::GraphRun<UnitMod>(UnitMod{}, {}, false, meter).run(steps)[0], expected);
  EXPECT_LE(meter.peak(), predicted);
  engines::TableMeter small(predicted / 3, true);
  EXPECT_THROW(engines::graph_frontier_detail::GraphRun<UnitMod>(UnitMod{}, {}, false, small).run(steps), BudgetError);
  EXPECT_LE(small.peak(), predicted / 3);
}

TEST(MemoryPeak, EnginesGetTheBudgetLessWhatTheCountHolds) {
  EXPECT_EQ(detail::held_bytes(), 0);  // outside a count
  const AnyMatrix input(biadjacency(grid_graph(4, 4)));
  const detail::MemoryScope scope(input);
  const double held = detail::held_bytes();
  EXPECT_GE(held, double(nnz_of(input)) * detail::entry_bytes(NumberKind::Integer));
  {
    const detail::MemoryScope nested(input);  // a nested count shares the outer scope
    EXPECT_NEAR(detail::held_bytes(), held, kMiB);
  }
  std::vector<char> block(std::size_t(48 * kMiB));
  std::memset(block.data(), 1, block.size());
  EXPECT_GE(detail::held_bytes() - held, 47 * kMiB);
  EXPECT_LE(detail::engine_bytes_left(100 * kMiB), 53 * kMiB);
  EXPECT_EQ(detail::engine_bytes_left(40 * kMiB), 0);
  EXPECT_TRUE(std::isinf(detail::engine_bytes_left(std::numeric_limits<double>::infinity())));
}

}  // namespace
}  // namespace matchcount
