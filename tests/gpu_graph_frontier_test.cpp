// The GPU graph frontier engine: the prime passes, the table sizes and the time model on the
// host (run everywhere), and the device against the CPU graph-frontier engine bit for bit on
// random king graphs, triangular and periodic strips, random regular and random graphs, with
// and without loops, 0-1 and integer weights, over one pass or several (skipped where no CUDA
// device is visible, as in CI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>

#include "catalog/catalog.hpp"
#include "core/arith.hpp"
#include "cuda/prime_passes.hpp"
#include "engines/common.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/cuda/graph_pull.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible"

/// `g`'s adjacency matrix with every edge weighted by a draw from [lo, hi] \ {0} (both
/// triangles alike) and, with probability loop_p, a loop of such a weight on each vertex.
SparseMatrix<Integer> weighted(const EdgeList& g, std::mt19937_64& rng, long lo, long hi, double loop_p) {
  std::uniform_int_distribution<long> val(lo, hi);
  auto draw = [&] {
    long v = 0;
    while (v == 0) v = val(rng);
    return Integer(v);
  };
  SparseMatrix<Integer> a = adjacency_matrix(g);
  std::map<std::pair<int, int>, Integer> w;
  for (auto& e : a.entries) {
    const auto key = std::minmax(e.row, e.col);
    auto it = w.find(key);
    if (it == w.end()) it = w.emplace(key, draw()).first;
    e.value = it->second;
  }
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < a.rows; ++i)
    if (u(rng) < loop_p) a.entries.push_back({i, i, draw()});
  a.normalize();
  return a;
}

/// One random graph of a family, 8 to about 40 vertices, frontiers up to about 14 wide.
EdgeList random_family(std::mt19937_64& rng, int family) {
  const int r = 2 + int(rng() % 4), c = 3 + int(rng() % 6);
  switch (family) {
    case 0: return king_graph(r, c);
    case 1: return triangular_graph(r, c);
    case 2: return king_graph(r, std::max(c, 3), Periodic{false, true});  // periodic strips
    case 3: return triangular_graph(r + 1, std::max(c, 3), Periodic{false, true});
    case 4: {
      const int d = 3 + int(rng() % 3), n = 2 * (5 + int(rng() % 8));
      return random_regular_graph(n, d, rng());
    }
    default: return erdos_renyi_graph(8 + int(rng() % 10), 0.3, rng());
  }
}

Integer cpu_hafnian(const SparseMatrix<Integer>& a, bool loops) {
  return make_graph_engine("graph-frontier")->hafnian(a, loops, {});
}

__extension__ typedef unsigned __int128 u128;

/// The kernel's pull (graph_pull.hpp, the device code's index work) run on the host modulo one
/// prime over the engine's steps, so that it is tested where no device is. `a` as the engine
/// receives it (no diagonal without loops).
std::uint64_t host_pull_graph_dp(const SparseMatrix<Integer>& a, bool loops, std::uint64_t p) {
  const auto plan = engines::plan_graph_frontier(engines::pattern_of(a), a.rows);
  const auto steps = engines::graph_frontier_steps(a, loops, plan);
  if (engines::graph_frontier_detail::graph_steps_dead(steps, loops)) return 0;
  std::vector<std::uint64_t> old{1}, fresh;
  for (const auto& st : steps) {
    const gpu::PullStep s = gpu::pull_step(st, loops);
    std::vector<gpu::SlotPair> moved, back;
    for (auto [j, o] : st.moved) moved.push_back({j, o});
    for (auto [o, e] : st.back) back.push_back({o, e});
    EXPECT_EQ(double(old.size()), gpu::graph_table_states(st.old_w, loops));
    fresh.assign(std::size_t(s.states), 0);
    for (std::uint64_t i = 0; i < s.states; ++i)
      gpu::graph_pull(s, moved.data(), back.data(), i, [&](gpu::PullState o, int e) {
        ASSERT_LT(o, old.size());
        const std::uint64_t w = e < 0 ? 1 : mpz_fdiv_ui(a.entries[std::size_t(e)].value.get_mpz_t(), p);
        fresh[i] = std::uint64_t((u128(old[o]) * w + fresh[i]) % p);
      });
    std::swap(old, fresh);
  }
  EXPECT_EQ(old.size(), 1u);
  return old.at(0);
}

TEST(GpuGraphFrontierHost, PrimePasses) {
  using gpu::plan_prime_passes;
  // Everything fits: one pass, lanes the next power of two, stride in whole sectors.
  auto p = plan_prime_passes(6, 1e6, 1e12, 0);
  EXPECT_EQ(p.passes, 1u);
  EXPECT_EQ(p.G, 6u);
  EXPECT_EQ(p.stride, 8u);
  EXPECT_EQ(p.lanes, 8);
  EXPECT_EQ(p.J, 1);
  // A limit per pass shares the primes evenly over the passes.
  p = plan_prime_passes(7, 1e6, 1e12, 3);
  EXPECT_EQ(p.passes, 3u);
  EXPECT_EQ(p.G, 3u);
  EXPECT_EQ(p.stride, 4u);
  // Memory for five padded primes: 46 primes in passes of at most 5.
  p = plan_prime_passes(46, 1.0, 8.0, 0);
  EXPECT_EQ(p.G * p.passes >= 46, true);
  EXPECT_LE(double(p.stride), 8.0);
  // More than 32 primes a pass: lanes take several each.
  p = plan_prime_passes(100, 1.0, 1e9, 0);
  EXPECT_EQ(p.lanes, 32);
  EXPECT_EQ(p.J, 4);
  EXPECT_EQ(plan_prime_passes(3, 10.0, 5.0, 0).passes, 0u);  // not one prime fits
  // The per-pass inputs: residues entry-major, padded slots with the prime 3.
  const std::vector<double> primes{11, 13, 17}, residues{1, 2, 3, 4, 5, 6};  // 2 entries
  const auto in = gpu::pass_inputs(primes, residues, 1, 2, 2);
  EXPECT_EQ(in.prime, (std::vector<double>{13, 17}));
  EXPECT_EQ(in.res, (std::vector<double>{2, 3, 5, 6}));
  const auto pad = gpu::pass_inputs(primes, residues, 2, 1, 4);
  EXPECT_EQ(pad.prime, (std::vector<double>{17, 3, 3, 3}));
  EXPECT_EQ(pad.res, (std::vector<double>{3, 0, 0, 0, 6, 0, 0, 0}));
}

TEST(GpuGraphFrontierHost, PullDpAgreesWithCpuEngine) {
  std::mt19937_64 rng(49);
  const std::uint64_t p = top_primes(1)[0];
  auto mod = [&](const Integer& v) { return std::uint64_t(mpz_fdiv_ui(v.get_mpz_t(), p)); };
  for (int it = 0; it < 120; ++it) {
    const bool loops = it % 2 == 1;
    const auto a = weighted(random_family(rng, it % 6), rng, it % 3 == 0 ? 1 : -9, 9, loops ? 0.5 : 0);
    const Integer want = a.rows <= 14 ? test::naive_hafnian(a, loops) : engines::graph_frontier_hafnian(a, loops, {}, {});
    ASSERT_EQ(host_pull_graph_dp(a, loops, p), mod(want)) << "it " << it << " n " << a.rows << " loops " << loops;
  }
  EXPECT_EQ(host_pull_graph_dp(adjacency_matrix(grid_graph(8, 8)), false, p), 12988816u);
  EdgeList looped = complete_graph(10);
  for (int v = 0; v < 10; ++v) looped.edges.emplace_back(v, v);
  EXPECT_EQ(host_pull_graph_dp(adjacency_matrix(looped), true, p), 9496u);  // involutions of 10
}

TEST(GpuGraphFrontierHost, TablesMatchThePlan) {
  // The device's arena (the largest table before a vertex plus the one after) is the peak the
  // plan predicts, so the planner's memory check is the one the run makes.
  std::mt19937_64 rng(50);
  for (int it = 0; it < 24; ++it) {
    const auto a = weighted(random_family(rng, it % 6), rng, 1, 1, 0);
    const auto plan = engines::plan_graph_frontier(engines::pattern_of(a), a.rows);
    const auto steps = engines::graph_frontier_steps(a, false, plan);
    EXPECT_DOUBLE_EQ(gpu::graph_frontier_bytes_per_prime(steps, false), 8 * plan.peak_states) << it;
    double states = 0;
    for (const auto& st : steps) states += gpu::graph_table_states(st.new_w, false);
    EXPECT_DOUBLE_EQ(states, plan.states) << it;
    EXPECT_LE(gpu::graph_frontier_bytes_per_prime(steps, true), 2 * 8 * plan.peak_states) << it;
  }
}

TEST(GpuGraphFrontierHost, TimeModelAndPlanner) {
  // Narrow frontiers stay on the CPU (the context alone costs more); wide ones go to the GPU.
  auto seconds = [](const EdgeList& g, double device_gib, bool loops = false) {
    const auto a = adjacency_matrix(g);
    const auto plan = engines::plan_graph_frontier(engines::pattern_of(a), a.rows);
    return std::pair{engines::gpu_graph_frontier_seconds(plan, a.rows, 6, loops, device_gib),
                     engines::graph_frontier_seconds(plan, a.rows, 6, NumberKind::Integer, 16, true, loops)};
  };
  const auto [narrow_gpu, narrow_cpu] = seconds(king_graph(6, 6), 80);
  EXPECT_GT(narrow_gpu, narrow_cpu);
  const auto [wide_gpu, wide_cpu] = seconds(king_graph(20, 20), 80);
  EXPECT_LT(wide_gpu, wide_cpu);
  EXPECT_GT(seconds(king_graph(20, 20), 80, true).first, wide_gpu);  // loops double the tables
  EXPECT_EQ(seconds(king_graph(20, 20), 1e-3).first, std::numeric_limits<double>::infinity());  // one prime does not fit
  // Without a GPU (or on the CPU by request) the planner never weighs the GPU engine.
  const auto king = adjacency_matrix(king_graph(12, 12));
  for (auto policy : {DevicePolicy::Cpu, DevicePolicy::Auto, DevicePolicy::Gpu}) {
    if (policy != DevicePolicy::Cpu && gpu_available()) continue;
    const auto plan = plan_graph_engine(king, false, policy, 2);
    EXPECT_NE(plan.engine, "gpu-graph-frontier");
    for (const auto& [name, s] : plan.candidates) EXPECT_NE(name, "gpu-graph-frontier");
  }
  EXPECT_TRUE(catalog::entry("gpu-graph-frontier").gpu);
  EXPECT_TRUE(catalog::entry("gpu-graph-frontier").loops);
}

TEST(GpuGraphFrontierHost, EngineCountsEverywhere) {
  // Without a device the engine counts on the CPU; with one, on it: the same values either way.
  auto e = make_graph_engine("gpu-graph-frontier");
  EXPECT_EQ(e->name(), "gpu-graph-frontier");
  EXPECT_TRUE(e->loops());
  EXPECT_EQ(e->hafnian(adjacency_matrix(grid_graph(8, 8)), false, {}), 12988816);
  EXPECT_EQ(e->hafnian(adjacency_matrix(c60_graph()), false, {}), 12500);
  // Floats go to the CPU engine, with its error bound.
  std::mt19937_64 rng(51);
  const auto a = weighted(king_graph(4, 5), rng, -3, 3, 0.5);
  const auto ad = convert<double>(a, [](const Integer& v) { return v.get_d(); });
  for (bool loops : {false, true}) {
    const auto got = e->hafnian(ad, loops, {});
    EXPECT_LE(std::abs(got.value - test::naive_hafnian(a, loops).get_d()), got.abs_error) << loops;
  }
}

TEST(GpuGraphFrontier, AgreesWithCpuOnRandomGraphs) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(52);
  auto gpu = make_graph_engine("gpu-graph-frontier");
  int checked = 0, on_gpu = 0;
  for (int it = 0; it < 240; ++it) {
    const int family = it % 6, weights = (it / 6) % 3;
    const bool loops = (it / 18) % 2 == 1;
    const long lo = weights == 0 ? 1 : weights == 1 ? -9 : -1000000000000L, hi = weights == 0 ? 1 : weights == 1 ? 9 : 1000000000000L;
    const auto a = weighted(random_family(rng, family), rng, lo, hi, loops ? 0.5 : 0);
    EngineStats stats;
    EngineOptions o;
    o.stats = &stats;
    const Integer got = gpu->hafnian(a, loops, o);
    ASSERT_EQ(got, cpu_hafnian(a, loops)) << "it " << it << " family " << family << " n " << a.rows << " loops " << loops;
    if (a.rows <= 14) {
      ASSERT_EQ(got, test::naive_hafnian(a, loops)) << "it " << it;
    }
    if (a.rows >= 8 && got != 0) {
      EXPECT_EQ(stats.device, "gpu") << stats.note;
      on_gpu += stats.device == "gpu";
    }
    ++checked;
  }
  std::printf("[ info     ] %d random graphs agree exactly with graph-frontier (%d counted on the GPU)\n", checked, on_gpu);
}

TEST(GpuGraphFrontier, PassesAndKnownValues) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(53);
  for (int it = 0; it < 12; ++it) {
    const bool loops = it % 2 == 0;
    const auto a = weighted(random_family(rng, it % 6), rng, -1000000000000L, 1000000000000L, loops ? 0.7 : 0);
    const Integer want = engines::graph_frontier_hafnian(a, loops, {}, {});
    for (std::size_t per_pass : {1, 2, 3, 5})
      ASSERT_EQ(engines::gpu_graph_frontier_hafnian(a, loops, {}, per_pass), want) << it << " " << per_pass;
  }
  auto haf = [](const EdgeList& g, bool loops = false) {
    return engines::gpu_graph_frontier_hafnian(adjacency_matrix(g), loops, {}, 0);
  };
  EXPECT_EQ(haf(grid_graph(10, 10)), Integer("258584046368"));
  EXPECT_EQ(haf(c60_graph()), 12500);
  EXPECT_EQ(haf(petersen_graph()), 6);
  Integer dfact = 1;  // K_2k: (2k - 1)!!
  for (int k = 1; k <= 10; ++k) EXPECT_EQ(haf(complete_graph(2 * k)), dfact *= 2 * k - 1) << k;
  // K_16 with a loop on every vertex: its loop hafnian counts all matchings, T(16).
  EdgeList looped = complete_graph(16);
  for (int v = 0; v < 16; ++v) looped.edges.emplace_back(v, v);
  EXPECT_EQ(haf(looped, true), 46206736);
  // Two odd components: no perfect matching, every state dies.
  EdgeList two = complete_graph(5);
  for (auto [u, v] : complete_graph(5).edges) two.edges.emplace_back(u + 5, v + 5);
  two.vertices = 10;
  EXPECT_EQ(haf(two), 0);
  // Wide frontiers agree with the CPU: a king strip and a periodic triangular strip.
  for (const auto& g : {king_graph(6, 16), triangular_graph(12, 8, Periodic{false, true})}) {
    const auto a = adjacency_matrix(g);
    EXPECT_EQ(engines::gpu_graph_frontier_hafnian(a, false, {}, 0), cpu_hafnian(a, false));
  }
}

TEST(GpuGraphFrontier, DevicesShareThePrimes) {
  SKIP_WITHOUT_GPU();
  // One device and all of them (two on a two-GPU machine): the same integers, with and without
  // loops, weighted, in passes of one prime so that each device has several.
  std::mt19937_64 rng(59);
  for (int it = 0; it < 6; ++it) {
    const bool loops = it % 2 == 1;
    const auto a = weighted(random_family(rng, it % 6), rng, -1000000000000L, 1000000000000L, loops ? 0.7 : 0);
    const Integer want = engines::graph_frontier_hafnian(a, loops, {}, {});
    for (const int gpus : {1, 0}) {
      EngineOptions o;
      o.gpus = gpus;
      EXPECT_EQ(engines::gpu_graph_frontier_hafnian(a, loops, o, 1), want) << it << " gpus " << gpus;
    }
  }
}

TEST(GpuGraphFrontier, PlannerChoosesItForWideFrontiers) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(plan_graph_engine(adjacency_matrix(king_graph(20, 20)), false, DevicePolicy::Auto, 2).engine, "gpu-graph-frontier");
  EXPECT_NE(plan_graph_engine(adjacency_matrix(king_graph(6, 6)), false, DevicePolicy::Auto, 2).engine, "gpu-graph-frontier");
  EXPECT_NE(plan_graph_engine(adjacency_matrix(king_graph(20, 20)), false, DevicePolicy::Cpu, 2).engine, "gpu-graph-frontier");
}

}  // namespace
}  // namespace matchcount
