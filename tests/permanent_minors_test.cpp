// permanent_minors (the forward Gray-code gradient of Glynn's formula): every perm(A - i - j)
// against the naive permanent of each minor, against the Ryser engine on larger blocks, and the
// row and column identities sum_j a_ij perm(A - i - j) = perm A.
#include <gtest/gtest.h>

#include <random>

#include "test_support.hpp"
#include "engines/common.hpp"
#include "engines/ryser/ryser.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "oracle.hpp"

using namespace matchcount;

namespace {

using test::threads;

/// A random n x n matrix with entries from draw() where a coin of probability p says so, and
/// the diagonal always (so that no row or column is empty).
template <class Draw>
SparseMatrix<Integer> random_permanent_matrix(int n, double p, std::mt19937_64& rng, Draw draw) {
  SparseMatrix<Integer> a{n, n, {}};
  std::bernoulli_distribution keep(p);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i == j || keep(rng)) {
        Integer v = draw();
        if (v == 0) v = 1;
        a.entries.push_back({i, j, v});
      }
  a.normalize();
  return a;
}

SparseMatrix<Integer> permanent_minor_of(const SparseMatrix<Integer>& a, int i, int j) {
  SparseMatrix<Integer> out{a.rows - 1, a.cols - 1, {}};
  for (const auto& e : a.entries)
    if (e.row != i && e.col != j) out.entries.push_back({e.row - (e.row > i), e.col - (e.col > j), e.value});
  out.normalize();
  return out;
}

}  // namespace

TEST(PermanentMinors, EveryMinorMatchesTheNaivePermanent) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int n = 1; n <= 9; ++n)
    for (int rep = 0; rep < 6; ++rep) {
      const auto a = random_permanent_matrix(n, 0.6, rng, [&] {
        switch (rep % 3) {
          case 0: return Integer(1);
          case 1: return Integer(static_cast<long>(rng() % 9) - 4);              // signs that cancel
          default: return Integer(static_cast<long>(rng() % 4000000000000ULL));  // several primes
        }
      });
      const std::vector<Integer> minors = engines::permanent_minors(a, threads(2));
      ASSERT_EQ(minors.size(), static_cast<std::size_t>(n * n));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j, ++checked) {
          const Integer want = n == 1 ? Integer(1) : test::naive_permanent(permanent_minor_of(a, i, j));
          EXPECT_EQ(minors[static_cast<std::size_t>(i * n + j)], want) << "n=" << n << " rep=" << rep << " (" << i << "," << j << ")";
        }
    }
  EXPECT_GT(checked, 1000);
}

TEST(PermanentMinors, RowsAndColumnsExpandToTheRyserCount) {
  std::mt19937_64 rng(11);
  const auto ryser = engines::make_ryser();
  for (int n : {14, 17, 20}) {
    const auto a = random_permanent_matrix(n, 0.6, rng, [&] { return Integer(static_cast<long>(rng() % 7) - 2); });
    const std::vector<Integer> minors = engines::permanent_minors(a, threads(2));
    const Integer total = ryser->permanent(a, threads(2));
    const std::vector<Integer> d = a.dense();
    for (int i = 0; i < n; ++i) {
      Integer row = 0, col = 0;
      for (int j = 0; j < n; ++j) {
        row += d[static_cast<std::size_t>(i * n + j)] * minors[static_cast<std::size_t>(i * n + j)];
        col += d[static_cast<std::size_t>(j * n + i)] * minors[static_cast<std::size_t>(j * n + i)];
      }
      EXPECT_EQ(row, total) << "n=" << n << " row " << i;
      EXPECT_EQ(col, total) << "n=" << n << " column " << i;
    }
    EXPECT_EQ(minors[static_cast<std::size_t>(n + 2)], ryser->permanent(permanent_minor_of(a, 1, 2), threads(1))) << "n=" << n;
  }
}

TEST(PermanentMinors, ThreadsGiveTheSameValuesAndStopsAreHonoured) {
  std::mt19937_64 rng(13);
  const auto a = random_permanent_matrix(18, 0.7, rng, [&] { return Integer(static_cast<long>(rng() % 5)); });
  EXPECT_EQ(engines::permanent_minors(a, threads(1)), engines::permanent_minors(a, threads(2)));
  EXPECT_THROW(engines::permanent_minors(a, threads(2), [] { return true; }), Interrupted);
  SparseMatrix<Integer> empty_row = a;
  std::erase_if(empty_row.entries, [](const auto& e) { return e.row == 4; });
  EXPECT_THROW(engines::permanent_minors(empty_row, threads(1)), RefusedError);
}

TEST(PermanentMinors, WideRowsWalkOnResiduesAndMatchTheNaivePermanent) {
  // A row whose absolute sum reaches 2^49 keeps its row sums as residues, one per prime.
  std::mt19937_64 rng(17);
  for (int n = 1; n <= 8; ++n)
    for (int rep = 0; rep < 2; ++rep) {
      auto a = random_permanent_matrix(n, 0.6, rng, [&] { return Integer(static_cast<long>(rng() % 2001) - 1000); });
      for (auto& e : a.entries)  // one wide row (rep 0) or every row wide and signed (rep 1)
        if (rep == 1 || e.row == n / 2) e.value = e.value * (Integer(1) << 52) + static_cast<long>(rng() % 97);
      std::vector<int> rows(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
      ASSERT_FALSE(engines::make_mod_plan(a, rows).shared) << "n=" << n;
      const std::vector<Integer> minors = engines::permanent_minors(a, threads(2));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const Integer want = n == 1 ? Integer(1) : test::naive_permanent(permanent_minor_of(a, i, j));
          EXPECT_EQ(minors[static_cast<std::size_t>(i * n + j)], want) << "n=" << n << " rep=" << rep << " (" << i << "," << j << ")";
        }
    }
}

TEST(PermanentMinors, SeveralGroupsAndPrimesExpandToTheRyserCount) {
  // Exact row sums in three or more groups (products of the other groups taken per prime),
  // with two, three and more primes: each row and column expansion must give the count.
  std::mt19937_64 rng(19);
  const auto ryser = engines::make_ryser();
  struct Case {
    int n;
    double density;
    long most;                   // entries 1..most
    std::size_t primes, groups;  // primes exactly (0: at least 4), groups at least
  };
  for (const Case c : {Case{24, 0.9, 1, 2, 3}, Case{22, 0.6, 3, 3, 3}, Case{18, 0.6, 1000000, 0, 4}}) {
    const auto a = random_permanent_matrix(c.n, c.density, rng, [&] { return Integer(1 + static_cast<long>(rng() % c.most)); });
    std::vector<int> rows(static_cast<std::size_t>(c.n));
    for (int i = 0; i < c.n; ++i) rows[static_cast<std::size_t>(i)] = i;
    const engines::ModPlan plan = engines::make_mod_plan(a, rows);
    ASSERT_TRUE(plan.shared);
    ASSERT_GE(plan.group_end.size(), c.groups) << "n=" << c.n;
    if (c.primes) ASSERT_EQ(plan.primes.size(), c.primes) << "n=" << c.n;
    else ASSERT_GE(plan.primes.size(), 4u) << "n=" << c.n;
    const std::vector<Integer> minors = engines::permanent_minors(a, threads(2));
    const Integer total = ryser->permanent(a, threads(2));
    const std::vector<Integer> d = a.dense();
    const auto N = static_cast<std::size_t>(c.n);
    for (std::size_t i = 0; i < N; ++i) {
      Integer row = 0, col = 0;
      for (std::size_t j = 0; j < N; ++j) row += d[i * N + j] * minors[i * N + j], col += d[j * N + i] * minors[j * N + i];
      EXPECT_EQ(row, total) << "n=" << c.n << " row " << i;
      EXPECT_EQ(col, total) << "n=" << c.n << " column " << i;
    }
    EXPECT_EQ(minors[N + 2], ryser->permanent(permanent_minor_of(a, 1, 2), threads(2))) << "n=" << c.n;
  }
}
