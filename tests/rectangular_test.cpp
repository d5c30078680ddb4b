// Rectangular permanents (the sum over injective maps from the shorter side into the longer
// one): the pipeline, rect-ryser, rect-dp and the padded square path against brute force.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "catalog/catalog.hpp"
#include "engines/rectangular/rectangular.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

using namespace matchcount;

namespace {

/// Brute force over the injective maps from the shorter side, summed in R.
template <class R, class T>
R injective_sum(const SparseMatrix<T>& a) {
  const bool by_rows = a.rows <= a.cols;
  const int m = std::min(a.rows, a.cols), n = std::max(a.rows, a.cols);
  const std::vector<T> d = a.dense();
  auto at = [&](int i, int j) { return by_rows ? d[i * a.cols + j] : d[j * a.cols + i]; };
  std::vector<char> used(static_cast<std::size_t>(n), 0);
  std::function<R(int)> rec = [&](int i) -> R {
    if (i == m) return R(1);
    R s(0);
    for (int j = 0; j < n; ++j) {
      if (used[j] || at(i, j) == T(0)) continue;
      used[j] = 1;
      s += R(at(i, j)) * rec(i + 1);
      used[j] = 0;
    }
    return s;
  };
  return rec(0);
}

/// Random rows x cols matrix, each entry nonzero with probability `density`, drawn by `draw`.
template <class T, class Draw>
SparseMatrix<T> random_rect(std::mt19937_64& rng, int rows, int cols, double density, Draw draw) {
  std::bernoulli_distribution keep(density);
  SparseMatrix<T> a;
  a.rows = rows, a.cols = cols;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (keep(rng)) a.entries.push_back({i, j, draw()});
  a.normalize();
  return a;
}

/// Shape with 1 <= m < n <= 8, transposed in a third of the trials.
std::pair<int, int> random_rect_shape(std::mt19937_64& rng, int trial) {
  const int m = 1 + static_cast<int>(rng() % 7), n = m + 1 + static_cast<int>(rng() % (8 - m));
  return trial % 3 == 2 ? std::pair{n, m} : std::pair{m, n};
}

template <class T>
CountReport count_report(const SparseMatrix<T>& a, const std::string& engine = "", bool preprocess = true) {
  CountOptions o;
  o.engine = engine;
  o.preprocess = preprocess;
  return count_permanent(AnyMatrix(a), o);
}

using matchcount::test::has_note;

SparseMatrix<Integer> ones(int m, int n) {
  SparseMatrix<Integer> a;
  a.rows = m, a.cols = n;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) a.entries.push_back({i, j, Integer(1)});
  return a;
}

}  // namespace

TEST(Rectangular, IntegerAgainstBruteForce) {
  std::mt19937_64 rng(101);
  std::uniform_int_distribution<long> val(-3, 4);
  for (int trial = 0; trial < 400; ++trial) {
    const auto [rows, cols] = random_rect_shape(rng, trial);
    const auto a = random_rect<Integer>(rng, rows, cols, 0.3 + 0.1 * (trial % 8), [&] { return Integer(val(rng)); });
    const Integer expected = injective_sum<Integer>(a);
    for (const char* engine : {"", "rect-ryser", "rect-dp", "ryser"})
      ASSERT_EQ(std::get<Integer>(count_report(a, engine).value.value), expected) << "trial " << trial << " " << engine;
    ASSERT_EQ(std::get<Integer>(count_report(a, "", false).value.value), expected) << "trial " << trial;
    const auto t = rows <= cols ? a : transpose(a);
    ASSERT_LE(abs(expected), engines::rect_bound(t)) << "trial " << trial;
    ASSERT_EQ(engines::rect_ryser(t, {}), expected) << "trial " << trial;
    ASSERT_EQ(engines::rect_dp(t, {}), expected) << "trial " << trial;
  }
}

TEST(Rectangular, RationalAgainstBruteForce) {
  std::mt19937_64 rng(102);
  std::uniform_int_distribution<long> num(-5, 5), den(1, 6);
  for (int trial = 0; trial < 150; ++trial) {
    const auto [rows, cols] = random_rect_shape(rng, trial);
    const auto a = random_rect<Rational>(rng, rows, cols, 0.6, [&] {
      Rational q(num(rng), den(rng));
      q.canonicalize();
      return q;
    });
    const Rational expected = injective_sum<Rational>(a);
    ASSERT_EQ(std::get<Rational>(count_report(a).value.value), expected) << "trial " << trial;
    ASSERT_EQ(std::get<Rational>(count_report(a, "rect-ryser").value.value), expected) << "trial " << trial;
  }
}

// Floats: every engine within its own error estimate of a long-double brute force, and the
// estimate small against the sum of the absolute products.
template <class V, class Draw>
void float_trials(std::uint64_t seed, Draw draw) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const auto [rows, cols] = random_rect_shape(rng, trial);
    const auto a = random_rect<V>(rng, rows, cols, 0.4 + 0.1 * (trial % 6), [&] { return draw(rng); });
    using L = std::conditional_t<std::is_same_v<V, double>, long double, std::complex<long double>>;
    const L exact = injective_sum<L>(a);
    const auto absolute = convert<double>(a, [](const V& v) { return std::abs(v); });
    const double scale = static_cast<double>(injective_sum<long double>(absolute));
    for (const char* engine : {"", "rect-ryser", "rect-dp", "ryser"}) {
      const CountReport r = count_report(a, engine);
      const V got = std::get<V>(r.value.value);
      const double err = static_cast<double>(std::abs(L(got) - exact));
      ASSERT_LE(err, r.value.abs_error + 1e-17 * scale) << "trial " << trial << " " << engine;
      // Ryser's alternating sums (rect-ryser, the padded square walk) lose more digits.
      const double loss = std::string(engine).find("ryser") != std::string::npos ? 1e-9 : 1e-12;
      ASSERT_LE(r.value.abs_error, loss * (scale + 1)) << "trial " << trial << " " << engine;
    }
  }
}

TEST(Rectangular, RealAgainstBruteForce) {
  float_trials<double>(103, [](std::mt19937_64& rng) { return std::uniform_real_distribution<double>(-1, 1)(rng); });
  float_trials<double>(104, [](std::mt19937_64& rng) { return std::uniform_real_distribution<double>(0.1, 2)(rng); });
}

TEST(Rectangular, ComplexAgainstBruteForce) {
  float_trials<Complex>(105, [](std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    return Complex(u(rng), u(rng));
  });
}

TEST(Rectangular, AllOnesGiveFallingFactorials) {
  for (auto [m, n] : {std::pair{1, 5}, {2, 3}, {3, 7}, {5, 9}, {7, 8}, {10, 24}, {14, 30}}) {
    Integer expected = 1;
    for (int k = 0; k < m; ++k) expected *= n - k;
    EXPECT_EQ(std::get<Integer>(count_report(ones(m, n)).value.value), expected) << m << "x" << n;
    EXPECT_EQ(std::get<Integer>(count_report(ones(n, m)).value.value), expected) << n << "x" << m;
    if (engines::rect_subsets(m, n) < 1e7) {
      EXPECT_EQ(engines::rect_ryser(ones(m, n), {}), expected) << m << "x" << n;
    }
    EXPECT_EQ(engines::rect_dp(ones(m, n), {}), expected) << m << "x" << n;
  }
  const CountReport r = count_report(ones(2, 3));
  EXPECT_EQ(std::get<Integer>(r.value.value), 6);
  EXPECT_EQ(r.rows, 2);
  EXPECT_EQ(r.cols, 3);
  EXPECT_TRUE(has_note(r, "injective maps")) << r.notes.front();
}

TEST(Rectangular, ComponentsEmptyColumnsAndStructuralZeros) {
  std::mt19937_64 rng(106);
  for (int trial = 0; trial < 100; ++trial) {
    // Two random blocks (one square, one wide), three empty columns, rows and columns shuffled.
    const int s = 1 + static_cast<int>(rng() % 4), m = 1 + static_cast<int>(rng() % 3);
    const int n = m + 1 + static_cast<int>(rng() % 3);
    std::uniform_int_distribution<long> val(1, 3);
    const auto a = random_rect<Integer>(rng, s, s, 0.8, [&] { return Integer(val(rng)); });
    const auto b = random_rect<Integer>(rng, m, n, 0.8, [&] { return Integer(val(rng)); });
    const int rows = s + m, cols = s + n + 3;
    std::vector<int> pr(static_cast<std::size_t>(rows)), pc(static_cast<std::size_t>(cols));
    for (int i = 0; i < rows; ++i) pr[i] = i;
    for (int j = 0; j < cols; ++j) pc[j] = j;
    std::shuffle(pr.begin(), pr.end(), rng);
    std::shuffle(pc.begin(), pc.end(), rng);
    SparseMatrix<Integer> c;
    c.rows = rows, c.cols = cols;
    for (const auto& e : a.entries) c.entries.push_back({pr[e.row], pc[e.col], e.value});
    for (const auto& e : b.entries) c.entries.push_back({pr[s + e.row], pc[s + e.col], e.value});
    c.normalize();
    const CountReport r = count_report(c);
    ASSERT_EQ(std::get<Integer>(r.value.value), injective_sum<Integer>(a) * injective_sum<Integer>(b)) << trial;
    ASSERT_EQ(std::get<Integer>(r.value.value), injective_sum<Integer>(c)) << trial;
    if (std::get<Integer>(r.value.value) != 0) {
      ASSERT_TRUE(has_note(r, "empty column(s) dropped")) << trial;
      ASSERT_TRUE(has_note(r, " connected components, counted apart")) << trial;
    }
  }
  // A component with more rows than columns (3 rows on 2 columns) beside a wide one: 0.
  SparseMatrix<Integer> z;
  z.rows = 4, z.cols = 6;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) z.entries.push_back({i, j, Integer(1)});
  for (int j = 2; j < 6; ++j) z.entries.push_back({3, j, Integer(1)});
  const CountReport r = count_report(z);
  EXPECT_EQ(std::get<Integer>(r.value.value), 0);
  EXPECT_TRUE(has_note(r, "maximum matching has 3 of 4 rows"));
  // An empty row (of the shorter side) gives 0.
  SparseMatrix<Integer> e = ones(3, 5);
  std::erase_if(e.entries, [](const auto& x) { return x.row == 1; });
  EXPECT_EQ(std::get<Integer>(count_report(e).value.value), 0);
  EXPECT_EQ(std::get<Integer>(count_report(e, "", false).value.value), 0);
}

TEST(Rectangular, PaddingAgreesWithTheDirectEngines) {
  std::mt19937_64 rng(107);
  std::uniform_int_distribution<long> val(-9, 9);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 9 + static_cast<int>(rng() % 6), m = n - 1 - static_cast<int>(rng() % 3);
    const auto a = random_rect<Integer>(rng, m, n, 0.7, [&] { return Integer(val(rng)); });
    const CountReport padded = count_report(a, "ryser");
    ASSERT_TRUE(has_note(padded, "padded with " + std::to_string(n - m) + " row(s) of ones")) << trial;
    const Integer v = std::get<Integer>(padded.value.value);
    ASSERT_EQ(v, engines::rect_ryser(a, {})) << trial;
    ASSERT_EQ(v, engines::rect_dp(a, {})) << trial;
    const auto r = convert<double>(a, [](const Integer& x) { return x.get_d() / 7; });
    const CountReport pr = count_report(r, "ryser");
    const Approx<double> direct = engines::rect_dp(r, {});
    ASSERT_LE(std::fabs(std::get<double>(pr.value.value) - direct.value), pr.value.abs_error + direct.abs_error) << trial;
  }
  // The planner pads when the square engines are predicted cheaper: 23 x 24 (about 2^24
  // Ryser steps) against 2^23 states a column for rect-dp.
  CountOptions o;
  o.explain = true;
  const CountReport plan = count_permanent(AnyMatrix(ones(23, 24)), o);
  EXPECT_TRUE(plan.explained);
  EXPECT_TRUE(has_note(plan, "padded with 1 row(s) of ones"));
}

TEST(Rectangular, TransposeRuleAndPerfectMatchings) {
  std::mt19937_64 rng(108);
  std::uniform_int_distribution<long> val(-4, 4);
  for (int trial = 0; trial < 50; ++trial) {
    const auto [rows, cols] = random_rect_shape(rng, 0);
    const auto a = random_rect<Integer>(rng, rows, cols, 0.7, [&] { return Integer(val(rng)); });
    const CountReport r = count_report(a), t = count_report(transpose(a));
    ASSERT_EQ(std::get<Integer>(r.value.value), std::get<Integer>(t.value.value));
    ASSERT_EQ(t.rows, cols);
    ASSERT_EQ(t.cols, rows);
    ASSERT_TRUE(has_note(t, "transpose"));
  }
  CountOptions o;
  o.perfect_matchings = true;
  const CountReport z = count_permanent(AnyMatrix(ones(2, 3)), o);
  EXPECT_EQ(std::get<Integer>(z.value.value), 0);
  EXPECT_TRUE(has_note(z, "no perfect matching"));
  EXPECT_TRUE(z.engine_runs.empty());
}

TEST(Rectangular, LargeDigitsStayExact) {
  std::mt19937_64 rng(109);
  for (int trial = 0; trial < 10; ++trial) {
    // Entries of about 10^30 (row sums beyond 2^49: the per-prime walk), some negative.
    const auto a = random_rect<Integer>(rng, 5, 8, 0.8, [&] {
      Integer v = Integer(static_cast<unsigned long>(rng() % 1000000007)) * Integer("1000000000000000000000") + (rng() % 97);
      return rng() % 2 ? Integer(-v) : v;
    });
    const Integer expected = injective_sum<Integer>(a);
    ASSERT_EQ(engines::rect_ryser(a, {}), expected);
    ASSERT_EQ(engines::rect_dp(a, {}), expected);
    ASSERT_EQ(std::get<Integer>(count_report(transpose(a)).value.value), expected);
  }
}

TEST(Rectangular, ThreadCountDoesNotChangeTheBits) {
  std::mt19937_64 rng(110);
  const auto a = random_rect<double>(rng, 10, 24, 0.7, [&] { return std::uniform_real_distribution<double>(-1, 1)(rng); });
  EngineOptions one, two;
  one.threads = 1, two.threads = 2;
  const auto x = engines::rect_ryser(a, one), y = engines::rect_ryser(a, two);
  EXPECT_EQ(x.value, y.value);
  EXPECT_EQ(x.abs_error, y.abs_error);
  EXPECT_EQ(engines::rect_dp(a, one).value, engines::rect_dp(a, two).value);
  EXPECT_NEAR(x.value, engines::rect_dp(a, one).value, x.abs_error + engines::rect_dp(a, one).abs_error);
}

TEST(Rectangular, ExplainPlansAndRefusals) {
  CountOptions o;
  o.explain = true;
  std::mt19937_64 rng(111);
  const auto a = random_rect<Integer>(rng, 12, 30, 0.5, [] { return Integer(1); });
  const CountReport plan = count_permanent(AnyMatrix(a), o);
  EXPECT_TRUE(plan.explained);
  ASSERT_EQ(plan.engine_runs.size(), 1u);
  EXPECT_EQ(plan.engine_runs[0].engine.rfind("rect-", 0), 0u);
  EXPECT_EQ(plan.engine_runs[0].n, 12);
  EXPECT_GT(plan.engine_runs[0].predicted_seconds, 0);
  // Beyond both engines (10^35 subsets, tables of 2^50 rows) and padding (70 rows): refused.
  try {
    count_permanent(AnyMatrix(ones(50, 120)));
    FAIL() << "not refused";
  } catch (const RefusedError& e) {
    EXPECT_NE(std::string(e.what()).find("beyond reach"), std::string::npos) << e.what();
  }
  EXPECT_THROW(engines::rect_ryser(ones(45, 90), {}), RefusedError);
  EXPECT_THROW(engines::rect_dp(ones(41, 50), {}), RefusedError);
  EXPECT_THROW(engines::rect_dp(ones(3, 2), {}), std::invalid_argument);
  CountOptions limited;
  limited.max_work = 1e3;
  EXPECT_THROW(count_permanent(AnyMatrix(ones(16, 40)), limited), RefusedError);
}

TEST(Rectangular, CommandLinePrintsTheRectangularPermanent) {
  const std::string path = test::temp_file("%%MatrixMarket matrix coordinate pattern general\n2 3 6\n"
                                           "1 1\n1 2\n1 3\n2 1\n2 2\n2 3\n", ".mtx");
  const auto r = test::run_matchcount("'" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "6\n");
  const auto j = test::run_matchcount("--json '" + path + "'");
  EXPECT_NE(j.out.find("\"value\":\"6\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"engine\":\"rect-"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("injective maps"), std::string::npos) << j.out;
}

TEST(Rectangular, EnginesAgreeOnMediumBlocks) {
  // Deeper prefixes, several threads and the subtree skips of sparse rows (n up to 22).
  std::mt19937_64 rng(112);
  std::uniform_int_distribution<long> val(-2, 3);
  EngineOptions two;
  two.threads = 2;
  for (int trial = 0; trial < 12; ++trial) {
    const int m = 8 + static_cast<int>(rng() % 4), n = m + 2 + static_cast<int>(rng() % (21 - m));
    const auto a = random_rect<Integer>(rng, m, n, 0.3 + 0.05 * trial, [&] { return Integer(val(rng)); });
    ASSERT_EQ(engines::rect_ryser(a, two), engines::rect_dp(a, two)) << trial;
    const auto c = convert<Complex>(a, [&](const Integer& x) { return Complex(x.get_d(), double(rng() % 3) - 1); });
    const auto x = engines::rect_ryser(c, two), y = engines::rect_dp(c, two);
    ASSERT_LE(std::abs(x.value - y.value), x.abs_error + y.abs_error) << trial;
  }
}
