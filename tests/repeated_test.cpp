// The repeated-lines engine against Ryser on matrices built from a few row and column types,
// against closed forms (n! a^n), and its refusal when lines do not repeat.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engines/repeated/repeated.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// An n x n matrix whose rows come from `kr` types and columns from `kc` types (random
/// multiplicities, shuffled), entries value(row type, column type).
template <class T, class Gen>
SparseMatrix<T> typed_matrix(std::mt19937_64& rng, int n, int kr, int kc, Gen value) {
  auto types = [&](int k) {
    std::vector<int> t(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) t[static_cast<std::size_t>(i)] = i < k ? i : std::uniform_int_distribution<int>(0, k - 1)(rng);
    std::shuffle(t.begin(), t.end(), rng);
    return t;
  };
  const auto rt = types(kr), ct = types(kc);
  std::vector<T> v(static_cast<std::size_t>(kr * kc));
  for (auto& x : v) x = value();
  SparseMatrix<T> a{n, n, {}};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const T& x = v[static_cast<std::size_t>(rt[static_cast<std::size_t>(i)] * kc + ct[static_cast<std::size_t>(j)])];
      if (x != T(0)) a.entries.push_back({i, j, x});
    }
  a.normalize();
  return a;
}

TEST(Repeated, IntegersAgreeWithRyser) {
  std::mt19937_64 rng(5);
  auto rep = engines::make_repeated(), ryser = make_engine("ryser");
  std::uniform_int_distribution<int> val(-3, 3), size(1, 14);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = size(rng);
    const int kr = std::uniform_int_distribution<int>(1, n)(rng), kc = std::uniform_int_distribution<int>(1, n)(rng);
    auto a = typed_matrix<Integer>(rng, n, kr, kc, [&] { return Integer(val(rng)); });
    EXPECT_EQ(rep->permanent(a, {}), ryser->permanent(a, {})) << "n=" << n << " kr=" << kr << " kc=" << kc;
  }
}

TEST(Repeated, FloatsAgreeWithRyser) {
  std::mt19937_64 rng(6);
  auto rep = engines::make_repeated(), ryser = make_engine("ryser");
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const int n = std::uniform_int_distribution<int>(2, 13)(rng), k = std::uniform_int_distribution<int>(1, 4)(rng);
    auto a = typed_matrix<double>(rng, n, k, k + 1, [&] { return val(rng); });
    const auto r = rep->permanent(a, {}), s = ryser->permanent(a, {});
    EXPECT_LE(std::abs(r.value - s.value), r.abs_error + s.abs_error + 1e-300) << "n=" << n;
    EXPECT_LE(r.abs_error, 100 * s.abs_error + 1e-14 * std::abs(s.value)) << "n=" << n;  // not inflated
    auto c = typed_matrix<Complex>(rng, n, k, k, [&] { return Complex(val(rng), val(rng)); });
    const auto rc = rep->permanent(c, {}), sc = ryser->permanent(c, {});
    EXPECT_LE(std::abs(rc.value - sc.value), rc.abs_error + sc.abs_error + 1e-300) << "complex n=" << n;
  }
}

TEST(Repeated, AllEqualEntriesGiveFactorials) {
  auto rep = engines::make_repeated();
  for (int n : {1, 2, 7, 30, 62}) {
    SparseMatrix<Integer> a{n, n, {}};
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a.entries.push_back({i, j, Integer(91)});
    Integer expect = 1;
    for (int k = 2; k <= n; ++k) expect *= k;
    for (int k = 0; k < n; ++k) expect *= 91;
    EXPECT_EQ(rep->permanent(a, {}), expect) << "n=" << n;
    EXPECT_EQ(engines::plan_repeated(a).terms, n + 1.0);
  }
  // The float walk on the all-0.91 matrix: n! 0.91^n within its error estimate, and close.
  const int n = 30;
  SparseMatrix<double> b{n, n, {}};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) b.entries.push_back({i, j, 0.91});
  double expect = 1;
  for (int k = 1; k <= n; ++k) expect *= k * 0.91;
  const auto r = rep->permanent(b, {});
  EXPECT_LE(std::abs(r.value - expect), r.abs_error + 1e-14 * expect);
}

TEST(Repeated, RowClassesWhenColumnsAreDistinct) {
  // Two row types, all columns distinct: the engine walks the transpose (n + 1 terms at most).
  std::mt19937_64 rng(8);
  auto rep = engines::make_repeated(), ryser = make_engine("ryser");
  for (int n : {9, 12, 15}) {
    auto a = typed_matrix<Integer>(rng, n, 2, n, [&] { return Integer(std::uniform_int_distribution<int>(-5, 5)(rng)); });
    const auto plan = engines::plan_repeated(a);
    EXPECT_TRUE(plan.transposed);
    EXPECT_LE(plan.terms, (n / 2 + 1.0) * (n / 2 + 2.0));
    EXPECT_EQ(rep->permanent(a, {}), ryser->permanent(a, {}));
  }
}

/// Classes of identical rows (or columns) by comparing every pair of lines, as the planner did
/// before lines were hashed: (least index, multiplicity) per class, by least index.
template <class T>
std::vector<std::pair<int, int>> pairwise_classes(const SparseMatrix<T>& a, bool by_col) {
  std::vector<std::vector<std::pair<int, T>>> lines(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) lines[static_cast<std::size_t>(by_col ? e.col : e.row)].emplace_back(by_col ? e.row : e.col, e.value);
  std::vector<std::pair<int, int>> classes;
  std::vector<int> class_of(lines.size(), -1);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (std::size_t j = 0; j < i && class_of[i] < 0; ++j)
      if (lines[j] == lines[i]) class_of[i] = class_of[j];
    if (class_of[i] < 0) class_of[i] = int(classes.size()), classes.push_back({int(i), 0});
    ++classes[static_cast<std::size_t>(class_of[i])].second;
  }
  return classes;
}

std::vector<std::pair<int, int>> planned_classes(const std::vector<int>& rep, const std::vector<int>& mult) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t t = 0; t < rep.size(); ++t) out.push_back({rep[t], mult[t]});
  return out;
}

TEST(Repeated, HashedClassesAreThePairwiseOnes) {
  // Random matrices built from a few row and column types (repeated lines, some zero entries),
  // of every number kind: the planner's hashed classes against pairwise comparison.
  std::mt19937_64 rng(12);
  auto check = [](const auto& a, const char* kind) {
    const auto plan = engines::plan_repeated(a);
    const auto rows = pairwise_classes(a, false), cols = pairwise_classes(a, true);
    const auto& plan_cols = plan.transposed ? plan.row_rep : plan.col_rep;
    const auto& plan_col_mult = plan.transposed ? plan.row_mult : plan.col_mult;
    const auto& plan_rows = plan.transposed ? plan.col_rep : plan.row_rep;
    const auto& plan_row_mult = plan.transposed ? plan.col_mult : plan.row_mult;
    EXPECT_EQ(planned_classes(plan_rows, plan_row_mult), rows) << kind << " n=" << a.rows;
    EXPECT_EQ(planned_classes(plan_cols, plan_col_mult), cols) << kind << " n=" << a.rows;
  };
  std::uniform_int_distribution<int> val(-2, 2);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 24)(rng);
    const int kr = std::uniform_int_distribution<int>(1, n)(rng), kc = std::uniform_int_distribution<int>(1, n)(rng);
    check(typed_matrix<Integer>(rng, n, kr, kc, [&] { return Integer(val(rng)); }), "integer");
    check(typed_matrix<double>(rng, n, kr, kc, [&] { return 0.5 * val(rng); }), "real");
    check(typed_matrix<Complex>(rng, n, kr, kc, [&] { return Complex(val(rng), val(rng)); }), "complex");
  }
  // Wide integers whose low limbs agree.
  SparseMatrix<Integer> wide{4, 4, {}};
  const Integer big = Integer(1) << 200;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) wide.entries.push_back({i, j, i % 2 == 0 ? Integer(big + j) : Integer(big * 2 + j)});
  wide.normalize();
  check(wide, "wide integer");
}

TEST(Repeated, RefusesMatricesWithoutRepeatedLines) {
  std::mt19937_64 rng(9);
  auto a = test::random_integer(rng, 50, 0.9, -9, 9);
  EXPECT_THROW(engines::make_repeated()->permanent(a, {}), RefusedError);
}

}  // namespace
}  // namespace matchcount
