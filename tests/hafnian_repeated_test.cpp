// Repeated-row hafnians (count_hafnian_repeated, --reps): against the naive hafnian of the
// expanded matrix, closed forms (all-ones matrices, complete multipartite graphs), and the
// command line's refusals of options that do not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engines/hafnian/hafnian_repeated.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// The matrix with row and column i repeated rpt[i] times; with `mu`, its diagonal replaced by
/// the loop weights of each copy.
template <class T>
SparseMatrix<T> expanded(const SparseMatrix<T>& a, const std::vector<std::uint64_t>& rpt, const std::vector<T>* mu) {
  std::vector<int> mode;
  for (std::size_t i = 0; i < rpt.size(); ++i)
    for (std::uint64_t k = 0; k < rpt[i]; ++k) mode.push_back(static_cast<int>(i));
  const int N = static_cast<int>(mode.size());
  const std::vector<T> d = a.dense();
  SparseMatrix<T> e{N, N, {}};
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      T v = i == j && mu ? (*mu)[static_cast<std::size_t>(mode[i])]
                         : d[static_cast<std::size_t>(mode[i]) * static_cast<std::size_t>(a.rows) + static_cast<std::size_t>(mode[j])];
      if (!(v == T(0))) e.entries.push_back({i, j, v});
    }
  return e;
}

template <class T, class Draw>
SparseMatrix<T> random_symmetric_draw(int n, Draw draw) {
  std::vector<T> d(static_cast<std::size_t>(n * n), T(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) d[static_cast<std::size_t>(i * n + j)] = d[static_cast<std::size_t>(j * n + i)] = draw();
  SparseMatrix<T> a{n, n, {}};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!(d[static_cast<std::size_t>(i * n + j)] == T(0))) a.entries.push_back({i, j, d[static_cast<std::size_t>(i * n + j)]});
  return a;
}

std::vector<std::uint64_t> random_pattern(std::mt19937_64& rng, int n, std::uint64_t most_photons) {
  std::vector<std::uint64_t> rpt(static_cast<std::size_t>(n));
  std::uint64_t total = 0;
  for (auto& r : rpt) {
    r = std::uniform_int_distribution<std::uint64_t>(0, 4)(rng);
    if (total + r > most_photons) r = 0;
    total += r;
  }
  return rpt;
}

TEST(HafnianRepeated, IntegersMatchTheExpandedMatrixExactly) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 5);
    const auto a = random_symmetric_draw<Integer>(n, [&] { return Integer(static_cast<long>(rng() % 7) - 3); });
    const auto rpt = random_pattern(rng, n, 12);
    const bool loops = trial % 2;
    std::vector<Integer> mu;
    for (int i = 0; i < n; ++i) mu.push_back(Integer(static_cast<long>(rng() % 5) - 2));
    const bool own_mu = loops && trial % 4 == 1;
    const auto want = test::naive_hafnian(expanded(a, rpt, own_mu ? &mu : nullptr), loops);
    SparseMatrix<Integer> mu_column{n, 1, {}};
    for (int i = 0; i < n; ++i)
      if (mu[static_cast<std::size_t>(i)] != 0) mu_column.entries.push_back({i, 0, mu[static_cast<std::size_t>(i)]});
    const AnyMatrix mu_matrix = mu_column;
    const auto got = count_hafnian_repeated(AnyMatrix(a), rpt, own_mu ? &mu_matrix : nullptr, loops);
    ASSERT_EQ(std::get<Integer>(got.value.value), want) << "trial " << trial;
  }
}

TEST(HafnianRepeated, FloatsAndComplexMatchWithinTheirErrors) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 5);
    const auto rpt = random_pattern(rng, n, 12);
    const bool loops = trial % 3 == 0;
    if (trial % 2) {
      const auto a = random_symmetric_draw<double>(n, [&] { return u(rng); });
      const auto got = count_hafnian_repeated(AnyMatrix(a), rpt, nullptr, loops).value;
      const double want = test::naive_hafnian(expanded<double>(a, rpt, nullptr), loops);
      EXPECT_LE(std::abs(std::get<double>(got.value) - want), got.abs_error + 1e-14 * std::abs(want)) << trial;
    } else {
      const auto a = random_symmetric_draw<Complex>(n, [&] { return Complex(u(rng), u(rng)); });
      const auto got = count_hafnian_repeated(AnyMatrix(a), rpt, nullptr, loops).value;
      const Complex want = test::naive_hafnian(expanded<Complex>(a, rpt, nullptr), loops);
      EXPECT_LE(std::abs(std::get<Complex>(got.value) - want), got.abs_error + 1e-14 * std::abs(want)) << trial;
    }
  }
}

// Kan's moment formula, the choice for few modes with many photons, against the expansion:
// exact for integers, and for floats within its bound (a bound, not an estimate).
TEST(HafnianRepeated, KansFormulaAgreesAndItsFloatBoundHolds) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 4);
    const auto rpt = random_pattern(rng, n, 11);
    const bool loops = trial % 2;
    std::uint64_t N = 0;
    for (auto r : rpt) N += r;
    if (N == 0 || (N % 2 && !loops)) continue;
    const auto a = random_symmetric_draw<Integer>(n, [&] { return Integer(static_cast<long>(rng() % 7) - 3); });
    engines::RepeatedHafnian<Integer> in{n, a.dense(), {}, rpt, loops};
    for (int i = 0; i < n; ++i) in.mu.push_back(Integer(static_cast<long>(rng() % 5) - 2));
    // The expansion's diagonal: a_ii between copies, mu_i as each copy's loop.
    std::vector<Integer> mu = in.mu;
    const auto want = test::naive_hafnian(expanded(a, rpt, loops ? &mu : nullptr), loops);
    ASSERT_EQ(engines::hafnian_kan(in), want) << "trial " << trial;
    ASSERT_EQ(engines::hafnian_rpt_walk(in, {}), want) << "trial " << trial;  // the walk, whatever the choice
    const auto d = random_symmetric_draw<double>(n, [&] { return u(rng); });
    engines::RepeatedHafnian<double> f{n, d.dense(), {}, rpt, loops};
    for (int i = 0; i < n; ++i) f.mu.push_back(u(rng));
    std::vector<double> fmu = f.mu;
    const double fw = test::naive_hafnian(expanded(d, rpt, loops ? &fmu : nullptr), loops);
    const auto got = engines::hafnian_kan(f);
    EXPECT_FALSE(got.estimated);
    EXPECT_LE(std::fabs(got.value - fw), got.abs_error + 1e-15 * std::fabs(fw)) << "trial " << trial;
    const auto walked = engines::hafnian_rpt_walk(f, {});
    EXPECT_LE(std::fabs(walked.value - fw), walked.abs_error + 1e-15 * std::fabs(fw)) << "trial " << trial;
  }
}

TEST(HafnianRepeated, RationalsAreExactFractions) {
  // A = [[1/2, 1/3], [1/3, 1/5]], rpt (2, 2): haf = a00 a11 + 2 a01^2 = 1/10 + 2/9 = 29/90.
  SparseMatrix<Rational> a{2, 2, {}};
  a.entries = {{0, 0, Rational(1, 2)}, {0, 1, Rational(1, 3)}, {1, 0, Rational(1, 3)}, {1, 1, Rational(1, 5)}};
  const auto got = count_hafnian_repeated(AnyMatrix(a), {2, 2}, nullptr, false);
  EXPECT_EQ(std::get<Rational>(got.value.value), Rational(29, 90));
}

// All-ones: every pattern of N photons gives (N - 1)!! perfect matchings, and with loops the
// involutions of N points.
TEST(HafnianRepeated, AllOnesGiveDoubleFactorialsAndInvolutions) {
  SparseMatrix<Integer> ones{5, 5, {}};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) ones.entries.push_back({i, j, Integer(1)});
  const auto got = count_hafnian_repeated(AnyMatrix(ones), {12, 10, 8, 6, 4}, nullptr, false);
  Integer want = 1;
  for (int k = 39; k > 1; k -= 2) want *= k;
  EXPECT_EQ(std::get<Integer>(got.value.value), want);
  std::vector<Integer> inv = {1, 1};  // involutions: t(n) = t(n-1) + (n-1) t(n-2)
  for (int k = 2; k <= 21; ++k) inv.push_back(inv[k - 1] + (k - 1) * inv[k - 2]);
  const auto loops = count_hafnian_repeated(AnyMatrix(ones), {7, 5, 0, 6, 3}, nullptr, true);
  EXPECT_EQ(std::get<Integer>(loops.value.value), inv[21]);
}

// J - I with pattern r: the complete multipartite graph K_{r_1, ..., r_k}, whose perfect
// matchings inclusion-exclusion over the edges inside parts counts:
// sum_j prod_i (-1)^j_i C(r_i, 2 j_i) (2 j_i - 1)!! * (N - 2 sum j - 1)!!.
TEST(HafnianRepeated, CompleteMultipartiteGraphs) {
  const auto dfact = [](long m) {  // (m)!! for odd m, 1 for m <= 0
    Integer x = 1;
    for (long k = m; k > 1; k -= 2) x *= k;
    return x;
  };
  const auto binom = [](unsigned long n, unsigned long k) {
    Integer b;
    mpz_bin_uiui(b.get_mpz_t(), n, k);
    return b;
  };
  for (const std::vector<std::uint64_t>& r : std::vector<std::vector<std::uint64_t>>{{3, 3}, {4, 2, 2}, {5, 3, 4, 2}, {6, 6, 6}, {9, 1, 1, 1}}) {
    const int k = static_cast<int>(r.size());
    SparseMatrix<Integer> a{k, k, {}};
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j)
        if (i != j) a.entries.push_back({i, j, Integer(1)});
    std::uint64_t N = 0;
    for (auto x : r) N += x;
    Integer want = 0;
    std::vector<std::uint64_t> j(r.size(), 0);
    while (true) {
      Integer term = 1;
      std::uint64_t inside = 0;
      for (std::size_t i = 0; i < r.size(); ++i) {
        term *= binom(static_cast<unsigned long>(r[i]), static_cast<unsigned long>(2 * j[i])) * dfact(static_cast<long>(2 * j[i]) - 1);
        if (j[i] % 2) term = -term;
        inside += j[i];
      }
      want += term * dfact(static_cast<long>(N - 2 * inside) - 1);
      std::size_t i = 0;
      while (i < r.size() && 2 * (j[i] + 1) > r[i]) j[i++] = 0;
      if (i == r.size()) break;
      ++j[i];
    }
    const auto got = count_hafnian_repeated(AnyMatrix(a), r, nullptr, false);
    EXPECT_EQ(std::get<Integer>(got.value.value), want) << r.size();
  }
}

TEST(HafnianRepeated, PairTypesCoverEveryCopy) {
  const std::vector<std::uint64_t> rpt = {4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1};
  const auto p = engines::pair_types(rpt, false);
  std::vector<std::uint64_t> used(rpt.size(), 0);
  for (std::size_t t = 0; t < p.mult.size(); ++t)
    used[static_cast<std::size_t>(p.a[t])] += static_cast<std::uint64_t>(p.mult[t]),
        used[static_cast<std::size_t>(p.b[t])] += static_cast<std::uint64_t>(p.mult[t]);
  EXPECT_EQ(used, rpt);
  EXPECT_LT(p.leaves(), 1e5);  // against 2^20 subsets of the expanded pairs
}

TEST(HafnianRepeatedCli, CountsAndRefusesWhatDoesNotApply) {
  const std::string path = test::temp_file(
      "%%MatrixMarket matrix array integer symmetric\n4 4\n1\n2\n3\n1\n4\n5\n1\n1\n6\n2\n", ".mtx");
  auto r = test::run_matchcount("--hafnian --reps 2,0,3,1 '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "360\n");
  r = test::run_matchcount("--loop-hafnian --reps 2,0,3,1 '" + path + "'");
  EXPECT_EQ(r.out, "852\n");
  const std::string mu = test::temp_file("%%MatrixMarket matrix array integer general\n4 1\n1\n0\n2\n1\n", ".mtx");
  r = test::run_matchcount("--loop-hafnian --reps 2,0,3,1 --mu '" + mu + "' '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const std::string bad : {"--reps 2,0,3,1", "--hafnian --reps 2,0,3", "--hafnian --reps 2,0,3,1 --estimate",
                                 "--hafnian --mu x.mtx", "--hafnian --reps 1,1,1,1 --mu x.mtx",
                                 "--hafnian --reps 2,0,3,1 --engine ryser", "--hafnian --reps 2,-1,3,1",
                                 "--hafnian --reps 2,0,3,1 --log"}) {
    r = test::run_matchcount(bad + " '" + path + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace matchcount
