// hafnian_minors (the reverse walk of haf_gradient.hpp): every haf(A - i - j) against the naive
// expansion of each minor, against the count engine on larger blocks, and the row identity
// sum_j a_ij haf(A - i - j) = haf(A) for every row.
#include <gtest/gtest.h>

#include <random>

#include "test_support.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "hafnian_oracle.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "symmetric_helpers.hpp"

using namespace matchcount;
using matchcount::test::naive_hafnian;
using namespace matchcount::test::symmetric_helpers;

namespace {

using test::threads;

/// A without vertices i and j.
SparseMatrix<Integer> minor_of(const SparseMatrix<Integer>& a, int i, int j) {
  SparseMatrix<Integer> out;
  out.rows = out.cols = a.rows - 2;
  auto at = [&](int k) { return k - (k > i) - (k > j); };
  for (const auto& e : a.entries)
    if (e.row != i && e.row != j && e.col != i && e.col != j) out.entries.push_back({at(e.row), at(e.col), e.value});
  out.normalize();
  return out;
}

/// Every vertex gets an edge to its successor (weight 1 where none was drawn), the minors'
/// precondition.
SparseMatrix<Integer> with_path(const SparseMatrix<Integer>& a) {
  const std::vector<Integer> d = a.dense();
  const int n = a.rows;
  return symmetric<Integer>(n, [&](int i, int j) -> Integer {
    const Integer v = d[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)];
    if (i == j) return 0;
    return i == j + 1 && v == 0 ? Integer(1) : v;
  });
}

std::size_t at(int i, int j) { return static_cast<std::size_t>(i) * static_cast<std::size_t>(i - 1) / 2 + static_cast<std::size_t>(j); }

}  // namespace

TEST(HafnianMinors, EveryMinorMatchesTheNaiveExpansion) {
  std::mt19937_64 rng(5);
  int checked = 0;
  for (int n = 2; n <= 14; n += 2)
    for (int rep = 0; rep < (n <= 8 ? 10 : 4); ++rep) {
      // 0-1 graphs, signed weights that cancel, and large weights that need several primes.
      const auto a = with_path(rep % 3 == 0 ? random_01(n, 0.5, false, rng)
                               : rep % 3 == 1 ? random_int(n, -3, 3, rng)
                                              : random_int(n, 0, 1000000, rng, 0.7));
      const std::vector<Integer> minors = engines::hafnian_minors(a, threads(2));
      ASSERT_EQ(minors.size(), at(n, 0));
      for (int i = 1; i < n; ++i)
        for (int j = 0; j < i; ++j, ++checked)
          EXPECT_EQ(minors[at(i, j)], naive_hafnian(minor_of(a, i, j))) << "n=" << n << " rep=" << rep << " (" << i << "," << j << ")";
    }
  EXPECT_GT(checked, 1000);
}

TEST(HafnianMinors, RowsExpandToTheCountOnLargerBlocks) {
  std::mt19937_64 rng(9);
  const auto engine = engines::make_hafnian();
  for (int n : {20, 24, 28, 30}) {
    const auto a = with_path(n == 24 ? random_int(n, -2, 5, rng, 0.6) : random_01(n, 0.6, false, rng));
    const std::vector<Integer> minors = engines::hafnian_minors(a, threads(2));
    const Integer total = engine->hafnian(a, false, threads(2));
    const std::vector<Integer> d = a.dense();
    for (int i = 0; i < n; ++i) {
      Integer row = 0;
      for (int j = 0; j < n; ++j)
        if (j != i) row += d[static_cast<std::size_t>(i * n + j)] * minors[at(std::max(i, j), std::min(i, j))];
      EXPECT_EQ(row, total) << "n=" << n << " row " << i;
    }
    for (auto [i, j] : {std::pair{n - 1, 0}, std::pair{n / 2, n / 2 - 1}, std::pair{3, 1}})
      EXPECT_EQ(minors[at(i, j)], engine->hafnian(minor_of(a, i, j), false, threads(1))) << "n=" << n;
  }
}

TEST(HafnianMinors, ThreadsGiveTheSameValuesAndStopsAreHonoured) {
  std::mt19937_64 rng(3);
  const auto a = with_path(random_int(26, -4, 4, rng, 0.8));
  EXPECT_EQ(engines::hafnian_minors(a, threads(1)), engines::hafnian_minors(a, threads(2)));
  EXPECT_THROW(engines::hafnian_minors(a, threads(2), [] { return true; }), Interrupted);
  SparseMatrix<Integer> isolated = a;
  std::erase_if(isolated.entries, [](const auto& e) { return e.row == 5 || e.col == 5; });
  EXPECT_THROW(engines::hafnian_minors(isolated, threads(1)), RefusedError);
}
