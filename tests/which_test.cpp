// Which perfect matchings (matchcount/which.hpp): edge probabilities against enumeration on
// random weighted graphs (general and bipartite), vertex sums, C60's bond orders and float
// bounds; exact samples by chi-square goodness of fit against enumeration (K_6, Petersen, the
// 4 x 4 grid, a weighted 8-cycle, the Aztec diamond of order 2, a weighted bipartite matrix), by
// both methods (the frontier DP's tables, self-reducibility), seeds, refusals and the command
// line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>

#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/which.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using Matching = std::vector<std::pair<int, int>>;

/// Every perfect matching of the symmetric weight table w (pairs (u, v), u < v, sorted by u)
/// with its weight.
void enumerate_matchings(const std::vector<std::vector<long>>& w, std::vector<char>& used, Matching& cur, Integer weight,
               std::map<Matching, Integer>& out) {
  const int n = static_cast<int>(w.size());
  int u = 0;
  while (u < n && used[static_cast<std::size_t>(u)]) ++u;
  if (u == n) {
    out[cur] += weight;
    return;
  }
  used[static_cast<std::size_t>(u)] = 1;
  for (int v = u + 1; v < n; ++v) {
    const long x = w[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)];
    if (used[static_cast<std::size_t>(v)] || x == 0) continue;
    used[static_cast<std::size_t>(v)] = 1;
    cur.emplace_back(u, v);
    enumerate_matchings(w, used, cur, weight * x, out);
    cur.pop_back();
    used[static_cast<std::size_t>(v)] = 0;
  }
  used[static_cast<std::size_t>(u)] = 0;
}

std::map<Matching, Integer> matchings_of(const std::vector<std::vector<long>>& w) {
  std::map<Matching, Integer> out;
  std::vector<char> used(w.size(), 0);
  Matching cur;
  enumerate_matchings(w, used, cur, 1, out);
  return out;
}

SparseMatrix<Integer> symmetric_of(const std::vector<std::vector<long>>& w) {
  const int n = static_cast<int>(w.size());
  SparseMatrix<Integer> a{n, n, {}};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] != 0)
        a.entries.push_back({i, j, Integer(w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)])});
  return a;
}

std::vector<std::vector<long>> table_of(const EdgeList& g, const std::vector<long>& weights = {}) {
  std::vector<std::vector<long>> w(static_cast<std::size_t>(g.vertices), std::vector<long>(static_cast<std::size_t>(g.vertices), 0));
  for (std::size_t k = 0; k < g.edges.size(); ++k) {
    const auto [u, v] = g.edges[k];
    w[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)] = w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)] =
        weights.empty() ? 1 : weights[k];
  }
  return w;
}

using test::exact_value;

TEST(Marginals, RandomWeightedGraphsAgainstEnumeration) {
  std::mt19937_64 rng(5);
  int checked = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 2 * (1 + static_cast<int>(rng() % 5));
    std::vector<std::vector<long>> w(static_cast<std::size_t>(n), std::vector<long>(static_cast<std::size_t>(n), 0));
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 3) {
          long x = static_cast<long>(rng() % 7) - (trial % 2 ? 3 : 0);
          if (x == 0) x = 1;
          w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = x;
        }
    const auto all = matchings_of(w);
    Integer total = 0;
    std::map<std::pair<int, int>, Integer> through;
    for (const auto& [m, x] : all) {
      total += x;
      for (const auto& e : m) through[e] += x;
    }
    MatchingGraph g{AnyMatrix(symmetric_of(w)), true};
    if (total == 0) {
      EXPECT_THROW(edge_probabilities(g), RefusedError);
      continue;
    }
    const MarginalsReport r = edge_probabilities(g);
    EXPECT_EQ(exact_value(r.total), Rational(total));
    std::vector<Rational> at_vertex(static_cast<std::size_t>(n), Rational(0));
    for (const auto& e : r.edges) {
      Rational want(through[{e.u, e.v}], total);
      want.canonicalize();
      EXPECT_EQ(exact_value(e.p), want) << "trial " << trial << " edge " << e.u << " " << e.v;
      at_vertex[static_cast<std::size_t>(e.u)] += exact_value(e.p), at_vertex[static_cast<std::size_t>(e.v)] += exact_value(e.p);
    }
    for (const auto& s : at_vertex) EXPECT_EQ(s, Rational(1)) << "trial " << trial;  // every vertex is matched once
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

// The two methods on graphs beyond enumeration: random banded graphs of 20 to 30 vertices (a
// narrow frontier) with weights 1..9, general and bipartite (by their matrices).
TEST(Marginals, FrontierTablesAgreeWithCounts) {
  std::mt19937_64 rng(19);
  for (int trial = 0; trial < 8; ++trial) {
    const int n = 20 + 2 * static_cast<int>(rng() % 6);
    const bool symmetric = trial % 2 == 0;
    SparseMatrix<Integer> a{n, n, {}};
    for (int i = 0; i < n; ++i)
      for (int j = symmetric ? i + 1 : std::max(0, i - 3); j < std::min(n, i + 5); ++j)
        if (rng() % 2 == 0 || j == i + 1) {
          const Integer w(static_cast<long>(1 + rng() % 9));
          a.entries.push_back({i, j, w});
          if (symmetric) a.entries.push_back({j, i, w});
        }
    a.normalize();
    const MatchingGraph g{AnyMatrix(a), symmetric};
    const MarginalsReport dp = edge_probabilities(g, {}, WhichMethod::Frontier);
    const MarginalsReport counts = edge_probabilities(g, {}, WhichMethod::Counts);
    ASSERT_EQ(dp.edges.size(), counts.edges.size());
    for (std::size_t k = 0; k < dp.edges.size(); ++k) {
      EXPECT_EQ(dp.edges[k].u, counts.edges[k].u);
      EXPECT_EQ(exact_value(dp.edges[k].p), exact_value(counts.edges[k].p)) << "trial " << trial << " edge " << k;
    }
  }
}

TEST(Marginals, BipartiteMatricesC60AndFloats) {
  // A bipartite matrix: rows matched to columns, p_rc = a_rc perm(A without r, c) / perm(A).
  SparseMatrix<Integer> a{3, 3, {{0, 0, Integer(2)}, {0, 1, Integer(1)}, {1, 0, Integer(1)}, {1, 1, Integer(1)}, {1, 2, Integer(3)},
                                 {2, 1, Integer(1)}, {2, 2, Integer(1)}}};
  // By enumeration: {00, 11, 22} weighs 2, {00, 12, 21} 6, {01, 10, 22} 1: perm = 9.
  const MarginalsReport r = edge_probabilities(MatchingGraph{AnyMatrix(a), false});
  EXPECT_EQ(exact_value(r.total), Rational(9));
  std::map<std::pair<int, int>, Rational> p;
  for (const auto& e : r.edges) p[{e.u, e.v}] = exact_value(e.p);
  EXPECT_EQ((p[{0, 0}]), Rational(8, 9));
  EXPECT_EQ((p[{1, 2}]), Rational(2, 3));
  EXPECT_EQ((p[{0, 1}]), Rational(1, 9));
  // C60: Pauling bond orders 11/25 (hexagon-hexagon edges, 30) and 7/25 (pentagon edges, 60).
  const MarginalsReport c = edge_probabilities(MatchingGraph{AnyMatrix(symmetric_of(table_of(c60_graph()))), true});
  int eleven = 0, seven = 0;
  for (const auto& e : c.edges) eleven += exact_value(e.p) == Rational(11, 25), seven += exact_value(e.p) == Rational(7, 25);
  EXPECT_EQ(eleven, 30);
  EXPECT_EQ(seven, 60);
  // Floats: within their bounds of the exact probabilities of the same (binary) weights.
  std::mt19937_64 rng(8);
  SparseMatrix<double> f{8, 8, {}};
  SparseMatrix<Rational> q{8, 8, {}};
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j)
      if (rng() % 2 || j == i + 1) {
        const double x = std::ldexp(double(1 + rng() % 1000), -static_cast<int>(rng() % 20));
        for (auto [u, v] : {std::pair{i, j}, std::pair{j, i}}) f.entries.push_back({u, v, x}), q.entries.push_back({u, v, Rational(x)});
      }
  f.normalize(), q.normalize();
  const MarginalsReport fr = edge_probabilities(MatchingGraph{AnyMatrix(f), true});
  const MarginalsReport qr = edge_probabilities(MatchingGraph{AnyMatrix(q), true});
  ASSERT_EQ(fr.edges.size(), qr.edges.size());
  for (std::size_t k = 0; k < fr.edges.size(); ++k) {
    const double got = std::get<double>(fr.edges[k].p.value), want = exact_value(qr.edges[k].p).get_d();
    EXPECT_LE(std::abs(got - want), fr.edges[k].p.abs_error) << k;
    EXPECT_LT(fr.edges[k].p.abs_error, 1e-9);
  }
  SparseMatrix<Complex> z{2, 2, {{0, 1, Complex(0, 1)}, {1, 0, Complex(0, 1)}}};
  EXPECT_THROW(edge_probabilities(MatchingGraph{AnyMatrix(z), true}), UsageError);
}

/// Chi-square statistic of `samples` draws against the enumeration's weights; the critical
/// value for a false alarm of about 1e-6 (Wilson-Hilferty).
void expect_fits(const MatchingGraph& g, const std::map<Matching, Integer>& weights, std::uint64_t samples, std::uint64_t seed,
                 const std::string& what, WhichMethod method) {
  SampleOptions o;
  o.samples = samples;
  o.seed = seed;
  o.method = method;
  std::map<Matching, std::uint64_t> seen;
  for (const auto& m : sample_perfect_matchings(g, o)) ++seen[m];
  Integer total = 0;
  for (const auto& [m, w] : weights) total += w;
  double chi2 = 0;
  for (const auto& [m, w] : weights) {
    const double expected = double(samples) * (Rational(w, total)).get_d();
    const double d = double(seen[m]) - expected;
    chi2 += d * d / expected;
  }
  for (const auto& [m, c] : seen) EXPECT_TRUE(weights.count(m)) << what << ": a sample that is no perfect matching";
  const double k = double(weights.size() - 1), z = 4.75;  // one-sided 1e-6
  const double critical = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
  EXPECT_LT(chi2, critical) << what << ": chi-square " << chi2 << " with " << k << " degrees of freedom";
}

// Both methods: the frontier DP's tables and the counts of self-reducibility.
class WhichMethods : public ::testing::TestWithParam<WhichMethod> {};

TEST_P(WhichMethods, ChiSquareAgainstEnumeration) {
  const WhichMethod method = GetParam();
  const auto fit = [&](const EdgeList& e, const std::vector<long>& weights, std::uint64_t samples, const char* what) {
    const auto w = table_of(e, weights);
    expect_fits(MatchingGraph{AnyMatrix(symmetric_of(w)), true}, matchings_of(w), samples, 11, what, method);
  };
  fit(complete_graph(6), {}, 3000, "K_6");           // 15, uniform
  fit(petersen_graph(), {}, 1200, "Petersen");       // 6
  fit(grid_graph(4, 4), {}, 3600, "4 x 4 grid");     // 36
  fit(aztec_diamond_graph(2), {}, 1600, "Aztec 2");  // 8
  EdgeList cycle{8, {}};
  for (int i = 0; i < 8; ++i) cycle.edges.emplace_back(i, (i + 1) % 8);
  fit(cycle, {1, 2, 3, 1, 5, 1, 2, 4}, 2000, "weighted 8-cycle");  // 2 matchings, weights 15 and 40
  // A bipartite matrix (rows to columns): the permutations weighted by their products.
  SparseMatrix<Integer> a{3, 3, {{0, 0, Integer(2)}, {0, 1, Integer(1)}, {1, 0, Integer(1)}, {1, 1, Integer(1)}, {1, 2, Integer(3)},
                                 {2, 1, Integer(1)}, {2, 2, Integer(1)}}};
  std::map<Matching, Integer> perms{{{{0, 0}, {1, 1}, {2, 2}}, Integer(2)}, {{{0, 0}, {1, 2}, {2, 1}}, Integer(6)},
                                    {{{0, 1}, {1, 0}, {2, 2}}, Integer(1)}};
  expect_fits(MatchingGraph{AnyMatrix(a), false}, perms, 1800, 5, "3 x 3 matrix", method);
}

INSTANTIATE_TEST_SUITE_P(Sample, WhichMethods, ::testing::Values(WhichMethod::Frontier, WhichMethod::Counts),
                         [](const auto& info) { return info.param == WhichMethod::Frontier ? "Frontier" : "Counts"; });

/// The cells of the Aztec diamond of order n in reading order (aztec_diamond_graph's vertices):
/// row r < n holds columns n-1-r .. n+r, the lower half mirrored.
std::vector<std::pair<int, int>> aztec_cells(int n) {
  std::vector<std::pair<int, int>> cells;
  for (int r = 0; r < 2 * n; ++r) {
    const int h = r < n ? r : 2 * n - 1 - r;
    for (int c = n - 1 - h; c <= n + h; ++c) cells.emplace_back(r + 5, c - 2);  // anywhere on the lattice
  }
  return cells;
}

// The lattice samplers through the question: chi-square on whole regions with their cells (the
// Aztec diamond of order 2 and 3, the 4 x 4 and 3 x 4 grids), each sample a perfect matching of
// the graph; regions they do not take are refused when forced and left to the others in Auto.
TEST(Sample, LatticeRegionsByTheLatticeSamplers) {
  const auto fit = [&](const EdgeList& e, std::vector<std::pair<int, int>> cells, std::uint64_t samples, const char* what) {
    const auto w = table_of(e);
    MatchingGraph g{AnyMatrix(symmetric_of(w)), true};
    g.cells = std::move(cells);
    expect_fits(g, matchings_of(w), samples, 13, what, WhichMethod::Lattice);
  };
  fit(aztec_diamond_graph(2), aztec_cells(2), 1600, "Aztec 2 (lattice)");  // 8
  fit(aztec_diamond_graph(3), aztec_cells(3), 6400, "Aztec 3 (lattice)");  // 64
  const auto grid_cells = [](int m, int n) {
    std::vector<std::pair<int, int>> cells;
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c) cells.emplace_back(r, c);
    return cells;
  };
  fit(grid_graph(4, 4), grid_cells(4, 4), 3600, "4 x 4 (lattice)");  // 36
  fit(grid_graph(3, 4), grid_cells(3, 4), 1100, "3 x 4 (lattice)");  // 11
  // The same grid as a bipartite matrix (rows: the even cells), cells rows then columns.
  const auto w = table_of(grid_graph(4, 4));
  std::vector<int> side(16), index(16);
  int rows = 0, cols = 0;
  for (int v = 0; v < 16; ++v) side[static_cast<std::size_t>(v)] = (v / 4 + v % 4) % 2, index[static_cast<std::size_t>(v)] = side[static_cast<std::size_t>(v)] ? cols++ : rows++;
  SparseMatrix<Integer> b{8, 8, {}};
  std::vector<std::pair<int, int>> cells(16);
  for (int v = 0; v < 16; ++v) {
    const std::size_t at = static_cast<std::size_t>(side[static_cast<std::size_t>(v)] ? 8 + index[static_cast<std::size_t>(v)] : index[static_cast<std::size_t>(v)]);
    cells[at] = {v / 4, v % 4};
    for (int u = 0; u < 16; ++u)
      if (!side[static_cast<std::size_t>(v)] && w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)])
        b.entries.push_back({index[static_cast<std::size_t>(v)], index[static_cast<std::size_t>(u)], Integer(1)});
  }
  b.normalize();
  MatchingGraph bg{AnyMatrix(b), false};
  bg.cells = cells;
  SampleOptions o;
  o.samples = 50, o.method = WhichMethod::Lattice;
  for (const auto& m : sample_perfect_matchings(bg, o)) {
    ASSERT_EQ(m.size(), 8u);
    for (const auto& [r, c] : m) EXPECT_NE(b.entries.end(), std::find_if(b.entries.begin(), b.entries.end(), [&](const auto& e) {
                                            return e.row == r && e.col == c;
                                          }));
  }
  // Not a region the samplers take: a weighted grid, a grid less an edge, the cells of another
  // graph. Forced: refused; Auto: another method.
  auto weighted = symmetric_of(table_of(grid_graph(2, 2), {1, 2, 1, 1}));
  MatchingGraph wg{AnyMatrix(weighted), true};
  wg.cells = grid_cells(2, 2);
  EXPECT_THROW(sample_perfect_matchings(wg, o), RefusedError);
  o.method = WhichMethod::Auto;
  EXPECT_EQ(sample_perfect_matchings(wg, o).size(), 50u);
  MatchingGraph k4{AnyMatrix(symmetric_of(table_of(complete_graph(4)))), true};
  k4.cells = grid_cells(2, 2);
  o.method = WhichMethod::Lattice;
  EXPECT_THROW(sample_perfect_matchings(k4, o), RefusedError);
  EXPECT_EQ(lattice_cell_of_name("(3, -4)"), (std::pair<int, int>{3, -4}));
  EXPECT_EQ(lattice_cell_of_name("12,7"), (std::pair<int, int>{12, 7}));
  for (const char* bad : {"a", "1,2,3", "(1,2", "1.5,2", ",", "3,"}) EXPECT_FALSE(lattice_cell_of_name(bad)) << bad;
}

TEST(Sample, SeedsReproduceAndRefusals) {
  const auto w = table_of(grid_graph(4, 4));
  const MatchingGraph g{AnyMatrix(symmetric_of(w)), true};
  SampleOptions o;
  o.samples = 20, o.seed = 7;
  const auto a = sample_perfect_matchings(g, o), b = sample_perfect_matchings(g, o);
  EXPECT_EQ(a, b);
  o.seed = 8;
  EXPECT_NE(sample_perfect_matchings(g, o), a);
  o.samples = 5;  // the first samples of a longer run are the samples of a shorter one
  const auto longer = sample_perfect_matchings(g, SampleOptions{20, 8, {}, {}});
  EXPECT_EQ(sample_perfect_matchings(g, o), std::vector<Matching>(longer.begin(), longer.begin() + 5));
  // The frontier DP chooses for this graph, and counts it exactly: both methods fit above.
  o.method = WhichMethod::Counts;
  for (const auto& m : sample_perfect_matchings(g, o)) EXPECT_EQ(m.size(), 8u);
  SparseMatrix<Integer> neg{2, 2, {{0, 1, Integer(-1)}, {1, 0, Integer(-1)}}};
  EXPECT_THROW(sample_perfect_matchings(MatchingGraph{AnyMatrix(neg), true}, o), RefusedError);
  SparseMatrix<Integer> none{3, 3, {{0, 1, Integer(1)}, {1, 0, Integer(1)}}};
  SparseMatrix<Integer> none4{4, 4, {{0, 1, Integer(1)}, {1, 0, Integer(1)}, {0, 2, Integer(1)}, {2, 0, Integer(1)}}};
  none4.normalize();  // vertex 3 has no edge
  for (WhichMethod m : {WhichMethod::Frontier, WhichMethod::Counts}) {
    SCOPED_TRACE(m == WhichMethod::Frontier ? "frontier" : "counts");
    o.method = m;
    EXPECT_THROW(sample_perfect_matchings(MatchingGraph{AnyMatrix(none), true}, o), RefusedError);
    EXPECT_THROW(sample_perfect_matchings(MatchingGraph{AnyMatrix(none4), true}, o), RefusedError);
  }
}

// --log: floats from the inverse Kasteleyn (bipartite) or Pfaffian (general planar) matrix,
// within their estimated errors of the exact fractions, the total as a logarithm; graphs that
// are not planar are refused.
TEST(Marginals, InverseKasteleynWithLog) {
  CountOptions log;
  log.log = true;
  const auto as_double = [](const PermanentValue& v) {
    return std::visit(
        [](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, Integer> || std::is_same_v<T, Rational>) return x.get_d();
          else return 0.0;
        },
        v.value);
  };
  for (const EdgeList& e : {grid_graph(5, 6), c60_graph(), triangular_graph(4, 4), aztec_diamond_graph(3)}) {
    const MatchingGraph g{AnyMatrix(symmetric_of(table_of(e))), true};
    const MarginalsReport exact = edge_probabilities(g), floats = edge_probabilities(g, log);
    ASSERT_EQ(exact.edges.size(), floats.edges.size());
    ASSERT_TRUE(floats.total.log.has_value());
    EXPECT_NEAR(floats.total.log->log_abs, std::log(as_double(exact.total)), 1e-9);
    for (std::size_t k = 0; k < exact.edges.size(); ++k) {
      ASSERT_EQ(floats.edges[k].u, exact.edges[k].u);
      const double want = as_double(exact.edges[k].p);
      EXPECT_LE(std::abs(std::get<double>(floats.edges[k].p.value) - want), floats.edges[k].p.abs_error) << k;
      EXPECT_TRUE(floats.edges[k].p.error_estimated);
      EXPECT_LT(floats.edges[k].p.abs_error, 1e-9);
    }
  }
  // The same grid as a bipartite matrix (the Kasteleyn matrix itself).
  SparseMatrix<Integer> b{2, 2, {{0, 0, Integer(1)}, {0, 1, Integer(1)}, {1, 0, Integer(1)}, {1, 1, Integer(3)}}};
  const MarginalsReport r = edge_probabilities(MatchingGraph{AnyMatrix(b), false}, log);
  ASSERT_EQ(r.edges.size(), 4u);
  EXPECT_NEAR(std::get<double>(r.edges[0].p.value), 0.75, 1e-12);  // 3 of the weight 4
  EXPECT_NEAR(std::get<double>(r.edges[1].p.value), 0.25, 1e-12);
  EXPECT_THROW(edge_probabilities(MatchingGraph{AnyMatrix(symmetric_of(table_of(complete_graph(6)))), true}, log),
               RefusedError);
}

TEST(Which, CommandLine) {
  const std::string f = test::temp_file("a b\nb c\nd c\nd a\na c\n", ".edges");
  const auto m = test::run_matchcount("--marginals --as graph '" + f + "'");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.out, "a b 1/2\nb c 1/2\nd c 1/2\nd a 1/2\na c 0\n");  // file order, each line's way round
  const auto s = test::run_matchcount("--sample 3 --seed 4 --json --as graph '" + f + "'");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("{\"edges\":[[\"a\","), std::string::npos) << s.out;
  EXPECT_EQ(std::count(s.out.begin(), s.out.end(), '\n'), 3);
  EXPECT_EQ(test::run_matchcount("--sample 3 --seed 4 --json --as graph '" + f + "'").out, s.out);
  for (const char* bad : {"--marginals --estimate", "--marginals --sample 2", "--sample 2 --log", "--marginals --matchings",
                          "--sample 0"}) {
    const auto r = test::run_matchcount(std::string(bad) + " --as graph '" + f + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
  }
  // --max-seconds binds: a million samples of the 8 x 8 grid take seconds; nothing is printed.
  const auto capped = test::run_matchcount("--sample 1000000 --max-seconds 0.3 --as graph '" +
                                           std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/grid8x8.edges'");
  EXPECT_EQ(capped.exit_code, 3) << capped.err;
  EXPECT_TRUE(capped.out.empty());
  EXPECT_NE(capped.err.find("--max-seconds 0.3"), std::string::npos) << capped.err;
  // --marginals --log: floats with estimated errors, the total as its logarithm.
  const auto lg = test::run_matchcount("--marginals --log --json --as graph '" + f + "'");
  ASSERT_EQ(lg.exit_code, 0) << lg.err;
  EXPECT_NE(lg.out.find("\"total_log\":true"), std::string::npos) << lg.out;
  EXPECT_NE(lg.out.find("\"error_model\":\"estimate\""), std::string::npos) << lg.out;
  const std::string k6 = test::temp_file("0 1\n0 2\n0 3\n0 4\n0 5\n1 2\n1 3\n1 4\n1 5\n2 3\n2 4\n2 5\n3 4\n3 5\n4 5\n", ".edges");
  const auto nonplanar = test::run_matchcount("--marginals --log --as graph '" + k6 + "'");
  EXPECT_EQ(nonplanar.exit_code, 3) << nonplanar.err;
  EXPECT_TRUE(nonplanar.out.empty());
  // --svg: drawn with --sample 1 or --marginals, refused otherwise before any work.
  const std::string pic = test::temp_file("", ".svg");
  ASSERT_EQ(test::run_matchcount("--sample 1 --svg '" + pic + "' --as graph '" + f + "'").exit_code, 0);
  std::ifstream in(pic);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 80);
  for (const std::string& bad : std::vector<std::string>{"--sample 2 --svg '" + pic + "'", "--svg '" + pic + "'", "--marginals --svg /nonexistent/dir/x.svg"}) {
    const auto r = test::run_matchcount(bad + " --as graph '" + f + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
  }
  const std::string odd = test::temp_file("a b\nb c\n", ".edges");
  EXPECT_EQ(test::run_matchcount("--marginals --as graph '" + odd + "'").exit_code, 3);
}

}  // namespace
}  // namespace matchcount
