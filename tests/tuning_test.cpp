// The tuning knobs (src/core/tuning.cpp): one reader of the environment, a table of every knob shown by
// `--explain -v`, and the walk observer that replaced the library's own test delay.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matchcount/tuning.hpp"
#include "test_support.hpp"
#include "core/tuning.hpp"

using namespace matchcount;
namespace fs = std::filesystem;

namespace {

/// The "CAPITALS_1" string literals of a source: [A-Z][A-Z0-9_]+ between double quotes (by
/// hand: std::regex draws GCC 12 warnings from <regex> in the sanitizer build).
std::vector<std::string> quoted_capitals(const std::string& source) {
  std::vector<std::string> out;
  for (std::size_t i = source.find('"'); i != std::string::npos; i = source.find('"', i + 1)) {
    std::size_t j = i + 1;
    if (j >= source.size() || source[j] < 'A' || source[j] > 'Z') continue;
    while (j < source.size() && ((source[j] >= 'A' && source[j] <= 'Z') || (source[j] >= '0' && source[j] <= '9') ||
                                 source[j] == '_'))
      ++j;
    if (j < source.size() && source[j] == '"' && j - i > 2) out.push_back(source.substr(i + 1, j - i - 1)), i = j;
  }
  return out;
}

using test::slurp;

/// A 20 x 20 matrix with entries 1..9 (no equal rows, so ryser walks it): a CPU walk of many
/// units that takes milliseconds unpaused.
std::string walk_matrix() {
  std::string m = "%%MatrixMarket matrix coordinate integer general\n20 20 400\n";
  unsigned long long x = 7;
  for (int i = 1; i <= 20; ++i)
    for (int j = 1; j <= 20; ++j) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      m += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(1 + (x >> 33) % 9) + "\n";
    }
  return test::temp_file(m, ".mtx");
}

std::atomic<int> observed{0};
void count_unit(std::uint64_t) { observed.fetch_add(1); }

}  // namespace

TEST(Tuning, TableListsEveryKnobTheModuleReads) {
  const auto table = tuning::knob_table();
  std::set<std::string> names;
  for (const auto& r : table) {
    EXPECT_TRUE(names.insert(r.name).second) << "listed twice: " << r.name;
    EXPECT_FALSE(r.meaning.empty()) << r.name;
    EXPECT_FALSE(r.fallback.empty()) << r.name;
    EXPECT_FALSE(r.value.empty()) << r.name;
  }
  // Every variable named in the module is a row of the table (or one of the MPI launcher's).
  const std::string source = slurp(fs::path(MATCHCOUNT_SOURCE_DIR) / "src/core/tuning.cpp");
  int knobs = 0;
  for (const std::string& name : quoted_capitals(source)) {
    if (name == "HOME" || name == "XDG_CACHE_HOME") continue;  // the kernel cache's default
    const bool listed = std::any_of(table.begin(), table.end(),
                                    [&](const auto& r) { return r.name.find(name) != std::string::npos; });
    EXPECT_TRUE(listed) << name << " is read but not in the table";
    knobs += name.rfind("MATCHCOUNT_", 0) == 0;
  }
  EXPECT_GE(knobs, 15);
  // ... and documented.
  const std::string usage = slurp(fs::path(MATCHCOUNT_SOURCE_DIR) / "docs/usage.md");
  for (const auto& n : names) {
    if (n.rfind("MATCHCOUNT_", 0) == 0) {
      EXPECT_NE(usage.find("`" + n + "`"), std::string::npos) << n;
    }
  }
}

TEST(Tuning, OnlyTheTuningModuleReadsTheEnvironment) {
  const fs::path src = fs::path(MATCHCOUNT_SOURCE_DIR) / "src";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    ++files;
    if (e.path().filename() == "tuning.cpp") continue;  // src/core/tuning.cpp reads them
    EXPECT_EQ(slurp(e.path()).find("getenv"), std::string::npos) << e.path();
  }
  EXPECT_GT(files, 50);
}

TEST(Tuning, ScopedTuningOverridesAndRestores) {
  const int before = tuning::tuning().nvrtc_block;
  {
    tuning::Tuning t = tuning::tuning();
    t.nvrtc_block = 96;
    const tuning::ScopedTuning scope(t);
    EXPECT_EQ(tuning::tuning().nvrtc_block, 96);
    EXPECT_NE(tuning_text().find("MATCHCOUNT_NVRTC_BLOCK = 96"), std::string::npos) << tuning_text();
  }
  EXPECT_EQ(tuning::tuning().nvrtc_block, before);
}

TEST(Cli, ExplainVerboseShowsTheKnobsOfTheEnvironment) {
  const std::string file = walk_matrix();
  const auto r = test::run_matchcount_under(
      "MATCHCOUNT_NVRTC_BLOCK=64 MATCHCOUNT_MPI_MIN_SECONDS=2.5 MATCHCOUNT_SKIPPER_MODE=bogus",
      "--explain -v '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("MATCHCOUNT_NVRTC_BLOCK = 64  (default: built-in)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MATCHCOUNT_MPI_MIN_SECONDS = 2.5  (default: 0.5)"), std::string::npos) << r.err;
  // An unknown word leaves the knob at its default.
  EXPECT_NE(r.err.find("MATCHCOUNT_SKIPPER_MODE = planner's\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MATCHCOUNT_KERNEL_CACHE = "), std::string::npos) << r.err;
  const auto quiet = test::run_matchcount_under("MATCHCOUNT_NVRTC_BLOCK=64", "--explain '" + file + "'");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("MATCHCOUNT_NVRTC_BLOCK"), std::string::npos) << "the knobs need -v";
  EXPECT_EQ(quiet.out.find("MATCHCOUNT_NVRTC_BLOCK"), std::string::npos) << quiet.out;
}

TEST(WalkObserver, SeesEveryUnitOfACpuWalkUntilRemoved) {
  std::mt19937_64 rng(5);
  const auto a = test::random_integer(rng, 20, 1.0, 1, 9);
  auto engine = make_engine("ryser");
  EngineOptions o;
  o.threads = 2;
  observed = 0;
  set_walk_observer(count_unit);
  const Integer watched = engine->permanent(a, o);
  set_walk_observer(nullptr);
  const int units = observed.load();
  EXPECT_GT(units, 1) << "the walk ran in units, each observed";
  const Integer plain = engine->permanent(a, o);
  EXPECT_EQ(observed.load(), units) << "a removed observer is not called";
  EXPECT_EQ(watched, plain);
}

// The library's own pause is gone: a pause asked of the environment does not slow the
// program; matchcount-slow, the tests' build with a walk observer, is what slows a walk.
TEST(Cli, OnlyTheSlowBuildPausesWalks) {
  const std::string file = walk_matrix();
  const std::string args = "--engine ryser --device cpu --threads 1 '" + file + "'";
  const auto fast = test::run_matchcount_under("MATCHCOUNT_TEST_BLOCK_DELAY_US=1000000 timeout 60", args);
  EXPECT_EQ(fast.exit_code, 0) << "the program paused after walk units: " << fast.err;
  const auto slow = test::run_slow_matchcount_under("timeout 2", 1000000, args);
  EXPECT_EQ(slow.exit_code, 124) << "matchcount-slow finished a walk of many units at 1 s each: " << slow.out;
  const auto unpaused = test::run_slow_matchcount_under("", 0, args);
  ASSERT_EQ(unpaused.exit_code, 0) << unpaused.err;
  EXPECT_EQ(unpaused.out, fast.out);
}
