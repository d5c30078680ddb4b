// The command's conveniences: progress lines, range messages, hints, multiplicities, the man
// page and bash completion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "matchcount/error.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"
#include "progress.hpp"
#include "test_support.hpp"

using namespace matchcount;
using matchcount::test::run_matchcount;
using matchcount::test::temp_file;
namespace fs = std::filesystem;

namespace {

int lines_in(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

std::string dense_ones(int n) {
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n" + std::to_string(n) + " " +
                     std::to_string(n) + " " + std::to_string(n * n) + "\n";
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) text += std::to_string(i) + " " + std::to_string(j) + "\n";
  return text;
}

}  // namespace

TEST(Progress, LinesSayHowFarHowFastAndHowLong) {
  EXPECT_EQ(cli::ProgressDisplay::duration(42), "42s");
  EXPECT_EQ(cli::ProgressDisplay::duration(187), "3m07s");
  EXPECT_EQ(cli::ProgressDisplay::duration(5 * 3600 + 120), "5h02m");
  EXPECT_EQ(cli::ProgressDisplay::duration(12 * 86400), "12 days");
  // 40% in 10 s from a start at 20%: 2%/s, 30 s left for the other 60%.
  EXPECT_EQ(cli::ProgressDisplay::count_line(0.4, 0.2, 10), "40.0% done, 2.0%/s, 10s elapsed, about 30s left");
  EXPECT_EQ(cli::ProgressDisplay::count_line(0.2, 0.2, 1), "20.0% done, 1s elapsed");
}

TEST(Progress, EstimateLinesCompareTheErrorWithItsTargetAndTheTimeWithItsCap) {
  EstimateProgress p;
  p.samples = 1000, p.rel_error = 0.02, p.rel_error_target = 0.01, p.seconds = 10, p.max_seconds = 600;
  // A quarter of the variance needed: 3000 more samples at 100 a second.
  EXPECT_EQ(cli::ProgressDisplay::estimate_line(p),
            "estimate: 1000 samples, relative error 2% (target 1%), 10s elapsed, about 30s left (cap 10m00s)");
  p.max_seconds = 20;  // the cap comes first
  EXPECT_EQ(cli::ProgressDisplay::estimate_line(p),
            "estimate: 1000 samples, relative error 2% (target 1%), 10s elapsed, at most 10s left (the 20s cap)");
  EstimateProgress fixed;
  fixed.samples = 256, fixed.sample_target = 1024, fixed.rel_error = INFINITY, fixed.seconds = 2;
  EXPECT_EQ(cli::ProgressDisplay::estimate_line(fixed),
            "estimate: 256 of 1024 samples, relative error not known yet, 2s elapsed, about 6s left");
}

TEST(Progress, ALogGetsWholeLinesWithoutCarriageReturns) {
  // The all-ones 27 x 27 matrix: dense Ryser for about a second (longer under sanitizers).
  const std::string path = temp_file(dense_ones(27), ".mtx");
  const auto r = run_matchcount("--progress --progress-every 0.1 --threads 1 --engine ryser '" + path + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "10888869450418352160768000000\n");  // 27!
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  ASSERT_GE(lines_in(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("matchcount: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("% done"), std::string::npos) << r.err;
  // Without --progress a redirected stderr stays quiet.
  const auto quiet = run_matchcount("--progress-every 0.1 --threads 1 --engine ryser '" + path + "'");
  EXPECT_EQ(quiet.err, "");
}

TEST(Progress, EstimatesReportSamplesAndTheirError) {
  // A random 0-1 matrix of density 1/2 (the all-ones one has no variance to report).
  std::mt19937_64 rng(3);
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n40 40 ";
  std::string entries;
  int nnz = 0;
  for (int i = 1; i <= 40; ++i)
    for (int j = 1; j <= 40; ++j)
      if (rng() % 2 || i == j) entries += std::to_string(i) + " " + std::to_string(j) + "\n", ++nnz;
  const std::string path = temp_file(text + std::to_string(nnz) + "\n" + entries, ".mtx");
  const auto r = run_matchcount("--estimate --exact-up-to 0 --rel-error 1e-9 --max-seconds 1 --progress "
                                "--progress-every 0.2 '" + path + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("matchcount: estimate: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" samples, relative error "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(target 1e-07%)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("% done"), std::string::npos) << r.err;
}

TEST(Cli, RangeErrorsReadLikeTheOtherMessages) {
  for (const auto& [args, text] : std::vector<std::pair<std::string, std::string>>{
           {"--threads -1 x", "--threads: must be a whole number >= 0, not '-1'"},
           {"--checkpoint-every -2 x", "--checkpoint-every: must be a number >= 0, not '-2'"},
           {"--estimate --rel-error 0 x", "--rel-error: must be a number > 0, not '0'"},
           {"--estimate --samples 0 x", "--samples: must be a whole number >= 1, not '0'"}}) {
    const auto r = run_matchcount(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(text), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(lines_in(r.err), 1) << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
}

TEST(Cli, ExactIsSuggestedForRealValuesOnly) {
  const std::string real = temp_file("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0.5\n1 2 0.25\n2 2 3\n", ".mtx");
  const auto r = run_matchcount("'" + real + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--exact gives the exact fraction"), std::string::npos) << r.err;
  const std::string complex = temp_file(
      "%%MatrixMarket matrix coordinate complex general\n2 2 3\n1 1 0.5 1\n1 2 0.25 0\n2 2 3 0.5\n", ".mtx");
  const auto c = run_matchcount("'" + complex + "'");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.err.find("approximate value"), std::string::npos) << c.err;
  EXPECT_EQ(c.err.find("--exact"), std::string::npos) << c.err;
  const auto ce = run_matchcount("--exact '" + complex + "'");
  ASSERT_EQ(ce.exit_code, 0) << ce.err;
  EXPECT_NE(ce.err.find("complex values are always counted in double precision"), std::string::npos) << ce.err;
  EXPECT_EQ(ce.err.find("--exact"), std::string::npos) << ce.err;
}

TEST(Cli, ZeroFromAReadingSaysSoOnStderr) {
  const std::string grid = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/grid8x8.edges";
  const auto r = run_matchcount("'" + grid + "'");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "0\n");
  EXPECT_EQ(lines_in(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--as graph"), std::string::npos) << r.err;
  // Read as intended: the count, and no note.
  const auto g = run_matchcount("--as graph '" + grid + "'");
  EXPECT_EQ(g.out, "12988816\n");
  EXPECT_EQ(g.err, "");
}

TEST(Multiplicities, RepeatLinesMatchesTheMatrixWrittenOut) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 5);
    const SparseMatrix<Integer> a = test::random_integer(rng, n, 0.7, -3, 3);
    std::vector<std::uint64_t> rm(static_cast<std::size_t>(n)), cm(static_cast<std::size_t>(n));
    for (auto& m : rm) m = rng() % 3;
    for (auto& m : cm) m = rng() % 3;
    const auto b = std::get<SparseMatrix<Integer>>(repeat_lines(AnyMatrix(a), rm, cm));
    // Written out by hand: copies in order, dense.
    std::vector<int> rows, cols;
    for (int i = 0; i < n; ++i) rows.insert(rows.end(), rm[static_cast<std::size_t>(i)], i);
    for (int j = 0; j < n; ++j) cols.insert(cols.end(), cm[static_cast<std::size_t>(j)], j);
    ASSERT_EQ(b.rows, static_cast<int>(rows.size()));
    ASSERT_EQ(b.cols, static_cast<int>(cols.size()));
    const auto da = a.dense(), db = b.dense();
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t c = 0; c < cols.size(); ++c)
        EXPECT_EQ(db[r * cols.size() + c], da[static_cast<std::size_t>(rows[r] * n + cols[c])]);
  }
}

TEST(Multiplicities, ListsAreCheckedAndExpansionIsBounded) {
  EXPECT_EQ(parse_multiplicities("1,0, 2", "--row-mult"), (std::vector<std::uint64_t>{1, 0, 2}));
  for (const char* bad : {"", "1,,2", "1;2", "-1", "1,2,", "a", "99999999999"})
    EXPECT_THROW(parse_multiplicities(bad, "--row-mult"), UsageError) << bad;
  SparseMatrix<Integer> a;
  a.rows = a.cols = 2;
  a.entries = {{0, 0, 1}, {1, 1, 1}};
  EXPECT_THROW(repeat_lines(AnyMatrix(a), {1, 2, 3}, {}), UsageError);
  EXPECT_THROW(repeat_lines(AnyMatrix(a), {100000, 1}, {100000, 1}), RefusedError);
  EXPECT_THROW(repeat_lines(AnyMatrix(a), {4000000000u, 1}, {}), RefusedError);
}

TEST(Multiplicities, CliCountsTheRepeatedMatrix) {
  // [[1,2],[3,4]] with row 0 twice and column 1 twice is [[1,2,2],[1,2,2],[3,4,4]].
  const std::string m = temp_file("%%MatrixMarket matrix array integer general\n2 2\n1\n3\n2\n4\n", ".mtx");
  const auto r = run_matchcount("--row-mult 2,1 --col-mult 1,2 '" + m + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  SparseMatrix<Integer> x;
  x.rows = x.cols = 3;
  const int v[3][3] = {{1, 2, 2}, {1, 2, 2}, {3, 4, 4}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) x.entries.push_back({i, j, v[i][j]});
  EXPECT_EQ(r.out, count_permanent(AnyMatrix(x)).value.to_string() + "\n");
  const auto bad = run_matchcount("--row-mult 2,1,1 '" + m + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--row-mult has 3 multiplicities but the matrix has 2 rows"), std::string::npos) << bad.err;
}

TEST(Install, ManPageListsTheOptions) {
  const fs::path page = fs::path(MATCHCOUNT_BINARY).parent_path().parent_path() / "man" / "matchcount.1";
  if (!fs::exists(page)) GTEST_SKIP() << "no man page (help2man was not found at configure time)";
  std::ifstream in(page);
  std::stringstream text;
  text << in.rdbuf();
  for (const char* want : {".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", "\\-\\-row\\-mult", "\\-\\-estimate"})
    EXPECT_NE(text.str().find(want), std::string::npos) << want;
}

TEST(Install, BashCompletionOffersTheProgramsOwnChoices) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  const fs::path bin = fs::path(MATCHCOUNT_BINARY).parent_path();
  const std::string script = temp_file(
      "source '" + std::string(MATCHCOUNT_SOURCE_DIR) + "/apps/completion/matchcount.bash'\n"
      "PATH='" + bin.string() + "':$PATH\n"
      "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _matchcount; "
      "echo \"${COMPREPLY[*]}\"; }\n"
      "t matchcount --as ''\nt matchcount --row-m\nt matchcount-generate gr\nt matchcount-generate grid --fo\n",
      ".sh");
  const std::string out = temp_file("", ".txt");
  ASSERT_EQ(std::system(("bash '" + script + "' > '" + out + "'").c_str()), 0);
  std::ifstream in(out);
  std::string as, row, family, option;
  std::getline(in, as), std::getline(in, row), std::getline(in, family), std::getline(in, option);
  EXPECT_NE(as.find("auto bipartite graph digraph matrix"), std::string::npos) << as;
  EXPECT_NE(as.find("npy"), std::string::npos) << as;
  EXPECT_EQ(row, "--row-mult");
  EXPECT_EQ(family, "grid");
  EXPECT_EQ(option, "--format");
}

TEST(Cli, ListEnginesPrintsTheCatalog) {
  const auto r = test::run_matchcount("--list-engines");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : catalog::rows()) {
    const std::size_t at = r.out.find("\n" + std::string(row.name) + " ");
    ASSERT_NE(at, std::string::npos) << row.name;
    const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(row.gpu ? " gpu " : " cpu "), std::string::npos) << line;
    EXPECT_NE(line.find(row.summary), std::string::npos) << line;
  }
  // Every engine it lists is accepted by --engine, and counts the same value (or refuses the
  // block, exit 3, as kasteleyn does a non-planar one).
  // General-graph engines count a general graph's hafnian (Petersen: 6); named for a permanent
  // they are a usage error (exit 2).
  const std::string file = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/random_int10.mtx";
  const std::string graph = "--as graph " + std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/petersen.edges";
  const auto auto_run = test::run_matchcount(file);
  ASSERT_EQ(auto_run.exit_code, 0) << auto_run.err;
  for (const auto& row : catalog::rows()) {
    const bool hafnian = row.shape == catalog::Shape::Symmetric;
    const auto c = test::run_matchcount(std::string("--engine ") + row.name + " " + file);
    EXPECT_TRUE(c.exit_code == 0 || c.exit_code == 3 || (hafnian && c.exit_code == 2)) << row.name << ": " << c.err;
    if (c.exit_code == 0) {
      EXPECT_EQ(c.out, auto_run.out) << row.name;
    }
    if (!hafnian) continue;
    const auto h = test::run_matchcount(std::string("--engine ") + row.name + " " + graph);
    EXPECT_TRUE(h.exit_code == 0 || h.exit_code == 3) << row.name << ": " << h.err;
    if (h.exit_code == 0) {
      EXPECT_EQ(h.out, "6\n") << row.name;
    }
  }
}
