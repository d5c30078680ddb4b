// The whole pipeline against the oracle: preprocessing on or off, every engine, every number
// type, including decomposable, triangular and structurally singular matrices.
#include <gtest/gtest.h>

#include <random>

#include "catalog/catalog.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "oracle.hpp"
#include "test_support.hpp"

using namespace matchcount;
using test::naive_permanent;

namespace {

Integer count_int(const SparseMatrix<Integer>& a, const CountOptions& o = {}) {
  return std::get<Integer>(count_permanent(AnyMatrix(a), o).value.value);
}

// Block-diagonal sum of two matrices, rows and columns then shuffled: decomposable.
SparseMatrix<Integer> shuffled_direct_sum(std::mt19937_64& rng, const SparseMatrix<Integer>& a,
                                          const SparseMatrix<Integer>& b) {
  const int n = a.rows + b.rows;
  std::vector<int> pr(static_cast<std::size_t>(n)), pc(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) pr[i] = pc[i] = i;
  std::shuffle(pr.begin(), pr.end(), rng);
  std::shuffle(pc.begin(), pc.end(), rng);
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (const auto& e : a.entries) m.entries.push_back({pr[e.row], pc[e.col], e.value});
  for (const auto& e : b.entries) m.entries.push_back({pr[a.rows + e.row], pc[a.cols + e.col], e.value});
  // Entries above the blocks keep the permanent (block triangular) but hide the structure.
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j)
      if (rng() % 3 == 0) m.entries.push_back({pr[i], pc[a.cols + j], Integer(static_cast<long>(rng() % 5) + 1)});
  m.normalize();
  return m;
}

}  // namespace

TEST(Pipeline, IntegerMatricesAgreeWithTheOracleWithAndWithoutPreprocessing) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = static_cast<int>(rng() % 9);
    const SparseMatrix<Integer> a = test::random_integer(rng, n, 0.1 + 0.1 * (trial % 9), -3, 4);
    const Integer expected = naive_permanent(a);
    CountOptions o;
    o.reduce.branch_min_size = 3;  // exercise branching on small matrices too
    ASSERT_EQ(count_int(a, o), expected) << "trial " << trial;
    o.preprocess = false;
    o.engine = "ryser";
    ASSERT_EQ(count_int(a, o), expected) << "trial " << trial;
  }
}

TEST(Pipeline, DecomposableAndTriangularMatrices) {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 150; ++trial) {
    const auto a = test::random_integer(rng, 1 + static_cast<int>(rng() % 5), 0.7, 1, 3);
    const auto b = test::random_integer(rng, 1 + static_cast<int>(rng() % 5), 0.7, -2, 3);
    const auto m = shuffled_direct_sum(rng, a, b);
    const CountReport r = count_permanent(AnyMatrix(m));
    ASSERT_EQ(std::get<Integer>(r.value.value), naive_permanent(a) * naive_permanent(b));
    ASSERT_EQ(std::get<Integer>(r.value.value), naive_permanent(m));
    if (naive_permanent(a) != 0 && naive_permanent(b) != 0) {
      ASSERT_GE(r.dm_blocks, 2);
    }
  }
  SparseMatrix<Integer> lower;
  lower.rows = lower.cols = 40;
  Integer diagonal = 1;
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < i; ++j) lower.entries.push_back({i, j, 1});
    lower.entries.push_back({i, i, i + 2});
    diagonal *= i + 2;
  }
  lower.normalize();
  const CountReport r = count_permanent(AnyMatrix(lower));
  EXPECT_EQ(std::get<Integer>(r.value.value), diagonal);
  EXPECT_EQ(r.dm_blocks, 40);
  EXPECT_TRUE(r.engine_runs.empty());
}

TEST(Pipeline, StructurallySingularAndDegenerateShapes) {
  SparseMatrix<Integer> singular;  // two rows share one column only
  singular.rows = singular.cols = 30;
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j)
      if (i >= 2 || j == 0) singular.entries.push_back({i, j, 1});
  singular.normalize();
  const CountReport r = count_permanent(AnyMatrix(singular));
  EXPECT_EQ(std::get<Integer>(r.value.value), 0);
  EXPECT_EQ(r.matching_size, 29);
  EXPECT_TRUE(r.engine_runs.empty());

  SparseMatrix<Integer> empty;  // n = 0: one (empty) perfect matching
  EXPECT_EQ(count_int(empty), 1);

  SparseMatrix<Integer> wide;
  wide.rows = 2;
  wide.cols = 3;
  wide.entries = {{0, 0, 1}, {1, 1, 1}};
  CountOptions matchings;  // counting perfect matchings; tests/rectangular_test.cpp has the permanent
  matchings.perfect_matchings = true;
  const CountReport w = count_permanent(AnyMatrix(wide), matchings);
  EXPECT_EQ(std::get<Integer>(w.value.value), 0);
  ASSERT_FALSE(w.notes.empty());
}

TEST(Pipeline, EveryEngineAgreesOnBlocksLeftAfterPreprocessing) {
  std::mt19937_64 rng(13);
  for (const auto& engine : engine_names()) {
    if (catalog::entry(engine).shape == catalog::Shape::Symmetric) continue;  // hafnians: hafnian_pipeline_test
    for (int trial = 0; trial < 40; ++trial) {
      const int n = 4 + static_cast<int>(rng() % 6);
      const auto a = test::random_integer(rng, n, 0.3 + 0.1 * (trial % 6), -2, 3);
      CountOptions o;
      o.engine = engine;
      if (engine == "kasteleyn") {  // planar blocks only; others are refused, never miscounted
        try {
          ASSERT_EQ(count_int(a, o), naive_permanent(a)) << engine << " trial " << trial;
        } catch (const RefusedError&) {
        }
        continue;
      }
      ASSERT_EQ(count_int(a, o), naive_permanent(a)) << engine << " trial " << trial;
    }
  }
}

TEST(Pipeline, RealAndComplexWithErrorEstimates) {
  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 8);
    const auto a = test::random_real(rng, n, 0.2 + 0.1 * (trial % 8), -1.0, 1.0);
    const CountReport r = count_permanent(AnyMatrix(a));
    ASSERT_FALSE(r.value.exact());
    const double expected = naive_permanent(a);
    ASSERT_NEAR(std::get<double>(r.value.value), expected, 1e-12 * (1 + std::abs(expected)));
    ASSERT_LE(r.value.abs_error, 1e-10 * (1 + std::abs(expected)));
    const auto c = test::random_complex(rng, n, 0.2 + 0.1 * (trial % 8));
    const CountReport rc = count_permanent(AnyMatrix(c));
    const Complex ce = naive_permanent(c);
    ASSERT_NEAR(std::abs(std::get<Complex>(rc.value.value) - ce), 0.0, 1e-12 * (1 + std::abs(ce)));
  }
}

TEST(Pipeline, RationalMatricesGiveExactFractions) {
  std::mt19937_64 rng(15);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 7);
    SparseMatrix<Rational> q;
    q.rows = q.cols = n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (rng() % 2) q.entries.push_back({i, j, Rational(static_cast<long>(rng() % 19) - 9, static_cast<long>(rng() % 12) + 1)});
    for (auto& e : q.entries) e.value.canonicalize();
    q.normalize();
    const CountReport r = count_permanent(AnyMatrix(q));
    ASSERT_TRUE(r.value.exact());
    Rational expected = naive_permanent(q);
    expected.canonicalize();
    Rational got = r.value.value.index() == 0 ? Rational(std::get<Integer>(r.value.value))
                                              : std::get<Rational>(r.value.value);
    ASSERT_EQ(got, expected) << "trial " << trial;
  }
}

TEST(Pipeline, ContentExtractionKeepsHugeEntriesExact) {
  // 10^30 * J_6 has permanent 6! * 10^180.
  SparseMatrix<Integer> a;
  a.rows = a.cols = 6;
  Integer big;
  mpz_ui_pow_ui(big.get_mpz_t(), 10, 30);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) a.entries.push_back({i, j, big + (i == j)});
  a.normalize();
  EXPECT_EQ(count_int(a), naive_permanent(a));
}

TEST(Pipeline, ThreadCountDoesNotChangeResults) {
  std::mt19937_64 rng(16);
  const auto a = test::random_real(rng, 18, 0.6, -1.0, 1.0);
  CountOptions one, two;
  one.threads = 1;
  two.threads = 2;
  EXPECT_EQ(std::get<double>(count_permanent(AnyMatrix(a), one).value.value),
            std::get<double>(count_permanent(AnyMatrix(a), two).value.value));
}

// Forbert-Marx branching that would cost more than the block whole is undone: the value is
// the same, and the block goes whole to an engine.
TEST(Pipeline, CostlyBranchingIsUndone) {
  std::mt19937_64 rng(17);
  int undone = 0, kept = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 14 + static_cast<int>(rng() % 5);
    const SparseMatrix<Integer> a = test::random_integer(rng, n, 0.18 + 0.02 * (trial % 8), 1, 1);
    CountOptions o, whole;
    o.reduce.branch_min_size = 8;
    o.engine = whole.engine = "ryser";  // no frontier or Kasteleyn shortcut: branching decides
    whole.reduce.branch_max_degree = 2;
    const CountReport r = count_permanent(AnyMatrix(a), o);
    ASSERT_EQ(std::get<Integer>(r.value.value), count_int(a, whole)) << "trial " << trial;
    undone += r.reduce.branchings_undone > 0;
  }
  EXPECT_GT(undone, 0);
  // Larger sparse blocks, planned only: there branching pays (kept) at least sometimes.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    CountOptions o;
    o.engine = "ryser";
    o.explain = true;
    o.reduce.max_leaves = 256;  // planning a full tree takes seconds
    const CountReport r = count_permanent(AnyMatrix(erdos_renyi_bipartite(40, seed % 2 ? 0.1 : 0.15, seed)), o);
    kept += r.reduce.branches > 0;
  }
  EXPECT_GT(kept, 0);
}
