// The hybrid register/memory variant of the NVRTC kernels (docs/gpu.md, "Hybrid kernels")
// against the register-only variant and the CPU engine: integers exactly, reals and complex
// bit for bit between the variants (both multiply the rows in the same order and sum exactly)
// and within the error estimates of the CPU. The variant is forced through the tuning knobs
// (tuning/tuning.hpp).
// GPU tests skip where no CUDA device is visible; the planner tests run everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "catalog/catalog.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"
#include "core/tuning.hpp"

using namespace matchcount;

namespace {

/// The knobs with the variant ("register", "hybrid"), memory rows (empty: the planner's) and
/// placement ("shared", "global"; empty: the planner's) forced.
tuning::Tuning forced(const std::string& variant, const std::string& rows, const std::string& where) {
  tuning::Tuning t = tuning::tuning();
  t.nvrtc_variant = variant == "register" ? 1 : variant == "hybrid" ? 2 : 0;
  t.nvrtc_memory_rows = rows.empty() ? std::nullopt : std::optional<int>(std::stoi(rows));
  t.nvrtc_memory_shared = where.empty() ? std::nullopt : std::optional<bool>(where == "shared");
  return t;
}

/// One run of the GPU engine with a specialised kernel of the given variant ("register",
/// "hybrid"), memory rows (empty: the planner's) and placement (empty: the planner's).
template <class T>
auto run_variant(const SparseMatrix<T>& a, const std::string& variant, const std::string& rows = "",
                 const std::string& where = "", EngineStats* stats = nullptr) {
  const tuning::ScopedTuning knobs(forced(variant, rows, where));
  EngineOptions o;
  o.specialise = Specialise::Always;
  o.stats = stats;
  return make_engine("gpu-ryser")->permanent(a, o);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Cases: n from 8 to 32, dense and sparse; memory rows from the planner or forced, in
/// shared or global memory.
struct HybridCase {
  int n;
  double density;
  std::string rows, where;
};
std::vector<HybridCase> hybrid_cases() {
  return {{8, 1.0, "", ""},     {9, 0.5, "3", "global"}, {13, 1.0, "5", "shared"},
          {16, 0.3, "", "global"}, {20, 0.25, "", ""},      {21, 1.0, "10", "global"},
          {24, 0.3, "", "shared"}, {27, 0.8, "7", ""},      {32, 0.15, "", ""}};
}

}  // namespace

TEST(GpuHybrid, IntegersAgreeWithRegisterVariantAndCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(71);
  auto cpu = make_engine("ryser");
  for (const HybridCase& c : hybrid_cases()) {
    for (int kind = 0; kind < 3; ++kind) {
      // 0-1 (one walk, row groups), small integers, and entries large enough for residue walks.
      const long lo = kind == 0 ? 1 : kind == 1 ? -9 : -(1L << 50), hi = kind == 0 ? 1 : kind == 1 ? 9 : 1L << 50;
      // One walk per prime: only dense blocks, whose kernel (columns in shared memory) serves
      // every prime, and only small ones.
      if (kind == 2 && (c.n > 20 || c.density <= 0.4)) continue;
      auto a = test::without_empty_lines([&] { return test::random_integer(rng, c.n, c.density, lo, hi); });
      EngineStats s;
      const Integer hybrid = run_variant(a, "hybrid", c.rows, c.where, &s);
      EXPECT_EQ(hybrid, run_variant(a, "register")) << "n=" << c.n << " kind " << kind;
      EXPECT_EQ(hybrid, cpu->permanent(a, {})) << "n=" << c.n << " kind " << kind;
      EXPECT_NE(s.kernel.find("-hybrid"), std::string::npos) << s.kernel << " " << s.note;
    }
  }
}

TEST(GpuHybrid, RealsHaveTheSameBitsAsRegisterVariant) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(72);
  auto cpu = make_engine("ryser");
  for (const HybridCase& c : hybrid_cases()) {
    auto a = test::without_empty_lines([&] { return test::random_real(rng, c.n, c.density, -1.0, 1.0); });
    EngineStats sh, sr;
    const auto h = run_variant(a, "hybrid", c.rows, c.where, &sh);
    const auto r = run_variant(a, "register", "", "", &sr);
    EXPECT_TRUE(same_bits(h.value, r.value)) << "n=" << c.n << ": " << h.value << " vs " << r.value;
    EXPECT_NE(sh.kernel.find("-hybrid"), std::string::npos) << sh.kernel << " " << sh.note;
    EXPECT_EQ(sr.kernel.find("-hybrid"), std::string::npos) << sr.kernel;
    const auto e = cpu->permanent(a, {});
    EXPECT_LE(std::abs(h.value - e.value), std::max(1e-12 * std::abs(e.value), h.abs_error + e.abs_error))
        << "n=" << c.n;
  }
}

TEST(GpuHybrid, ComplexHasTheSameBitsAsRegisterVariant) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(73);
  auto cpu = make_engine("ryser");
  for (const HybridCase& c : hybrid_cases()) {
    auto a = test::without_empty_lines([&] { return test::random_complex(rng, c.n, c.density); });
    const auto h = run_variant(a, "hybrid", c.rows, c.where);
    const auto r = run_variant(a, "register");
    EXPECT_TRUE(same_bits(h.value.real(), r.value.real()) && same_bits(h.value.imag(), r.value.imag()))
        << "n=" << c.n;
    const auto e = cpu->permanent(a, {});
    EXPECT_LE(std::abs(h.value - e.value), std::max(1e-12 * std::abs(e.value), h.abs_error + e.abs_error))
        << "n=" << c.n;
  }
}

// Host-side planning (no GPU needed).
namespace {

/// A job with doubled Nijenhuis-Wilf columns of a 0-1 pattern: a2[j][i] = 2 where row i has
/// column j (x0 only sized).
gpu::WalkJob job_of(int n, const std::vector<std::pair<int, int>>& entries, gpu::WalkKind kind = gpu::WalkKind::Real) {
  gpu::WalkJob job;
  job.kind = kind;
  job.n = n;
  const int W = kind == gpu::WalkKind::Complex ? 2 : 1;
  job.a2.assign(static_cast<std::size_t>(n - 1) * n * W, 0.0);
  job.x0.assign(static_cast<std::size_t>(n) * W, 1.0);
  for (auto [i, j] : entries)
    if (j < n - 1) job.a2[(static_cast<std::size_t>(j) * n + i) * W] = 2;
  return job;
}

}  // namespace

TEST(GpuHybridPlan, SparseBlocksKeepColdRowsInMemory) {
  // n = 40: Gray columns 0..29 touch only rows 20..39 (hot), columns 30..38 and the last one
  // touch everything: rows 0..19 change in under 2^-30 of the steps, and the split keeps them
  // in memory with their product cached when the columns are baked.
  const int n = 40;
  std::vector<std::pair<int, int>> e;
  for (int j = 0; j < 30; ++j) e.push_back({20 + j % 20, j}), e.push_back({20 + (j + 7) % 20, j});
  for (int j = 30; j < n; ++j)
    for (int i = 0; i < n; ++i) e.push_back({i, j});
  const auto split = gpu::plan_row_split(job_of(n, e), n, true);
  EXPECT_EQ(split.hybrid_rows, 20);
  EXPECT_LT(split.hybrid_cost, split.register_cost);
  // The unrolled register-only kernel already forms the cold rows' product once per 16 steps
  // (they come first in the product): the hybrid saves less than 10% and is not chosen.
  EXPECT_GT(split.hybrid_cost, 0.9 * split.register_cost);
  EXPECT_EQ(split.memory_rows, 0);
  // Read from shared memory, every column is added to every row at every step: no gain.
  EXPECT_EQ(gpu::plan_row_split(job_of(n, e), n, false).memory_rows, 0);
}

TEST(GpuHybridPlan, DenseBlocksStayInRegisters) {
  std::vector<std::pair<int, int>> dense;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 40; ++j) dense.push_back({i, j});
  const auto real = gpu::plan_row_split(job_of(40, dense), 40, false);
  EXPECT_EQ(real.memory_rows, 0);
  EXPECT_GT(real.hybrid_cost, real.register_cost);
  // Complex y and its columns in flight need about 8 registers a row: n = 40 spills, but the
  // spilling register-only kernel still beats the hybrid (docs/gpu.md, "Hybrid kernels"), so
  // the hybrid is only planned, with as many rows in registers as fit.
  const auto cplx = gpu::plan_row_split(job_of(40, dense, gpu::WalkKind::Complex), 40, false);
  EXPECT_GT(cplx.register_estimate, 255);
  EXPECT_EQ(cplx.memory_rows, 0);
  EXPECT_GT(cplx.hybrid_rows, 1);
  EXPECT_LE(gpu::register_estimate(job_of(40, dense, gpu::WalkKind::Complex), 40 - cplx.hybrid_rows, true), 255);
  EXPECT_GT(gpu::register_estimate(job_of(40, dense, gpu::WalkKind::Complex), 40 - cplx.hybrid_rows + 1, true), 248);
}
