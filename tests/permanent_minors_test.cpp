// permanent_minors (the forward Gray-code gradient of Glynn's formula): every perm(A - i - j)
// against the naive permanent of each minor, against the Ryser engine on larger blocks, and the
// row and column identities sum_j a_ij perm(A - i - j) = perm A.
#include <gtest/gtest.h>

#include <random>

#include "engines/ryser/ryser.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "oracle.hpp"

using namespace matchcount;

namespace {

EngineOptions threads(int t) {
  EngineOptions o;
  o.threads = t;
  return o;
}

/// A random n x n matrix with entries from draw() where a coin of probability p says so, and
/// the diagonal always (so that no row or column is empty).
template <class Draw>
SparseMatrix<Integer> random_matrix(int n, double p, std::mt19937_64& rng, Draw draw) {
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

SparseMatrix<Integer> minor_of(const SparseMatrix<Integer>& a, int i, int j) {
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
      const auto a = random_matrix(n, 0.6, rng, [&] {
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
          const Integer want = n == 1 ? Integer(1) : test::naive_permanent(minor_of(a, i, j));
          EXPECT_EQ(minors[static_cast<std::size_t>(i * n + j)], want) << "n=" << n << " rep=" << rep << " (" << i << "," << j << ")";
        }
    }
  EXPECT_GT(checked, 1000);
}

TEST(PermanentMinors, RowsAndColumnsExpandToTheRyserCount) {
  std::mt19937_64 rng(11);
  const auto ryser = engines::make_ryser();
  for (int n : {14, 17, 20}) {
    const auto a = random_matrix(n, 0.6, rng, [&] { return Integer(static_cast<long>(rng() % 7) - 2); });
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
    EXPECT_EQ(minors[static_cast<std::size_t>(n + 2)], ryser->permanent(minor_of(a, 1, 2), threads(1))) << "n=" << n;
  }
}

TEST(PermanentMinors, ThreadsGiveTheSameValuesAndStopsAreHonoured) {
  std::mt19937_64 rng(13);
  const auto a = random_matrix(18, 0.7, rng, [&] { return Integer(static_cast<long>(rng() % 5)); });
  EXPECT_EQ(engines::permanent_minors(a, threads(1)), engines::permanent_minors(a, threads(2)));
  EXPECT_THROW(engines::permanent_minors(a, threads(2), [] { return true; }), Interrupted);
  SparseMatrix<Integer> empty_row = a;
  std::erase_if(empty_row.entries, [](const auto& e) { return e.row == 4; });
  EXPECT_THROW(engines::permanent_minors(empty_row, threads(1)), RefusedError);
}

// TEMP timing (to be removed)
#include <chrono>
TEST(PMTiming, DISABLED_Timing) {
  std::mt19937_64 rng(5);
  const auto ryser = engines::make_ryser();
  const char* env = std::getenv("PM_NS");
  std::vector<int> ns = {20, 24, 26};
  if (env) { ns.clear(); for (const char* s = env; *s;) { ns.push_back(std::atoi(s)); while (*s && *s != ',') ++s; if (*s) ++s; } }
  for (int n : ns) {
    SparseMatrix<Integer> a{n, n, {}};
    std::bernoulli_distribution keep(0.6);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (keep(rng)) a.entries.push_back({i, j, Integer(1)});
    a.normalize();
    auto t0 = std::chrono::steady_clock::now();
    Integer c = ryser->permanent(a, threads(2));
    auto t1 = std::chrono::steady_clock::now();
    auto m = engines::permanent_minors(a, threads(2));
    auto t2 = std::chrono::steady_clock::now();
    double tc = std::chrono::duration<double>(t1 - t0).count(), tm = std::chrono::duration<double>(t2 - t1).count();
    Integer row = 0; auto d = a.dense();
    for (int j = 0; j < n; ++j) row += d[j] * m[j];
    std::printf("c=%s\n", c.get_str().c_str());
    std::printf("n=%d count %.3fs minors %.3fs ratio %.1f model %.3fs check %d\n", n, tc, tm, tm / tc,
                engines::permanent_minors_seconds(a, 2), int(row == c));
  }
}
