// Repeated-row hafnians on the GPU (gpu_hafnian_rpt_walk): exact counts agree with the CPU
// walk bit for bit, floats lie within their bounds of exact values (cancelling and mixed
// magnitudes too), every device and a resumed walk give the bits of one device, and the
// pipeline's device choice. The device tests skip where no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "core/tuning.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/pipeline.hpp"
#include "memory_journal.hpp"
#include "tuning_helpers.hpp"

using namespace matchcount;
using engines::RepeatedHafnian;
using test::tuning_with;
using test::with_tuning;

namespace {

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

/// A random symmetric pattern problem with integer entries in [lo, hi], rpt[i] in 0..most.
RepeatedHafnian<Integer> random_problem(std::mt19937_64& rng, int n, long lo, long hi, std::uint64_t most, bool loops) {
  RepeatedHafnian<Integer> in;
  in.n = n, in.loops = loops;
  in.a.assign(static_cast<std::size_t>(n * n), Integer(0));
  std::uniform_int_distribution<long> draw(lo, hi);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) in.a[static_cast<std::size_t>(i * n + j)] = in.a[static_cast<std::size_t>(j * n + i)] = draw(rng);
  for (int i = 0; i < n; ++i) in.mu.push_back(Integer(draw(rng)));
  for (int i = 0; i < n; ++i) in.rpt.push_back(std::uniform_int_distribution<std::uint64_t>(0, most)(rng));
  return in;
}

template <class T>
RepeatedHafnian<T> as_floats(const RepeatedHafnian<Integer>& in, T unit) {
  RepeatedHafnian<T> f;
  f.n = in.n, f.rpt = in.rpt, f.loops = in.loops;
  for (const auto& x : in.a) f.a.push_back(T(x.get_d()) * unit);
  for (const auto& x : in.mu) f.mu.push_back(T(x.get_d()) * unit);
  return f;
}

std::uint64_t photons(const std::vector<std::uint64_t>& rpt) {
  std::uint64_t n = 0;
  for (auto r : rpt) n += r;
  return n;
}

/// body(in, trial) for each of `trials` random integer patterns (from `seed`) of first_modes ..
/// first_modes + 5 modes and up to `copies` copies a mode: entries within +-narrow in odd
/// trials and +-2^20 in even ones, loops every third trial; patterns of fewer than
/// `min_photons` or more than 48 photons, or of an odd count without loops, are left out.
/// Returns how many ran.
template <class Body>
int each_pattern(std::uint64_t seed, int trials, int first_modes, long narrow, std::uint64_t copies,
                 std::uint64_t min_photons, Body body) {
  std::mt19937_64 rng(seed);
  int ran = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const int n = first_modes + static_cast<int>(rng() % 6);
    const auto in = random_problem(rng, n, trial % 2 ? -narrow : -(1L << 20), trial % 2 ? narrow : 1L << 20, copies, trial % 3 == 0);
    const std::uint64_t N = photons(in.rpt);
    if (N < min_photons || N > 48 || (N % 2 && !in.loops)) continue;
    body(in, trial);
    ++ran;
  }
  return ran;
}

}  // namespace

TEST(GpuHafnianRepeated, ExactAgreesWithTheCpuWalk) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(41);
  int checked = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 8);
    auto in = random_problem(rng, n, trial % 3 ? -5 : -(1L << 20), trial % 3 ? 5 : 1L << 20, 1 + trial % 6, trial % 2);
    const std::uint64_t N = photons(in.rpt);
    if (N == 0 || N > 64 || (N % 2 && !in.loops)) continue;
    EngineStats stats;
    EngineOptions o;
    o.stats = &stats;
    const Integer want = engines::hafnian_rpt_walk(in, {});
    EXPECT_EQ(engines::gpu_hafnian_rpt_walk(in, o), want) << "trial " << trial << " N=" << N;
    EXPECT_EQ(stats.device, "gpu");
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

// Patterns of 65 to 72 photons (the kernel's largest block), exact, against Kan's formula.
TEST(GpuHafnianRepeated, LargestPatternsAgreeWithKan) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(43);
  const std::vector<std::vector<std::uint64_t>> patterns = {{36, 36}, {30, 20, 22}, {40, 31}, {24, 23, 18}, {66}};
  for (std::size_t t = 0; t < patterns.size(); ++t) {
    const bool loops = photons(patterns[t]) % 2 == 1 || t == 4;
    auto in = random_problem(rng, static_cast<int>(patterns[t].size()), -3, 3, 0, loops);
    in.rpt = patterns[t];
    EngineStats stats;
    EngineOptions o;
    o.stats = &stats;
    EXPECT_EQ(engines::gpu_hafnian_rpt_walk(in, o), engines::hafnian_kan(in)) << "pattern " << t;
    EXPECT_EQ(stats.device, "gpu");
  }
  auto big = random_problem(rng, 2, -3, 3, 0, false);
  big.rpt = {37, 37};
  EXPECT_THROW(engines::gpu_hafnian_rpt_walk(big, {}), GpuError);
}

TEST(GpuHafnianRepeated, FloatsWithinTheirBoundsOfExactValues) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(43);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 7);
    // Mixed signs cancel; every third problem mixes magnitudes 1 and 2^20.
    auto in = random_problem(rng, n, trial % 3 ? -9 : -(1L << 20), trial % 3 ? 9 : 1L << 20, 4, trial % 2);
    const std::uint64_t N = photons(in.rpt);
    if (N == 0 || N > 48 || (N % 2 && !in.loops)) continue;
    const Integer exact = engines::hafnian_rpt_walk(in, {});
    // The same integers as doubles: the exact count is the reference.
    const auto r = engines::gpu_hafnian_rpt_walk(as_floats(in, 1.0), {});
    EXPECT_LE(std::abs(r.value - exact.get_d()), r.abs_error) << "trial " << trial;
    EXPECT_TRUE(std::isfinite(r.abs_error));
    const auto c = engines::gpu_hafnian_rpt_walk(as_floats(in, Complex(0, 1)), {});
    const auto cc = engines::hafnian_rpt_walk(as_floats(in, Complex(0, 1)), {});
    EXPECT_LE(std::abs(c.value - cc.value), c.abs_error + cc.abs_error) << "trial " << trial;
  }
}

// Exact walks' primes and the real walks' lanes go two to a walk (haf_mod2_rpt, haf_real2_rpt),
// an odd last prime alone beside them: the bits of one channel a walk.
TEST(GpuHafnianRepeated, TwoChannelsAWalkGiveTheBitsOfOne) {
  SKIP_WITHOUT_GPU();
  const tuning::Tuning single = tuning_with(&tuning::Tuning::haf_pairs, 2), paired = tuning_with(&tuning::Tuning::haf_pairs, 1);
  const int checked = each_pattern(53, 24, 2, 5, 6, 8, [&](const RepeatedHafnian<Integer>& in, int trial) {
    const auto real = as_floats(in, 0.5);
    const auto walks = [&] { return std::make_pair(engines::gpu_hafnian_rpt_walk(in, {}), engines::gpu_hafnian_rpt_walk(real, {})); };
    const auto [x1, r1] = with_tuning(single, walks);
    const auto [x2, r2] = with_tuning(paired, walks);
    EXPECT_EQ(x2, x1) << "trial " << trial;
    EXPECT_EQ(x2, engines::hafnian_rpt_walk(in, {})) << "trial " << trial;
    EXPECT_EQ(r2.value, r1.value) << "trial " << trial;
    EXPECT_EQ(r2.abs_error, r1.abs_error) << "trial " << trial;
  });
  EXPECT_GT(checked, 8);
}

// Exact patterns walk once modulo 2^64 and take primes for the rest of the bound: the count of
// primes alone and of the CPU walk, with narrow and wide entries.
TEST(GpuHafnianRepeated, TheRingModulo2To64GivesTheCountOfThePrimes) {
  SKIP_WITHOUT_GPU();
  const tuning::Tuning ring = tuning_with(&tuning::Tuning::haf_ring, 1), primes = tuning_with(&tuning::Tuning::haf_ring, 2);
  const int checked = each_pattern(59, 30, 1, 4, 7, 2, [&](const RepeatedHafnian<Integer>& in, int trial) {
    const std::uint64_t N = photons(in.rpt);
    const auto count = [&] { return engines::gpu_hafnian_rpt_walk(in, {}); };
    const Integer by_ring = with_tuning(ring, count), by_primes = with_tuning(primes, count);
    const Integer want = engines::hafnian_rpt_walk(in, {});
    EXPECT_EQ(by_ring, want) << "trial " << trial << " N=" << N;
    EXPECT_EQ(by_primes, want) << "trial " << trial << " N=" << N;
  });
  EXPECT_GT(checked, 12);
}

TEST(GpuHafnianRepeated, DevicesAndResumesGiveTheBitsOfOne) {
  SKIP_WITHOUT_GPU();
  const int devices = static_cast<int>(gpu_devices().size());
  std::mt19937_64 rng(47);
  // 30 modes, two photons each: 3^15 leaves, over a second of exact walk on one H200, in
  // several runs of units (the first is sized for 0.3 s).
  RepeatedHafnian<Integer> in = random_problem(rng, 30, -3, 3, 2, false);
  in.rpt.assign(30, 2);
  auto run = [&](const auto& problem, int gpus, WalkJournal* journal, EngineStats* stats) {
    EngineOptions o;
    o.gpus = gpus, o.journal = journal, o.stats = stats;
    return engines::gpu_hafnian_rpt_walk(problem, o);
  };
  EngineStats s1, s_all;
  const Integer x1 = run(in, 1, nullptr, &s1), x_all = run(in, 0, nullptr, &s_all);
  EXPECT_EQ(x1, x_all);
  if (devices > 1) {
    EXPECT_NE(s_all.note.find(std::to_string(devices) + " GPUs took"), std::string::npos) << s_all.note;
  }
  const auto real = as_floats(in, 0.25);
  const auto r1 = run(real, 1, nullptr, nullptr), r_all = run(real, 0, nullptr, nullptr);
  EXPECT_EQ(r1.value, r_all.value);  // exact fixed-point sums: the same bits
  std::printf("gpu repeated hafnian, 60 photons, %d device(s): %s (%s)\n", devices, x1.get_str().c_str(), s_all.note.c_str());
  test::MemoryJournal j;
  j.stop_after = 1;
  EXPECT_THROW(run(in, 1, &j, nullptr), Interrupted);
  j.stop_after = -1;
  EXPECT_EQ(run(in, 0, &j, nullptr), x1);
}

TEST(GpuHafnianRepeated, TheDeviceIsChosenOnce) {
  std::mt19937_64 rng(53);
  RepeatedHafnian<Integer> in = random_problem(rng, 6, -3, 3, 3, false);
  in.rpt = {4, 4, 4, 4, 4, 4};
  in.device = DevicePolicy::Cpu;
  EXPECT_EQ(engines::repeated_device(in, 2), DevicePolicy::Cpu);
  in.device = DevicePolicy::Gpu;
  EXPECT_EQ(engines::repeated_device(in, 2), DevicePolicy::Gpu);
  in.rpt = {12, 12, 12, 12, 13, 13};  // 74 photons: beyond the GPU walk (72)
  EXPECT_EQ(engines::repeated_device(in, 2), DevicePolicy::Cpu);
  in.rpt = {1, 1, 1, 1, 0, 1};  // small: auto keeps it on the CPU
  in.device = DevicePolicy::Auto;
  EXPECT_EQ(engines::repeated_device(in, 2), DevicePolicy::Cpu);
  // Asked for the GPU without one: the CPU walk's value, with a note.
  in.rpt = {2, 2, 2, 2, 2, 2};
  CountOptions o;
  o.device = DevicePolicy::Gpu;
  SparseMatrix<Integer> a{6, 6, {}};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (in.a[static_cast<std::size_t>(i * 6 + j)] != 0) a.entries.push_back({i, j, in.a[static_cast<std::size_t>(i * 6 + j)]});
  const auto report = count_hafnian_repeated(AnyMatrix(a), in.rpt, nullptr, false, o);
  in.device = DevicePolicy::Cpu;
  EXPECT_EQ(std::get<Integer>(report.value.value), engines::hafnian_rpt_walk(in, {}));
  ASSERT_EQ(report.engine_runs.size(), 1u);
  EXPECT_EQ(report.engine_runs[0].engine, gpu_available() ? "gpu-hafnian-rpt" : "hafnian-rpt");
}
