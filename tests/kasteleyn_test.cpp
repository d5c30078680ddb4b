// The Kasteleyn (FKT) engine: planar bipartite blocks against the oracle, Ryser and the
// frontier DP, known dimer counts, refusals of non-planar graphs, and the planner (the guards
// and the random small-block loop of every engine are in conformance_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "catalog/catalog.hpp"
#include "engines/common.hpp"
#include "core/tuning.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "oracle.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using engines::make_kasteleyn;

/// A bipartite graph on the cells of an m x k grid: vertex (r, c) is a row when r + c is
/// even. `brick` keeps only every other vertical edge (a honeycomb, hexagonal faces);
/// `hole` and `drop` remove each vertex / edge with that probability. The classes are made
/// equal by removing random vertices of the larger one; weights come from `weight`, rows and
/// columns are numbered in a random order.
template <class T, class W>
SparseMatrix<T> lattice_block(std::mt19937_64& rng, int m, int k, bool brick, double hole, double drop, W weight) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<char> kept(std::size_t(m * k));
  for (auto& v : kept) v = u(rng) >= hole;
  auto cls = [&](int v) { return (v / k + v % k) % 2; };
  for (;;) {
    std::vector<int> of[2];
    for (int v = 0; v < m * k; ++v)
      if (kept[std::size_t(v)]) of[cls(v)].push_back(v);
    if (of[0].size() == of[1].size()) break;
    auto& big = of[0].size() > of[1].size() ? of[0] : of[1];
    kept[std::size_t(big[rng() % big.size()])] = 0;
  }
  std::vector<int> index(std::size_t(m * k), -1);
  int count[2] = {0, 0};
  for (int v = 0; v < m * k; ++v)
    if (kept[std::size_t(v)]) index[std::size_t(v)] = count[cls(v)]++;
  const int n = count[0];
  std::vector<int> rperm(static_cast<std::size_t>(n)), cperm(static_cast<std::size_t>(n));
  std::iota(rperm.begin(), rperm.end(), 0), std::iota(cperm.begin(), cperm.end(), 0);
  std::shuffle(rperm.begin(), rperm.end(), rng), std::shuffle(cperm.begin(), cperm.end(), rng);
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  auto edge = [&](int v, int w) {
    if (!kept[std::size_t(v)] || !kept[std::size_t(w)] || u(rng) < drop) return;
    if (cls(v)) std::swap(v, w);
    a.entries.push_back({rperm[std::size_t(index[std::size_t(v)])], cperm[std::size_t(index[std::size_t(w)])], weight()});
  };
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c) {
      if (c + 1 < k) edge(r * k + c, r * k + c + 1);
      if (r + 1 < m && (!brick || (r + c) % 2 == 0)) edge(r * k + c, (r + 1) * k + c);
    }
  a.normalize();
  return a;
}

using test::entries_as;

// Grids with holes and missing edges (faces of lengths 4, 6, 8, ..., bridges, trees,
// several components), honeycombs, random numbering, weights of both signs.
/// The 6 x 6 and 4 x 8 grids side by side, one block each: 6728 * 2245 perfect matchings.
SparseMatrix<Integer> two_grids() {
  auto a = biadjacency(grid_graph(6, 6)), b = biadjacency(grid_graph(4, 8));
  SparseMatrix<Integer> d;
  d.rows = d.cols = a.rows + b.rows;
  d.entries = a.entries;
  for (auto e : b.entries) d.entries.push_back({e.row + a.rows, e.col + a.rows, e.value});
  d.normalize();
  return d;
}

TEST(KasteleynRandom, IntegerAgainstOracleAndRyser) {
  std::mt19937_64 rng(21);
  auto k = make_kasteleyn();
  auto ryser = make_engine("ryser");
  int nonzero = 0;
  for (int it = 0; it < 400; ++it) {
    const bool big = it % 4 == 3;
    const int m = big ? 4 + int(rng() % 3) : 2 + int(rng() % 3), w = big ? 5 + int(rng() % 2) : 2 + int(rng() % 4);
    const long lo = it % 3 == 0 ? 1 : it % 3 == 1 ? -3 : -1000000000000L, hi = it % 3 == 2 ? 1000000000000L : 3;
    std::uniform_int_distribution<long> val(lo, hi);
    auto weight = [&] { long v = 0; while (v == 0) v = val(rng); return Integer(v); };
    const auto a = lattice_block<Integer>(rng, m, w, it % 5 == 1, 0.1 * double(it % 3), 0.15 * double(it % 2), weight);
    const Integer want = a.rows <= 9 ? test::naive_permanent(a) : ryser->permanent(a, {});
    ASSERT_EQ(k->permanent(a, {}), want) << "it " << it << " n " << a.rows;
    nonzero += want != 0;
  }
  EXPECT_GT(nonzero, 250);  // the inputs mostly have perfect matchings
}

TEST(KasteleynRandom, RealAndComplexAgainstRyser) {
  std::mt19937_64 rng(22);
  auto k = make_kasteleyn();
  auto ryser = make_engine("ryser");
  std::uniform_real_distribution<double> u(-1, 1);
  for (int it = 0; it < 200; ++it) {
    const int m = 2 + int(rng() % 4), w = 2 + int(rng() % 5);
    const bool positive = it % 4 == 0;
    auto real = [&] { return positive ? 0.5 + std::fabs(u(rng)) : u(rng); };
    const auto ar = lattice_block<double>(rng, m, w, it % 3 == 1, 0.1 * double(it % 2), 0.1 * double(it % 3), real);
    auto abs_r = ar;
    for (auto& e : abs_r.entries) e.value = std::fabs(e.value);
    const double scale = ryser->permanent(abs_r, {}).value;
    const auto got = k->permanent(ar, {});
    const auto want = ryser->permanent(ar, {});
    // (Ryser's own rounding error allowed for: it is all of its value when perm = 0.)
    ASSERT_LE(std::fabs(got.value - want.value), 1e-12 * scale + want.abs_error + 1e-300) << "it " << it;
    ASSERT_LE(std::fabs(got.value - want.value), got.abs_error + want.abs_error + 1e-300) << "it " << it;
    if (positive) {
      ASSERT_LE(got.abs_error, 1e-11 * got.value) << "it " << it;  // not vacuous
    }

    auto cplx = [&] { return Complex(u(rng), u(rng)); };
    const auto ac = lattice_block<Complex>(rng, m, w, it % 3 == 2, 0.1 * double(it % 2), 0.1 * double(it % 3), cplx);
    auto abs_c = entries_as<double>(SparseMatrix<Integer>{});
    abs_c.rows = abs_c.cols = ac.rows;
    for (const auto& e : ac.entries) abs_c.entries.push_back({e.row, e.col, std::abs(e.value)});
    const double cscale = ryser->permanent(abs_c, {}).value;
    const auto gc = k->permanent(ac, {});
    const auto wc = ryser->permanent(ac, {});
    ASSERT_LE(std::abs(gc.value - wc.value), 1e-12 * cscale + wc.abs_error + 1e-300) << "it " << it;
    ASSERT_LE(std::abs(gc.value - wc.value), gc.abs_error + wc.abs_error + 1e-300) << "it " << it;
  }
}

// A permanent that cancels: K is ill-conditioned, and the error estimate must say so.
TEST(KasteleynRandom, CancellationIsNotOverconfident) {
  std::mt19937_64 rng(23);
  auto k = make_kasteleyn();
  auto ryser = make_engine("ryser");
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int it = 0; it < 40; ++it) {
    auto a = lattice_block<double>(rng, 4, 4, false, 0, 0, [&] { return u(rng); });
    // Scale one entry so that the permanent, linear in it, is nearly 0.
    const double rest = [&] { auto b = a; b.entries[0].value = 0; return ryser->permanent(b, {}).value; }();
    const double slope = [&] { auto b = a; b.entries[0].value = 1; return ryser->permanent(b, {}).value - rest; }();
    if (slope == 0) continue;
    a.entries[0].value = -rest / slope * (1 + 1e-9 * double(it % 3));
    const auto got = k->permanent(a, {});
    const auto want = ryser->permanent(a, {});
    ASSERT_LE(std::fabs(got.value - want.value), got.abs_error + want.abs_error + 1e-300) << "it " << it;
    EXPECT_GT(got.abs_error, 1e-15 * std::fabs(rest)) << "it " << it;  // K is near singular
  }
}

TEST(KasteleynRandom, LargerBlocksAgainstFrontier) {
  std::mt19937_64 rng(24);
  auto k = make_kasteleyn();
  auto frontier = make_engine("frontier");
  std::uniform_int_distribution<long> val(-9, 9);
  for (int it = 0; it < 12; ++it) {
    auto weight = [&] { long v = 0; while (v == 0) v = val(rng); return Integer(v); };
    const auto a = lattice_block<Integer>(rng, 10 + it % 5, 12, it % 2 == 1, 0.05, 0.05, weight);
    EngineOptions o;
    o.threads = 1 + it % 2;
    ASSERT_EQ(k->permanent(a, o), frontier->permanent(a, {})) << "it " << it << " n " << a.rows;
  }
}

// Faces of several lengths: honeycomb (hexagons need an even number of -1 edges, squares an
// odd one) and a square-octagon mixture; counted against the frontier DP.
TEST(KasteleynSigns, HoneycombAndMixedFaces) {
  std::mt19937_64 rng(25);
  auto k = make_kasteleyn();
  auto frontier = make_engine("frontier");
  auto one = [] { return Integer(1); };
  for (auto [m, w] : {std::pair{6, 6}, std::pair{8, 9}, std::pair{10, 12}, std::pair{13, 14}}) {
    const auto hex = lattice_block<Integer>(rng, m, w, true, 0, 0, one);
    EXPECT_EQ(k->permanent(hex, {}), frontier->permanent(hex, {})) << m << "x" << w;
    const auto mixed = lattice_block<Integer>(rng, m, w, false, 0, 0.25, one);
    EXPECT_EQ(k->permanent(mixed, {}), frontier->permanent(mixed, {})) << m << "x" << w;
  }
}

TEST(KasteleynKnown, GridsAndAztecDiamonds) {
  auto k = make_kasteleyn();
  auto perm = [&](int m, int n) { return k->permanent(biadjacency(grid_graph(m, n)), {}); };
  // From ../shared/datasets/known-families.tsv (Kasteleyn / Temperley-Fisher, OEIS A187616).
  EXPECT_EQ(perm(1, 32), 1);
  EXPECT_EQ(perm(2, 32), 3524578);
  EXPECT_EQ(perm(3, 32), Integer("1117014753"));
  EXPECT_EQ(perm(4, 7), 781);
  EXPECT_EQ(perm(5, 12), 2332097);
  EXPECT_EQ(perm(7, 10), 53175517);
  EXPECT_EQ(perm(9, 14), Integer("259423766712000"));
  EXPECT_EQ(perm(12, 12), Integer("53060477521960000"));
  EXPECT_EQ(perm(15, 20), Integer("490984130367164806905167493235118259"));
  EXPECT_EQ(perm(16, 32), Integer("63623038787346063473490707285842037967646895206841015769245681"));
  EXPECT_EQ(perm(21, 26), Integer("1183285697548163868127638544427959947755487725741096545561936859831"));
  EXPECT_EQ(perm(30, 31), Integer("660672493152726618035066237678401271555696234730893552861"
                                  "116188122797432653004754047130676915258438293547675919649"));
  EXPECT_EQ(perm(31, 32), Integer("3417165632060169187251460571970770082014834985136339613175652"
                                  "0746231441973853795963316470349895385114586859146442631407329"));
  EXPECT_EQ(perm(32, 32), Integer("364982661733625107998314878133750234067320091670089660297647663"
                                  "460799361991486518266376931355483757336443179285926592651526144"));
  // Aztec diamonds: 2^(k(k+1)/2) (EKLP 1992); order 20 is a 420 x 420 block.
  for (int order : {1, 2, 5, 11, 15, 20})
    EXPECT_EQ(k->permanent(biadjacency(aztec_diamond_graph(order)), {}), Integer(1) << (order * (order + 1) / 2)) << order;
  EXPECT_EQ(k->permanent(biadjacency(aztec_diamond_graph(20)), {}),
            Integer("1645504557321206042154969182557350504982735865633579863348609024"));
  // Floats: the 12 x 12 grid is exact in doubles (below 2^56, so within its error estimate).
  const auto g = k->permanent(entries_as<double>(biadjacency(grid_graph(12, 12))), {});
  EXPECT_NEAR(g.value, 53060477521960000.0, g.abs_error + 16);
  EXPECT_LT(g.abs_error, 1e-8 * g.value);
  EXPECT_TRUE(std::isinf(k->permanent(entries_as<double>(biadjacency(grid_graph(60, 60))), {}).value));  // ~1e420
}

// Every grid count of the shared table with m, n <= 16 (the larger ones are above).
TEST(KasteleynKnown, SharedGridTable) {
  const auto dir = test::shared_dir();
  if (!dir) GTEST_SKIP() << "no ../shared";
  std::ifstream in(*dir + "/datasets/known-families.tsv");
  if (!in) GTEST_SKIP() << "no known-families.tsv";
  auto k = make_kasteleyn();
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    int m = 0, n = 0;
    char value[512];
    if (std::sscanf(line.c_str(), "grid_dimers\tm=%d n=%d\t%511s", &m, &n, value) != 3) continue;
    if (m > 16 || n > 16 || (m * n) % 2) continue;
    EXPECT_EQ(k->permanent(biadjacency(grid_graph(m, n)), {}), Integer(value)) << m << "x" << n;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST(KasteleynRefuses, NonPlanarGraphs) {
  auto k = make_kasteleyn();
  auto expect_refused = [&](const SparseMatrix<Integer>& a, const char* what) {
    try {
      k->permanent(a, {});
      ADD_FAILURE() << what << ": not refused";
    } catch (const RefusedError& e) {
      EXPECT_NE(std::string(e.what()).find("not planar"), std::string::npos) << e.what();
    }
    EXPECT_THROW(k->permanent(entries_as<double>(a), {}), RefusedError) << what;
    EXPECT_THROW(k->permanent(entries_as<Complex>(a), {}), RefusedError) << what;
  };
  expect_refused(biadjacency(torus_graph(4, 4)), "C4 x C4");
  expect_refused(biadjacency(torus_graph(6, 8)), "C6 x C8");
  expect_refused(complete_bipartite(3), "K33");
  expect_refused(biadjacency(hypercube_graph(4)), "Q4");
  // A 6 x 6 grid with two interleaving chords of its outer face, (0,0)-(5,4) and
  // (0,5)-(5,1): they would have to cross (sparse, but not planar).
  auto g = grid_graph(6, 6);
  g.edges.push_back({0, 34});
  g.edges.push_back({5, 31});
  expect_refused(biadjacency(g), "grid + two crossing diagonals");
  // Planar graphs just below the Euler bound are accepted.
  EXPECT_EQ(k->permanent(complete_bipartite(2), {}), 2);
  EXPECT_EQ(k->permanent(biadjacency(prism_graph(10)), {}), 125);
}

TEST(KasteleynRuns, DisconnectedThreadsAndProgress) {
  auto k = make_kasteleyn();
  // Two grids side by side: the product.
  const SparseMatrix<Integer> d = two_grids();
  EXPECT_EQ(k->permanent(d, {}), Integer(6728) * 2245);
  EXPECT_DOUBLE_EQ(k->permanent(entries_as<double>(d), {}).value, 6728.0 * 2245.0);
  const auto g = biadjacency(grid_graph(24, 24));
  const Integer one = [&] { EngineOptions o; o.threads = 1; return k->permanent(g, o); }();
  double last = 0;
  int calls = 0;
  EngineOptions o;
  o.threads = 3;
  o.progress = [&](double f) { EXPECT_GE(f, last); last = f, ++calls; };
  EXPECT_EQ(k->permanent(g, o), one);
  EXPECT_GT(calls, 0);
}

/// A count with kasteleyn's exact determinants taken by `method` (MATCHCOUNT_KASTELEYN_METHOD:
/// 1 the band, 2 nested dissection).
Integer count_by(int method, const SparseMatrix<Integer>& a, int threads = 0) {
  tuning::Tuning t = tuning::tuning();
  t.kasteleyn_method = method;
  tuning::ScopedTuning scoped(t);
  EngineOptions o;
  o.threads = threads;
  return make_kasteleyn()->permanent(a, o);
}

// Nested dissection against the band on random planar blocks (holes, missing edges, bridges,
// several components, honeycombs), unweighted and weighted with both signs, some large enough
// to be dissected many levels deep.
TEST(KasteleynDissection, AgreesWithTheBand) {
  std::mt19937_64 rng(36);
  int nonzero = 0;
  for (int it = 0; it < 160; ++it) {
    const int m = 2 + int(rng() % (it < 120 ? 12 : 40)), k = 2 + int(rng() % (it < 120 ? 12 : 40));
    const bool weighted = it % 2 == 1;
    auto w = [&] { return weighted ? Integer(long(rng() % 7) - 3) : Integer(1); };
    const auto a = lattice_block<Integer>(rng, m, k, it % 5 == 0, it % 3 ? 0.05 : 0.0, it % 4 ? 0.1 : 0.0, w);
    if (a.rows == 0) continue;
    const Integer band = count_by(1, a), nested = count_by(2, a, 1 + it % 2);
    EXPECT_EQ(nested, band) << "trial " << it << ": " << m << " x " << k;
    nonzero += band != 0;
  }
  EXPECT_GT(nonzero, 40);
}

// Known counts by nested dissection alone: grids (Temperley-Fisher), Aztec diamonds, a block
// of two components, with one thread and with several.
TEST(KasteleynDissection, KnownCounts) {
  EXPECT_EQ(count_by(2, biadjacency(grid_graph(2, 32))), 3524578);
  EXPECT_EQ(count_by(2, biadjacency(grid_graph(12, 12))), Integer("53060477521960000"));
  EXPECT_EQ(count_by(2, biadjacency(grid_graph(21, 26)), 1),
            Integer("1183285697548163868127638544427959947755487725741096545561936859831"));
  EXPECT_EQ(count_by(2, biadjacency(grid_graph(32, 32)), 3),
            Integer("364982661733625107998314878133750234067320091670089660297647663"
                    "460799361991486518266376931355483757336443179285926592651526144"));
  for (int order : {1, 3, 20})
    EXPECT_EQ(count_by(2, biadjacency(aztec_diamond_graph(order))), Integer(1) << (order * (order + 1) / 2)) << order;
  const SparseMatrix<Integer> d = two_grids();
  EXPECT_EQ(count_by(2, d), Integer(6728) * 2245);
  // By predicted work the 80 x 80 grid is dissected, a 2 x 200 strip is not.
  const auto tested = [](const SparseMatrix<Integer>& a) {
    const auto pattern = engines::pattern_of(a);
    const engines::NestedCost nested = engines::nested_cost(pattern, a.rows);
    return engines::plan_kasteleyn(pattern, a.rows, &nested);
  };
  EXPECT_TRUE(tested(biadjacency(grid_graph(80, 80))).nested);
  EXPECT_FALSE(tested(biadjacency(grid_graph(2, 200))).nested);
}

TEST(KasteleynPlanner, PicksKasteleynForPlanarBlocks) {
  const auto g20 = biadjacency(grid_graph(20, 20));
  const EnginePlan p = plan_engine(g20, DevicePolicy::Cpu, 2);
  EXPECT_EQ(p.engine, "kasteleyn");
  EXPECT_LT(p.predicted_seconds, 0.1);
  EXPECT_EQ(plan_engine(entries_as<double>(g20), DevicePolicy::Cpu, 2).engine, "kasteleyn");
  // Not planar: never Kasteleyn.
  EXPECT_NE(plan_engine(biadjacency(torus_graph(10, 10)), DevicePolicy::Cpu, 2).engine, "kasteleyn");
  EXPECT_NE(plan_engine(biadjacency(hypercube_graph(6)), DevicePolicy::Cpu, 2).engine, "kasteleyn");
  EXPECT_TRUE(engines::planar_pattern({{0, 0}, {0, 1}, {1, 0}, {1, 1}}, 2));
}

}  // namespace
}  // namespace matchcount
