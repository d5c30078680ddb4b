// All matchings (count_matchings, matching_polynomial; src/pipeline/matchings.cpp): paths give
// Fibonacci numbers, cycles Lucas numbers, K_n the telephone numbers and its polynomial the
// Hermite coefficients; grids OEIS A028420; C60's Hosoya index; brute-force enumeration on random
// weighted graphs; m_1 the edges and m_{n/2} the perfect matchings; the refusals.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "core/tuning.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/matchings.hpp"
#include "matchings_support.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using matchtest::brute_sizes;
using matchtest::of;
using matchtest::polynomial;


Integer total(const SparseMatrix<Integer>& a, long y = 1) {
  PermanentValue w;
  w.value = Integer(y);
  return std::get<Integer>(count_matchings(a, w).value);
}

/// Sum over all matchings of prod w_e * y^(unmatched), by enumeration: the lowest unmatched
/// vertex is a monomer or matched to a later unmatched neighbour.
Integer brute_matchings(int n, const std::vector<std::vector<long>>& w, long y, std::vector<bool>& used, std::vector<Integer>* by_size = nullptr,
              int size = 0) {
  int v = 0;
  while (v < n && used[static_cast<std::size_t>(v)]) ++v;
  if (v == n) {
    if (by_size) (*by_size)[static_cast<std::size_t>(size)] += 1;
    return 1;
  }
  used[static_cast<std::size_t>(v)] = true;
  Integer s = Integer(y) * brute_matchings(n, w, y, used, nullptr, size);
  for (int u = v + 1; u < n; ++u)
    if (!used[static_cast<std::size_t>(u)] && w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)] != 0) {
      used[static_cast<std::size_t>(u)] = true;
      s += Integer(w[static_cast<std::size_t>(v)][static_cast<std::size_t>(u)]) * brute_matchings(n, w, y, used, nullptr, size + 1);
      used[static_cast<std::size_t>(u)] = false;
    }
  used[static_cast<std::size_t>(v)] = false;
  return s;
}

TEST(Matchings, PathsCyclesAndCompleteGraphs) {
  // Paths P_n: Fibonacci F_{n+1}; cycles C_n: Lucas L_n.
  Integer f0 = 1, f1 = 1;  // F_1, F_2
  for (int n = 1; n <= 30; ++n) {
    std::vector<std::pair<int, int>> e;
    for (int i = 0; i + 1 < n; ++i) e.emplace_back(i, i + 1);
    EXPECT_EQ(total(test::weighted_adjacency(n, e)), f1) << "P_" << n;
    const Integer f2 = f0 + f1;
    f0 = f1, f1 = f2;
  }
  Integer l0 = 2, l1 = 1;  // L_0, L_1
  for (int n = 2; n <= 30; ++n) {
    const Integer l2 = l0 + l1;
    l0 = l1, l1 = l2;
    if (n < 3) continue;
    std::vector<std::pair<int, int>> e;
    for (int i = 0; i < n; ++i) e.emplace_back(i, (i + 1) % n);
    EXPECT_EQ(total(test::weighted_adjacency(n, e)), l1) << "C_" << n;
  }
  // K_n: telephone numbers; m_k = n! / (k! (n - 2k)! 2^k).
  const long telephone[] = {1, 1, 2, 4, 10, 26, 76, 232, 764, 2620, 9496, 35696, 140152};
  for (int n = 1; n <= 12; ++n) {
    std::vector<std::pair<int, int>> e;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) e.emplace_back(i, j);
    const SparseMatrix<Integer> a = test::weighted_adjacency(n, e);
    EXPECT_EQ(total(a), Integer(telephone[n])) << "K_" << n;
    const std::vector<Integer> p = polynomial(a);
    ASSERT_EQ(p.size(), static_cast<std::size_t>(n / 2 + 1));
    for (int k = 0; k <= n / 2; ++k) {
      Integer want;
      mpz_fac_ui(want.get_mpz_t(), static_cast<unsigned long>(n));
      Integer d1, d2;
      mpz_fac_ui(d1.get_mpz_t(), static_cast<unsigned long>(k));
      mpz_fac_ui(d2.get_mpz_t(), static_cast<unsigned long>(n - 2 * k));
      want /= d1 * d2 * (Integer(1) << k);
      EXPECT_EQ(p[static_cast<std::size_t>(k)], want) << "K_" << n << " m_" << k;
    }
  }
}

TEST(Matchings, GridsC60AndTheIdentities) {
  // OEIS A028420: all matchings of the n x n grid.
  const char* a028420[] = {"1", "7", "131", "10012", "2810694", "2989126727", "11945257052321",
                           "179788343101980135", "10185111919160666118608", "2172138783673094193937750015"};
  for (int n = 1; n <= 10; ++n) EXPECT_EQ(total(of(grid_graph(n, n))), Integer(a028420[n - 1])) << n;
  // OEIS A045310: all matchings of the hypercube Q_d (Q_1 .. Q_4 also by enumeration here).
  const char* a045310[] = {"2", "7", "108", "41025", "13803794944", "7174574164703330195841"};
  for (int d = 1; d <= 6; ++d) EXPECT_EQ(total(of(hypercube_graph(d))), Integer(a045310[d - 1])) << d;
  // C60's Hosoya index (Hosoya 1986), its 90 edges and 12500 perfect matchings.
  const SparseMatrix<Integer> c60 = of(c60_graph());
  EXPECT_EQ(total(c60), Integer("1417036634543488"));
  const std::vector<Integer> p = polynomial(c60);
  ASSERT_EQ(p.size(), 31u);
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1], 90);
  EXPECT_EQ(p[30], 12500);
  Integer sum = 0;
  for (const auto& x : p) sum += x;
  EXPECT_EQ(sum, Integer("1417036634543488"));
}

TEST(Matchings, RandomWeightedGraphsAgainstEnumeration) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 10);
    std::vector<std::vector<long>> w(static_cast<std::size_t>(n), std::vector<long>(static_cast<std::size_t>(n), 0));
    std::vector<std::pair<int, int>> e;
    std::vector<long> ew;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 2) {
          const long x = static_cast<long>(rng() % 7) - 3;
          if (x == 0) continue;
          w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = x;
          e.emplace_back(i, j), ew.push_back(x);
        }
    const SparseMatrix<Integer> a = test::weighted_adjacency(n, e, ew);
    const long y = static_cast<long>(rng() % 5) - 2;
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    EXPECT_EQ(total(a, y), brute_matchings(n, w, y, used)) << "trial " << trial << " y " << y;
    std::vector<Integer> sizes(static_cast<std::size_t>(n / 2 + 1), 0);
    brute_sizes(n, w, used, 1, 0, sizes);
    EXPECT_EQ(polynomial(a), sizes) << "trial " << trial;
    // Both ways of the pipeline, and the frontier DP of polynomials alone.
    for (int way : {1, 2}) {
      tuning::Tuning t = tuning::tuning();
      t.matching_polynomial = way;
      const tuning::ScopedTuning scoped(t);
      EXPECT_EQ(polynomial(a), sizes) << "trial " << trial << " way " << way;
    }
    EXPECT_EQ(engines::graph_frontier_matching_polynomial(a, {}), sizes) << "trial " << trial;
  }
}

// The DP of polynomials on graphs wider than the enumeration reaches: against the interpolation
// over loop hafnians, weighted (both signs) and on grids, where m_(n/2) is the tiling count.
TEST(Matchings, FrontierPolynomialAgreesWithInterpolation) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 12 + static_cast<int>(rng() % 10);
    std::vector<std::pair<int, int>> e;
    std::vector<long> ew;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 4 == 0 || j == i + 1) {
          const long x = trial % 2 ? static_cast<long>(rng() % 9) - 4 : 1;
          if (x != 0) e.emplace_back(i, j), ew.push_back(x);
        }
    const SparseMatrix<Integer> a = test::weighted_adjacency(n, e, ew);
    tuning::Tuning t = tuning::tuning();
    t.matching_polynomial = 2;
    const tuning::ScopedTuning scoped(t);
    EXPECT_EQ(engines::graph_frontier_matching_polynomial(a, {}), polynomial(a)) << "trial " << trial;
  }
  const auto p = engines::graph_frontier_matching_polynomial(of(grid_graph(6, 7)), {});
  ASSERT_EQ(p.size(), 22u);
  EXPECT_EQ(p[1], 71);    // the grid's edges
  EXPECT_EQ(p[21], 31529);  // domino tilings of 6 x 7
}

TEST(Matchings, RationalAndFloatWeightsAndRefusals) {
  // A triangle with weights 1/2: 1 + 3/2; with y = 0.5 in floats: 0.125 + 3 * 0.5 * 0.5.
  SparseMatrix<Rational> t{3, 3, {}};
  for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {0, 2}})
    t.entries.push_back({i, j, Rational(1, 2)}), t.entries.push_back({j, i, Rational(1, 2)});
  t.normalize();
  PermanentValue one;
  one.value = Integer(1);
  EXPECT_EQ(std::get<Rational>(count_matchings(t, one).value), Rational(5, 2));
  const auto p = matching_polynomial(t);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(std::get<Rational>(p[1].value), Rational(3, 2));
  PermanentValue half;
  half.value = 0.5;
  const PermanentValue f = count_matchings(t, half);
  EXPECT_NEAR(std::get<double>(f.value), 0.125 + 0.75, 1e-15);
  // A self-loop, a subnormal weight and a non-square matrix are refused.
  SparseMatrix<Integer> loop{2, 2, {{0, 0, Integer(1)}, {0, 1, Integer(1)}, {1, 0, Integer(1)}}};
  EXPECT_THROW(count_matchings(loop, one), std::invalid_argument);
  SparseMatrix<Complex> cx{2, 2, {{0, 1, Complex(0.5, 1)}, {1, 0, Complex(0.5, 1)}}};
  const auto c = matching_polynomial(cx);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(std::get<Complex>(c[1].value), Complex(0.5, 1));
  SparseMatrix<double> sub{2, 2, {{0, 1, 1e-310}, {1, 0, 1e-310}}};
  EXPECT_THROW(matching_polynomial(sub), RefusedError);
  SparseMatrix<Integer> rect{2, 3, {{0, 1, Integer(1)}}};
  EXPECT_THROW(count_matchings(rect, one), std::invalid_argument);
}

// Complex weights (Gaussian integers over powers of two, so the polynomial of the doubles is
// known exactly): every coefficient within its bound of the enumeration's, on random graphs.
TEST(Matchings, ComplexPolynomialsAgainstEnumeration) {
  std::mt19937_64 rng(37);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 9);
    const int shift = static_cast<int>(rng() % 4);  // weights (x + iy) / 2^shift
    std::vector<std::vector<std::pair<long, long>>> w(static_cast<std::size_t>(n),
                                                       std::vector<std::pair<long, long>>(static_cast<std::size_t>(n), {0, 0}));
    SparseMatrix<Complex> a{n, n, {}};
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng() % 2) {
          const long x = static_cast<long>(rng() % 9) - 4, y = static_cast<long>(rng() % 9) - 4;
          if (x == 0 && y == 0) continue;
          w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = {x, y};
          const Complex z(std::ldexp(double(x), -shift), std::ldexp(double(y), -shift));
          a.entries.push_back({i, j, z}), a.entries.push_back({j, i, z});
        }
    a.normalize();
    // m_k by enumeration in Gaussian integers (times 2^(shift k)).
    std::vector<std::pair<Integer, Integer>> m(static_cast<std::size_t>(n / 2 + 1), {Integer(0), Integer(0)});
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    std::function<void(int, Integer, Integer, int)> rec = [&](int from, Integer re, Integer im, int k) {
      m[static_cast<std::size_t>(k)].first += re, m[static_cast<std::size_t>(k)].second += im;
      for (int u = from; u < n; ++u) {
        if (used[static_cast<std::size_t>(u)]) continue;
        used[static_cast<std::size_t>(u)] = true;
        for (int v = u + 1; v < n; ++v) {
          const auto [x, y] = w[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)];
          if (used[static_cast<std::size_t>(v)] || (x == 0 && y == 0)) continue;
          used[static_cast<std::size_t>(v)] = true;
          rec(u + 1, re * x - im * y, re * y + im * x, k + 1);
          used[static_cast<std::size_t>(v)] = false;
        }
        used[static_cast<std::size_t>(u)] = false;
      }
    };
    rec(0, Integer(1), Integer(0), 0);
    const auto got = matching_polynomial(a);
    ASSERT_EQ(got.size(), m.size());
    for (std::size_t k = 0; k < m.size(); ++k) {
      const double scale = std::ldexp(1.0, -shift * static_cast<int>(k));
      const Complex want(m[k].first.get_d() * scale, m[k].second.get_d() * scale);
      const Complex z = std::get<Complex>(got[k].value);
      EXPECT_LE(std::abs(z - want), got[k].abs_error + 1e-300) << "trial " << trial << " k " << k;
      EXPECT_LE(got[k].abs_error, 1e-13 * (1 + std::abs(want)) * std::pow(8.0, double(k))) << "trial " << trial;
    }
  }
}

TEST(Matchings, FloatPolynomialsWithinTheirBoundsOfTheDecimals) {
  // Random graphs whose weights are decimals (signed, of mixed magnitudes, so that the
  // coefficients cancel): the float polynomial of their doubles against the exact polynomial of
  // the decimals themselves, each coefficient within its printed bound.
  std::mt19937_64 rng(71);
  std::uniform_int_distribution<int> digits(-999, 999), scale(-6, 6), coin(0, 2);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 4 + trial % 7;
    SparseMatrix<Rational> decimal{n, n, {}};
    SparseMatrix<double> floats{n, n, {}};
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) {
        if (coin(rng) == 0) continue;
        const int d = digits(rng), e = scale(rng);
        if (d == 0) continue;
        const int p = e - 3;  // the weight d 10^p
        Integer ten;
        mpz_ui_pow_ui(ten.get_mpz_t(), 10, static_cast<unsigned long>(std::abs(p)));
        Rational q = p >= 0 ? Rational(Integer(d) * ten) : Rational(Integer(d), ten);
        q.canonicalize();
        const double x = std::stod(std::to_string(d) + "e" + std::to_string(e - 3));  // the reader's rounding
        for (auto [r, c] : {std::pair{i, j}, std::pair{j, i}}) decimal.entries.push_back({r, c, q}), floats.entries.push_back({r, c, x});
      }
    decimal.normalize(), floats.normalize();
    SparseMatrix<Rational> moduli = decimal;
    for (auto& e : moduli.entries) e.value = abs(e.value);
    const std::vector<PermanentValue> want = matching_polynomial(decimal), got = matching_polynomial(floats),
                                      sizes = matching_polynomial(moduli);
    ASSERT_EQ(want.size(), got.size());
    const auto exact = [](const PermanentValue& v) {
      return v.value.index() == 0 ? Rational(std::get<Integer>(v.value)) : std::get<Rational>(v.value);
    };
    for (std::size_t k = 0; k < got.size(); ++k) {
      const Rational diff = abs(exact(want[k]) - Rational(std::get<double>(got[k].value)));
      EXPECT_LE(diff, Rational(got[k].abs_error)) << "trial " << trial << " k " << k;
      // Not loose: within (k + 3) u of the sum of |terms|, however far the terms cancel.
      EXPECT_LE(got[k].abs_error, (double(k) + 3) * 1.2e-16 * exact(sizes[k]).get_d() + 1e-300) << "trial " << trial << " k " << k;
    }
  }
}

TEST(Matchings, CommandLine) {
  // Complex weights: the polynomial of a matrix's bipartite graph (its 8 entries), with a note.
  const std::string cx = test::temp_file("%%MatrixMarket matrix coordinate complex symmetric\n4 4 4\n2 1 1 2\n3 2 3 -1\n"
                                         "4 3 1 0\n4 1 0 2\n", ".mtx");
  const auto c = test::run_matchcount("--matchings --polynomial '" + cx + "'");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "0 1+0i\n1 10+6i\n2 22+46i\n3 -18+98i\n4 -55+48i\n");
  EXPECT_NE(c.err.find("polynomial_errors"), std::string::npos) << c.err;
  // C60 as an edge list: its Hosoya index, and the polynomial one 'k m_k' a line.
  std::string text;
  const EdgeList c60 = c60_graph();
  for (auto [u, v] : c60.edges) text += std::to_string(u + 1) + " " + std::to_string(v + 1) + "\n";
  const std::string file = test::temp_file(text, ".edges");
  auto r = test::run_matchcount("--matchings --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1417036634543488\n");
  r = test::run_matchcount("--matchings --polynomial --as graph '" + file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 16), "0 1\n1 90\n2 3825\n");
  EXPECT_NE(r.out.find("\n30 12500\n"), std::string::npos) << r.out;
  // The path a-b-c with monomer weight y: y^3 + 2y; a matrix counts partial permutations.
  const std::string p3 = test::temp_file("a b\nb c\n", ".edges");
  EXPECT_EQ(test::run_matchcount("--matchings --monomer-weight 2 --as graph '" + p3 + "'").out, "12\n");
  EXPECT_EQ(test::run_matchcount("--matchings --monomer-weight 1/2 --as graph '" + p3 + "'").out, "9/8\n");
  EXPECT_EQ(test::run_matchcount("--matchings --monomer-weight 0.5 --exact --as graph '" + p3 + "'").out, "9/8\n");
  // A line of one name is a vertex without edges: a monomer in every matching (y^4 + 2 y^2 for
  // the path and vertex d), no perfect matching; a file of such lines alone has one matching.
  const std::string p3d = test::temp_file("a b\nb c\nd\n", ".edges");
  EXPECT_EQ(test::run_matchcount("--matchings --monomer-weight 2 --as graph '" + p3d + "'").out, "24\n");
  EXPECT_EQ(test::run_matchcount("--matchings --polynomial --as graph '" + p3d + "'").out, "0 1\n1 2\n2 0\n");
  r = test::run_matchcount("--as graph '" + p3d + "'");
  EXPECT_EQ(r.out, "0\n");
  EXPECT_NE(r.err.find("vertex d has no edge"), std::string::npos) << r.err;
  EXPECT_EQ(test::run_matchcount("--matchings --monomer-weight 3 --as graph '" + test::temp_file("u\nv\n", ".edges") + "'").out,
            "9\n");
  // --log: the natural logarithm of the total (the 8 x 8 grid's 179788343101980135).
  std::string grid;
  for (int v = 0; v < 64; ++v) {
    if (v % 8 < 7) grid += std::to_string(v) + " " + std::to_string(v + 1) + "\n";
    if (v < 56) grid += std::to_string(v) + " " + std::to_string(v + 8) + "\n";
  }
  r = test::run_matchcount("--matchings --log --as graph '" + test::temp_file(grid, ".edges") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), std::log(179788343101980135.0), 1e-12);
  const std::string j2 = test::temp_file("%%MatrixMarket matrix array integer general\n2 2\n1\n1\n1\n1\n", ".mtx");
  EXPECT_EQ(test::run_matchcount("--matchings --polynomial '" + j2 + "'").out, "0 1\n1 4\n2 2\n");
  // Usage errors: exit 2, nothing on stdout.
  for (const std::string bad : {"--polynomial", "--monomer-weight 2", "--matchings --polynomial --monomer-weight 2",
                                "--matchings --hafnian", "--matchings --torontonian", "--matchings --estimate",
                                "--matchings --reps 1,1,1", "--matchings --polynomial --log", "--matchings --monomer-weight abc",
                                "--matchings --explain", "--matchings --as digraph"}) {
    r = test::run_matchcount(bad + (bad.find("--as") == std::string::npos ? " --as graph '" : " '") + p3 + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << bad << ": " << r.out;
  }
}

}  // namespace
}  // namespace matchcount
