// Known perfect-matching counts of general graphs through the whole hafnian path (generators,
// preprocessing, planner, engines), and the hafnian walks under the runtime: checkpoints that
// resume after SIGTERM and MPI ranks that give the bits of one process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "matchcount/cluster.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

Integer count_graph(const EdgeList& g, bool loops = false) {
  CountOptions o;
  o.threads = 2;
  return std::get<Integer>(count_hafnian(AnyMatrix(adjacency_matrix(g)), loops, o).value.value);
}

TEST(HafnianKnown, PolyhedraAndFullerene) {
  EXPECT_EQ(count_graph(petersen_graph()), 6);
  EXPECT_EQ(count_graph(dodecahedron_graph()), 36);
  EXPECT_EQ(count_graph(icosahedron_graph()), 125);
  EXPECT_EQ(count_graph(c60_graph()), 12500);  // Kekule structures of buckminsterfullerene
  Integer double_factorial = 1;
  for (int n = 2; n <= 30; n += 2) {
    double_factorial *= n - 1;
    EXPECT_EQ(count_graph(complete_graph(n)), double_factorial) << "K_" << n;
  }
}

TEST(HafnianKnown, TriangularAndKingLattices) {
  // OEIS A309117: the 4 x n triangular lattice (the grid with one diagonal per square).
  const long a309117[] = {1, 5, 15, 56, 203, 749, 2777, 10293, 38240, 141997};
  for (int n = 1; n <= 10; ++n) EXPECT_EQ(count_graph(triangular_graph(4, n)), a309117[n - 1]) << "4 x " << n;
  EXPECT_EQ(count_graph(triangular_graph(20, 4)), Integer("71184183353"));
  // OEIS A239273: the 2n x 2n king graph.
  EXPECT_EQ(count_graph(king_graph(2, 2)), 3);
  EXPECT_EQ(count_graph(king_graph(4, 4)), 280);
  EXPECT_EQ(count_graph(king_graph(6, 6)), 3037561);
  EXPECT_EQ(count_graph(king_graph(8, 8)), Integer("3263262629905"));
  // Odd vertex counts have no perfect matching.
  EXPECT_EQ(count_graph(triangular_graph(7, 7)), 0);
}

TEST(HafnianKnown, LoopHafnianOfTheCompleteGraphWithLoopsCountsInvolutions) {
  // lhaf(J_n) = the number of involutions of n elements (OEIS A000085).
  const long involutions[] = {1, 1, 2, 4, 10, 26, 76, 232, 764, 2620, 9496, 35696, 140152, 568504, 2390480};
  for (int n = 1; n < 15; ++n) {
    SparseMatrix<Integer> j;
    j.rows = j.cols = n;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) j.entries.push_back({r, c, Integer(1)});
    CountOptions o;
    o.threads = 2;
    EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(j), true, o).value.value), involutions[n]) << "n " << n;
  }
}

TEST(HafnianKnown, BundledGeneralGraphsMatchTheirGeneratorsAndCounts) {
  // Only the non-comment lines: the comments name the command, which the file does not repeat.
  const auto body = [](std::istream& in) {
    std::string line, out;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#') out += line + "\n";
    return out;
  };
  struct Bundled {
    const char* file;
    EdgeList graph;
    long count;
    const char* engine;  // besides the frontier DP; they share nothing but the guards
  };
  for (const Bundled& b : {Bundled{"c60.edges", c60_graph(), 12500, "pfaffian"},
                           Bundled{"petersen.edges", petersen_graph(), 6, "hafnian"}}) {
    std::ifstream in(std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/" + b.file);
    std::ostringstream written;
    write_edge_list(written, b.graph);
    std::istringstream again(written.str());
    EXPECT_EQ(body(in), body(again)) << b.file << ": regenerate with datasets/regenerate.sh";
    for (const char* engine : {b.engine, "graph-frontier"}) {
      CountOptions o;
      o.engine = engine;
      o.threads = 2;
      EXPECT_EQ(std::get<Integer>(count_hafnian(AnyMatrix(adjacency_matrix(b.graph)), false, o).value.value), b.count)
          << b.file << " " << engine;
    }
  }
}

std::string symmetric_file(int n, std::uint64_t seed) {
  std::ostringstream text;
  write_matrix_market_symmetric(text, AnyMatrix(random_symmetric_01(n, 0.5, false, seed)), "");
  return test::temp_file(text.str(), ".mtx");
}

TEST(HafnianRuntime, SigtermSavesTheWalkAndTheRerunResumes) {
  const std::string file = symmetric_file(40, 7);
  const auto direct = test::run_matchcount("--hafnian '" + file + "'");
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  const std::string ckpt = test::temp_file("", ".ckpt");
  std::filesystem::remove(ckpt);
  // 256 units of about 30 ms each with the pause (7.7 s): SIGTERM at 4.5 s lands inside the
  // walk (the CPU walk: the pause is after CPU units, and a GPU would finish first), with room
  // for a start slowed by other tests running beside it (2.5 s was once too little).
  const auto stopped = test::run_slow_matchcount_under(
      "timeout -s TERM 4.5", 30000, "--device cpu --threads 1 --hafnian --checkpoint '" + ckpt + "' '" + file + "'");
  EXPECT_EQ(stopped.exit_code, 124) << stopped.err;  // timeout's code once it sent the signal
  EXPECT_NE(stopped.err.find("interrupted by SIGTERM"), std::string::npos) << stopped.err;
  ASSERT_TRUE(std::filesystem::exists(ckpt));
  const auto resumed = test::run_matchcount("-v --device cpu --hafnian --checkpoint '" + ckpt + "' '" + file + "'");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, direct.out);
  EXPECT_NE(resumed.err.find("resumed from the checkpoint"), std::string::npos) << resumed.err;
  EXPECT_FALSE(std::filesystem::exists(ckpt));
}

TEST(HafnianRuntime, MpiRanksShareTheWalkAndGiveTheBitsOfOneProcess) {
  if (!cluster::built_with_mpi() || std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no MPI here";
  std::string launcher =
      "mpirun --oversubscribe -np 3 -x MATCHCOUNT_MPI_MIN_SECONDS=0 -x ASAN_OPTIONS=detect_leaks=0";
  if (geteuid() == 0)
    launcher = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + launcher + " --allow-run-as-root";
  const std::string exact = symmetric_file(36, 11);
  SparseMatrix<double> real = random_symmetric_real(34, 1.0, -1, 1, false, 12);
  std::ostringstream text;
  write_matrix_market_symmetric(text, AnyMatrix(real), "");
  const std::string reals = test::temp_file(text.str(), ".mtx");
  for (const std::string& args : {"--hafnian --threads 1 '" + exact + "'", "--loop-hafnian --threads 1 '" + exact + "'",
                                  "--hafnian --threads 1 '" + reals + "'"}) {
    const auto one = test::run_matchcount(args);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto many = test::run_slow_matchcount_under(launcher, 1000, "-v " + args);
    ASSERT_EQ(many.exit_code, 0) << args << ": " << many.err;
    EXPECT_EQ(many.out, one.out) << args;
    EXPECT_NE(many.err.find("ranks 1-"), std::string::npos) << args << ": the other ranks took no units\n" << many.err;
  }
}

}  // namespace
}  // namespace matchcount
