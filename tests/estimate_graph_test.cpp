// Hafnian estimation (estimate_hafnian, --estimate on general graphs): exact unbiasedness of
// every sample path and of the determinant estimators, coverage of the 95% interval over many
// seeds on graphs with known counts, the zero-sample and heavy-tail flags, refusals,
// reproducibility, the command line and MPI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "estimate/determinant_sample.hpp"
#include "estimate/graph_path.hpp"
#include "estimate/runner.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "symmetric_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace test::symmetric_helpers;

constexpr EstimateMethod kSequential[] = {EstimateMethod::Rasmussen, EstimateMethod::RasmussenPlus,
                                          EstimateMethod::Scaling, EstimateMethod::ScalingPlus};

estimate::SamplerConfig graph_config(EstimateMethod m) {
  estimate::SamplerConfig cfg;
  cfg.graph = true;
  cfg.method = static_cast<estimate::Method>(static_cast<int>(m));
  cfg.params = {1, 3};
  return cfg;
}

// Every sample path, weighted by its probability, sums to the hafnian: the estimators are
// unbiased, and the "+" paths never die on a graph with a perfect matching.
TEST(EstimateGraph, ExpectationOfEverySequentialMethodIsTheHafnian) {
  int checked = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 6 + 2 * (trial % 4);
    const SparseMatrix<double> a = random_weighted_graph(n, 0.35 + 0.1 * (trial % 4), 50 + trial);
    const double exact = exact_hafnian(a);
    const estimate::GraphData g = estimate::GraphData::from(a);
    for (EstimateMethod m : kSequential) {
      std::uint64_t dead = 0;
      const double e = estimate::graph_path_expectation(g, graph_config(m), &dead);
      EXPECT_NEAR(e, exact, 1e-10 * std::max(1.0, exact)) << "trial " << trial << " " << to_string(m);
      const bool plus = m == EstimateMethod::RasmussenPlus || m == EstimateMethod::ScalingPlus;
      if (plus && exact > 0) {
        EXPECT_EQ(dead, 0u) << "trial " << trial << " " << to_string(m);
      }
    }
    checked += exact > 0;
  }
  EXPECT_GE(checked, 15);  // most trials have perfect matchings
  // Petersen has dead ends for the plain method (so the check above is not vacuous) and none for "+".
  const estimate::GraphData petersen = estimate::GraphData::from(as<double>(adjacency_matrix(petersen_graph())));
  std::uint64_t dead_plain = 0, dead_plus = 0;
  EXPECT_NEAR(estimate::graph_path_expectation(petersen, graph_config(EstimateMethod::Rasmussen), &dead_plain), 6, 1e-12);
  EXPECT_NEAR(estimate::graph_path_expectation(petersen, graph_config(EstimateMethod::RasmussenPlus), &dead_plus), 6, 1e-12);
  EXPECT_GT(dead_plain, 0u);
  EXPECT_EQ(dead_plus, 0u);
}

/// A scaling+ path with its own scratch arrays.
struct PlusPath {
  static constexpr estimate::Method kM = estimate::Method::ScalingPlus;
  std::vector<int> ints;
  std::vector<double> doubles;
  estimate::GraphPath<kM> path;
  PlusPath(const estimate::GraphView& g, bool cheap)
      : ints(estimate::GraphWorkspace::ints(g.n, g.max_degree, kM)),
        doubles(estimate::GraphWorkspace::doubles(g.n, kM)),
        path(g, estimate::GraphWorkspace::bind(ints.data(), doubles.data(), 1, g.n, g.max_degree, kM), {1, 3}) {
    path.use_cheap_test(cheap);
  }
};

// The cheap live-edge test (two alternating trees, graph_path.hpp certify) proves the same
// candidates as the full Edmonds search: two paths, one with it and one without, step in
// lockstep with the same uniforms and must offer the same partners with the same
// probabilities at every step, and the matching the cheap path flips along its own paths must
// stay a perfect matching of the remaining graph. Sparse graphs with blossoms and dead edges
// make both branches run (steps proven cheaply, and steps left to the full search).
TEST(EstimateGraph, CheapLivenessTestAgreesWithTheFullSearch) {
  std::vector<SparseMatrix<double>> graphs;
  for (int seed = 1; seed <= 6; ++seed) graphs.push_back(as<double>(adjacency_matrix(random_regular_graph(60 + 40 * seed, 3, seed))));
  for (int seed = 1; seed <= 20; ++seed) graphs.push_back(random_weighted_graph(30 + 2 * seed, 0.08, 100 + seed));
  graphs.push_back(as<double>(adjacency_matrix(triangular_graph(10, 12))));
  graphs.push_back(as<double>(adjacency_matrix(petersen_graph())));
  std::uint64_t x = 12345;
  auto uniform = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 11) * 0x1p-53;
  };
  long cheap_steps = 0, full_steps = 0, sampled = 0;
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const estimate::GraphData g = estimate::GraphData::from(graphs[gi]);
    if (g.mate0.empty()) continue;
    ++sampled;
    PlusPath fast(g.view(), true), full(g.view(), false);
    for (int sample = 0; sample < 8; ++sample) {
      fast.path.start(), full.path.start();
      for (;;) {
        estimate::Step a = fast.path.next(), b = full.path.next();
        while (a.row == estimate::kRescale) fast.path.rescale(), full.path.rescale(), a = fast.path.next(), b = full.path.next();
        ASSERT_EQ(a.row, b.row) << "graph " << gi;
        if (a.row < 0) break;
        std::vector<std::tuple<int, double, double>> ca, cb;
        fast.path.for_each_choice(a.row, [&](int u, double p, double f) { return ca.emplace_back(u, p, f), false; });
        full.path.for_each_choice(b.row, [&](int u, double p, double f) { return cb.emplace_back(u, p, f), false; });
        ASSERT_EQ(ca, cb) << "graph " << gi << " vertex " << a.row;
        const double r = uniform();
        a = fast.path.draw(a.row, r), b = full.path.draw(b.row, r);
        ASSERT_EQ(a.col, b.col);
        ASSERT_EQ(fast.path.assign(a.row, a.col), full.path.assign(b.row, b.col));
        for (int v = 0; v < g.n; ++v) {  // M is a perfect matching of what remains, on its edges
          const int m = fast.path.partner(v);
          if (m < 0) continue;
          ASSERT_EQ(fast.path.partner(m), v) << "graph " << gi;
          ASSERT_TRUE(std::binary_search(g.adj.begin() + g.start[v], g.adj.begin() + g.start[v + 1], m));
        }
      }
      cheap_steps += fast.path.certified_steps(), full_steps += fast.path.full_searches();
      EXPECT_EQ(full.path.certified_steps(), 0);
    }
  }
  EXPECT_GE(sampled, 15);
  EXPECT_GT(cheap_steps, 10 * full_steps);  // the cheap test settles most steps...
  EXPECT_GT(full_steps, 0);                 // ...and the fallback is exercised too
}

// E |det W| over every choice of the x's is the hafnian (real signs, and the fourth roots of 1).
TEST(EstimateGraph, DeterminantEstimatorsAverageToTheHafnian) {
  const SparseMatrix<double> a = random_weighted_graph(6, 0.5, 7);  // 6 edges or so
  const double exact = exact_hafnian(a);
  ASSERT_GT(exact, 0);
  std::vector<std::pair<int, int>> edges;
  std::vector<double> weights;
  for (const auto& e : a.entries)
    if (e.row < e.col) edges.emplace_back(e.row, e.col), weights.push_back(e.value);
  ASSERT_LE(edges.size(), 8u);
  auto average = [&](int choices, auto value_of) {
    using Scalar = decltype(value_of(0));
    double sum = 0;
    std::size_t count = 1;
    for (std::size_t k = 0; k < edges.size(); ++k) count *= static_cast<std::size_t>(choices);
    for (std::size_t code = 0; code < count; ++code) {
      std::vector<Scalar> w(36, Scalar(0));
      std::size_t c = code;
      for (std::size_t k = 0; k < edges.size(); ++k, c /= static_cast<std::size_t>(choices)) {
        const auto [u, v] = edges[k];
        const Scalar x = value_of(static_cast<int>(c % static_cast<std::size_t>(choices))) * std::sqrt(weights[k]);
        w[static_cast<std::size_t>(u) * 6 + v] = x, w[static_cast<std::size_t>(v) * 6 + u] = -x;
      }
      const estimate::WideValue d = estimate::abs_determinant(w, 6);
      sum += std::ldexp(d.m, static_cast<int>(d.e));
    }
    return sum / static_cast<double>(count);
  };
  EXPECT_NEAR(average(2, [](int i) { return i ? 1.0 : -1.0; }), exact, 1e-9 * exact);
  const std::complex<double> roots[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  EXPECT_NEAR(average(4, [&](int i) { return roots[i]; }), exact, 1e-9 * exact);
}

struct KnownGraph {
  const char* name;
  SparseMatrix<Integer> adjacency;
  double count;
};

std::vector<KnownGraph> known_graphs() {
  std::vector<KnownGraph> g;
  g.push_back({"Petersen", adjacency_matrix(petersen_graph()), 6});
  g.push_back({"C60", adjacency_matrix(c60_graph()), 12500});
  g.push_back({"K10", adjacency_matrix(complete_graph(10)), 945});  // 9!!
  const auto tri = adjacency_matrix(triangular_graph(6, 6));
  g.push_back({"triangular 6x6", tri, exact_hafnian(as<double>(tri))});
  const auto reg = adjacency_matrix(random_regular_graph(40, 3, 5));
  g.push_back({"3-regular n=40", reg, exact_hafnian(as<double>(reg))});
  return g;
}

// Over 80 seeds (20 under the sanitizers) the 95% interval holds the exact count about 95% of
// the time: at least the binomial floor for a true rate of 95%.
TEST(EstimateGraph, IntervalCoversKnownCountsAtTheNominalRate) {
  constexpr int kRuns = test::kSanitized ? 20 : 80;
  const int floor = test::coverage_floor(kRuns, 0.95);
  for (const auto& g : known_graphs()) {
    for (EstimateMethod m : {EstimateMethod::RasmussenPlus, EstimateMethod::ScalingPlus}) {
      int covered = 0, flagged = 0;
      for (int seed = 1; seed <= kRuns; ++seed) {
        EstimateOptions o;
        o.method = m;
        o.samples = 250;
        o.exact_up_to = 0;
        o.seed = static_cast<std::uint64_t>(seed);
        o.threads = 2;
        const EstimateReport r = estimate_hafnian(AnyMatrix(g.adjacency), false, o);
        ASSERT_FALSE(r.exact) << g.name;
        ASSERT_EQ(r.zero_samples, 0u) << g.name << " " << to_string(m);  // "+" samples never die
        covered += r.ci_low.to_double() <= g.count && g.count <= r.ci_high.to_double();
        flagged += r.heavy_tail;
      }
      EXPECT_GE(covered, floor) << g.name << " " << to_string(m) << ": " << covered << " of " << kRuns
                                << " intervals cover " << g.count << " (" << flagged << " flagged)";
    }
  }
}

TEST(EstimateGraph, PlainMethodsReportZeroSamplesAndHeavyTails) {
  const AnyMatrix tri(adjacency_matrix(triangular_graph(12, 12)));
  EstimateOptions o;
  o.method = EstimateMethod::Rasmussen;
  o.samples = 300;
  o.exact_up_to = 0;
  const EstimateReport plain = estimate_hafnian(tri, false, o);
  EXPECT_GT(plain.zero_samples, 0u);
  EXPECT_TRUE(plain.heavy_tail);
  ASSERT_FALSE(plain.blocks.empty());
  EXPECT_TRUE(plain.blocks.back().heavy_tail);
  o.method = EstimateMethod::RasmussenPlus;
  const EstimateReport plus = estimate_hafnian(tri, false, o);
  EXPECT_EQ(plus.zero_samples, 0u);
  // Too few samples of a skewed estimator on a large lattice: flagged, not trusted.
  o.samples = 20;
  EXPECT_TRUE(estimate_hafnian(AnyMatrix(adjacency_matrix(triangular_graph(24, 24))), false, o).heavy_tail);
}

TEST(EstimateGraph, SameSeedGivesTheSameBitsWhateverTheThreads) {
  const AnyMatrix c60(adjacency_matrix(c60_graph()));
  for (EstimateMethod m : {EstimateMethod::RasmussenPlus, EstimateMethod::ScalingPlus, EstimateMethod::GodsilGutman}) {
    EstimateOptions o;
    o.method = m;
    o.samples = 1000;
    o.exact_up_to = 0;
    o.seed = 11;
    o.threads = 1;
    const EstimateReport one = estimate_hafnian(c60, false, o);
    o.threads = 2;
    const EstimateReport two = estimate_hafnian(c60, false, o);
    EXPECT_EQ(one.estimate.mant, two.estimate.mant) << to_string(m);
    EXPECT_EQ(one.estimate.exp, two.estimate.exp) << to_string(m);
    EXPECT_EQ(one.rel_std_error, two.rel_std_error) << to_string(m);
    o.seed = 12;
    EXPECT_NE(estimate_hafnian(c60, false, o).estimate.mant, one.estimate.mant) << to_string(m);
  }
}

TEST(EstimateGraph, ExactCasesAndRefusals) {
  // No perfect matching (a triangle plus an edge far away): exactly 0, with the reason.
  SparseMatrix<Integer> odd = adjacency_matrix(EdgeList{5, {{0, 1}, {1, 2}, {2, 0}, {3, 4}}});
  EstimateReport r = estimate_hafnian(AnyMatrix(odd), false);
  EXPECT_TRUE(r.exact);
  ASSERT_TRUE(r.exact_value);
  EXPECT_EQ(r.exact_value->to_string(), "0");
  // Small blocks are counted exactly: C60 as an exact integer.
  r = estimate_hafnian(AnyMatrix(adjacency_matrix(c60_graph())), false);
  EXPECT_TRUE(r.exact);
  ASSERT_TRUE(r.exact_value);
  EXPECT_EQ(r.exact_value->to_string(), "12500");
  SparseMatrix<double> negative = random_weighted_graph(8, 0.6, 3);
  const int partner = negative.entries[0].col;  // the first edge of vertex 0, both triangles
  for (auto& e : negative.entries)
    if ((e.row == 0 && e.col == partner) || (e.row == partner && e.col == 0)) e.value = -1;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(negative), false), RefusedError);
  EXPECT_THROW(estimate_hafnian(AnyMatrix(odd), true), RefusedError);
  EstimateOptions o;
  o.method = EstimateMethod::GodsilGutman;
  EXPECT_THROW(estimate_permanent(AnyMatrix(complete_bipartite(4)), o), RefusedError);
  SparseMatrix<double> asymmetric = random_weighted_graph(6, 0.8, 4);
  asymmetric.entries[0].value += 1;
  EXPECT_THROW(estimate_hafnian(AnyMatrix(asymmetric), false), std::invalid_argument);
}

TEST(EstimateGraph, CommandLine) {
  std::string edges;
  for (const auto& [u, v] : c60_graph().edges) edges += std::to_string(u) + " " + std::to_string(v) + "\n";
  const std::string file = test::temp_file(edges, ".edges");
  auto r = test::run_matchcount("--estimate --exact-up-to 0 --samples 2000 --seed 3 --json --as graph '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["counts"], "hafnian");
  EXPECT_EQ(j["method"], "scaling+");
  EXPECT_EQ(j["exact"], false);
  EXPECT_NEAR(j["value"].get<double>(), 12500, 12500 * 5 * j["rel_std_error"].get<double>());
  r = test::run_matchcount("--estimate --method godsil-gutman --exact-up-to 0 --samples 200 --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("godsil-gutman on cpu"), std::string::npos) << r.err;
  // Negative weights are refused with exit 3 and one line.
  const std::string negative = test::temp_file(
      "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.5\n3 2 -2\n4 3 1\n", ".mtx");
  r = test::run_matchcount("--estimate --hafnian '" + negative + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("negative"), std::string::npos) << r.err;
  r = test::run_matchcount("--estimate --method godsil-gutman --as bipartite '" + file + "'");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("estimates hafnians"), std::string::npos) << r.err;
}

TEST(EstimateGraph, SharedOverMpiRanksGivesTheBitsOfOneProcess) {
  if (!cluster::built_with_mpi() || std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "no MPI here";
  std::string launcher = "mpirun --oversubscribe -np 3 -x ASAN_OPTIONS=detect_leaks=0";
  if (geteuid() == 0)
    launcher = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + launcher + " --allow-run-as-root";
  std::string edges;
  for (const auto& [u, v] : c60_graph().edges) edges += std::to_string(u) + " " + std::to_string(v) + "\n";
  const std::string file = test::temp_file(edges, ".edges");
  // 1000 samples: rounds that do not split evenly over the ranks' batches of 256.
  const std::string args = "--estimate --samples 1000 --seed 9 --device cpu --exact-up-to 0 --json --as graph '" + file + "'";
  const auto one = test::run_matchcount(args);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto many = test::run_matchcount_under(launcher, args);
  ASSERT_EQ(many.exit_code, 0) << many.err;
  const auto j1 = nlohmann::json::parse(one.out), jm = nlohmann::json::parse(many.out);
  EXPECT_EQ(jm["value"].dump(), j1["value"].dump());
  EXPECT_EQ(jm["rel_std_error"].dump(), j1["rel_std_error"].dump());
  EXPECT_NE(many.out.find("and 2 more rank(s)"), std::string::npos) << many.out;
}

}  // namespace
}  // namespace matchcount
