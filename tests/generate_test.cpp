// The generators of generate.hpp: structure, reproducibility of the random families, known
// counts by an independent brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "generate_helpers.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "test_support.hpp"

using namespace matchcount;
using namespace matchcount::gentest;

namespace {

// --- structure helpers ---------------------------------------------------------------------

bool has_edge(const EdgeList& g, int u, int v) {
  return std::binary_search(g.edges.begin(), g.edges.end(), std::pair(std::min(u, v), std::max(u, v)));
}

bool is_bipartite(const EdgeList& g) {
  try {
    biadjacency(g);
    return true;
  } catch (const RefusedError&) {
    return false;
  }
}


}  // namespace

// --- structure -------------------------------------------------------------------------------

TEST(GenerateGraphs, GridStructure) {
  for (int m = 1; m <= 7; ++m)
    for (int n = 1; n <= 7; ++n) {
      const EdgeList g = grid_graph(m, n);
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
      EXPECT_EQ(g.vertices, m * n);
      EXPECT_EQ(g.edges.size(), static_cast<std::size_t>(m * (n - 1) + n * (m - 1)));
      expect_simple(g);
      for (int d : degrees(g)) EXPECT_LE(d, 4);
      // (r, c) = r*n + c: right neighbour +1, lower neighbour +n.
      for (int r = 0; r < m; ++r)
        for (int c = 0; c < n; ++c) {
          if (c + 1 < n) { EXPECT_TRUE(has_edge(g, r * n + c, r * n + c + 1)); }
          if (r + 1 < m) { EXPECT_TRUE(has_edge(g, r * n + c, (r + 1) * n + c)); }
        }
      const auto b = biadjacency(g);
      EXPECT_EQ(b.rows, (m * n + 1) / 2);  // colour 0 = the class of vertex 0
      EXPECT_EQ(b.rows + b.cols, m * n);
      EXPECT_EQ(b.nnz(), g.edges.size());
    }
  EXPECT_THROW(grid_graph(0, 3), UsageError);
  EXPECT_THROW(grid_graph(3, -1), UsageError);
}

TEST(GenerateGraphs, TorusStructure) {
  for (int m = 3; m <= 8; ++m)
    for (int n = 3; n <= 8; ++n) {
      const EdgeList g = torus_graph(m, n);
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
      EXPECT_EQ(g.vertices, m * n);
      EXPECT_EQ(g.edges.size(), static_cast<std::size_t>(2 * m * n));
      expect_simple(g);
      for (int d : degrees(g)) EXPECT_EQ(d, 4);
      EXPECT_TRUE(has_edge(g, n - 1, 0));            // wraps along a row
      EXPECT_TRUE(has_edge(g, (m - 1) * n, 0));      // wraps along a column
      EXPECT_EQ(is_bipartite(g), m % 2 == 0 && n % 2 == 0);
    }
  // C_2 would double edges; C_1 would be a loop: refused as usage errors.
  EXPECT_THROW(torus_graph(2, 4), UsageError);
  EXPECT_THROW(torus_graph(4, 2), UsageError);
  EXPECT_THROW(torus_graph(1, 1), UsageError);
  EXPECT_THROW(biadjacency(torus_graph(3, 4)), RefusedError);
}

TEST(GenerateGraphs, HypercubeStructure) {
  for (int d = 0; d <= 10; ++d) {
    const EdgeList g = hypercube_graph(d);
    SCOPED_TRACE("d=" + std::to_string(d));
    EXPECT_EQ(g.vertices, 1 << d);
    EXPECT_EQ(g.edges.size(), d == 0 ? 0u : static_cast<std::size_t>(d) << (d - 1));
    expect_simple(g);
    for (auto [u, v] : g.edges) EXPECT_EQ(__builtin_popcount(static_cast<unsigned>(u ^ v)), 1);
    for (int deg : degrees(g)) EXPECT_EQ(deg, d);
    const auto b = biadjacency(g);
    EXPECT_EQ(b.rows, d == 0 ? 1 : 1 << (d - 1));
    EXPECT_EQ(b.rows + b.cols, 1 << d);
  }
  EXPECT_THROW(hypercube_graph(-1), UsageError);
  EXPECT_THROW(hypercube_graph(60), RefusedError);
}

TEST(GenerateGraphs, AztecStructure) {
  for (int k = 0; k <= 9; ++k) {
    const EdgeList g = aztec_diamond_graph(k);
    SCOPED_TRACE("k=" + std::to_string(k));
    EXPECT_EQ(g.vertices, 2 * k * (k + 1));
    EXPECT_EQ(g.edges.size(), static_cast<std::size_t>(4 * k * k));
    expect_simple(g);
    for (int d : degrees(g)) {
      EXPECT_GE(d, k > 0 ? 2 : 0);
      EXPECT_LE(d, 4);
    }
    const auto b = biadjacency(g);
    EXPECT_EQ(b.rows, k * (k + 1));
    EXPECT_EQ(b.cols, k * (k + 1));
  }
  // Order 1: squares in reading order 0 1 / 2 3.
  const EdgeList one = aztec_diamond_graph(1);
  EXPECT_EQ(one.edges, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 3}, {2, 3}}));
  // Order 2: rows of 2, 4, 4, 2 squares; square 0 (top left) touches 1 (right) and 3 (below).
  const EdgeList two = aztec_diamond_graph(2);
  EXPECT_TRUE(has_edge(two, 0, 1));
  EXPECT_TRUE(has_edge(two, 0, 3));
  EXPECT_TRUE(has_edge(two, 2, 3));
  EXPECT_FALSE(has_edge(two, 0, 2));
  EXPECT_THROW(aztec_diamond_graph(-1), UsageError);
}

TEST(GenerateGraphs, PrismStructure) {
  for (int n = 3; n <= 12; ++n) {
    const EdgeList g = prism_graph(n);
    SCOPED_TRACE("n=" + std::to_string(n));
    EXPECT_EQ(g.vertices, 2 * n);
    EXPECT_EQ(g.edges.size(), static_cast<std::size_t>(3 * n));
    expect_simple(g);
    for (int d : degrees(g)) EXPECT_EQ(d, 3);
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(has_edge(g, i, n + i));
      EXPECT_TRUE(has_edge(g, i, (i + 1) % n));
      EXPECT_TRUE(has_edge(g, n + i, n + (i + 1) % n));
    }
    EXPECT_EQ(is_bipartite(g), n % 2 == 0);
  }
  EXPECT_THROW(prism_graph(2), UsageError);
}

TEST(GenerateGraphs, BiadjacencyConventions) {
  // Path 0-1-2-3 plus the separate edge 4-5: rows = colour 0 = {0, 2, 4}, cols = {1, 3, 5}.
  EdgeList g;
  g.vertices = 6;
  g.edges = {{0, 1}, {1, 2}, {2, 3}, {4, 5}};
  const auto b = biadjacency(g);
  EXPECT_EQ(b.rows, 3);
  EXPECT_EQ(b.cols, 3);
  const std::vector<std::pair<int, int>> want = {{0, 0}, {1, 0}, {1, 1}, {2, 2}};
  ASSERT_EQ(b.nnz(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(b.entries[i].row, want[i].first);
    EXPECT_EQ(b.entries[i].col, want[i].second);
    EXPECT_EQ(b.entries[i].value, 1);
  }
  // A repeated edge is two edges: entry 2. An isolated vertex is an empty row.
  EdgeList multi;
  multi.vertices = 3;
  multi.edges = {{0, 1}, {0, 1}};
  const auto bm = biadjacency(multi);
  EXPECT_EQ(bm.rows, 2);
  EXPECT_EQ(bm.cols, 1);
  ASSERT_EQ(bm.nnz(), 1u);
  EXPECT_EQ(bm.entries[0].value, 2);
  // Odd cycle and loop: not bipartite.
  EdgeList triangle;
  triangle.vertices = 3;
  triangle.edges = {{0, 1}, {1, 2}, {0, 2}};
  EXPECT_THROW(biadjacency(triangle), RefusedError);
  EdgeList loop;
  loop.vertices = 1;
  loop.edges = {{0, 0}};
  EXPECT_THROW(biadjacency(loop), RefusedError);
  EdgeList bad;
  bad.vertices = 2;
  bad.edges = {{0, 2}};
  EXPECT_THROW(biadjacency(bad), UsageError);
}

TEST(GenerateMatrices, DeterministicFamilies) {
  for (int n = 0; n <= 7; ++n) {
    const auto j = complete_bipartite(n);
    EXPECT_EQ(j.nnz(), static_cast<std::size_t>(n * n));
    const auto d = complete_loopless_digraph(n);
    EXPECT_EQ(d.nnz(), static_cast<std::size_t>(n * n - n));
    for (const auto& e : d.entries) EXPECT_NE(e.row, e.col);
    for (int w = 0; w <= 3; ++w) {
      const auto b = band_matrix(n, w);
      std::size_t want = 0;
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) want += std::abs(i - k) <= w;
      EXPECT_EQ(b.nnz(), want);
      for (const auto& e : b.entries) EXPECT_LE(std::abs(e.row - e.col), w);
    }
  }
  EXPECT_EQ(band_matrix(3, 100).nnz(), 9u);
  EXPECT_THROW(complete_bipartite(-1), UsageError);
  EXPECT_THROW(band_matrix(4, -1), UsageError);
}

// --- random generators -----------------------------------------------------------------------

TEST(GenerateRandom, SameSeedSameMatrix) {
  EXPECT_TRUE(same_entries(erdos_renyi_bipartite(30, 0.3, 7), erdos_renyi_bipartite(30, 0.3, 7)));
  EXPECT_FALSE(same_entries(erdos_renyi_bipartite(30, 0.3, 7), erdos_renyi_bipartite(30, 0.3, 8)));
  EXPECT_TRUE(same_entries(random_digraph(20, 0.4, 3, true), random_digraph(20, 0.4, 3, true)));
  EXPECT_TRUE(same_entries(random_integer_matrix(12, 0.5, -5, 5, 11),
                           random_integer_matrix(12, 0.5, -5, 5, 11)));
  EXPECT_TRUE(same_entries(random_real_matrix(12, 0.5, -1, 2, 11), random_real_matrix(12, 0.5, -1, 2, 11)));
  EXPECT_TRUE(same_entries(random_complex_matrix(12, 0.5, 11), random_complex_matrix(12, 0.5, 11)));
  EXPECT_FALSE(same_entries(random_complex_matrix(12, 0.5, 11), random_complex_matrix(12, 0.5, 12)));
}

TEST(GenerateRandom, FixedOutputOnEveryPlatform) {
  // The standard fixes mt19937_64's sequence; the generators derive everything from it
  // without std::uniform_*_distribution, so these fingerprints hold with any compiler.
  std::mt19937_64 rng;
  rng.discard(9999);
  EXPECT_EQ(rng(), 9981545732273789042ull);
  // (random_int10.mtx can be reproduced from this description by any independent
  // implementation of mt19937_64, e.g. in Python.)
  EXPECT_EQ(fingerprint(erdos_renyi_bipartite(16, 0.25, 42)), 9988812407882747640ull);
  EXPECT_EQ(fingerprint(random_digraph(10, 0.5, 42, false)), 11579869223550367676ull);
  EXPECT_EQ(fingerprint(random_integer_matrix(8, 0.6, -1000, 1000, 42)), 7770293715492639555ull);
  EXPECT_EQ(fingerprint(random_real_matrix(6, 0.7, -2.5, 4.0, 42)), 16822125119787587268ull);
  EXPECT_EQ(fingerprint(random_complex_matrix(5, 0.8, 42)), 14356993201117887682ull);
}

TEST(GenerateRandom, DensityAndRanges) {
  // 40000 positions at p = 0.3: mean 12000, sd ~92.
  const auto er = erdos_renyi_bipartite(200, 0.3, 1);
  EXPECT_NEAR(static_cast<double>(er.nnz()), 12000.0, 500.0);
  EXPECT_EQ(erdos_renyi_bipartite(20, 0.0, 1).nnz(), 0u);
  EXPECT_EQ(erdos_renyi_bipartite(20, 1.0, 1).nnz(), 400u);
  EXPECT_EQ(random_digraph(20, 1.0, 1, false).nnz(), 380u);
  EXPECT_EQ(random_digraph(20, 1.0, 1, true).nnz(), 400u);
  for (const auto& e : random_digraph(30, 0.5, 2, false).entries) EXPECT_NE(e.row, e.col);

  const auto ints = random_integer_matrix(30, 0.8, -2, 2, 5);
  std::set<long> seen;
  for (const auto& e : ints.entries) {
    ASSERT_TRUE(e.value.fits_slong_p());
    seen.insert(e.value.get_si());
  }
  EXPECT_EQ(seen, (std::set<long>{-2, -1, 1, 2}));  // every nonzero value, never 0
  const auto wide = random_integer_matrix(10, 1.0, LONG_MIN, LONG_MAX, 5);
  EXPECT_EQ(wide.nnz(), 100u);
  const auto one = random_integer_matrix(5, 1.0, 7, 7, 5);
  for (const auto& e : one.entries) EXPECT_EQ(e.value, 7);

  const auto reals = random_real_matrix(40, 1.0, -3.0, 5.0, 9);
  EXPECT_EQ(reals.nnz(), 1600u);
  double lo = 1e9, hi = -1e9;
  for (const auto& e : reals.entries) lo = std::min(lo, e.value), hi = std::max(hi, e.value);
  EXPECT_GE(lo, -3.0);
  EXPECT_LT(hi, 5.0);
  EXPECT_LT(lo, -2.9);
  EXPECT_GT(hi, 4.9);
  for (const auto& e : random_complex_matrix(20, 1.0, 9).entries) {
    EXPECT_GE(e.value.real(), -1.0);
    EXPECT_LT(e.value.real(), 1.0);
    EXPECT_GE(e.value.imag(), -1.0);
    EXPECT_LT(e.value.imag(), 1.0);
  }

  EXPECT_THROW(erdos_renyi_bipartite(5, 1.5, 1), UsageError);
  EXPECT_THROW(erdos_renyi_bipartite(5, -0.1, 1), UsageError);
  EXPECT_THROW(random_digraph(-1, 0.5, 1, false), UsageError);
  EXPECT_THROW(random_integer_matrix(5, 0.5, 3, 2, 1), UsageError);
  EXPECT_THROW(random_integer_matrix(5, 0.5, 0, 0, 1), UsageError);
  EXPECT_THROW(random_real_matrix(5, 0.5, 1.0, 0.0, 1), UsageError);
  EXPECT_THROW(random_complex_matrix(5, 2.0, 1), UsageError);
}

// --- known counts ----------------------------------------------------------------------------

TEST(GenerateCounts, SmallKnownCounts) {
  struct Case {
    const char* name;
    EdgeList g;
    std::uint64_t want;
  };
  const std::vector<Case> cases = {
      {"grid 4x4", grid_graph(4, 4), 36},       {"grid 6x6", grid_graph(6, 6), 6728},
      {"grid 3x3", grid_graph(3, 3), 0},        {"grid 2x7", grid_graph(2, 7), 21},
      {"aztec 1", aztec_diamond_graph(1), 2},   {"aztec 2", aztec_diamond_graph(2), 8},
      {"aztec 3", aztec_diamond_graph(3), 64},  {"aztec 4", aztec_diamond_graph(4), 1024},
      {"aztec 5", aztec_diamond_graph(5), 32768},
      {"Q_2", hypercube_graph(2), 2},           {"Q_3", hypercube_graph(3), 9},
      {"Q_4", hypercube_graph(4), 272},         {"prism 6", prism_graph(6), 20},
      {"prism 5", prism_graph(5), 11},          {"torus 4x4", torus_graph(4, 4), 272},
      {"torus 4x3", torus_graph(4, 3), 50},     {"torus 6x6", torus_graph(6, 6), 90176},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(graph_matchings(c.g), c.want);
    if (is_bipartite(c.g)) { EXPECT_EQ(permanent(biadjacency(c.g)), Integer(static_cast<unsigned long>(c.want))); }
  }
  EXPECT_EQ(permanent(complete_bipartite(6)), 720);
  EXPECT_EQ(permanent(complete_loopless_digraph(8)), 14833);
  EXPECT_EQ(permanent(band_matrix(12, 2)), 11854);
  EXPECT_EQ(permanent(band_matrix(10, 1)), 89);
}

TEST(GenerateCounts, KnownFamiliesTable) {
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared/datasets not present";
  std::ifstream tsv(*shared + "/datasets/known-families.tsv");
  if (!tsv) GTEST_SKIP() << "known-families.tsv not present";

  // Rows whose brute force is quick: counts up to this many leaves, at most 64 columns.
  const Integer kMaxCount = 200000;
  int checked = 0;
  std::string line;
  std::getline(tsv, line);  // header
  while (std::getline(tsv, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
    if (f.size() < 3) continue;
    const std::string& family = f[0];
    Integer want;
    if (want.set_str(f[2], 10) != 0 || want > kMaxCount) continue;
    // Parameters: the numbers after '=' ("m=4 n=6", "2k=4"), else all numbers ("C4 x C6").
    std::vector<int> p;
    const bool has_eq = f[1].find('=') != std::string::npos;
    for (std::size_t i = 0; i < f[1].size();) {
      if (std::isdigit(static_cast<unsigned char>(f[1][i])) && (!has_eq || (i > 0 && f[1][i - 1] == '='))) {
        std::size_t j = i;
        while (j < f[1].size() && std::isdigit(static_cast<unsigned char>(f[1][j]))) ++j;
        p.push_back(std::stoi(f[1].substr(i, j - i)));
        i = j;
      } else {
        ++i;
      }
    }
    SCOPED_TRACE(family + " " + f[1]);
    std::optional<EdgeList> g;
    std::optional<SparseMatrix<Integer>> m;
    if (family == "grid_dimers" && p.size() == 2) g = grid_graph(p[0], p[1]);
    else if (family == "aztec_diamond" && p.size() == 1) g = aztec_diamond_graph(p[0]);
    else if (family == "hypercube_perfect_matchings" && p.size() == 1) g = hypercube_graph(p[0]);
    else if (family == "torus_perfect_matchings" && p.size() == 2) g = torus_graph(p[0], p[1]);
    else if (family.starts_with("torus C_2k") && p.size() == 1) g = torus_graph(p[0], p[0]);
    else if (family.starts_with("C_4 x C_n") && p.size() == 1) g = torus_graph(4, p[0]);
    else if (family.starts_with("prism") && p.size() == 1) g = prism_graph(p[0]);
    else if (family.starts_with("derangements") && p.size() == 1) m = complete_loopless_digraph(p[0]);
    else if (family.starts_with("perm(J_n)") && p.size() == 1) m = complete_bipartite(p[0]);
    else if (family.starts_with("perm(tridiagonal") && p.size() == 1) m = band_matrix(p[0], 1);
    else if (family.starts_with("perm(|i-j|<=2") && p.size() == 1) m = band_matrix(p[0], 2);
    else continue;  // families that are not generators here (menage, circulant)
    if (g) {
      EXPECT_EQ(Integer(static_cast<unsigned long>(graph_matchings(*g))), want);
      if (g->vertices <= 128 && is_bipartite(*g)) {
        const auto b = biadjacency(*g);
        if (b.rows == b.cols) { EXPECT_EQ(permanent(b), want); }
      }
    } else {
      EXPECT_EQ(permanent(*m), want);
    }
    ++checked;
  }
  EXPECT_GT(checked, 150);
}
