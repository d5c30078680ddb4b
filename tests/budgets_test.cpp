// Budgets of issue 22: dimensions without entries cost nothing, --max-seconds caps exact
// counts (refused when predicted longer, stopped when reached), a count predicted to take more
// than a day says so, and an allocation failure inside GMP ends with exit code 1 and one line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "measured_run.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using test::kBand12;
const std::string kRandomInt10 = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/random_int10.mtx";
const std::string kGrid8 = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/grid8x8.edges";

using test::quoted;

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A random n x n 0-1 matrix of density 0.8 (no repeated lines to speak of: the planner
/// predicts a Ryser walk of 2^n steps).
std::string dense01(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::ostringstream out, body;
  std::size_t nnz = 0;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      if (rng() % 10 < 8) body << i << " " << j << "\n", ++nnz;
  out << "%%MatrixMarket matrix coordinate pattern general\n" << n << " " << n << " " << nnz << "\n" << body.str();
  return out.str();
}

std::string mtx(const std::string& banner_rest, const std::string& size, const std::string& entries) {
  return "%%MatrixMarket matrix coordinate " + banner_rest + "\n" + size + "\n" + entries;
}

TEST(Budgets, DimensionsWithoutEntriesCostNothing) {
  // Under a 1 GB address-space limit: one array of 10^8 ints would not fit beside the rest.
  // (AddressSanitizer reserves terabytes of shadow address space: there the time limit alone.)
#if defined(__SANITIZE_ADDRESS__)
  const std::string limit;
#else
  const std::string limit = "ulimit -v 1000000;";
#endif
  struct Case {
    std::string file, args, out;
  } cases[] = {
      {mtx("pattern general", "100000000 100000000 1", "5 7\n"), "", "0\n"},
      {mtx("pattern general", "2147483647 2147483647 1", "5 7\n"), "", "0\n"},
      {mtx("integer general", "100000000 100000000 2", "1 1 3\n2 2 4\n"), "--json", ""},
      {mtx("integer general", "1 2147483647 1", "1 2000000000 3\n"), "", "3\n"},
      {mtx("integer general", "2147483647 2 2", "7 1 3\n9 2 5\n"), "", "15\n"},
      {mtx("integer general", "100000000 2147483647 1", "7 1 3\n"), "", "0\n"},
      {mtx("pattern symmetric", "100000000 100000000 1", "7 5\n"), "--hafnian", "0\n"},
      {mtx("integer symmetric", "2147483647 2147483647 1", "7 7 2\n"), "--loop-hafnian", "0\n"},
      // The estimators too: the matching stages they share allocate per line.
      {mtx("pattern general", "100000000 100000000 1", "5 7\n"), "--estimate", "0\n"},
      {mtx("pattern symmetric", "100000000 100000000 1", "7 5\n"), "--estimate --hafnian", "0\n"},
  };
  for (const auto& c : cases) {
    const std::string path = test::temp_file(c.file, ".mtx");
    test::RunResult r;
    const double s = seconds_of([&] { r = test::run_matchcount_under(limit, c.args + " " + quoted(path)); });
    EXPECT_EQ(r.exit_code, 0) << c.file << r.err;
    if (!c.out.empty()) {
      EXPECT_EQ(r.out, c.out) << c.file;
    }
    EXPECT_LT(s, 5.0) << c.file;
    if (c.args == "--json") {
      EXPECT_NE(r.out.find("\"value\":\"0\""), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("\"matching_size\":2"), std::string::npos) << r.out;
    }
    std::filesystem::remove(path);
  }
}

TEST(Budgets, PredictedOverrunIsRefusedAtOnce) {
  const std::string path = test::temp_file(dense01(40, 1), ".mtx");
  test::RunResult r;
  const double s = seconds_of([&] { r = test::run_matchcount("--max-seconds 1 " + quoted(path)); });
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("predicted to take about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("time cap of 1 s"), std::string::npos) << r.err;
  EXPECT_LT(s, 5.0);
  // The same cap with --estimate is the estimate's, as before: it runs and gives a value.
  const auto est = test::run_matchcount("--estimate --seed 1 --max-seconds 1 " + quoted(path));
  EXPECT_EQ(est.exit_code, 0) << est.err;
  EXPECT_FALSE(est.out.empty());
  // --explain plans and counts nothing: no refusal.
  EXPECT_EQ(test::run_matchcount("--explain --max-seconds 1 " + quoted(path)).exit_code, 0);
  // A cap the prediction meets counts.
  const auto fine = test::run_matchcount("--max-seconds 60 " + quoted(kBand12));
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_EQ(fine.out, "11854\n");
  std::filesystem::remove(path);
}

TEST(Budgets, DayLongPredictionIsAnnouncedBeforeTheCount) {
  const std::string path = test::temp_file(dense01(62, 2), ".mtx");
  // Started, then stopped by timeout's SIGINT: the note came before the engines.
  // On the CPU: a GPU machine predicts days, not years.
  const auto r = test::run_matchcount_under("timeout -s INT 2", "--device cpu " + quoted(path));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("matchcount: note: the count is predicted to take about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("years"), std::string::npos) << r.err;
  // Short counts say nothing of the kind.
  const auto quiet = test::run_matchcount(quoted(kBand12));
  EXPECT_EQ(quiet.err.find("predicted"), std::string::npos) << quiet.err;
  std::filesystem::remove(path);
}

TEST(Budgets, CapReachedWhileRunningStopsSavesAndResumes) {
  const std::string ckpt = test::temp_file("", ".ckpt");
  std::filesystem::remove(ckpt);
  test::RunResult r;
  const double s = seconds_of([&] {
    r = test::run_slow_matchcount_under("", 100000,
                                        "--threads 1 --max-seconds 0.5 --checkpoint " + quoted(ckpt) + " " + quoted(kBand12));
  });
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--max-seconds 0.5 was reached; progress is saved in"), std::string::npos) << r.err;
  EXPECT_LT(s, 3.0);  // the slowed walk takes over 3 s
  ASSERT_TRUE(std::filesystem::exists(ckpt));
  const auto resumed = test::run_matchcount("--json --checkpoint " + quoted(ckpt) + " " + quoted(kBand12));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("\"value\":\"11854\""), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("resumed from the checkpoint"), std::string::npos) << resumed.out;

  // Without a checkpoint there is nothing to save: the count stops with one line.
  const auto plain = test::run_slow_matchcount_under("", 100000, "--threads 1 --max-seconds 0.5 " + quoted(kBand12));
  EXPECT_EQ(plain.exit_code, 3) << plain.err;
  EXPECT_EQ(plain.out, "");
  EXPECT_EQ(plain.err, "matchcount: error: the time cap --max-seconds 0.5 was reached; the count stopped "
                       "(--checkpoint FILE saves progress to resume)\n");
}

/// Runs matchcount-failing-alloc: GMP allocation `n` fails.
test::RunResult run_failing(long long n, const std::string& args) {
  const std::string out = test::temp_file("", ".out"), err = test::temp_file("", ".err");
  const std::string cmd = "'" + std::string(MATCHCOUNT_FAILING_ALLOC_BINARY) + "' " + std::to_string(n) + " " + args +
                          " </dev/null >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  test::RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::stringstream o, e;
  o << std::ifstream(out).rdbuf();
  e << std::ifstream(err).rdbuf();
  r.out = o.str(), r.err = e.str();
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

TEST(Budgets, GmpAllocationFailureExitsOneWithALine) {
  const auto first = run_failing(0, quoted(kRandomInt10));
  EXPECT_EQ(first.exit_code, 1);
  EXPECT_EQ(first.out, "");
  EXPECT_EQ(first.err, "matchcount: error: out of memory\n");
  // Failures at many places of reading, planning, counting and CRT, threads included: always
  // exit code 1 and one line, or (past the last allocation) the count.
  int failed = 0;
  for (const std::string& args : {quoted(kRandomInt10), "--as graph --threads 2 " + quoted(kGrid8),
                                  "--hafnian --as graph --threads 2 " + quoted(kGrid8)})
    for (long long n = 1; n < 4000; n = n * 3 + 1) {
      const auto r = run_failing(n, args);
      if (r.exit_code == 0) continue;
      ++failed;
      EXPECT_EQ(r.exit_code, 1) << args << " n=" << n << " " << r.err;
      EXPECT_EQ(r.err, "matchcount: error: out of memory\n") << args << " n=" << n;
      EXPECT_EQ(r.out, "") << args << " n=" << n;
    }
  EXPECT_GT(failed, 5);
  // Without the injected failure the program counts as usual.
  EXPECT_EQ(run_failing(-1, quoted(kRandomInt10)).out, test::run_matchcount(quoted(kRandomInt10)).out);
}

}  // namespace
}  // namespace matchcount
