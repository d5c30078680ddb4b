// Edge probabilities of planar graphs from selected inverses (kasteleyn_edge_probabilities for
// bipartite graphs, pfaffian_edge_probabilities for any planar graph): against exact
// enumeration of the perfect matchings (in integers, compared exactly with the estimated
// errors), against Kenyon's closed form for grids, and their refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "engines/kasteleyn/kasteleyn_inverse.hpp"
#include "engines/pfaffian/pfaffian_inverse.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount {
namespace {

using engines::kasteleyn_edge_probabilities;
using engines::pfaffian_edge_probabilities;
using engines::PlanarEdgeProbabilities;

constexpr double kBytes = 1e9;

/// A graph on vertices 0..n-1 with integer edge weights W (the real weight is W / 2^shift) and
/// a vertex colour (for bipartite graphs: 0 black, 1 white).
struct Graph {
  int n = 0;
  std::vector<std::pair<int, int>> edges;
  std::vector<long> weight;
  std::vector<int> colour;
  int shift = 0;
  double real_weight(std::size_t e) const { return std::ldexp(double(weight[e]), -shift); }
};

/// Lattice pieces on an m x k grid of cells: the square grid, bricks (every other vertical
/// edge: a honeycomb) or triangles (a diagonal in every square; not bipartite). Each vertex is
/// removed with probability `hole`, each edge with probability `drop`; bipartite pieces get
/// equal classes by removing vertices of the larger one. Weights k 2^e / 2^(10 + emax), k in
/// [512, 1535], e in [0, 2 emax]: exact in double, random over 2^(2 emax + 2).
enum class Lattice { Square, Brick, Triangle };
Graph random_lattice(std::mt19937_64& rng, int m, int k, Lattice kind, double hole, double drop, int emax) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<char> kept(std::size_t(m * k));
  for (auto& v : kept) v = u(rng) >= hole;
  auto cls = [&](int v) { return (v / k + v % k) % 2; };
  for (;;) {
    std::vector<int> of[2];
    for (int v = 0; v < m * k; ++v)
      if (kept[std::size_t(v)]) of[kind == Lattice::Triangle ? 0 : cls(v)].push_back(v);
    if (kind == Lattice::Triangle ? of[0].size() % 2 == 0 : of[0].size() == of[1].size()) break;
    auto& big = of[0].size() >= of[1].size() ? of[0] : of[1];
    kept[std::size_t(big[rng() % big.size()])] = 0;
  }
  Graph g;
  g.shift = 10 + emax;
  std::vector<int> index(std::size_t(m * k), -1);
  for (int v = 0; v < m * k; ++v)
    if (kept[std::size_t(v)]) index[std::size_t(v)] = g.n++, g.colour.push_back(cls(v));
  auto edge = [&](int v, int w) {
    if (!kept[std::size_t(v)] || !kept[std::size_t(w)] || u(rng) < drop) return;
    g.edges.emplace_back(index[std::size_t(v)], index[std::size_t(w)]);
    g.weight.push_back(long(512 + rng() % 1024) << (emax > 0 ? rng() % std::uint64_t(2 * emax + 1) : 0));
  };
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < k; ++c) {
      const int v = r * k + c;
      if (c + 1 < k) edge(v, v + 1);
      if (r + 1 < m && (kind != Lattice::Brick || (r + c) % 2 == 0)) edge(v, v + k);
      if (r + 1 < m && c + 1 < k && kind == Lattice::Triangle) edge(v, v + k + 1);
    }
  return g;
}

/// The m x n grid with unit weights; vertex (x, y), x < m, y < n, is x n + y.
Graph grid_of(int m, int n) {
  Graph g;
  g.n = m * n;
  for (int x = 0; x < m; ++x)
    for (int y = 0; y < n; ++y) {
      g.colour.push_back((x + y) % 2);
      if (x + 1 < m) g.edges.emplace_back(x * n + y, (x + 1) * n + y), g.weight.push_back(1);
      if (y + 1 < n) g.edges.emplace_back(x * n + y, x * n + y + 1), g.weight.push_back(1);
    }
  return g;
}

/// Every edge's probability exactly, by enumerating the perfect matchings (empty when there
/// are none): sum over matchings with the edge of their weight, over the sum over all.
std::vector<Rational> exact_probabilities(const Graph& g) {
  std::vector<std::vector<std::pair<int, std::size_t>>> adj(std::size_t(g.n));
  for (std::size_t e = 0; e < g.edges.size(); ++e)
    adj[std::size_t(g.edges[e].first)].push_back({g.edges[e].second, e}),
        adj[std::size_t(g.edges[e].second)].push_back({g.edges[e].first, e});
  std::vector<Integer> with(g.edges.size(), 0);
  Integer total = 0;
  std::vector<char> used(std::size_t(g.n), 0);
  std::vector<std::size_t> chosen;
  auto walk = [&](auto&& self, int from, const Integer& product) -> void {
    int v = from;
    while (v < g.n && used[std::size_t(v)]) ++v;
    if (v == g.n) {
      total += product;
      for (std::size_t e : chosen) with[e] += product;
      return;
    }
    used[std::size_t(v)] = 1;
    for (auto [w, e] : adj[std::size_t(v)])
      if (!used[std::size_t(w)]) {
        used[std::size_t(w)] = 1, chosen.push_back(e);
        self(self, v + 1, Integer(product * g.weight[e]));
        used[std::size_t(w)] = 0, chosen.pop_back();
      }
    used[std::size_t(v)] = 0;
  };
  walk(walk, 0, Integer(1));
  if (total == 0) return {};
  std::vector<Rational> p;
  for (const Integer& x : with) p.emplace_back(x, total), p.back().canonicalize();
  return p;
}

/// The biadjacency matrix (rows: colour 0, columns: colour 1, each class in a random order,
/// entries shuffled) and the edge of each entry.
SparseMatrix<double> biadjacency(const Graph& g, std::mt19937_64& rng, std::vector<std::size_t>& edge_of) {
  std::vector<int> index(std::size_t(g.n));
  int count[2] = {0, 0};
  for (int v = 0; v < g.n; ++v) index[std::size_t(v)] = count[g.colour[std::size_t(v)]]++;
  std::vector<int> perm[2];
  for (int c : {0, 1}) {
    perm[c].resize(std::size_t(count[c]));
    std::iota(perm[c].begin(), perm[c].end(), 0);
    std::shuffle(perm[c].begin(), perm[c].end(), rng);
  }
  SparseMatrix<double> a;
  a.rows = count[0], a.cols = count[1];
  edge_of.resize(g.edges.size());
  std::iota(edge_of.begin(), edge_of.end(), 0);
  std::shuffle(edge_of.begin(), edge_of.end(), rng);
  for (std::size_t e : edge_of) {
    auto [b, w] = g.edges[e];
    if (g.colour[std::size_t(b)]) std::swap(b, w);
    a.entries.push_back({perm[0][std::size_t(index[std::size_t(b)])], perm[1][std::size_t(index[std::size_t(w)])], g.real_weight(e)});
  }
  return a;
}

/// The adjacency matrix with the vertices renumbered at random and each edge stored as (u, v),
/// (v, u) or both, at random; the edge of each entry.
SparseMatrix<double> adjacency(const Graph& g, std::mt19937_64& rng, std::vector<std::size_t>& edge_of) {
  std::vector<int> perm(std::size_t(g.n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  SparseMatrix<double> a;
  a.rows = a.cols = g.n;
  edge_of.clear();
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const int u = perm[std::size_t(g.edges[e].first)], v = perm[std::size_t(g.edges[e].second)];
    const auto how = rng() % 3;
    if (how != 1) a.entries.push_back({u, v, g.real_weight(e)}), edge_of.push_back(e);
    if (how != 0) a.entries.push_back({v, u, g.real_weight(e)}), edge_of.push_back(e);
  }
  return a;
}

/// Every entry within its estimated error of the exact value (compared exactly), and every
/// vertex's probabilities summing to 1 within their errors; returns max |p - exact| / error.
double check_honest(const PlanarEdgeProbabilities& r, const std::vector<Rational>& exact,
                    const std::vector<std::size_t>& edge_of, const Graph& g) {
  EXPECT_TRUE(r.ok) << r.why;
  if (!r.ok) return 0;
  EXPECT_TRUE(r.error_estimated);
  double worst = 0;
  std::vector<double> sum(std::size_t(g.n), 0.0), allow(std::size_t(g.n), 0.0);
  std::vector<char> seen(g.edges.size(), 0);
  for (std::size_t k = 0; k < edge_of.size(); ++k) {
    const std::size_t e = edge_of[k];
    const Rational miss = abs(Rational(r.p[k]) - exact[e]);
    EXPECT_LE(miss, Rational(r.abs_error[k])) << "entry " << k << ": p " << r.p[k] << ", exact " << exact[e].get_d()
                                              << ", error estimate " << r.abs_error[k];
    if (r.abs_error[k] > 0) worst = std::max(worst, miss.get_d() / r.abs_error[k]);
    if (seen[e]++) continue;
    for (int v : {g.edges[e].first, g.edges[e].second}) sum[std::size_t(v)] += r.p[k], allow[std::size_t(v)] += r.abs_error[k];
  }
  for (int v = 0; v < g.n; ++v) EXPECT_NEAR(sum[std::size_t(v)], 1.0, allow[std::size_t(v)] + 1e-15) << "vertex " << v;
  return worst;
}

TEST(PlanarMarginals, BipartiteRandomAgainstEnumeration) {
  std::mt19937_64 rng(20240611);
  double worst = 0;
  int graphs = 0;
  for (int t = 0; graphs < 160; ++t) {
    const Lattice kind = t % 2 ? Lattice::Brick : Lattice::Square;
    const int emax = std::array<int, 3>{0, 3, 7}[std::size_t(t % 3)];
    Graph g = random_lattice(rng, 2 + int(rng() % 5), 2 + int(rng() % 5), kind, 0.1 * double(rng() % 3), 0.08 * double(rng() % 3), emax);
    const std::vector<Rational> exact = exact_probabilities(g);
    if (exact.empty() || g.n == 0) continue;
    ++graphs;
    std::vector<std::size_t> edge_of;
    const SparseMatrix<double> a = biadjacency(g, rng, edge_of);
    const PlanarEdgeProbabilities r = kasteleyn_edge_probabilities(a, kBytes);
    worst = std::max(worst, check_honest(r, exact, edge_of, g));
    // Weights within a factor 4 of each other: the estimate itself is small.
    if (emax == 0 && r.ok) {
      for (double err : r.abs_error) EXPECT_LT(err, 1e-10);
    }
  }
  EXPECT_LT(worst, 1.0);
  RecordProperty("worst_error_over_estimate", std::to_string(worst));
}

TEST(PlanarMarginals, GeneralRandomAgainstEnumeration) {
  std::mt19937_64 rng(7);
  double worst = 0;
  int graphs = 0;
  for (int t = 0; graphs < 120; ++t) {
    const int emax = std::array<int, 3>{0, 3, 7}[std::size_t(t % 3)];
    const Lattice kind = t % 4 == 3 ? Lattice::Brick : Lattice::Triangle;
    Graph g = random_lattice(rng, 2 + int(rng() % 4), 2 + int(rng() % 5), kind, 0.1 * double(rng() % 2), 0.12 * double(rng() % 3), emax);
    if (g.n > 24) continue;
    const std::vector<Rational> exact = exact_probabilities(g);
    if (exact.empty() || g.n == 0) continue;
    ++graphs;
    std::vector<std::size_t> edge_of;
    const SparseMatrix<double> a = adjacency(g, rng, edge_of);
    const PlanarEdgeProbabilities r = pfaffian_edge_probabilities(a, kBytes);
    worst = std::max(worst, check_honest(r, exact, edge_of, g));
    if (emax == 0 && r.ok) {
      for (double err : r.abs_error) EXPECT_LT(err, 1e-10);
    }
  }
  EXPECT_LT(worst, 1.0);
}

TEST(PlanarMarginals, Grid6x6AgainstEnumeration) {
  const Graph g = grid_of(6, 6);
  const std::vector<Rational> exact = exact_probabilities(g);
  ASSERT_FALSE(exact.empty());
  std::mt19937_64 rng(3);
  std::vector<std::size_t> edge_of;
  const PlanarEdgeProbabilities k = kasteleyn_edge_probabilities(biadjacency(g, rng, edge_of), kBytes);
  check_honest(k, exact, edge_of, g);
  for (double err : k.abs_error) EXPECT_LT(err, 1e-12);
  const PlanarEdgeProbabilities p = pfaffian_edge_probabilities(adjacency(g, rng, edge_of), kBytes);
  check_honest(p, exact, edge_of, g);
  for (double err : p.abs_error) EXPECT_LT(err, 1e-12);
}

/// Kenyon's inverse of the m x n grid's Kasteleyn matrix with weight 1 on edges along x and i
/// along y (1-based coordinates): the full symmetric matrix on all vertices is
/// A_m (x) I + i I (x) A_n, diagonalised by products of sine vectors.
struct KenyonGrid {
  int m, n;
  std::vector<long double> sx, sy;               // sx[j (m + 2) + x] = sin(pi j x / (m + 1))
  std::vector<std::complex<long double>> inv;    // 1 / eigenvalue(j, k)
  KenyonGrid(int m_, int n_) : m(m_), n(n_), sx(std::size_t((m + 1) * (m + 2))), sy(std::size_t((n + 1) * (n + 2))) {
    const long double pi = std::acos(-1.0L);
    for (int j = 1; j <= m; ++j)
      for (int x = 0; x <= m + 1; ++x) sx[std::size_t(j * (m + 2) + x)] = std::sin(pi * j * x / (m + 1));
    for (int k = 1; k <= n; ++k)
      for (int y = 0; y <= n + 1; ++y) sy[std::size_t(k * (n + 2) + y)] = std::sin(pi * k * y / (n + 1));
    for (int j = 1; j <= m; ++j)
      for (int k = 1; k <= n; ++k)
        inv.push_back(1.0L / std::complex<long double>(2 * std::cos(pi * j / (m + 1)), 2 * std::cos(pi * k / (n + 1))));
  }
  std::complex<long double> operator()(int x1, int y1, int x2, int y2) const {
    std::complex<long double> s = 0;
    for (int j = 1; j <= m; ++j) {
      const long double a = sx[std::size_t(j * (m + 2) + x1)] * sx[std::size_t(j * (m + 2) + x2)];
      for (int k = 1; k <= n; ++k)
        s += a * sy[std::size_t(k * (n + 2) + y1)] * sy[std::size_t(k * (n + 2) + y2)] * inv[std::size_t((j - 1) * n + k - 1)];
    }
    return s * (4.0L / ((m + 1) * (n + 1)));
  }
};

TEST(PlanarMarginals, KenyonClosedFormIsTheInverse) {
  // The 4 x 4 grid: K (rows black, columns white; 1 along x, i along y) inverted densely.
  const int m = 4, n = 4;
  std::vector<std::pair<int, int>> black, white;
  for (int x = 1; x <= m; ++x)
    for (int y = 1; y <= n; ++y) ((x + y) % 2 ? white : black).emplace_back(x, y);
  const std::size_t h = black.size();
  using C = std::complex<long double>;
  std::vector<C> k(h * h, 0), inv(h * h, 0);
  for (std::size_t b = 0; b < h; ++b)
    for (std::size_t w = 0; w < h; ++w) {
      const int dx = std::abs(black[b].first - white[w].first), dy = std::abs(black[b].second - white[w].second);
      if (dx + dy == 1) k[b * h + w] = dx ? C(1) : C(0, 1);
    }
  for (std::size_t i = 0; i < h; ++i) inv[i * h + i] = 1;
  for (std::size_t c = 0; c < h; ++c) {  // Gauss-Jordan with partial pivoting: inv = K^-1
    std::size_t p = c;
    for (std::size_t r = c + 1; r < h; ++r)
      if (std::abs(k[r * h + c]) > std::abs(k[p * h + c])) p = r;
    for (std::size_t j = 0; j < h; ++j) std::swap(k[p * h + j], k[c * h + j]), std::swap(inv[p * h + j], inv[c * h + j]);
    const C d = k[c * h + c];
    for (std::size_t j = 0; j < h; ++j) k[c * h + j] /= d, inv[c * h + j] /= d;
    for (std::size_t r = 0; r < h; ++r)
      if (r != c) {
        const C f = k[r * h + c];
        for (std::size_t j = 0; j < h; ++j) k[r * h + j] -= f * k[c * h + j], inv[r * h + j] -= f * inv[c * h + j];
      }
  }
  const KenyonGrid kenyon(m, n);
  for (std::size_t w = 0; w < h; ++w)
    for (std::size_t b = 0; b < h; ++b) {
      const C closed = kenyon(white[w].first, white[w].second, black[b].first, black[b].second);
      EXPECT_LT(std::abs(closed - inv[w * h + b]), 1e-15L) << w << " " << b;
    }
}

/// Every edge of the unit m x n grid against the closed form, for both engines.
void grid_against_closed_form(int m, int n) {
  const Graph g = grid_of(m, n);
  const KenyonGrid kenyon(m, n);
  std::vector<double> exact(g.edges.size());
  for (std::size_t e = 0; e < g.edges.size(); ++e) {
    const auto [u, v] = g.edges[e];
    exact[e] = double(std::abs(kenyon(u / n + 1, u % n + 1, v / n + 1, v % n + 1)));
  }
  std::mt19937_64 rng(5);
  std::vector<std::size_t> edge_of;
  for (bool bipartite : {true, false}) {
    const PlanarEdgeProbabilities r = bipartite ? kasteleyn_edge_probabilities(biadjacency(g, rng, edge_of), kBytes)
                                                : pfaffian_edge_probabilities(adjacency(g, rng, edge_of), kBytes);
    ASSERT_TRUE(r.ok) << r.why;
    double sum = 0;  // each perfect matching has n / 2 edges
    std::vector<char> seen(g.edges.size(), 0);
    for (std::size_t k = 0; k < edge_of.size(); ++k) {
      // The closed form in long double: within 1e-16 of the exact value.
      EXPECT_LE(std::abs(r.p[k] - exact[edge_of[k]]), r.abs_error[k] + 1e-16) << "grid " << m << "x" << n << " entry " << k;
      EXPECT_LT(std::abs(r.p[k] - exact[edge_of[k]]), 1e-13);
      EXPECT_LT(r.abs_error[k], 1e-11);
      if (!seen[edge_of[k]]++) sum += r.p[k];
    }
    EXPECT_NEAR(sum, m * n / 2, 1e-10);
  }
}

TEST(PlanarMarginals, Grid10x10AgainstClosedForm) { grid_against_closed_form(10, 10); }
TEST(PlanarMarginals, Grid30x30AgainstClosedForm) { grid_against_closed_form(30, 30); }
TEST(PlanarMarginals, OddByEvenGridAgainstClosedForm) { grid_against_closed_form(7, 12); }

TEST(PlanarMarginals, DeadEdgesZerosAndLoops) {
  // Two squares joined by an edge that no perfect matching uses, an explicit zero and a loop.
  Graph g;
  g.n = 8;
  g.colour = {0, 1, 0, 1, 0, 1, 0, 1};
  g.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {2, 5}};
  g.weight = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<Rational> exact = exact_probabilities(g);
  std::mt19937_64 rng(1);
  std::vector<std::size_t> edge_of;
  SparseMatrix<double> a = biadjacency(g, rng, edge_of);
  check_honest(kasteleyn_edge_probabilities(a, kBytes), exact, edge_of, g);
  a.entries.push_back({0, 0, 0.0});
  const PlanarEdgeProbabilities r = kasteleyn_edge_probabilities(a, kBytes);
  ASSERT_TRUE(r.ok) << r.why;
  for (std::size_t k = 0; k < edge_of.size(); ++k) {
    if (exact[edge_of[k]] == 0) {
      EXPECT_EQ(r.p[k], 0.0);
      EXPECT_EQ(r.abs_error[k], 0.0);
    }
  }
  EXPECT_EQ(r.p.back(), 0.0);

  SparseMatrix<double> s = adjacency(g, rng, edge_of);
  s.entries.push_back({3, 3, 1.0});  // a loop
  s.entries.push_back({0, 7, 0.0});  // an explicit zero
  const PlanarEdgeProbabilities q = pfaffian_edge_probabilities(s, kBytes);
  ASSERT_TRUE(q.ok) << q.why;
  for (std::size_t k = 0; k < edge_of.size(); ++k) {
    EXPECT_LE(abs(Rational(q.p[k]) - exact[edge_of[k]]), Rational(q.abs_error[k]));
    if (exact[edge_of[k]] == 0) {
      EXPECT_EQ(q.p[k], 0.0);
    }
  }
  EXPECT_EQ(q.p[q.p.size() - 2], 0.0);
  EXPECT_EQ(q.p.back(), 0.0);
}

TEST(PlanarMarginals, Refusals) {
  auto dense = [](int n, std::initializer_list<double> values) {
    SparseMatrix<double> a;
    a.rows = a.cols = n;
    int i = 0;
    for (double v : values) {
      if (v != 0) a.entries.push_back({i / n, i % n, v});
      ++i;
    }
    return a;
  };
  const auto k33 = dense(3, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_NE(kasteleyn_edge_probabilities(k33, kBytes).why.find("not planar"), std::string::npos);
  const auto no_matching = dense(3, {1, 1, 1, 0, 0, 1, 0, 0, 1});
  EXPECT_NE(kasteleyn_edge_probabilities(no_matching, kBytes).why.find("no perfect matching"), std::string::npos);
  const auto fine = dense(2, {1, 2, 3, 4});
  EXPECT_TRUE(kasteleyn_edge_probabilities(fine, kBytes).ok);
  EXPECT_NE(kasteleyn_edge_probabilities(fine, 10).why.find("memory"), std::string::npos);
  EXPECT_NE(kasteleyn_edge_probabilities(dense(2, {1, -2, 3, 4}), kBytes).why.find("negative"), std::string::npos);
  SparseMatrix<double> twice = fine;
  twice.entries.push_back({0, 0, 1.0});
  EXPECT_NE(kasteleyn_edge_probabilities(twice, kBytes).why.find("repeated"), std::string::npos);
  SparseMatrix<double> wide = fine;
  wide.cols = 3;
  EXPECT_FALSE(kasteleyn_edge_probabilities(wide, kBytes).ok);

  // K_{3,3} as a general graph: planar no; K4: planar, with perfect matchings.
  SparseMatrix<double> g33;
  g33.rows = g33.cols = 6;
  for (int u = 0; u < 3; ++u)
    for (int v = 3; v < 6; ++v) g33.entries.push_back({u, v, 1.0});
  EXPECT_NE(pfaffian_edge_probabilities(g33, kBytes).why.find("not planar"), std::string::npos);
  SparseMatrix<double> k4;
  k4.rows = k4.cols = 4;
  for (int u = 0; u < 4; ++u)
    for (int v = u + 1; v < 4; ++v) k4.entries.push_back({u, v, 1.0});
  const PlanarEdgeProbabilities r = pfaffian_edge_probabilities(k4, kBytes);
  ASSERT_TRUE(r.ok) << r.why;
  for (std::size_t k = 0; k < r.p.size(); ++k) EXPECT_NEAR(r.p[k], 1.0 / 3, r.abs_error[k]);
  SparseMatrix<double> asym = k4;
  asym.entries.push_back({1, 0, 2.0});
  EXPECT_NE(pfaffian_edge_probabilities(asym, kBytes).why.find("differ"), std::string::npos);
  SparseMatrix<double> path;  // 0 - 1 - 2: odd
  path.rows = path.cols = 3;
  path.entries = {{0, 1, 1.0}, {1, 2, 1.0}};
  EXPECT_NE(pfaffian_edge_probabilities(path, kBytes).why.find("no perfect matching"), std::string::npos);
}

TEST(PlanarMarginals, ExtremeWeightsAreRefusedOrHonest) {
  // Weights over 2^40: the normal equations square a large condition number; what comes
  // back must still be within its estimate.
  std::mt19937_64 rng(99);
  int answered = 0;
  for (int t = 0; t < 40; ++t) {
    Graph g = random_lattice(rng, 3 + int(rng() % 3), 3 + int(rng() % 3), t % 2 ? Lattice::Square : Lattice::Triangle, 0.05, 0.1, 20);
    if (g.n > 20) continue;
    const std::vector<Rational> exact = exact_probabilities(g);
    if (exact.empty()) continue;
    std::vector<std::size_t> edge_of;
    const PlanarEdgeProbabilities r = t % 2 ? kasteleyn_edge_probabilities(biadjacency(g, rng, edge_of), kBytes)
                                            : pfaffian_edge_probabilities(adjacency(g, rng, edge_of), kBytes);
    if (!r.ok) {
      EXPECT_TRUE(r.why.find("ill-conditioned") != std::string::npos || r.why.find("singular") != std::string::npos) << r.why;
      continue;
    }
    ++answered;
    check_honest(r, exact, edge_of, g);
  }
  EXPECT_GT(answered, 0);
}

}  // namespace
}  // namespace matchcount
