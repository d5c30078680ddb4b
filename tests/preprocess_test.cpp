// Hopcroft-Karp, Dulmage-Mendelsohn and Forbert-Marx each preserve what they must.
#include <gtest/gtest.h>

#include <random>

#include "matchcount/decompose.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/reduce.hpp"
#include "oracle.hpp"
#include "test_support.hpp"

using namespace matchcount;
using test::naive_permanent;

namespace {

// Kuhn's simple augmenting-path matching: an independent maximum-matching size.
int kuhn_matching_size(const Pattern& p) {
  std::vector<int> row_of_col(static_cast<std::size_t>(p.cols), -1);
  int size = 0;
  for (int r = 0; r < p.rows; ++r) {
    std::vector<bool> seen(static_cast<std::size_t>(p.cols), false);
    auto augment = [&](auto& self, int row) -> bool {
      for (int k = p.start[row]; k < p.start[row + 1]; ++k) {
        const int c = p.column[k];
        if (seen[c]) continue;
        seen[c] = true;
        if (row_of_col[c] < 0 || self(self, row_of_col[c])) {
          row_of_col[c] = row;
          return true;
        }
      }
      return false;
    };
    size += augment(augment, r);
  }
  return size;
}

SparseMatrix<Integer> rectangular(std::mt19937_64& rng, int rows, int cols, double density) {
  SparseMatrix<Integer> m;
  m.rows = rows;
  m.cols = cols;
  std::bernoulli_distribution keep(density);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (keep(rng)) m.entries.push_back({i, j, 1});
  return m;
}

// Random square matrix that has a perfect matching: a random permutation plus noise.
SparseMatrix<Integer> with_perfect_matching(std::mt19937_64& rng, int n, double density) {
  SparseMatrix<Integer> m = test::random_integer(rng, n, density, -3, 4);
  std::vector<int> perm(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  for (int i = 0; i < n; ++i) m.entries.push_back({i, perm[i], 1});
  m.normalize();
  // normalize() sums duplicates and may cancel an entry to 0; restore the permutation.
  for (int i = 0; i < n; ++i) m.entries.push_back({i, perm[i], 7});
  m.normalize();
  return m;
}

}  // namespace

TEST(HopcroftKarp, MatchesKuhnAndIsValid) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = 1 + static_cast<int>(rng() % 30), cols = 1 + static_cast<int>(rng() % 30);
    const double density = 0.02 + 0.3 * static_cast<double>(rng() % 100) / 100.0;
    const Pattern p = Pattern::of(rectangular(rng, rows, cols, density));
    const Matching m = hopcroft_karp(p);
    ASSERT_EQ(m.size, kuhn_matching_size(p));
    int counted = 0;
    for (int r = 0; r < rows; ++r) {
      const int c = m.col_of_row[r];
      if (c < 0) continue;
      ++counted;
      ASSERT_EQ(m.row_of_col[c], r);
      ASSERT_TRUE(std::binary_search(p.column.begin() + p.start[r], p.column.begin() + p.start[r + 1], c));
    }
    ASSERT_EQ(counted, m.size);
  }
}

TEST(HopcroftKarp, LongAugmentingPathsDoNotOverflowTheStack) {
  // A path graph on 2*200000 vertices whose greedy start leaves one long augmenting path.
  const int n = 200000;
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i) {
    m.entries.push_back({i, i, 1});
    if (i + 1 < n) m.entries.push_back({i + 1, i, 1});
  }
  m.normalize();
  EXPECT_EQ(hopcroft_karp(Pattern::of(m)).size, n);
}

TEST(DulmageMendelsohn, TriangularSplitsIntoSingletons) {
  const int n = 12;
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) m.entries.push_back({i, j, i + j + 1});
  m.normalize();
  const Pattern p = Pattern::of(m);
  const FineDecomposition d = fine_dulmage_mendelsohn(p, hopcroft_karp(p));
  EXPECT_EQ(d.blocks(), n);
  EXPECT_EQ(d.deleted_entries, static_cast<std::size_t>(n * (n - 1) / 2));
  for (const auto& b : split_blocks(m, d)) {
    ASSERT_EQ(b.rows, 1);
    ASSERT_EQ(b.nnz(), 1u);
    EXPECT_EQ(b.entries[0].row, 0);
  }
}

TEST(DulmageMendelsohn, ProductOfBlocksIsThePermanentAndDeletedEntriesAreInNoMatching) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 8);
    const SparseMatrix<Integer> a = with_perfect_matching(rng, n, 0.05 + 0.05 * (trial % 6));
    const Pattern p = Pattern::of(a);
    const FineDecomposition d = fine_dulmage_mendelsohn(p, hopcroft_karp(p));
    Integer product = 1;
    std::size_t kept = 0;
    for (const auto& b : split_blocks(a, d)) {
      ASSERT_TRUE(b.square());
      product *= naive_permanent(b);
      kept += b.nnz();
    }
    ASSERT_EQ(product, naive_permanent(a)) << "trial " << trial;
    ASSERT_EQ(kept + d.deleted_entries, a.nnz());
    // An entry is kept iff it lies in some perfect matching of the 0-1 pattern.
    SparseMatrix<Integer> ones = convert<Integer>(a, [](const Integer&) { return Integer(1); });
    for (const auto& e : a.entries) {
      SparseMatrix<Integer> minor;
      minor.rows = minor.cols = n - 1;
      for (const auto& f : ones.entries)
        if (f.row != e.row && f.col != e.col)
          minor.entries.push_back({f.row - (f.row > e.row), f.col - (f.col > e.col), 1});
      const bool in_some_matching = naive_permanent(minor) > 0;
      ASSERT_EQ(in_some_matching, d.block_of_row[e.row] == d.block_of_col[e.col]);
    }
  }
}

TEST(ForbertMarx, LineRulesKeepThePermanent) {
  std::mt19937_64 rng(3);
  int reduced = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9);
    const SparseMatrix<Integer> a = test::random_integer(rng, n, 0.15 + 0.05 * (trial % 8), -4, 5);
    ReduceStats stats;
    const Reduced<Integer> r = reduce_lines(a, stats);
    const Integer expected = naive_permanent(a);
    if (r.zero) {
      ASSERT_EQ(expected, 0);
      continue;
    }
    ASSERT_TRUE(r.rest.square());
    ASSERT_EQ(r.factor * naive_permanent(r.rest), expected) << "trial " << trial;
    // No line with fewer than three entries survives.
    std::vector<int> rd(static_cast<std::size_t>(r.rest.rows)), cd(static_cast<std::size_t>(r.rest.rows));
    for (const auto& e : r.rest.entries) ++rd[e.row], ++cd[e.col];
    for (int i = 0; i < r.rest.rows; ++i) ASSERT_TRUE(rd[i] >= 3 && cd[i] >= 3);
    reduced += r.changed;
  }
  EXPECT_GT(reduced, 100);
}

TEST(ForbertMarx, LineRulesOnRealAndComplexMatrices) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 7);
    const auto a = test::random_real(rng, n, 0.3, -1.0, 1.0);
    ReduceStats stats;
    const auto r = reduce_lines(a, stats);
    const double expected = naive_permanent(a);
    const double got = r.zero ? 0.0 : r.factor * naive_permanent(r.rest);
    ASSERT_NEAR(got, expected, 1e-12 * (1 + std::abs(expected)));
    const auto c = test::random_complex(rng, n, 0.3);
    const auto rc = reduce_lines(c, stats);
    const Complex ce = naive_permanent(c);
    const Complex cg = rc.zero ? Complex(0) : rc.factor * naive_permanent(rc.rest);
    ASSERT_NEAR(std::abs(cg - ce), 0.0, 1e-12 * (1 + std::abs(ce)));
  }
}

TEST(ForbertMarx, BranchSplitsThePermanent) {
  std::mt19937_64 rng(5);
  int branched = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 3 + static_cast<int>(rng() % 7);
    const SparseMatrix<Integer> a = test::random_integer(rng, n, 0.45, -3, 3);
    Branch<Integer> b;
    if (!branch_on_sparse_line(a, 4, b)) continue;
    ++branched;
    ASSERT_EQ(b.minor.rows, n - 1);
    ASSERT_EQ(b.rest.nnz() + 1, a.nnz());
    ASSERT_EQ(b.weight * naive_permanent(b.minor) + naive_permanent(b.rest), naive_permanent(a));
  }
  EXPECT_GT(branched, 50);
}
