// gpu-ryser with its specialised kernel compiled beside the walk (docs/gpu.md, "Kernels:
// generic and specialised"): with an empty kernel cache the walk starts on the generic kernel
// while NVRTC compiles, switches between runs once the kernel is there, and counts exactly
// (reals: to the same bits as the generic kernel alone); the compiled kernel is left in the
// cache, from which the next walk loads it before it starts. The cache folder and the choice
// to compile beside are set through the knobs (core/tuning.hpp).
// GPU tests skip where no CUDA device is visible.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/tuning.hpp"
#include "matchcount/gpu.hpp"
#include "test_support.hpp"

using namespace matchcount;
namespace fs = std::filesystem;

namespace {

/// An empty kernel cache of its own, removed with the object.
struct FreshCache {
  fs::path dir;
  FreshCache() {
    std::string pattern = (fs::temp_directory_path() / "matchcount-kernels-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
  }
  ~FreshCache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  int cubins() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".cubin";
    return n;
  }
};

/// The knobs with kernels cached in `cache` and compiled beside the walk even when the caller
/// asks for a specialised kernel (as the planner's choice to compile would); no extra macros,
/// which would make real walks compile first.
tuning::Tuning beside(const FreshCache& cache) {
  tuning::Tuning t = tuning::tuning();
  t.kernel_cache = cache.dir.string();
  t.nvrtc_compile = 1;
  t.nvrtc_defines.clear();
  return t;
}

EngineOptions options(Specialise specialise, EngineStats* stats) {
  EngineOptions o;
  o.specialise = specialise;
  o.stats = stats;
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// Dense 0-1, n = 30: far shorter than a compilation, so the generic kernel runs it all; the
// walk waits for the compilation at its end, which leaves the kernel in the cache.
TEST(GpuRyserBeside, ColdCacheStartsGenericAndCountsExactly) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(91);
  const auto a = test::without_empty_lines([&] { return test::random_integer(rng, 30, 0.9, 1, 1); });
  const Integer expected = make_engine("ryser")->permanent(a, {});
  FreshCache cache;
  const tuning::ScopedTuning knobs(beside(cache));
  auto gpu = make_engine("gpu-ryser");

  EngineStats cold;
  EXPECT_EQ(gpu->permanent(a, options(Specialise::Always, &cold)), expected);
  EXPECT_EQ(cold.device, "gpu") << cold.note;
  // Generic throughout, or (a fast compilation) generic first and then the compiled kernel.
  EXPECT_TRUE(cold.kernel == "generic" || cold.note.find("while NVRTC compiled") != std::string::npos)
      << cold.kernel << ": " << cold.note;
  EXPECT_GT(cold.compile_seconds, 0.0) << cold.note;
  EXPECT_GE(cache.cubins(), 1) << "the compilation beside the walk wrote no kernel to " << cache.dir;

  // The next walk finds the kernel in the cache and runs it from the start.
  EngineStats warm;
  EXPECT_EQ(gpu->permanent(a, options(Specialise::Always, &warm)), expected);
  EXPECT_EQ(warm.kernel.rfind("cached", 0), 0u) << warm.kernel << ": " << warm.note;
  EXPECT_EQ(warm.compile_seconds, 0.0);
}

// Real entries, dense and sparse (columns in shared memory, or baked into the code): the walk
// that started the compilation and the next one, which runs the compiled kernel, have the bits
// of the generic kernel's walk, which is what lets real walks switch kernels midway.
TEST(GpuRyserBeside, RealsKeepTheGenericKernelsBits) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(92);
  FreshCache cache;
  const tuning::ScopedTuning knobs(beside(cache));
  auto gpu = make_engine("gpu-ryser");
  for (const double density : {1.0, 0.3}) {
    const auto a = test::without_empty_lines([&] { return test::random_real(rng, 24, density, -1.0, 1.0); });
    EngineStats g, cold, warm;
    const double generic = gpu->permanent(a, options(Specialise::Never, &g)).value;
    const double first = gpu->permanent(a, options(Specialise::Always, &cold)).value;
    const double second = gpu->permanent(a, options(Specialise::Always, &warm)).value;
    EXPECT_EQ(g.kernel, "generic");
    EXPECT_EQ(warm.kernel.rfind("cached", 0), 0u) << warm.kernel << ": " << warm.note;
    EXPECT_EQ(std::memcmp(&generic, &first, sizeof(double)), 0) << "density " << density << ": " << cold.note;
    EXPECT_EQ(std::memcmp(&generic, &second, sizeof(double)), 0) << "density " << density << ": " << warm.note;
  }
}

// A walk long enough for the switch (dense real n = 40, seconds on the generic kernel): the
// devices move to the specialised kernel between runs, and the value has the generic kernel's
// bits. The switch is checked where the compilation ended longer before the walk did than the
// gap between two runs' starts (runs of about a second, the last one up to half as long again).
TEST(GpuRyserBeside, SwitchesKernelsDuringALongWalk) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(93);
  const auto a = test::random_real(rng, 40, 1.0, -1.0, 1.0);
  auto gpu = make_engine("gpu-ryser");
  EngineStats g;
  const double generic = gpu->permanent(a, options(Specialise::Never, &g)).value;

  FreshCache cache;
  const tuning::ScopedTuning knobs(beside(cache));
  EngineStats s;
  const auto t0 = std::chrono::steady_clock::now();
  const double switched = gpu->permanent(a, options(Specialise::Auto, &s)).value;
  const double wall = seconds_since(t0);
  EXPECT_EQ(std::memcmp(&generic, &switched, sizeof(double)), 0) << generic << " vs " << switched << ": " << s.note;
  std::printf("gpu-ryser n=40 beside: %.2f s in all, compile %.2f s, kernel %s; %s\n", wall, s.compile_seconds,
              s.kernel.c_str(), s.note.c_str());
  EXPECT_GT(s.compile_seconds, 0.0) << s.note;
  if (s.compile_seconds + 2.0 < wall) {
    EXPECT_NE(s.note.find("while NVRTC compiled, then nvrtc"), std::string::npos) << s.kernel << ": " << s.note;
  }
}
