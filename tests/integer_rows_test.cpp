// Real matrices whose rows are multiples of small-integer rows are counted exactly and scaled.
#include <gtest/gtest.h>

#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

SparseMatrix<double> all_equal(int n, double a) {
  SparseMatrix<double> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.entries.push_back({i, j, a});
  return m;
}

using matchcount::test::has_note;

}  // namespace

TEST(IntegerRows, AllEqualMatrixIsAccurateToRounding) {
  for (int n : {5, 12, 20}) {
    for (double a : {0.1, 1.0 / 3.0, 7.25, 1e-30}) {
      long double expect = 1;
      for (int i = 1; i <= n; ++i) expect *= static_cast<long double>(i) * a;
      CountOptions co;
      co.device = DevicePolicy::Cpu;
      const CountReport r = count_permanent(AnyMatrix(all_equal(n, a)), co);
      const double v = std::get<double>(r.value.value);
      EXPECT_LE(std::abs(v - static_cast<double>(expect)), 4 * (n + 2) * 1.2e-16 * std::abs(v)) << n << " " << a;
      EXPECT_LE(std::abs(v - static_cast<double>(expect)), r.value.abs_error * 4 + 1e-300) << n << " " << a;
      EXPECT_TRUE(has_note(r, "counted exactly")) << n;
    }
  }
}

TEST(IntegerRows, RowScalesAndDyadicValues) {
  // Rows (0.5, 1.5), (3, 6) and a dyadic row: perm = scale product times an integer permanent.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 2 + trial % 9;
    auto ints = test::random_integer(rng, n, 0.7, -5, 5);
    SparseMatrix<double> a;
    a.rows = a.cols = n;
    std::vector<double> scale(static_cast<std::size_t>(n));
    for (auto& s : scale) s = std::uniform_real_distribution<double>(0.1, 10)(rng);
    for (const auto& e : ints.entries) a.entries.push_back({e.row, e.col, e.value.get_d() * scale[static_cast<std::size_t>(e.row)]});
    CountOptions co;
    co.device = DevicePolicy::Cpu;
    const CountReport exact = count_permanent(AnyMatrix(ints), co);
    const CountReport r = count_permanent(AnyMatrix(a), co);
    // The split may pick the row minimum instead of the drawn scale; the value must agree.
    long double expect = std::get<Integer>(exact.value.value).get_d();
    for (double s : scale) expect *= s;
    const double v = std::get<double>(r.value.value);
    EXPECT_LE(std::abs(v - static_cast<double>(expect)), 1e-13 * std::abs(static_cast<double>(expect)) + 1e-300)
        << "trial " << trial;
  }
}

TEST(IntegerRows, GeneralRealsStayFloat) {
  std::mt19937_64 rng(6);
  const auto a = test::random_real(rng, 8, 1.0, -1.0, 1.0);
  CountOptions co;
  co.device = DevicePolicy::Cpu;
  const CountReport r = count_permanent(AnyMatrix(a), co);
  EXPECT_FALSE(has_note(r, "counted exactly"));
}
