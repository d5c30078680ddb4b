// Modular arithmetic: primes, FMA modular multiplication, CRT, permanent bounds.
#include <gtest/gtest.h>

#include "core/modmul.hpp"
#include "core/arith.hpp"
#include "catalog/catalog.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

Integer big(std::uint64_t v) { return Integer(static_cast<unsigned long>(v)); }

TEST(ArithPrimes, MillerRabinMatchesTrialDivision) {
  auto trial = [](std::uint64_t n) {
    if (n < 2) return false;
    for (std::uint64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) return false;
    return true;
  };
  for (std::uint64_t n = 0; n < 20000; ++n) ASSERT_EQ(is_prime(n), trial(n)) << n;
  // Strong pseudoprimes to several small bases, and a Carmichael number.
  for (std::uint64_t n : {3215031751ULL, 2152302898747ULL, 3474749660383ULL, 341550071728321ULL, 561ULL})
    EXPECT_FALSE(is_prime(n)) << n;
  EXPECT_TRUE(is_prime((1ULL << 61) - 1));
}

TEST(ArithPrimes, TopPrimesDescendBelow2To50) {
  auto p = top_primes(40);
  ASSERT_EQ(p.size(), 40u);
  EXPECT_EQ(p[0], (1ULL << 50) - 27);  // the largest prime below 2^50
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_TRUE(is_prime(p[i]));
    EXPECT_GT(p[i], 1ULL << 49);
    if (i > 0) {
      EXPECT_LT(p[i], p[i - 1]);
      for (std::uint64_t q = p[i] + 2; q < p[i - 1]; q += 2) ASSERT_FALSE(is_prime(q));
    }
  }
}

TEST(ArithPrimes, ChoosePrimesCoversTwiceTheBound) {
  for (const Integer& bound : std::vector<Integer>{0, 1, Integer(1) << 49, Integer(1) << 100, Integer(12345) << 700}) {
    auto primes = choose_primes(bound);
    Integer prod = 1;
    for (double p : primes) prod *= big(static_cast<std::uint64_t>(p));
    EXPECT_GT(prod, 2 * bound + 1);
    // Minimal: without the last prime it would not suffice.
    EXPECT_LE(prod / big(static_cast<std::uint64_t>(primes.back())), 2 * bound + 1);
  }
}

template <class V>
V make(double x) {
  return arith::broadcast(x, V{});
}

TEST(ArithModmul, ScalarAndVectorAgreeWithGmp) {
  std::mt19937_64 rng(7);
  auto primes = top_primes(3);
  primes.push_back(top_primes(3000).back());  // a smaller one, still above 2^49
  for (std::uint64_t pu : primes) {
    double p = static_cast<double>(pu), pinv = 1.0 / p;
    std::uniform_int_distribution<std::int64_t> dist(-static_cast<std::int64_t>(pu) + 1, static_cast<std::int64_t>(pu) - 1);
    for (int it = 0; it < 20000; ++it) {
      double a[4], b[4];
      for (int l = 0; l < 4; ++l) a[l] = static_cast<double>(dist(rng)), b[l] = static_cast<double>(dist(rng));
      if (it < 4) a[0] = b[0] = p - 1;  // extremes
      if (it == 1) b[0] = -(p - 1);
      v4d r = arith::modmul(v4d{a[0], a[1], a[2], a[3]}, v4d{b[0], b[1], b[2], b[3]}, make<v4d>(p), make<v4d>(pinv));
      for (int l = 0; l < 4; ++l) {
        double s = arith::modmul(a[l], b[l], p, pinv);
        ASSERT_EQ(s, r[l]);
        ASSERT_LT(std::fabs(s), p);
        ASSERT_EQ(s, std::trunc(s));
        Integer want = Integer(static_cast<long>(a[l])) * Integer(static_cast<long>(b[l])) - Integer(static_cast<long>(s));
        ASSERT_EQ(mpz_fdiv_ui(want.get_mpz_t(), pu), 0u) << a[l] << " * " << b[l];
      }
      double x = static_cast<double>(dist(rng)) * 3;
      double red = arith::modreduce(x, p, pinv);
      ASSERT_LE(std::fabs(red), p / 2 + 1);
      ASSERT_EQ(to_residue(red, pu), mpz_fdiv_ui(Integer(static_cast<long>(x)).get_mpz_t(), pu));
    }
  }
}

TEST(ArithCrt, ReconstructsSymmetricResidues) {
  std::mt19937_64 rng(11);
  gmp_randclass grand(gmp_randinit_default);
  grand.seed(5);
  for (std::size_t k = 1; k <= 12; ++k) {
    auto primes = top_primes(k);
    Integer m = 1;
    for (auto p : primes) m *= big(p);
    for (int it = 0; it < 50; ++it) {
      Integer x = grand.get_z_range(m) - (m - 1) / 2;  // |x| <= (m-1)/2
      if (it == 0) x = (m - 1) / 2;
      if (it == 1) x = -(m - 1) / 2;
      std::vector<std::uint64_t> res;
      for (auto p : primes) res.push_back(mpz_fdiv_ui(x.get_mpz_t(), p));
      ASSERT_EQ(crt_symmetric(res, primes), x);
    }
  }
}

TEST(ArithCrt, ReconstructsWithTheModulus2To64) {
  // The GPU hafnian's exact walks: one residue modulo 2^64 and some modulo primes (none too).
  gmp_randclass grand(gmp_randinit_default);
  grand.seed(7);
  const Integer two64 = Integer(1) << 64;
  for (std::size_t k = 0; k <= 6; ++k) {
    std::vector<std::uint64_t> primes;
    for (std::uint64_t p : {16777213ULL, 16777199ULL, 16777183ULL, 16777153ULL, 16777141ULL, 16777139ULL})
      if (primes.size() < k) primes.push_back(p);
    Integer m = two64;
    for (auto p : primes) m *= big(p);
    for (int it = 0; it < 50; ++it) {
      Integer x = grand.get_z_range(m) - m / 2 + 1;  // |x| < m/2
      if (it == 0) x = m / 2 - 1;
      if (it == 1) x = -(m / 2 - 1);
      if (it == 2) x = 0;
      if (it == 3) x = -1;
      Integer low;
      mpz_fdiv_r_2exp(low.get_mpz_t(), x.get_mpz_t(), 64);
      std::vector<std::uint64_t> res;
      for (auto p : primes) res.push_back(mpz_fdiv_ui(x.get_mpz_t(), p));
      ASSERT_EQ(crt_symmetric_2_64(static_cast<std::uint64_t>(mpz_getlimbn(low.get_mpz_t(), 0)), res, primes), x)
          << "k=" << k << " it=" << it;
    }
  }
}

TEST(ArithBound, BoundsRandomSignedPermanents) {
  std::mt19937_64 rng(3);
  auto brute = make_engine("brute");
  for (int it = 0; it < 200; ++it) {
    int n = 1 + static_cast<int>(rng() % 7);
    double density = 0.2 + 0.8 * double(rng() % 100) / 100;
    auto a = it % 2 ? test::random_integer(rng, n, density, -5, 5) : test::random_integer(rng, n, density, 1, 1);
    Integer perm = brute->permanent(a, {});
    ASSERT_GE(permanent_bound(a), abs(perm));
  }
}

TEST(ArithBound, BregmanIsTightOnBlocksOfOnes) {
  // Three all-ones 4x4 blocks: perm = 24^3, Bregman gives (24^(1/4))^12 = 24^3; rounding up
  // must not go below, and must stay far below the row product 4^12.
  SparseMatrix<Integer> a;
  a.rows = a.cols = 12;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) a.entries.push_back({4 * b + i, 4 * b + j, Integer(1)});
  Integer bound = permanent_bound(a);
  EXPECT_GE(bound, 24 * 24 * 24);
  EXPECT_LE(bound, 24 * 24 * 24 + 1);
  // All ones n = 20: Bregman is exactly n!, so the bound is n! or n!+1.
  SparseMatrix<Integer> j;
  j.rows = j.cols = 20;
  for (int r = 0; r < 20; ++r)
    for (int c = 0; c < 20; ++c) j.entries.push_back({r, c, Integer(1)});
  Integer fact;
  mpz_fac_ui(fact.get_mpz_t(), 20);
  EXPECT_GE(permanent_bound(j), fact);
  EXPECT_LE(permanent_bound(j), fact + 1);
}

TEST(ArithBound, ColumnProductAndZeroRow) {
  SparseMatrix<Integer> a;
  a.rows = a.cols = 2;
  a.entries = {{0, 0, Integer(100)}, {0, 1, Integer(-1)}, {1, 0, Integer(100)}, {1, 1, Integer(1)}};
  EXPECT_EQ(permanent_bound(a), 200 * 2);  // columns 200 * 2 beat rows 101 * 101
  a.entries = {{0, 0, Integer(3)}, {0, 1, Integer(4)}};
  EXPECT_EQ(permanent_bound(a), 0);
}

TEST(ArithBound, LargeBlocksGiveTheProductOfTheirLineSums) {
  // 1001 rows (odd counts at the first levels of the product's tree) of a cyclic band with
  // entries 1, 4 and 7: the bound is the smaller of the row sums' and the column sums'
  // products, one factor at a time here.
  SparseMatrix<Integer> a;
  a.rows = a.cols = 1001;
  std::vector<Integer> row(1001), col(1001);
  for (int r = 0; r < 1001; ++r)
    for (int k = 0; k < 3; ++k) {
      const int c = (r + k * 17) % 1001;
      const Integer v = 1 + (r * 7 + k * 3) % 7;
      a.entries.push_back({r, c, v});
      row[static_cast<std::size_t>(r)] += v;
      col[static_cast<std::size_t>(c)] += v;
    }
  Integer by_rows = 1, by_cols = 1;
  for (const auto& v : row) by_rows *= v;
  for (const auto& v : col) by_cols *= v;
  EXPECT_EQ(permanent_bound(a), by_rows < by_cols ? by_rows : by_cols);
}

}  // namespace
}  // namespace matchcount
