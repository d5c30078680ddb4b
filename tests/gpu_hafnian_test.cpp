// The GPU hafnian engine against the CPU engine: exact counts agree bit for bit (the same
// primes, the same residues), floats within the error bounds and against exact values of
// the same matrices. Skips where no CUDA device is visible (CI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "catalog/catalog.hpp"
#include "core/arith.hpp"
#include "core/tuning.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/gpu.hpp"
#include "symmetric_helpers.hpp"
#include "tuning_helpers.hpp"

using namespace matchcount;
using namespace matchcount::test::symmetric_helpers;
using matchcount::test::tuning_with;
using matchcount::test::with_tuning;

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

TEST(GpuHafnian, ExactAgreesWithCpuBitForBit) {
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(71);
  int checked = 0, on_gpu = 0;
  for (int n = 2; n <= 30; ++n)
    for (int rep = 0; rep < 6; ++rep) {
      const bool loops = rep % 2 == 1;
      if (n % 2 && !loops) continue;
      const auto a = rep < 2   ? random_01(n, 0.6, loops, rng)
                     : rep < 4 ? random_int(n, -9, 9, rng, 0.8)
                               : random_int(n, -(1 << 20), 1 << 20, rng, 0.7);
      EngineStats stats;
      EngineOptions o;
      o.stats = &stats;
      const Integer want = cpu->hafnian(a, loops, {});
      EXPECT_EQ(gpu->hafnian(a, loops, o), want) << "n=" << n << " rep=" << rep;
      on_gpu += stats.device == "gpu";  // blocks the guards settle (a vertex without a neighbour) never reach it
      ++checked;
    }
  EXPECT_GT(checked, 120);
  EXPECT_GT(on_gpu, 100);
}

TEST(GpuHafnian, LargeDenseAgreesWithCpu) {
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(5);
  for (int n : {36, 40}) {
    const auto a = random_01(n, 0.5, false, rng);
    EXPECT_EQ(gpu->hafnian(a, false, {}), cpu->hafnian(a, false, {})) << "n=" << n;
  }
  const auto l = random_int(33, -3, 3, rng);
  EXPECT_EQ(gpu->hafnian(l, true, {}), cpu->hafnian(l, true, {}));
}

TEST(GpuHafnian, TwoPrimesAWalkGiveTheResiduesOfOne) {
  // Primes go two to a walk (haf_mod2), an odd last one alone in a launch beside the pairs':
  // the same residues as one prime a walk, and as the CPU's count reduced modulo each prime.
  SKIP_WITHOUT_GPU();
  const auto cpu = make_graph_engine("hafnian");
  const std::vector<double> primes{4194301, 4194287, 4194277, 4194271, 4194247};
  const tuning::Tuning single = tuning_with(&tuning::Tuning::haf_pairs, 2), paired = tuning_with(&tuning::Tuning::haf_pairs, 1);
  std::mt19937_64 rng(29);
  for (int n : {8, 17, 24, 33, 40}) {
    const bool loops = n % 2 == 1;
    const auto a = n < 30 ? random_int(n, -9, 9, rng, 0.8) : random_01(n, 0.5, loops, rng);
    const Integer h = cpu->hafnian(a, loops, {});
    for (std::size_t k : {2, 3, 4, 5}) {
      const std::vector<double> some(primes.begin(), primes.begin() + static_cast<long>(k));
      const auto residues = [&] { return engines::gpu_hafnian_residues(a, loops, some, {}); };
      const std::vector<std::uint64_t> one = with_tuning(single, residues), two = with_tuning(paired, residues);
      ASSERT_EQ(two.size(), k);
      EXPECT_EQ(two, one) << "n=" << n << " primes=" << k;
      for (std::size_t i = 0; i < k; ++i) {
        Integer r = h % static_cast<long>(some[i]);
        if (r < 0) r += static_cast<long>(some[i]);
        EXPECT_EQ(two[i], r.get_ui()) << "n=" << n << " prime " << some[i];
      }
    }
  }
}

TEST(GpuHafnian, TheRingOfIntegersModulo2To64GivesTheCountOfThePrimes) {
  // Exact counts take 64 bits from a channel modulo 2^64 and the rest from primes (none where
  // the bound is below 2^62), the channel modulo 2^64 beside the first prime (one walk, the
  // others in pairs and an odd last one alone), or in a walk of its own: the counts of primes
  // alone and of the CPU engine, negative ones and wide entries (one to five primes) too.
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  const tuning::Tuning ring = tuning_with(&tuning::Tuning::haf_ring, 1), primes = tuning_with(&tuning::Tuning::haf_ring, 2);
  const tuning::Tuning alone = tuning_with(&tuning::Tuning::haf_ring, 3);  // 2^64 in a walk of its own
  std::mt19937_64 rng(37);
  for (int n : {6, 11, 16, 23, 30, 37, 44}) {
    for (int kind = 0; kind < 3; ++kind) {
      const bool loops = n % 2 == 1 || kind == 2;
      const auto a = kind == 0   ? random_01(n, 0.5, loops, rng)
                     : kind == 1 ? random_int(n, -9, 9, rng, 0.8)
                                 : random_int(n, -(1 << 20), 1 << 20, rng, 0.7);
      if (n > 30 && kind == 2) continue;  // the CPU's reference would take too long
      const Integer want = cpu->hafnian(a, loops, {});
      const auto count = [&] { return gpu->hafnian(a, loops, {}); };
      const Integer by_ring = with_tuning(ring, count), by_primes = with_tuning(primes, count);
      EXPECT_EQ(by_ring, want) << "n=" << n << " kind=" << kind;
      EXPECT_EQ(with_tuning(alone, count), want) << "n=" << n << " kind=" << kind << " (alone)";
      EXPECT_EQ(by_primes, want) << "n=" << n << " kind=" << kind;
    }
  }
}

TEST(GpuHafnian, TheRingWalksBesideTheFirstPrime) {
  // The job's groups as the device receives them (no device needed): {2^64, primes} become one
  // Z64Mod group of the same channels, roots and words in the same order, whose channel 0 is
  // the ring and the others primes; the knobs that walk channels apart leave the groups as
  // they are.
  const auto entry = [](int i, int j) { return Integer(3 * i - j + 1); };
  const std::vector<double> primes{4194301, 4194287, 4194277};
  const auto job_of = [&] {
    gpu::HafJob job = engines::gpu_haf::base_job(8, false, {});
    job.groups.push_back(engines::gpu_haf::z64_group(8, false, entry));
    job.groups.push_back(engines::gpu_haf::prime_group(8, false, primes, entry));
    engines::gpu_haf::ring_beside_first_prime(job);
    return job;
  };
  const gpu::HafJob apart = with_tuning(tuning_with(&tuning::Tuning::haf_ring, 3), job_of);
  ASSERT_EQ(apart.groups.size(), 2u);
  const gpu::HafJob joined = job_of();
  ASSERT_EQ(joined.groups.size(), 1u);
  const gpu::HafGroup& g = joined.groups[0];
  EXPECT_EQ(g.arith, gpu::HafArith::Z64Mod);
  EXPECT_EQ(g.channels, 4u);
  std::vector<double> roots = apart.groups[0].roots;
  roots.insert(roots.end(), apart.groups[1].roots.begin(), apart.groups[1].roots.end());
  EXPECT_EQ(g.roots, roots);
  EXPECT_EQ(g.prime, (std::vector<double>{0, primes[0], primes[1], primes[2]}));
  EXPECT_EQ(gpu::haf_channel_arith(g.arith, 0), gpu::HafArith::Z64);
  EXPECT_EQ(gpu::haf_channel_arith(g.arith, 3), gpu::HafArith::Mod);
  EXPECT_EQ(with_tuning(tuning_with(&tuning::Tuning::haf_pairs, 2), job_of).groups.size(), 2u);
}

TEST(GpuHafnian, TwoFloatWalksAWalkGiveTheBitsOfOne) {
  // The real walks' four vertex orders go two to a walk (haf_real2), each half in the single
  // walk's arithmetic and order: the same value and estimate, bit for bit.
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian");
  const tuning::Tuning single = tuning_with(&tuning::Tuning::haf_pairs, 2), paired = tuning_with(&tuning::Tuning::haf_pairs, 1);
  std::mt19937_64 rng(31);
  for (int n : {8, 17, 24, 33, 40}) {
    const bool loops = n % 2 == 1;
    const auto a = scaled<double>(random_int(n, -1000, 1000, rng, 0.8), 10);
    const auto count = [&] { return gpu->hafnian(a, loops, {}); };
    const Approx<double> one = with_tuning(single, count), two = with_tuning(paired, count);
    EXPECT_EQ(two.value, one.value) << "n=" << n;
    EXPECT_EQ(two.abs_error, one.abs_error) << "n=" << n;
  }
}

TEST(GpuHafnian, FloatsWithinTheirBoundsOfExactValues) {
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(9);
  for (int rep = 0; rep < 60; ++rep) {
    const int n = 4 + rep % 23;
    const bool loops = rep % 3 == 0;
    if (n % 2 && !loops) continue;
    const auto b = random_int(n, -1000, 1000, rng, 0.9);
    const Integer h = cpu->hafnian(b, loops, {});
    const double want = exact_scaled(h, n, 10);
    const auto r = gpu->hafnian(scaled<double>(b, 10), loops, {});
    EXPECT_LE(std::abs(r.value - want), r.abs_error) << "n=" << n << " loops=" << loops;
    EXPECT_LE(std::abs(r.value - want), 1e-9 * r.abs_error + 1e-300 + 1e-6 * std::abs(want)) << n;
    const auto rc = cpu->hafnian(scaled<double>(b, 10), loops, {});
    EXPECT_LE(std::abs(r.value - rc.value), r.abs_error + rc.abs_error);
    // Complex: (1 + i) / sqrt(2)-free rotation by i on every entry keeps values exact.
    SparseMatrix<Complex> c = scaled<Complex>(b, 10);
    for (auto& e : c.entries) e.value = Complex(0, 1) * e.value;
    const auto z = gpu->hafnian(c, loops, {}), zc = cpu->hafnian(c, loops, {});
    EXPECT_LE(std::abs(z.value - zc.value), z.abs_error + zc.abs_error) << "n=" << n;
  }
}

TEST(GpuHafnian, TheModuliWalkRunsOnlyWhereEntriesCarryErrors) {
  // The walk of |A| only bounds what the entries' own errors move: with errors the estimate
  // holds the CPU engine's share for them (to the walks' rounding), without them it is not
  // walked and the estimate is the spread's alone, far below.
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(37);
  EngineOptions errors;
  errors.entry_error = [](const Complex& x) { return 1e-9 * std::abs(x); };
  for (int n : {12, 21}) {
    const bool loops = n % 2 == 1;
    const auto b = random_int(n, -1000, 1000, rng, 0.9);
    SparseMatrix<Complex> c = scaled<Complex>(b, 10);
    for (auto& e : c.entries) e.value *= Complex(0.6, 0.8);
    const auto check = [&](const auto& a) {
      const auto with = gpu->hafnian(a, loops, errors), want = cpu->hafnian(a, loops, errors);
      const auto without = gpu->hafnian(a, loops, {});
      EXPECT_NEAR(with.abs_error, want.abs_error, 1e-3 * want.abs_error) << "n=" << n;
      EXPECT_LT(without.abs_error, 1e-3 * with.abs_error) << "n=" << n;
      EXPECT_LE(std::abs(with.value - without.value), without.abs_error) << "n=" << n;
    };
    check(scaled<double>(b, 10));
    check(c);
  }
}

TEST(GpuHafnian, PlannerWeighsItOnlyWithADevice) {
  const auto& row = catalog::entry("gpu-hafnian");
  EXPECT_TRUE(row.gpu);
  EXPECT_TRUE(row.loops);
  // With --device cpu the GPU engine is never a candidate.
  std::mt19937_64 rng(3);
  const auto a = random_01(40, 0.5, false, rng);
  const EnginePlan p = plan_graph_engine(a, false, DevicePolicy::Cpu, 2);
  for (const auto& c : p.candidates) EXPECT_NE(c.first, "gpu-hafnian");
  if (!gpu_available()) return;
  const EnginePlan g = plan_graph_engine(a, false, DevicePolicy::Gpu, 2);
  EXPECT_EQ(g.engine, "gpu-hafnian");
}

// The planner's exact channels (no device needed): with the ring, the walk modulo 2^64 and only
// the primes beyond 64 bits of the bound, so that a dense n = 60 count is weighed at fewer
// prime walks than the five the CPU walks; without it, the CPU's primes.
TEST(GpuHafnian, PlannerCountsTheRingsChannels) {
  const tuning::Tuning ring_knobs = tuning_with(&tuning::Tuning::haf_ring, 4),  // small primes only
      primes_knobs = tuning_with(&tuning::Tuning::haf_ring, 2), alone_knobs = tuning_with(&tuning::Tuning::haf_ring, 3),
                       big_knobs = tuning_with(&tuning::Tuning::haf_ring, 1);
  std::mt19937_64 rng(5);
  int big_walks = 0;
  for (const int n : {20, 40, 50, 60, 64}) {
    const auto a = random_01(n, 0.5, false, rng);
    const double cpu = double(engines::hafnian_prime_count(a, false));
    const auto channels = [&] { return engines::gpu_hafnian_exact_channels(a, false); };
    const double ring = with_tuning(ring_knobs, channels), primes = with_tuning(primes_knobs, channels),
                 alone = with_tuning(alone_knobs, channels), big = with_tuning(big_knobs, channels);
    // The default takes one prime of about 47 bits beside the ring (2.7 primes' time) where it alone
    // covers what would take two small primes or more.
    const bool one_large = with_tuning(big_knobs, [&] {
      return engines::gpu_haf::big_prime((n + 1) / 2, hafnian_bound(a, false)) > 0;
    });
    big_walks += one_large;
    if (one_large) {
      EXPECT_DOUBLE_EQ(big, 2.7) << "n=" << n;
      EXPECT_LT(big, ring) << "n=" << n;
    } else {
      EXPECT_DOUBLE_EQ(big, ring) << "n=" << n;
    }
    EXPECT_EQ(primes, cpu) << "n=" << n;
    // 1.7 for the walk modulo 2^64 alone, and a whole number of primes; 2.15 for it and the
    // first prime in one walk.
    EXPECT_DOUBLE_EQ(alone - std::floor(alone), 0.7) << "n=" << n;
    if (n <= 40) {
      EXPECT_DOUBLE_EQ(ring, 1.7) << "n=" << n;  // the bound is below 2^62: no prime to pair
      EXPECT_DOUBLE_EQ(alone, 1.7) << "n=" << n;
    } else {
      EXPECT_NEAR(ring - std::floor(ring), 0.15, 1e-12) << "n=" << n;
      EXPECT_NEAR(alone - ring, 0.55, 1e-12) << "n=" << n;
    }
    if (n >= 56) {
      EXPECT_LT(ring, cpu) << "n=" << n;
    }
    EXPECT_LT(engines::gpu_hafnian_seconds(n, ring, false), engines::gpu_hafnian_seconds(n, cpu, false) + 1e-9);
  }
  EXPECT_EQ(big_walks, 1);  // n = 60's bound needs more than 2^64 and one small prime, n = 64's more than a large one
}

TEST(GpuHafnian, ALargePrimeKeepsEveryCoefficientExact) {
  // No device needed: the large prime of each half-size lies below the limit that keeps a
  // coefficient's 2m + 2 reduced products (7p/8 each) and its base (p) below 2^53, as close to
  // it as primes go; it is taken only where it alone covers what 2^64 leaves of the bound and
  // two small primes would be needed, and never with the knob for small primes.
  for (int m = 1; m <= 36; ++m) {
    const double limit = gpu::haf_big_prime_limit(m);
    const Integer need = Integer(1) << (64 + 40);  // two small primes' worth beyond 2^64
    const double p = engines::gpu_haf::big_prime(m, need);
    ASSERT_GT(p, 0) << "m=" << m;
    EXPECT_TRUE(is_prime(static_cast<std::uint64_t>(p))) << "m=" << m;
    EXPECT_LT(p, limit) << "m=" << m;
    EXPECT_GT(p, limit - 4096) << "m=" << m;
    const Integer P(static_cast<unsigned long>(p));
    EXPECT_LT((2 * m + 2) * 7 * P + 8 * P, Integer(1) << 56) << "m=" << m;  // 8 (sum) < 2^56
    EXPECT_EQ(engines::gpu_haf::big_prime(m, Integer(1) << 80), 0.0) << "m=" << m;  // one small prime covers it
    EXPECT_EQ(engines::gpu_haf::big_prime(m, P << 64), 0.0) << "m=" << m;           // the large one does not
    EXPECT_EQ(with_tuning(tuning_with(&tuning::Tuning::haf_ring, 4), [&] { return engines::gpu_haf::big_prime(m, need); }),
              0.0);
  }
  EXPECT_GT(engines::gpu_haf::big_prime(30, Integer(1) << 100), 0x1p46);
}

TEST(GpuHafnian, TheRingBesideALargePrimeAgreesWithTheCpu) {
  // Matrices whose bound leaves 24 to 46 bits beyond 2^64 (entries widened until it does), with
  // and without loops, negative entries among them: one walk of the ring beside a prime below
  // 2^47.2, the count of the CPU engine and of the ring beside small primes.
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  const tuning::Tuning small = tuning_with(&tuning::Tuning::haf_ring, 4);
  std::mt19937_64 rng(43);
  int checked = 0;
  for (int n : {10, 13, 16, 21, 26, 31}) {
    for (int rep = 0; rep < 2; ++rep) {
      const bool loops = n % 2 == 1 || rep == 1;
      for (int width = 2; width < (1 << 24); width *= 2) {
        const auto a = random_int(n, -width, width, rng, 0.8);
        const Integer bound = hafnian_bound(a, loops);
        if (engines::gpu_haf::big_prime((n + 1) / 2, bound) == 0) {
          if (bound > (Integer(1) << 120)) break;
          continue;
        }
        EngineStats stats;
        EngineOptions o;
        o.stats = &stats;
        const Integer want = cpu->hafnian(a, loops, {});
        EXPECT_EQ(gpu->hafnian(a, loops, o), want) << "n=" << n << " width=" << width;
        EXPECT_NE(stats.note.find("one prime of"), std::string::npos) << stats.note;
        EXPECT_EQ(with_tuning(small, [&] { return gpu->hafnian(a, loops, {}); }), want) << "n=" << n;
        ++checked;
        break;
      }
    }
  }
  EXPECT_GE(checked, 12);
}

// Everywhere: the engine gives the CPU engine's values, on the GPU when there is one, else on
// the CPU with a note saying why (CI machines have no device).
TEST(GpuHafnian, CountsOnTheCpuWithoutADevice) {
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(12);
  const auto a = random_int(14, -5, 5, rng);
  EngineStats stats;
  EngineOptions o;
  o.stats = &stats;
  EXPECT_EQ(gpu->hafnian(a, true, o), cpu->hafnian(a, true, {}));
  if (gpu_available()) {
    EXPECT_EQ(stats.device, "gpu");
  } else {
    EXPECT_EQ(stats.device, "cpu");
    EXPECT_NE(stats.note.find("GPU failed, counted on the CPU"), std::string::npos) << stats.note;
  }
  const auto r = scaled<double>(a, 4);
  const auto g = gpu->hafnian(r, false, {}), c = cpu->hafnian(r, false, {});
  EXPECT_LE(std::abs(g.value - c.value), g.abs_error + c.abs_error);
}

// Loops far larger than the rows: a matching of loops alone is worth |loop|^n, beyond what the
// row sums bound, and the fixed point must still hold it (gpu_haf::walk_rho).
TEST(GpuHafnian, LargeLoopsStayWithinTheFixedPoint) {
  SKIP_WITHOUT_GPU();
  const auto gpu = make_graph_engine("gpu-hafnian"), cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(17);
  for (int n : {4, 7, 12, 21}) {
    SparseMatrix<Integer> a{n, n, {}};
    SparseMatrix<double> f{n, n, {}};
    std::vector<long> d(static_cast<std::size_t>(n * n), 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        d[static_cast<std::size_t>(i * n + j)] = d[static_cast<std::size_t>(j * n + i)] =
            i == j ? 1000000 + static_cast<long>(rng() % 1000) : static_cast<long>(rng() % 3);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (d[static_cast<std::size_t>(i * n + j)] != 0) {
          a.entries.push_back({i, j, Integer(d[static_cast<std::size_t>(i * n + j)])});
          f.entries.push_back({i, j, static_cast<double>(d[static_cast<std::size_t>(i * n + j)])});
        }
    const double want = cpu->hafnian(a, true, {}).get_d();
    const auto got = gpu->hafnian(f, true, {});
    EXPECT_LE(std::abs(got.value - want), got.abs_error) << "n=" << n;
    EXPECT_LE(std::abs(got.value - want), 1e-12 * std::abs(want)) << "n=" << n;
  }
}
