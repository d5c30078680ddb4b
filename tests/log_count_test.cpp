// Counts as logarithms through the pipeline and the program (--log): planar blocks by their
// log-determinant, other blocks exactly, products over blocks, every number kind, the zero
// counts, the refusals and what is printed.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <sstream>

#include "engines/planar/sparse_logdet.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

#define REQUIRE_SPARSE_LU()                                                  \
  if (!engines::planar::sparse_lu_available()) GTEST_SKIP() << "built without SuiteSparse"

CountOptions log_options() {
  CountOptions o;
  o.perfect_matchings = true;
  o.log = true;
  return o;
}

double ln(const Integer& x) {
  long e = 0;
  const double d = mpz_get_d_2exp(&e, x.get_mpz_t());
  return std::log(std::fabs(d)) + double(e) * std::numbers::ln2;
}

/// The exact count and the log count of `m` agree within the log count's error, which is small.
void expect_log_of_exact(const AnyMatrix& m, bool hafnian, const std::string& what) {
  CountOptions exact;
  exact.perfect_matchings = true;
  const CountReport e = hafnian ? count_hafnian(m, false, exact) : count_permanent(m, exact);
  const CountReport l = hafnian ? count_hafnian(m, false, log_options()) : count_permanent(m, log_options());
  ASSERT_TRUE(l.value.log) << what;
  const Integer want = std::get<Integer>(e.value.value);
  ASSERT_NE(want, 0) << what;
  EXPECT_EQ(l.value.log->sign, sgn(want)) << what;
  EXPECT_NEAR(l.value.log->log_abs, ln(want), l.value.log->error) << what;
  EXPECT_LT(l.value.log->error, 1e-10 * std::max(1.0, ln(want))) << what;
}

std::string edge_text(const EdgeList& g) {
  std::ostringstream o;
  for (auto [u, v] : g.edges) o << u << " " << v << "\n";
  return o.str();
}

TEST(LogCount, PlanarNonPlanarAndMixedBlocks) {
  REQUIRE_SPARSE_LU();
  expect_log_of_exact(AnyMatrix(biadjacency(grid_graph(12, 14))), false, "grid 12x14");
  expect_log_of_exact(AnyMatrix(biadjacency(aztec_diamond_graph(9))), false, "aztec 9");
  // C4 x C4 is the hypercube Q4, not planar: the exact engines count it, then its logarithm.
  expect_log_of_exact(AnyMatrix(biadjacency(torus_graph(4, 4))), false, "torus 4x4");
  // Two components, a grid and a torus: a product of a log-determinant and an exact count.
  EdgeList both = grid_graph(10, 10);
  const EdgeList torus = torus_graph(4, 6);
  for (auto [u, v] : torus.edges) both.edges.emplace_back(u + both.vertices, v + both.vertices);
  both.vertices += torus.vertices;
  const auto m = AnyMatrix(biadjacency(both));
  expect_log_of_exact(m, false, "grid and torus");
  const CountReport r = count_permanent(m, log_options());
  bool kasteleyn = false, other = false;
  for (const auto& run : r.engine_runs) (run.engine == "kasteleyn" ? kasteleyn : other) = true;
  EXPECT_TRUE(kasteleyn && other);
}

TEST(LogCount, HafniansOfPlanarAndOtherGraphs) {
  REQUIRE_SPARSE_LU();
  expect_log_of_exact(AnyMatrix(adjacency_matrix(triangular_graph(8, 9))), true, "triangular 8x9");
  expect_log_of_exact(AnyMatrix(adjacency_matrix(c60_graph())), true, "C60");
  expect_log_of_exact(AnyMatrix(adjacency_matrix(petersen_graph())), true, "Petersen");  // not planar
}

TEST(LogCount, NumberKindsAndZeros) {
  REQUIRE_SPARSE_LU();
  // Rational weights 1/2 on the 10 x 10 grid: the count / 2^50.
  const auto g = biadjacency(grid_graph(10, 10));
  SparseMatrix<Rational> half = convert<Rational>(g, [](const Integer&) { return Rational(1, 2); });
  SparseMatrix<double> real = convert<double>(g, [](const Integer&) { return 0.5; });
  CountOptions exact;
  const double want = ln(std::get<Integer>(count_permanent(AnyMatrix(g), exact).value.value)) - 50 * std::numbers::ln2;
  for (const AnyMatrix& m : {AnyMatrix(half), AnyMatrix(real)}) {
    const CountReport r = count_permanent(m, log_options());
    ASSERT_TRUE(r.value.log);
    EXPECT_NEAR(r.value.log->log_abs, want, 1e-12 * std::fabs(want));
    EXPECT_LE(std::fabs(r.value.log->log_abs - want), r.value.log->error);
  }
  // No perfect matching (the 5 x 5 grid has odd order): a log of -inf, exactly.
  const CountReport z = count_permanent(AnyMatrix(biadjacency(grid_graph(5, 5))), log_options());
  ASSERT_TRUE(z.value.log);
  EXPECT_EQ(z.value.log->sign, 0);
  EXPECT_EQ(z.value.log->error, 0);
  EXPECT_TRUE(z.value.is_zero());
  EXPECT_EQ(z.value.to_string(), "-inf");
  // Complex weights have no real logarithm; checkpoints keep no logarithms.
  SparseMatrix<Complex> c = convert<Complex>(g, [](const Integer&) { return Complex(0, 1); });
  EXPECT_THROW(count_permanent(AnyMatrix(c), log_options()), UsageError);
}

TEST(LogCount, ScientificNotation) {
  LogValue v;
  v.sign = 1, v.log_abs = 2885.8872153500397, v.error = 3e-10;
  EXPECT_EQ(v.digits(), 9);
  EXPECT_EQ(v.scientific(9), "2.11296850e+1253");
  v.log_abs = std::log(9.9999999999);  // rounds up to the next power of ten
  EXPECT_EQ(v.scientific(3), "1.00e+1");
  v.sign = -1, v.log_abs = std::log(12988816.0);
  EXPECT_EQ(v.scientific(8), "-1.2988816e+7");
  v.sign = 0;
  EXPECT_EQ(v.scientific(5), "0");
}

TEST(LogCount, Program) {
  REQUIRE_SPARSE_LU();
  const std::string grid = test::temp_file(edge_text(grid_graph(40, 50)), ".edges");
  auto r = test::run_matchcount("--as graph --log '" + grid + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Temperley-Fisher for the 40 x 50 grid.
  long double tf = 0;
  for (int j = 1; j <= 40; ++j)
    for (int k = 1; k <= 50; ++k) {
      const long double a = std::cos(std::numbers::pi_v<long double> * j / 41), b = std::cos(std::numbers::pi_v<long double> * k / 51);
      tf += std::log(4 * a * a + 4 * b * b);
    }
  tf /= 4;
  EXPECT_NEAR(std::stod(r.out), double(tf), 1e-12 * double(tf)) << r.out;
  EXPECT_NE(r.err.find("natural logarithm of the count"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("e+"), std::string::npos) << r.err;

  // Not planar: counted exactly, printed as a logarithm; forced to kasteleyn, refused.
  const std::string torus = test::temp_file(edge_text(torus_graph(4, 4)), ".edges");
  r = test::run_matchcount("--as graph --log '" + torus + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), std::log(272.0), 1e-13);  // Q4 has 272 perfect matchings
  r = test::run_matchcount("--as graph --log --engine kasteleyn '" + torus + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("not planar"), std::string::npos) << r.err;

  // Usage errors: with --estimate, with --checkpoint, complex weights.
  EXPECT_EQ(test::run_matchcount("--as graph --log --estimate '" + grid + "'").exit_code, 2);
  r = test::run_matchcount("--as graph --log --checkpoint '" + grid + ".ckpt' '" + grid + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string cplx = test::temp_file("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 0 1\n", ".mtx");
  EXPECT_EQ(test::run_matchcount("--log '" + cplx + "'").exit_code, 2);

  // Hafnians: the triangular lattice by its log-Pfaffian.
  const std::string tri = test::temp_file(edge_text(triangular_graph(6, 6)), ".edges");
  r = test::run_matchcount("--as graph --log -v '" + tri + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  CountOptions exact;
  const Integer want = std::get<Integer>(count_hafnian(AnyMatrix(adjacency_matrix(triangular_graph(6, 6))), false, exact).value.value);
  EXPECT_NEAR(std::stod(r.out), ln(want), 1e-12 * ln(want));
  EXPECT_NE(r.err.find("engine pfaffian"), std::string::npos) << r.err;
}

// A build without SuiteSparse refuses --log's planar blocks with a line that says why.
TEST(LogCount, WithoutTheSparseLuPlanarBlocksAreRefused) {
  if (engines::planar::sparse_lu_available()) GTEST_SKIP() << "built with SuiteSparse";
  const std::string grid = test::temp_file(edge_text(grid_graph(6, 6)), ".edges");
  const auto r = test::run_matchcount("--as graph --log '" + grid + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("SuiteSparse"), std::string::npos) << r.err;
  // Blocks that are not planar are still counted.
  const std::string torus = test::temp_file(edge_text(torus_graph(4, 4)), ".edges");
  EXPECT_EQ(test::run_matchcount("--as graph --log '" + torus + "'").exit_code, 0);
}

}  // namespace
}  // namespace matchcount
