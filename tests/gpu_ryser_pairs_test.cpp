// The exact GPU Ryser walk in pairs of subsets (src/engines/ryser/cuda/ryser_pairs.cuh): every
// subset T of columns 1..m-1 with T + column 0, the rows column 0 does not touch multiplied
// once for both. Its counts must equal the single walk's and the CPU engine's exactly, on
// shared-column (dense) and baked (sparse) kernels, with zero terms skipped (sparse 0-1),
// with column 0 touching every row (nothing shared) or one row, and on odd n (padded rows).
// Skips where no CUDA device is visible.
#include <gtest/gtest.h>

#include <string>

#include "catalog/catalog.hpp"
#include "core/tuning.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

/// The GPU engine with a specialised kernel, pairs on or off; its stats in `stats`.
Integer run_walk(const SparseMatrix<Integer>& a, bool pairs, EngineStats& stats) {
  tuning::Tuning t = tuning::tuning();
  t.ryser_pairs = pairs;
  const tuning::ScopedTuning knobs(t);
  EngineOptions o;
  o.specialise = Specialise::Always;
  o.stats = &stats;
  return make_engine("gpu-ryser")->permanent(a, o);
}

bool paired(const EngineStats& s) { return s.kernel.find("-pairs") != std::string::npos; }

}  // namespace

TEST(GpuRyserPairs, AgreeWithTheSingleWalkAndTheCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(83);
  auto cpu = make_engine("ryser");
  int pair_runs = 0;
  for (int n : {17, 20, 23, 28})
    for (double density : {0.15, 0.5, 1.0})
      for (int kind = 0; kind < 2; ++kind) {
        const long lo = kind == 0 ? 1 : -9, hi = kind == 0 ? 1 : 9;
        auto a = test::without_empty_lines([&] { return test::random_integer(rng, n, density, lo, hi); });
        EngineStats sp, ss;
        const Integer want = cpu->permanent(a, {});
        EXPECT_EQ(run_walk(a, true, sp), want) << "pairs n=" << n << " density " << density << " kind " << kind << " "
                                                << sp.kernel << " " << sp.note;
        pair_runs += paired(sp);
        if (n == 20 || n == 23) {
          EXPECT_EQ(run_walk(a, false, ss), want) << "single n=" << n << " density " << density;
          EXPECT_FALSE(paired(ss)) << ss.kernel;
        }
      }
  // Exact register-only kernels pair wherever the walk has chunks of 2 steps or more; the
  // hybrid (memory rows) does not.
  EXPECT_GE(pair_runs, 20);
}

// Column 0 (the sparsest after the permanent ordering) touching one row: all other rows are
// shared by both subsets of a pair; and a full 0-1 matrix (n!, column 0 touches every row).
TEST(GpuRyserPairs, ColumnZeroOnOneRowOrOnAll) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(84);
  auto cpu = make_engine("ryser");
  for (int n : {18, 21, 25}) {
    SparseMatrix<Integer> a = test::without_empty_lines([&] { return test::random_integer(rng, n, 0.6, -5, 7); });
    SparseMatrix<Integer> b = a;
    std::erase_if(b.entries, [](const Entry<Integer>& e) { return e.col == 3; });
    b.entries.push_back({5, 3, Integer(2)});  // column 3 holds row 5 alone
    b.normalize();
    EngineStats s;
    EXPECT_EQ(run_walk(b, true, s), cpu->permanent(b, {})) << "n=" << n << " " << s.kernel << " " << s.note;
    EXPECT_TRUE(paired(s)) << s.kernel << " " << s.note;
  }
  SparseMatrix<Integer> ones = test::random_integer(rng, 22, 1.0, 1, 1);
  Integer f = 1;
  for (int i = 2; i <= 22; ++i) f *= i;
  EngineStats s;
  EXPECT_EQ(run_walk(ones, true, s), f);
  EXPECT_TRUE(paired(s)) << s.kernel << " " << s.note;
}
