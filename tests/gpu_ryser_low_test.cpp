// The exact GPU Ryser walk over the low columns' subsets in one step
// (src/engines/ryser/cuda/ryser_low_columns.cuh): each subset T of the higher columns with T + U for
// every U of the K low columns (K = 1: pairs, K = 2: fours), the rows no low column touches
// multiplied once for all. Its counts must equal the single walk's and the CPU engine's
// exactly, on shared-column (dense) and baked (sparse) kernels, with zero terms skipped (sparse
// 0-1), with empty classes of rows (a low column touching every row or one row), and on odd n
// (padded rows). Skips where no CUDA device is visible.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.hpp"
#include "core/tuning.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

/// The GPU engine with a specialised kernel taking at most `low` low columns; its stats in `stats`.
Integer run_walk(const SparseMatrix<Integer>& a, int low, EngineStats& stats) {
  tuning::Tuning t = tuning::tuning();
  t.ryser_low_columns = low;
  const tuning::ScopedTuning knobs(t);
  EngineOptions o;
  o.specialise = Specialise::Always;
  o.stats = &stats;
  return make_engine("gpu-ryser")->permanent(a, o);
}

/// The low columns the kernel took, from its name in the stats.
int low_taken(const EngineStats& s) {
  return s.kernel.find("-fours") != std::string::npos ? 2 : s.kernel.find("-pairs") != std::string::npos ? 1 : 0;
}


}  // namespace

TEST(GpuRyserLowColumns, AgreeWithTheSingleWalkAndTheCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(83);
  auto cpu = make_engine("ryser");
  int taken[3] = {0, 0, 0};
  for (int n : {17, 20, 23, 28})
    for (double density : {0.15, 0.5, 1.0})
      for (int kind = 0; kind < 2; ++kind) {
        const long lo = kind == 0 ? 1 : -9, hi = kind == 0 ? 1 : 9;
        auto a = test::without_empty_lines([&] { return test::random_integer(rng, n, density, lo, hi); });
        const Integer want = cpu->permanent(a, {});
        for (int low = n == 20 || n == 23 ? 0 : 1; low <= 2; ++low) {
          EngineStats s;
          EXPECT_EQ(run_walk(a, low, s), want) << "n=" << n << " density " << density << " kind " << kind << " low " << low
                                               << " " << s.kernel << " " << s.note;
          EXPECT_LE(low_taken(s), low) << s.kernel;
          ++taken[low_taken(s)];
        }
      }
  // Exact register-only kernels take both low columns wherever chunks have 4 steps or more and
  // the columns are in shared memory (n >= 18, density 0.5 and 1: 12 runs), one where chunks
  // have 2 steps (n = 17: 12 runs), the columns are baked (6 runs) or 1 was asked (18 runs);
  // the hybrid (memory rows) takes none.
  EXPECT_GE(taken[2], 12);
  EXPECT_GE(taken[1], 20);
}

// Classes of rows left empty: a low column holding one row (then no row has both, and every
// other row is shared), a full 0-1 matrix (n!, every row in the class of both), and sparse
// rows where the low columns hold disjoint rows.
TEST(GpuRyserLowColumns, EmptyClassesOfRows) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(84);
  auto cpu = make_engine("ryser");
  for (int n : {18, 21, 25}) {
    auto a = test::without_empty_lines([&] { return test::random_integer(rng, n, 0.6, -5, 7); });
    const SparseMatrix<Integer> b = test::one_entry_column(a, 3, 5, 2), c = test::one_entry_column(b, 7, 9, 2);
    for (int low : {1, 2}) {
      EngineStats sb, sc;
      EXPECT_EQ(run_walk(b, low, sb), cpu->permanent(b, {})) << "n=" << n << " " << sb.kernel << " " << sb.note;
      EXPECT_EQ(low_taken(sb), low) << sb.kernel << " " << sb.note;
      EXPECT_EQ(run_walk(c, low, sc), cpu->permanent(c, {})) << "n=" << n << " " << sc.kernel << " " << sc.note;
      EXPECT_EQ(low_taken(sc), low) << sc.kernel << " " << sc.note;
    }
  }
  SparseMatrix<Integer> ones = test::random_integer(rng, 22, 1.0, 1, 1);
  Integer f = 1;
  for (int i = 2; i <= 22; ++i) f *= i;
  for (int low : {1, 2}) {
    EngineStats s;
    EXPECT_EQ(run_walk(ones, low, s), f);
    EXPECT_EQ(low_taken(s), low) << s.kernel << " " << s.note;
  }
}

// Zero terms skipped with shared columns: half the rows hold two entries (their y is 0 in half
// the subsets), so nearly every warp's terms are zero and the kernel tests for them, yet the
// block is dense enough (about 0.5) for shared columns and two low columns.
TEST(GpuRyserLowColumns, ZeroTermsSkippedOverTwoLowColumns) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(85);
  auto cpu = make_engine("ryser");
  for (int n : {22, 24}) {
    SparseMatrix<Integer> a;
    a.rows = a.cols = n;
    std::uniform_int_distribution<int> col(0, n - 1);
    std::bernoulli_distribution dense(0.9);
    for (int i = 0; i < n / 2; ++i) {
      const int c1 = col(rng);
      int c2 = col(rng);
      while (c2 == c1) c2 = col(rng);
      a.entries.push_back({i, c1, Integer(1)});
      a.entries.push_back({i, c2, Integer(1)});
    }
    for (int i = n / 2; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (dense(rng) || i == n / 2) a.entries.push_back({i, j, Integer(1)});
    a.normalize();
    EngineStats s;
    EXPECT_EQ(run_walk(a, 2, s), cpu->permanent(a, {})) << "n=" << n << " " << s.kernel << " " << s.note;
    EXPECT_EQ(low_taken(s), 2) << s.kernel << " " << s.note;
  }
}
