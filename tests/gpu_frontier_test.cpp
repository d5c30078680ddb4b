// The GPU frontier engine: colex ranking and the pull form of the DP on the host (run
// everywhere), and the device against the CPU frontier engine and Ryser exactly (skipped where
// no CUDA device is visible, as in CI).
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "engines/frontier/frontier.hpp"
#include "cuda/subset_rank.hpp"
#include "core/arith.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/generate.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

namespace sr = subset_rank;
__extension__ typedef unsigned __int128 u128;

/// Banded, sparse, arrow-shaped or dense n x n matrices with values in [lo, hi] \ {0}.
SparseMatrix<Integer> random_gpu_shape(std::mt19937_64& rng, int n, int shape, long lo, long hi) {
  std::uniform_int_distribution<long> val(lo, hi);
  std::uniform_real_distribution<double> u(0, 1);
  const int band = 1 + int(rng() % 4);
  const double p = shape == 1 ? 0.08 + 0.2 * u(rng) : 0.4 + 0.6 * u(rng);
  SparseMatrix<Integer> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const bool on = shape == 0 ? std::abs(i - j) <= band && u(rng) < 0.85
                    : shape == 1 ? u(rng) < p || i == j
                    : shape == 2 ? (i == 0 || j == n - 1 || std::abs(i - j) <= 1) && u(rng) < 0.95
                                 : u(rng) < p;
      long v = 0;
      while (on && v == 0) v = val(rng);
      if (on) a.entries.push_back({i, j, Integer(v)});
    }
  a.normalize();
  return a;
}

/// The GPU kernel's pull DP on the host, modulo one prime: the same row descriptions, colex
/// tables and source ranks, so the engine's set-up is tested where no device is.
std::uint64_t host_pull_dp(const SparseMatrix<Integer>& a, std::uint64_t p) {
  const auto plan = engines::plan_frontier(engines::pattern_of(a), a.rows);
  const auto rows = engines::gpu_frontier_rows(engines::frontier_steps(a, plan));
  if (rows.empty()) return 0;
  const auto binom = sr::binomials();
  int wmax = 1;
  for (const auto& r : rows) wmax = std::max({wmax, r.w_old, r.w_new});
  const auto table = sr::rank_table(wmax);
  std::vector<std::uint64_t> old{1}, fresh;
  for (const auto& r : rows) {
    fresh.assign(binom[std::size_t(r.w_new) * 65 + std::size_t(r.p_new)], 0);
    EXPECT_EQ(old.size(), binom[std::size_t(r.w_old) * 65 + std::size_t(r.p_old)]);
    std::uint64_t closing = 0;
    for (int b : r.close_asc) closing |= std::uint64_t{1} << b;
    for (std::uint64_t i = 0; i < fresh.size(); ++i) {
      const std::uint64_t t = sr::unrank(i, r.p_new, r.w_new, binom.data());
      std::uint64_t x = t & r.low;
      for (int b : r.close_asc) x = (x & ((std::uint64_t{1} << b) - 1)) | ((x >> b) << (b + 1));
      const std::uint64_t full = x | closing;
      for (const auto& m : r.moves) {
        if ((t & ~r.low) != (m.need & ~r.low) || (t & m.need) != m.need) continue;
        const std::uint64_t s = full & ~m.drop;
        EXPECT_EQ(std::popcount(s), r.p_old);
        const auto rk = sr::rank(s, table.data(), (r.w_old + 3) / 4, wmax);
        EXPECT_LT(rk, old.size());
        const auto w = mpz_fdiv_ui(a.entries[std::size_t(m.entry)].value.get_mpz_t(), p);
        fresh[i] = std::uint64_t((u128(old[rk]) * w + fresh[i]) % p);
      }
    }
    std::swap(old, fresh);
  }
  return old.at(0);
}

TEST(GpuFrontierHost, ColexRankUnrankAndNext) {
  const auto binom = sr::binomials();
  EXPECT_EQ(binom[31 * 65 + 15], 300540195u);
  EXPECT_EQ(binom[64 * 65 + 32], 1832624140942590534u);
  std::mt19937_64 rng(41);
  for (int w : {1, 2, 5, 9, 16, 23, 31, 40, 63}) {
    const auto table = sr::rank_table(w);
    for (int p = 0; p <= w; ++p) {
      const std::uint64_t count = binom[std::size_t(w) * 65 + std::size_t(p)];
      if (count > (std::uint64_t{1} << 32)) continue;  // ranks are 32-bit
      const int samples = count <= 3000 ? int(count) : 3000;
      for (int k = 0; k < samples; ++k) {
        std::uint64_t r = count <= 3000 ? std::uint64_t(k) : rng() % count;
        if (k == 0) r = 0;
        if (k == 1 && count > 1) r = count - 1;
        const std::uint64_t s = sr::unrank(r, p, w, binom.data());
        ASSERT_EQ(std::popcount(s), p) << w << " " << p << " " << r;
        ASSERT_TRUE(w == 64 || s < (std::uint64_t{1} << w));
        ASSERT_EQ(sr::rank(s, table.data(), (w + 3) / 4, w), r) << w << " " << p;
        if (r + 1 < count) {  // colex order is numeric order of the keys
          const std::uint64_t next = sr::next_subset(s);
          ASSERT_EQ(next, sr::unrank(r + 1, p, w, binom.data())) << w << " " << p << " " << r;
          ASSERT_GT(next, s);
        }
      }
    }
  }
  // A table for a wider key ranks narrower keys the same.
  const auto wide = sr::rank_table(40);
  EXPECT_EQ(sr::rank(0b1011001, wide.data(), 10, 40), sr::rank(0b1011001, sr::rank_table(7).data(), 2, 7));
}

TEST(GpuFrontierHost, PullDpAgreesWithCpuEngines) {
  std::mt19937_64 rng(42);
  auto frontier = engines::make_frontier(), ryser = make_engine("ryser");
  const std::uint64_t p = top_primes(1)[0];
  auto mod = [&](const Integer& v) { return std::uint64_t(mpz_fdiv_ui(v.get_mpz_t(), p)); };
  for (int it = 0; it < 120; ++it) {
    const int n = 1 + it % 14;
    const auto a = random_gpu_shape(rng, n, it % 4, it % 3 == 0 ? 1 : -4, 4);
    ASSERT_EQ(host_pull_dp(a, p), mod(ryser->permanent(a, {}))) << "it " << it;
  }
  EXPECT_EQ(host_pull_dp(biadjacency(grid_graph(6, 9)), p), 817991u);
  EXPECT_EQ(host_pull_dp(complete_bipartite(9), p), 362880u);
  const auto wide = random_gpu_shape(rng, 40, 0, -3, 3);
  EXPECT_EQ(host_pull_dp(wide, p), mod(frontier->permanent(wide, {})));
}

TEST(GpuFrontierHost, PlannerAndFallback) {
  const auto g = biadjacency(grid_graph(8, 8));
  const auto plan = engines::plan_frontier(engines::pattern_of(g), g.rows);
  const double s = engines::gpu_frontier_seconds(g, plan, 2, 80);
  EXPECT_GT(s, 0.0);
  EXPECT_LT(s, 1.0);
  EXPECT_EQ(engines::gpu_frontier_seconds(g, plan, 2, 1e-9), std::numeric_limits<double>::infinity());
  EXPECT_NE(plan_engine(g, DevicePolicy::Cpu, 1).engine, "gpu-frontier");
  // Without a device the engine counts on the CPU; with one, on it: the same value.
  auto e = make_engine("gpu-frontier");
  EXPECT_EQ(e->name(), "gpu-frontier");
  EXPECT_EQ(e->permanent(g, {}), 12988816);
  EXPECT_EQ(e->permanent(convert<double>(g, [](const Integer& v) { return v.get_d(); }), {}).value, 12988816.0);
}

TEST(GpuFrontier, AgreesWithCpuFrontierAndRyser) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(43);
  auto gpu = make_engine("gpu-frontier"), frontier = engines::make_frontier(), ryser = make_engine("ryser");
  int checked = 0;
  for (int it = 0; it < 240; ++it) {
    const int shape = it % 4, n = shape == 3 ? 4 + it % 17 : 4 + it % 29;  // dense up to 20, others up to 32
    const long lo = it % 3 == 0 ? 1 : it % 3 == 1 ? -9 : -1000000000000L, hi = it % 3 == 0 ? 1 : it % 3 == 1 ? 9 : 1000000000000L;
    const auto a = random_gpu_shape(rng, n, shape, lo, hi);
    EngineStats stats;
    EngineOptions o;
    o.stats = &stats;
    const Integer got = gpu->permanent(a, o);
    ASSERT_EQ(got, frontier->permanent(a, {})) << "it " << it << " n " << n << " shape " << shape;
    if (n <= 24) {
      ASSERT_EQ(got, ryser->permanent(a, {})) << "it " << it << " n " << n;
    }
    if (got != 0) {  // a zero may be found before any launch
      EXPECT_EQ(stats.device, "gpu") << stats.note;
    }
    ++checked;
  }
  std::printf("[ info     ] %d random matrices agree exactly (GPU frontier, CPU frontier, Ryser up to n = 24)\n", checked);
}

TEST(GpuFrontier, PassesAndKnownValues) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(44);
  for (int it = 0; it < 12; ++it) {
    const auto a = random_gpu_shape(rng, 14 + it, it % 4 == 3 ? 0 : it % 4, -1000000000000L, 1000000000000L);
    const Integer want = engines::make_frontier()->permanent(a, {});
    for (std::size_t per_pass : {1, 2, 3, 5})
      ASSERT_EQ(engines::gpu_frontier_permanent(a, {}, per_pass), want) << it << " " << per_pass;
  }
  auto perm = [](const SparseMatrix<Integer>& a) { return engines::gpu_frontier_permanent(a, {}, 0); };
  EXPECT_EQ(perm(biadjacency(grid_graph(16, 16))), Integer("2444888770250892795802079170816"));
  EXPECT_EQ(perm(biadjacency(torus_graph(10, 10))), Integer("11203604497408"));
  for (int k = 1; k <= 9; ++k) EXPECT_EQ(perm(biadjacency(aztec_diamond_graph(k))), Integer(1) << (k * (k + 1) / 2)) << k;
  Integer fact = 1;
  for (int n = 1; n <= 16; ++n) EXPECT_EQ(perm(complete_bipartite(n)), fact *= n) << n;
  EXPECT_EQ(perm(band_matrix(31, 2)), Integer("116471963129"));
  // No perfect matching in the last rows: every state dies.
  SparseMatrix<Integer> b;
  b.rows = b.cols = 3;
  b.entries = {{0, 0, Integer(1)}, {0, 1, Integer(1)}, {1, 2, Integer(1)}, {2, 2, Integer(1)}};
  EXPECT_EQ(perm(b), 0);
}

}  // namespace
}  // namespace matchcount
