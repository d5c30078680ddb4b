// MPI: a count or estimate shared over 4 ranks (mpirun --oversubscribe, for hosts of fewer cores) gives
// the bits of one process, every rank takes part, bad input ends the job cleanly, and a rank
// killed mid-walk is named by rank 0, which saves the checkpoint first.
// Skipped in builds without MPI or where mpirun is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "matchcount/cluster.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// The mpirun command for `ranks` ranks, or "" when MPI cannot be used here.
std::string mpirun(int ranks) {
  if (!cluster::built_with_mpi() || std::system("command -v mpirun >/dev/null 2>&1") != 0) return "";
  // Blocks are shared however short (MATCHCOUNT_MPI_MIN_SECONDS=0); leak checks are off for
  // the ranks (the MPI library keeps its allocations to the end).
  std::string cmd = "mpirun --oversubscribe -np " + std::to_string(ranks) +
                    " -x MATCHCOUNT_MPI_MIN_SECONDS=0 -x ASAN_OPTIONS=detect_leaks=0";
  if (geteuid() == 0) cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + cmd + " --allow-run-as-root";
  return cmd;
}

/// A top-level field of a --json line as JSON text (numbers print to round-trip: equal bits,
/// equal text); "" when the line is not JSON or has no such field.
std::string field(const std::string& json, const std::string& name) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  return j.is_object() && j.contains(name) ? j[name].dump() : "";
}

/// Units the other ranks took, from a note "ranks 1-3 took a + b + c units" (-1: no note).
/// (Parsed by hand: GCC 12 warns inside <regex> at -O2.)
long long remote_units(const std::string& json) {
  const std::size_t at = json.find("ranks 1-");
  if (at == std::string::npos) return -1;
  const std::size_t took = json.find(" took ", at), end = json.find(" units", at);
  if (took == std::string::npos || end == std::string::npos || end < took) return -1;
  long long total = 0, number = -1;
  for (std::size_t i = took + 6; i <= end; ++i) {
    const char c = i < end ? json[i] : ' ';
    if (c >= '0' && c <= '9') number = (number < 0 ? 0 : number * 10) + (c - '0');
    else if (c == ' ' || c == '+') total += number < 0 ? 0 : number, number = -1;
    else return -1;
  }
  return total;
}

/// Counts with `args` in one process and under `launcher`, where every walk unit pauses 1 ms
/// so that the other ranks surely ask for units before rank 0 alone has walked them all (a
/// busy machine starts ranks late): the same value, and units taken by the other ranks.
/// `one_out` receives the one process's output.
void expect_ranks_give_the_bits_of_one(const std::string& launcher, const std::string& args, const std::string& what,
                                       std::string& one_out) {
  const auto one = test::run_matchcount(args);
  ASSERT_EQ(one.exit_code, 0) << what << ": " << one.err;
  one_out = one.out;
  const auto many = test::run_slow_matchcount_under(launcher, 1000, args);
  ASSERT_EQ(many.exit_code, 0) << what << ": " << many.err;
  ASSERT_FALSE(field(one.out, "value").empty()) << one.out;
  EXPECT_EQ(field(many.out, "value"), field(one.out, "value")) << what;
  EXPECT_GT(remote_units(many.out), 0) << what << ": the other ranks took no units\n" << many.out;
}

TEST(Cluster, RyserWalksSharedOverRanksGiveTheBitsOfOneProcess) {
  const std::string launcher = mpirun(4);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  struct Case {
    const char* what;
    std::string matrix;
  };
  std::string real = "%%MatrixMarket matrix coordinate real general\n22 22 484\n";
  std::string exact = "%%MatrixMarket matrix coordinate integer general\n22 22 484\n";
  std::string wide = "%%MatrixMarket matrix coordinate integer general\n18 18 324\n";
  std::string cplx = "%%MatrixMarket matrix coordinate complex general\n18 18 324\n";
  unsigned x = 12345;
  auto next = [&] { return x = x * 1103515245u + 12345u, (x >> 8) % 1000; };
  for (int i = 1; i <= 22; ++i)
    for (int j = 1; j <= 22; ++j) {
      real += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string((int(next()) - 500) / 250.0) + "\n";
      exact += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(next() % 2 + (i == j)) + "\n";
    }
  for (int i = 1; i <= 18; ++i)
    for (int j = 1; j <= 18; ++j) {
      // Entries up to 10^6: beyond the four primes of one walk, so one walk per prime.
      wide += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(int(next()) * 1000 + int(next())) + "\n";
      cplx += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(next() / 500.0 - 1) + " " +
              std::to_string(next() / 500.0 - 1) + "\n";
    }
  for (const Case& c : {Case{"real", real}, Case{"0-1 exact", exact}, Case{"wide integers", wide}, Case{"complex", cplx}}) {
    const std::string file = test::temp_file(c.matrix, ".mtx");
    std::string one;
    expect_ranks_give_the_bits_of_one(launcher, "--engine ryser --device cpu --threads 1 --json '" + file + "'", c.what,
                                      one);
    EXPECT_EQ(remote_units(one), -1) << one;
  }
}

TEST(Cluster, SparseWalksSharedOverRanksGiveTheBitsOfOneProcess) {
  const std::string launcher = mpirun(4);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  const std::string header[] = {"%%MatrixMarket matrix coordinate real general\n",
                                "%%MatrixMarket matrix coordinate integer general\n",
                                "%%MatrixMarket matrix coordinate complex general\n"};
  unsigned x = 777;
  auto next = [&] { return x = x * 1103515245u + 12345u, (x >> 8) % 1000; };
  for (int kind = 0; kind < 3; ++kind) {
    // 18 x 18, about half the entries and the diagonal: one block, 2^10 chunks of 2^8 steps.
    std::string body;
    int entries = 0;
    for (int i = 1; i <= 18; ++i)
      for (int j = 1; j <= 18; ++j) {
        if (i != j && next() % 2) continue;
        const double a = (int(next()) - 300) / 250.0, b = (int(next()) - 500) / 500.0;
        body += std::to_string(i) + " " + std::to_string(j) + " " +
                (kind == 1 ? std::to_string(next() % 3 + 1) : std::to_string(a)) +
                (kind == 2 ? " " + std::to_string(b) : std::string()) + "\n";
        ++entries;
      }
    const std::string file = test::temp_file(header[kind] + "18 18 " + std::to_string(entries) + "\n" + body, ".mtx");
    for (const char* engine : {"sparyser", "skipper"}) {
      const std::string args = std::string("--engine ") + engine + " --device cpu --threads 1 --json '" + file + "'";
      std::string one;
      expect_ranks_give_the_bits_of_one(launcher, args, std::string(engine) + " kind " + std::to_string(kind), one);
    }
  }
}

TEST(Cluster, TorontonianWalksSharedOverRanksGiveTheBitsOfOneProcess) {
  const std::string launcher = mpirun(4);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  // 18 modes (2^4 work units of 2^14 subsets): O banded and cyclic, 0.6 on the diagonal and 0.1
  // beside it, so I - O has its eigenvalues in [0.2, 0.6]; with and without gamma.
  const int d = 36;
  std::string body;
  for (int i = 0; i < d; ++i) {
    body += std::to_string(i + 1) + " " + std::to_string(i + 1) + " 0.6\n";
    body += std::to_string(i + 1) + " " + std::to_string((i + 1) % d + 1) + " 0.1\n";
    body += std::to_string((i + 1) % d + 1) + " " + std::to_string(i + 1) + " 0.1\n";
  }
  const std::string o = test::temp_file("%%MatrixMarket matrix coordinate real general\n36 36 108\n" + body, ".mtx");
  std::string g = "%%MatrixMarket matrix array real general\n36 1\n";
  for (int i = 0; i < d; ++i) g += std::to_string(0.05 * (i % 5)) + "\n";
  const std::string gamma = test::temp_file(g, ".mtx");
  for (const std::string& extra : {std::string(), " --gamma '" + gamma + "'"}) {
    const std::string args = "--torontonian --device cpu --threads 1 --json" + extra + " '" + o + "'";
    std::string one;
    expect_ranks_give_the_bits_of_one(launcher, args, "torontonian" + extra, one);
    EXPECT_NE(field(one, "abs_error"), "") << one;
  }
}

TEST(Cluster, RepeatedHafnianWalksSharedOverRanksGiveTheBitsOfOneProcess) {
  const std::string launcher = mpirun(4);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  // 20 modes of 2 photons each: 3^10 leaves of the pair walk in 27 work units; integer (exact,
  // a walk per pass of primes) and complex.
  std::string ints = "%%MatrixMarket matrix array integer symmetric\n20 20\n";
  std::string cplx = "%%MatrixMarket matrix array complex symmetric\n20 20\n";
  unsigned x = 99;
  auto next = [&] { return x = x * 1103515245u + 12345u, (x >> 8) % 1000; };
  for (int c = 0; c < 20; ++c)
    for (int r = c; r < 20; ++r) {
      ints += std::to_string(int(next() % 7) - 3) + "\n";
      cplx += std::to_string((int(next()) - 500) / 700.0) + " " + std::to_string((int(next()) - 500) / 700.0) + "\n";
    }
  for (const std::string& body : {ints, cplx}) {
    const std::string file = test::temp_file(body, ".mtx");
    const std::string args = "--hafnian --reps 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2 --threads 1 --json '" + file + "'";
    std::string one;
    expect_ranks_give_the_bits_of_one(launcher, args, body.substr(26, 8), one);
  }
}

TEST(Cluster, EstimatesSharedOverRanksGiveTheBitsOfOneProcess) {
  const std::string launcher = mpirun(4);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  // The 8 x 8 grid (its 64 vertices in rows), sampled whole.
  std::string edges;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      if (c + 1 < 8) edges += std::to_string(8 * r + c) + " " + std::to_string(8 * r + c + 1) + "\n";
      if (r + 1 < 8) edges += std::to_string(8 * r + c) + " " + std::to_string(8 * r + c + 8) + "\n";
    }
  const std::string file = test::temp_file(edges, ".edges");
  for (const char* method : {"rasmussen", "rasmussen+", "scaling+"}) {
    // 3000 samples: rounds that do not split evenly over the ranks' batches of 256.
    const std::string args = std::string("--estimate --method ") + method +
                             " --samples 3000 --seed 9 --device cpu --exact-up-to 0 --json --as graph '" + file + "'";
    const auto one = test::run_matchcount(args);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto many = test::run_matchcount_under(launcher, args);
    ASSERT_EQ(many.exit_code, 0) << many.err;
    ASSERT_FALSE(field(one.out, "value").empty()) << one.out;
    EXPECT_EQ(field(many.out, "value"), field(one.out, "value")) << method;
    EXPECT_NE(many.out.find("and 3 more rank(s)"), std::string::npos) << many.out;
  }
}

// A stop sent to mpirun mid-walk (it passes SIGTERM to every rank): rank 0 collects the runs
// out on the other ranks, saves the checkpoint and the job ends without MPI_Abort; the same
// command, on another number of ranks, resumes to the bits of an uninterrupted count.
/// A 16 x 16 integer matrix with entries up to 10^15: one walk per prime, so that after a stop
/// the other ranks must also skip the walks of the primes left.
std::string wide_matrix_file() {
  std::string m = "%%MatrixMarket matrix coordinate integer general\n16 16 256\n";
  unsigned long long x = 99;
  for (int i = 1; i <= 16; ++i)
    for (int j = 1; j <= 16; ++j) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      m += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(1 + (x >> 14) % 1000000000000000ULL) + "\n";
    }
  return test::temp_file(m, ".mtx");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Cluster, StopSavesAndResumesOnOtherRanks) {
  const std::string launcher = mpirun(2);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  const std::string file = wide_matrix_file(), ckpt = test::temp_file("", ".ckpt");
  const std::string args = "--engine ryser --device cpu --threads 1 --checkpoint '" + ckpt + "' '" + file + "'";
  const auto plain = test::run_matchcount("--engine ryser --device cpu '" + file + "'");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const std::string log = test::temp_file("", ".log");
  const std::string cmd = launcher + " " + test::slow_matchcount(20000) + " " + args + " >'" + log +
                          "' 2>&1 & p=$!; sleep 3; kill -INT $p; wait $p";
  ASSERT_NE(std::system(cmd.c_str()), 0);  // mpirun's status after a signal
  const std::string out = read_file(log);
  EXPECT_NE(out.find("progress is saved in"), std::string::npos) << out;
  EXPECT_EQ(out.find("MPI_ABORT"), std::string::npos) << out;
  EXPECT_EQ(out.find("was lost"), std::string::npos) << out;  // a stop, not a lost rank
  const std::string text = read_file(ckpt);
  EXPECT_NE(text.find("\nwalk "), std::string::npos) << text;
  const auto resumed = test::run_matchcount_under(mpirun(3), args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, plain.out);
}

/// Runs matchcount-slow (20 ms per unit) with `args` under `launcher` and, once rank 0 shows
/// progress (so every rank has started and the walk is shared), kills rank 2 (found by `marker`,
/// a path on its command line, and its rank variable; pgrep narrows the search where it is
/// installed) with SIGKILL, as the OOM killer would.
/// Returns the job's output and sets `pid` to the rank's process id ("" if it was not found).
std::string kill_rank_2_mid_walk(const std::string& launcher, const std::string& args, const std::string& marker,
                                 std::string& pid) {
  const std::string log = test::temp_file("", ".log"), pid_file = test::temp_file("", ".pid");
  const std::string cmd =
      launcher + " " + test::slow_matchcount(20000) + " --progress --progress-every 0.1 " + args + " >'" + log +
      "' 2>&1 & p=$!; for i in $(seq 600); do grep -q '[1-9]\\.[0-9]% done' '" + log +
      "' && break; sleep 0.1; done; for q in $(pgrep -f -- '" + marker + "' || ls /proc); do grep -qaF '" + marker +
      "' /proc/$q/cmdline 2>/dev/null && tr '\\0' '\\n' </proc/$q/environ 2>/dev/null | "
      "grep -qxE '(OMPI_COMM_WORLD_RANK|PMI_RANK)=2' && kill -9 $q && echo -n $q >'" + pid_file + "'; done; wait $p";
  EXPECT_NE(std::system(cmd.c_str()), 0);  // the launcher's status for the killed rank
  pid = read_file(pid_file);
  return read_file(log);
}

// A rank killed mid-walk: rank 0 stops waiting for its units, saves the checkpoint before the
// launcher kills the job and names the rank in one line; the same command resumes (here on 2
// ranks) to the value of an uninterrupted count.
TEST(Cluster, LostRankIsNamedAndTheCheckpointSaved) {
  const std::string launcher = mpirun(3);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  const std::string file = wide_matrix_file(), ckpt = test::temp_file("", ".ckpt");
  const std::string args = "--engine ryser --device cpu --threads 1 --checkpoint '" + ckpt + "' '" + file + "'";
  std::string pid;
  const std::string out = kill_rank_2_mid_walk(launcher, args, ckpt, pid);
  ASSERT_FALSE(pid.empty()) << "rank 2 was not found\n" << out;
  EXPECT_NE(out.find("matchcount: error: MPI rank 2 (pid " + pid + " on "), std::string::npos) << out;
  EXPECT_NE(out.find(") was lost; progress is saved in " + ckpt + ": run the same command again to resume\n"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("MPI_ABORT"), std::string::npos) << out;  // the launcher ended the job, not rank 0
  EXPECT_NE(read_file(ckpt).find("\nwalk "), std::string::npos) << "no walk saved in " << ckpt;
  const auto plain = test::run_matchcount("--engine ryser --device cpu '" + file + "'");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto resumed = test::run_matchcount_under(mpirun(2), "-v " + args);  // -v: says it resumed
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, plain.out);
  EXPECT_NE(resumed.err.find("resumed from the checkpoint"), std::string::npos) << resumed.err;
}

// Without --checkpoint there is nothing to save, but the rank is still named, with the option
// that would have saved the progress.
TEST(Cluster, LostRankWithoutCheckpointSuggestsOne) {
  const std::string launcher = mpirun(3);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  const std::string file = wide_matrix_file();
  std::string pid;
  const std::string out =
      kill_rank_2_mid_walk(launcher, "--engine ryser --device cpu --threads 1 '" + file + "'", file, pid);
  ASSERT_FALSE(pid.empty()) << "rank 2 was not found\n" << out;
  EXPECT_NE(out.find("matchcount: error: MPI rank 2 (pid " + pid + " on "), std::string::npos) << out;
  EXPECT_NE(out.find(") was lost; --checkpoint FILE lets a rerun resume from where a run stops\n"), std::string::npos)
      << out;
}

TEST(Cluster, BadInputEndsEveryRank) {
  const std::string launcher = mpirun(3);
  if (launcher.empty()) GTEST_SKIP() << "no MPI here";
  const auto r = test::run_matchcount_under(launcher, "'" + test::temp_file("1 2\nx y z\n", ".edges") + "'");
  // Every rank exits with 2; mpirun's own status follows (it may abort the job on the first
  // nonzero status, so only nonzero is certain).
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(":2:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace matchcount
