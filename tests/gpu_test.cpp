// The GPU Ryser engine against the CPU engines: exact integers must agree exactly, floats to
// 1e-12 relative (or within the error estimates). Skips where no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

#include "catalog/catalog.hpp"
#include "matchcount/generate.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

EngineOptions gpu_options(bool specialise, EngineStats* stats = nullptr) {
  EngineOptions o;
  o.specialise = specialise ? Specialise::Always : Specialise::Never;
  o.stats = stats;
  return o;
}

// Sizes: small ones leave most threads of a block idle (n = 8 has 128 chunks of one step),
// middle ones cross the chunk-length switch (k > 0 from n = 17), and a few large ones.
std::vector<int> sizes(std::mt19937_64& rng, int count) {
  std::vector<int> out{8, 9, 13, 16, 17, 18, 23};
  std::uniform_int_distribution<int> n(8, 24);
  while (static_cast<int>(out.size()) < count) out.push_back(n(rng));
  return out;
}

bool close(double a, double b, double tol) { return std::abs(a - b) <= tol; }

}  // namespace

TEST(GpuRyser, IntegersAgreeWithCpuExactly) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(31);
  auto gpu = make_engine("gpu-ryser"), cpu = make_engine("ryser");
  int checked = 0;
  for (int n : sizes(rng, 150)) {
    const double density = std::uniform_real_distribution<double>(0.2, 1.0)(rng);
    const bool zero_one = checked % 2 == 0;
    auto a = zero_one ? test::random_integer(rng, n, density, 1, 1) : test::random_integer(rng, n, density, -9, 9);
    EXPECT_EQ(gpu->permanent(a, gpu_options(checked % 3 != 0)), cpu->permanent(a, {})) << "n=" << n;
    ++checked;
  }
  // Large entries: row sums beyond 2^49 force the walk on residues, one prime at a time.
  for (int n : {8, 12, 19}) {
    auto a = test::random_integer(rng, n, 0.8, -(1L << 50), 1L << 50);
    EXPECT_EQ(gpu->permanent(a, gpu_options(n != 12)), cpu->permanent(a, {})) << "n=" << n;
  }
  // Many primes (more than four per launch) and a larger block.
  auto big = test::random_integer(rng, 26, 0.9, -1000, 1000);
  EXPECT_EQ(gpu->permanent(big, gpu_options(true)), cpu->permanent(big, {}));
  auto ones = test::random_integer(rng, 30, 1.0, 1, 1);
  Integer f30 = 1;
  for (int i = 2; i <= 30; ++i) f30 *= i;
  EXPECT_EQ(gpu->permanent(ones, gpu_options(true)), f30);
  EXPECT_EQ(gpu->permanent(ones, gpu_options(false)), f30);
}

// Sparse blocks of n >= 20 get kernels with their columns baked in and Gray steps unrolled
// in groups of 16, and sparse 0-1 ones skip the modular products of zero terms.
TEST(GpuRyser, SparseBakedKernelsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(57);
  auto gpu = make_engine("gpu-ryser"), cpu = make_engine("ryser");
  for (int n : {20, 21, 23, 26})
    for (double density : {0.12, 0.2, 0.3}) {
      auto z = test::random_integer(rng, n, density, 1, 1);
      EXPECT_EQ(gpu->permanent(z, gpu_options(true)), cpu->permanent(z, {})) << "0-1 n=" << n;
      auto w = test::random_integer(rng, n, density, -3, 3);
      EXPECT_EQ(gpu->permanent(w, gpu_options(true)), cpu->permanent(w, {})) << "integer n=" << n;
      auto r = test::random_real(rng, n, density, -1.0, 1.0);
      const auto g = gpu->permanent(r, gpu_options(true)), c = cpu->permanent(r, {});
      EXPECT_TRUE(close(g.value, c.value, 1e-12 * std::abs(c.value) + g.abs_error + c.abs_error)) << "real n=" << n;
    }
}

TEST(GpuRyser, RealsAgreeWithCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(32);
  auto gpu = make_engine("gpu-ryser"), cpu = make_engine("ryser");
  int k = 0, within = 0, positives = 0;
  double worst = 0;
  for (int n : sizes(rng, 100)) {
    const bool positive = k++ % 2 == 0;
    auto a = test::random_real(rng, n, 0.9, positive ? 0.0 : -1.0, 1.0);
    const auto g = gpu->permanent(a, gpu_options(k % 3 != 0));
    const auto c = cpu->permanent(a, {});
    const double tol = std::max(1e-12 * std::abs(c.value), g.abs_error + c.abs_error);
    EXPECT_TRUE(close(g.value, c.value, tol)) << "n=" << n << " gpu " << g.value << " cpu " << c.value;
    EXPECT_GT(g.abs_error, 0.0);
    if (positive) {
      // Both walks round each product (n multiplications): on positive matrices the two
      // differ by about 1e-12 relative at n = 24, never by more than 1e-11.
      const double rel = std::abs(g.value - c.value) / std::abs(c.value);
      EXPECT_LE(rel, 1e-11) << "n=" << n;
      worst = std::max(worst, rel);
      within += rel <= 1e-12;
      ++positives;
    }
  }
  std::cout << "[ info     ] positive reals: " << within << " of " << positives
            << " within 1e-12 relative of the CPU; largest difference " << worst << "\n";
}

TEST(GpuRyser, ComplexAgreesWithCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(33);
  auto gpu = make_engine("gpu-ryser"), cpu = make_engine("ryser");
  int k = 0;
  for (int n : sizes(rng, 40)) {
    auto a = test::random_complex(rng, n, 0.8);
    const auto g = gpu->permanent(a, gpu_options(k++ % 2 == 0));
    const auto c = cpu->permanent(a, {});
    const double tol = std::max(1e-12 * std::abs(c.value), g.abs_error + c.abs_error);
    EXPECT_LE(std::abs(g.value - c.value), tol) << "n=" << n;
  }
}

TEST(GpuRyser, SameBitsWhateverTheKernel) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(34);
  auto gpu = make_engine("gpu-ryser");
  for (int n : {9, 21, 27}) {
    auto a = test::random_real(rng, n, 1.0, -1.0, 1.0);
    EngineStats s1, s2;
    const double generic = gpu->permanent(a, gpu_options(false, &s1)).value;
    const double baked = gpu->permanent(a, gpu_options(true, &s2)).value;
    const double again = gpu->permanent(a, gpu_options(true)).value;
    EXPECT_EQ(std::memcmp(&generic, &baked, sizeof(double)), 0) << "n=" << n;
    EXPECT_EQ(std::memcmp(&baked, &again, sizeof(double)), 0) << "n=" << n;
    EXPECT_EQ(s1.kernel, "generic");
    EXPECT_NE(s2.kernel, "generic") << s2.note;  // NVRTC is part of the CUDA toolkit
    EXPECT_EQ(s2.device, "gpu");
  }
}

TEST(GpuRyser, AllEqualEntries) {
  SKIP_WITHOUT_GPU();
  auto gpu = make_engine("gpu-ryser");
  // perm of the n x n all-a matrix is n! a^n.
  for (int n : {20, 28}) {
    SparseMatrix<double> a;
    a.rows = a.cols = n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a.entries.push_back({i, j, 0.75});
    double expect = 1;
    for (int i = 1; i <= n; ++i) expect *= i * 0.75;
    const auto g = gpu->permanent(a, gpu_options(true));
    EXPECT_LE(std::abs(g.value - expect), std::max(1e-12 * expect, g.abs_error)) << "n=" << n;
    std::cout << "[ info     ] all-0.75 matrix, n = " << n << ": float walk relative error "
              << std::abs(g.value - expect) / expect << " (estimate " << g.abs_error / expect << ")\n";
  }
}

TEST(GpuDevices, ListIsConsistent) {
  const auto devices = gpu_devices();
  EXPECT_EQ(gpu_available(), !devices.empty());
  if (!built_with_cuda()) {
    EXPECT_TRUE(devices.empty());
  }
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.multiprocessors, 0);
  }
}

// Host-side estimate behind the zero-term skip (no GPU needed).
TEST(GpuWalkPlan, WarpNonzeroFraction) {
  // Doubled Nijenhuis-Wilf columns of a 0-1 matrix: a2 = 2 A(:, j), x0 = 2 A(:, n-1) - row sums.
  auto job_of = [](const SparseMatrix<Integer>& a) {
    gpu::WalkJob job;
    job.n = a.rows;
    job.a2.assign(static_cast<std::size_t>(a.rows - 1) * a.rows, 0.0);
    job.x0.assign(static_cast<std::size_t>(a.rows), 0.0);
    for (const auto& e : a.entries) {
      job.x0[static_cast<std::size_t>(e.row)] -= 1;
      if (e.col == a.rows - 1) job.x0[static_cast<std::size_t>(e.row)] += 2;
      else job.a2[static_cast<std::size_t>(e.col) * a.rows + e.row] = 2;
    }
    return job;
  };
  // All-ones of odd order: every y_i is odd, no term is ever zero.
  EXPECT_EQ(gpu::warp_nonzero_fraction(job_of(complete_bipartite(21))), 1.0);
  // I + P (a cycle cover matrix), n = 40: each y_i is 0 with probability 1/2, so a nonzero
  // term is about a 2^-40 event; the estimate stays small (it never claims exactly 0).
  SparseMatrix<Integer> c{40, 40, {}};
  for (int i = 0; i < 40; ++i) {
    c.entries.push_back({i, i, 1});
    c.entries.push_back({i, (i + 1) % 40, 1});
  }
  c.normalize();
  const double f = gpu::warp_nonzero_fraction(job_of(c));
  EXPECT_GT(f, 0.0);
  EXPECT_LT(f, 0.01);
}
