// The dense hafnian engines ("hafnian", "hafnian-brute") against the naive oracle, each other,
// known values; walks interrupted and resumed; thread counts.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <map>
#include <random>

#include "test_support.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "hafnian_oracle.hpp"
#include "symmetric_helpers.hpp"
#include "matchcount/error.hpp"
#include "runtime/work_units.hpp"

using namespace matchcount;
using matchcount::test::naive_hafnian;
using namespace matchcount::test::symmetric_helpers;

namespace {

using test::threads;

const GraphEngine& fast() {
  static const auto e = engines::make_hafnian();
  return *e;
}
const GraphEngine& brute() {
  static const auto e = engines::make_hafnian_brute();
  return *e;
}

/// Double-checks |value - exact| <= abs_error (and that the estimate is not absurdly loose).
void expect_covers(const Approx<double>& r, double exact, const std::string& what) {
  EXPECT_LE(std::fabs(r.value - exact), r.abs_error) << what << ": " << r.value << " vs " << exact;
}
void expect_covers(const Approx<Complex>& r, Complex exact, const std::string& what) {
  EXPECT_LE(std::abs(r.value - exact), r.abs_error) << what << ": " << r.value << " vs " << exact;
}

/// An exact complex hafnian of a Gaussian-integer matrix: re/im parts as Integers.
struct GaussInt {
  Integer re = 0, im = 0;
  GaussInt() = default;
  GaussInt(int v) : re(v) {}
  GaussInt(Integer r, Integer i) : re(std::move(r)), im(std::move(i)) {}
  GaussInt operator*(const GaussInt& o) const { return {re * o.re - im * o.im, re * o.im + im * o.re}; }
  GaussInt& operator+=(const GaussInt& o) { re += o.re, im += o.im; return *this; }
  bool operator==(const GaussInt& o) const { return re == o.re && im == o.im; }
};

}  // namespace

TEST(HafnianEngine, BothEnginesMatchTheNaiveOracleOnSmallIntegerMatrices) {
  std::mt19937_64 rng(11);
  int cases = 0;
  for (int n = 0; n <= 16; ++n)
    for (int rep = 0; rep < (n <= 10 ? 12 : 3); ++rep)
      for (int loops = 0; loops < 2; ++loops) {
        // Signed entries that cancel; beyond n = 12 sparser, so that the oracles stay fast.
        const auto a = rep % 2 ? random_int(n, -3, 3, rng, n <= 12 ? 1.0 : 0.4) : random_01(n, 0.3 + 0.05 * rep, loops, rng);
        const Integer want = (n % 2 && !loops) ? Integer(0) : naive_hafnian(a, loops);
        const std::string what = "n=" + std::to_string(n) + " rep=" + std::to_string(rep) + " loops=" + std::to_string(loops);
        EXPECT_EQ(fast().hafnian(a, loops, threads(2)), want) << what;
        EXPECT_EQ(brute().hafnian(a, loops, threads(1)), want) << what;
        ++cases;
      }
  EXPECT_GT(cases, 200);
}

TEST(HafnianEngine, FloatsCoverTheExactValueOfIntegerValuedMatrices) {
  std::mt19937_64 rng(12);
  for (int n = 1; n <= 16; ++n)
    for (int rep = 0; rep < 6; ++rep)
      for (int loops = 0; loops < 2; ++loops) {
        if (n % 2 && !loops) continue;
        // Entries up to 2^20: products overflow the 53 bits, so rounding really happens.
        const auto a = rep % 3 == 2 ? random_int(n, -(1 << 20), 1 << 20, rng) : random_int(n, -4, 4, rng);
        // The exact engine is checked against the oracle above; the oracle itself is slow here.
        const Integer want = fast().hafnian(a, loops, threads(2));
        const std::string what = "n=" + std::to_string(n) + " rep=" + std::to_string(rep) + " loops=" + std::to_string(loops);
        expect_covers(fast().hafnian(as<double>(a), loops, threads(1)), want.get_d(), what + " real");
        if (n <= 12) expect_covers(brute().hafnian(as<double>(a), loops, threads(1)), want.get_d(), what + " brute real");
        if (n > 10) continue;
        // Complex: entries a_ij (1 + k i), k in {-1, 0, 1} symmetric in (i, j); the exact value
        // from the oracle over Gaussian integers.
        SparseMatrix<Complex> c;
        SparseMatrix<GaussInt> g;
        c.rows = c.cols = g.rows = g.cols = n;
        for (const auto& e : a.entries) {
          const int k = (e.row + e.col) % 3 - 1;
          c.entries.push_back({e.row, e.col, Complex(e.value.get_d(), k * e.value.get_d())});
          g.entries.push_back({e.row, e.col, GaussInt(e.value, k * e.value)});
        }
        const GaussInt gw = naive_hafnian(g, loops);
        const Complex cw(gw.re.get_d(), gw.im.get_d());
        expect_covers(fast().hafnian(c, loops, threads(1)), cw, what + " complex");
        expect_covers(brute().hafnian(c, loops, threads(1)), cw, what + " brute complex");
      }
}

TEST(HafnianEngine, FloatsAgreeWithTheOracleOnRealAndComplexMatrices) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 2; n <= 14; n += 1)
    for (int loops = 0; loops < 2; ++loops) {
      if (n % 2 && !loops) continue;
      const auto r = symmetric<double>(n, [&](int, int) { return u(rng); });
      // The oracle in long double: its own error is far below the engine's estimate.
      SparseMatrix<long double> rl;
      rl.rows = rl.cols = n;
      for (const auto& e : r.entries) rl.entries.push_back({e.row, e.col, static_cast<long double>(e.value)});
      const long double want = naive_hafnian(rl, loops);
      const auto got = fast().hafnian(r, loops, threads(1));
      EXPECT_LE(std::fabs(static_cast<long double>(got.value) - want), got.abs_error) << n;
      // The bound is rigorous, hence far above the typical error, but not absurdly so.
      EXPECT_LT(got.abs_error, 1e-6 * (1 + std::fabs(static_cast<double>(want)))) << "estimate too loose, n=" << n;
      const auto c = symmetric<Complex>(n, [&](int, int) { return Complex(u(rng), u(rng)); });
      SparseMatrix<std::complex<long double>> cl;
      cl.rows = cl.cols = n;
      for (const auto& e : c.entries) cl.entries.push_back({e.row, e.col, std::complex<long double>(e.value)});
      const auto cw = naive_hafnian(cl, loops);
      const auto cg = fast().hafnian(c, loops, threads(2));
      EXPECT_LE(std::abs(std::complex<long double>(cg.value) - cw), cg.abs_error) << n;
      const auto cb = brute().hafnian(c, loops, threads(1));
      EXPECT_LE(std::abs(std::complex<long double>(cb.value) - cw), cb.abs_error) << n;
    }
}

TEST(HafnianEngine, EnginesAgreeUpToN26) {
  std::mt19937_64 rng(14);
  for (int n : {18, 20, 22, 24, 26})
    for (int loops = 0; loops < 2; ++loops) {
      // Sparse enough that enumeration stays fast, dense enough for many matchings.
      const auto a = random_01(n, n <= 20 ? 0.3 : 0.18, loops, rng);
      EXPECT_EQ(fast().hafnian(a, loops, threads(2)), brute().hafnian(a, loops, threads(2))) << n << " " << loops;
    }
  const auto w = random_int(21, -2, 2, rng, 0.25);  // odd, loops, signed
  EXPECT_EQ(fast().hafnian(w, true, threads(2)), brute().hafnian(w, true, threads(2)));
}

TEST(HafnianEngine, KnownValues) {
  // K_{2m}: (2m-1)!!; with loops all ones: the number of involutions.
  Integer dfact = 1;
  for (int m = 1; m <= 13; ++m) {
    dfact *= 2 * m - 1;
    const auto k = symmetric<Integer>(2 * m, [](int i, int j) { return i != j ? 1 : 0; });
    EXPECT_EQ(fast().hafnian(k, false, threads(2)), dfact) << m;
  }
  const auto ones = symmetric<Integer>(12, [](int, int) { return 1; });
  EXPECT_EQ(fast().hafnian(ones, true, threads(1)), Integer(140152));  // involutions of 12 points
  // All-ones 8 x 8 with one off-diagonal pair 10^6: 105 - 15 + 15 * 10^6.
  auto big = symmetric<Integer>(8, [](int i, int j) { return (i == 5 && j == 2) ? 1000000 : 1; });
  EXPECT_EQ(fast().hafnian(big, false, threads(1)), Integer(15000090));
  EXPECT_EQ(brute().hafnian(big, false, threads(1)), Integer(15000090));
  // The Petersen graph has 6 perfect matchings.
  const int edges[15][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 5}, {1, 6}, {2, 7},
                            {3, 8}, {4, 9}, {5, 7}, {7, 9}, {9, 6}, {6, 8}, {8, 5}};
  auto petersen = symmetric<Integer>(10, [&](int i, int j) {
    for (const auto& e : edges)
      if ((e[0] == i && e[1] == j) || (e[0] == j && e[1] == i)) return 1;
    return 0;
  });
  EXPECT_EQ(fast().hafnian(petersen, false, threads(2)), Integer(6));
  EXPECT_EQ(fast().hafnian(as<double>(petersen), false, threads(2)).value, 6.0);
  // Large entries: several passes of four primes.
  const auto k20 = symmetric<Integer>(20, [](int i, int j) { return i != j ? Integer("1000000000000") : Integer(0); });
  EXPECT_GT(engines::hafnian_prime_count(k20, false), 8u);
  Integer want = 654729075;  // 19!!
  for (int k = 0; k < 10; ++k) want *= Integer("1000000000000");
  EXPECT_EQ(fast().hafnian(k20, false, threads(2)), want);
}

TEST(HafnianEngine, ThreadCountsGiveTheSameBits) {
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> u(-1, 1);
  const auto a = random_int(30, -3, 3, rng);
  EXPECT_EQ(fast().hafnian(a, true, threads(1)), fast().hafnian(a, true, threads(2)));
  const auto r = symmetric<double>(30, [&](int, int) { return u(rng); });
  const auto r1 = fast().hafnian(r, false, threads(1)), r2 = fast().hafnian(r, false, threads(2));
  EXPECT_EQ(std::memcmp(&r1.value, &r2.value, sizeof(double)), 0);
  EXPECT_EQ(r1.abs_error, r2.abs_error);
  const auto c = symmetric<Complex>(29, [&](int, int) { return Complex(u(rng), u(rng)); });
  const auto c1 = fast().hafnian(c, true, threads(1)), c2 = fast().hafnian(c, true, threads(2));
  EXPECT_EQ(std::memcmp(&c1.value, &c2.value, sizeof(Complex)), 0);
}

namespace {

/// A journal in memory that requests a stop after `stop_after_units` units done.
class StopJournal : public WalkJournal {
 public:
  std::map<std::string, WalkState> saved;
  std::uint64_t stop_after_units = 0;
  WalkState resume(const std::string& tag) override {
    auto it = saved.find(tag);
    return it == saved.end() ? WalkState{} : it->second;
  }
  bool due() const override { return true; }
  void update(const std::string& tag, const WalkState& s) override { saved[tag] = s; }
  int stop_requested() const override {
    std::uint64_t done = 0;
    for (const auto& [tag, s] : saved) done += s.done_units();
    return stop_after_units > 0 && done >= stop_after_units ? SIGINT : 0;
  }
};

template <class T>
void expect_walk_resumes_identically(const SparseMatrix<T>& a, bool loops, std::uint64_t stop_after) {
  EngineOptions o = threads(1);
  const auto plain = fast().hafnian(a, loops, o);
  StopJournal j;
  j.stop_after_units = stop_after;
  o.journal = &j;
  EXPECT_THROW(fast().hafnian(a, loops, o), Interrupted);
  ASSERT_EQ(j.saved.size(), 1u);
  const WalkState s = j.saved.begin()->second;
  EXPECT_GT(s.done_units(), 0u);
  EXPECT_FALSE(s.complete()) << j.saved.begin()->first;
  j.stop_after_units = 0;
  o.threads = 2;
  const auto resumed = fast().hafnian(a, loops, o);
  EXPECT_TRUE(j.saved.begin()->second.complete());
  EXPECT_TRUE(test::same_bits(plain, resumed));
}

}  // namespace

TEST(HafnianEngine, InterruptedWalksResumeToTheSameBits) {
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> u(-1, 1);
  // n = 30: 2^3 units a pass; the exact count needs one pass.
  const auto a = random_01(30, 0.5, true, rng);
  {
    const Integer plain = fast().hafnian(a, true, threads(1));
    StopJournal j;
    j.stop_after_units = 3;
    EngineOptions o = threads(1);
    o.journal = &j;
    EXPECT_THROW(fast().hafnian(a, true, o), Interrupted);
    ASSERT_EQ(j.saved.size(), 1u);
    EXPECT_FALSE(j.saved.begin()->second.complete());
    j.stop_after_units = 0;
    o.threads = 2;
    EXPECT_EQ(fast().hafnian(a, true, o), plain);
  }
  expect_walk_resumes_identically(symmetric<double>(30, [&](int, int) { return u(rng); }), false, 3);
  expect_walk_resumes_identically(symmetric<Complex>(29, [&](int, int) { return Complex(u(rng), u(rng)); }), true, 2);
}

TEST(HafnianEngine, GuardsAndCostModel) {
  const auto odd = symmetric<Integer>(5, [](int i, int j) { return i != j ? 1 : 0; });
  EXPECT_EQ(fast().hafnian(odd, false, threads(1)), Integer(0));
  EXPECT_THROW(brute().hafnian(symmetric<Integer>(32, [](int, int) { return 1; }), false, threads(1)), RefusedError);
  EXPECT_EQ(fast().name(), "hafnian");
  EXPECT_EQ(brute().name(), "hafnian-brute");
  EXPECT_TRUE(fast().loops());
  const double t40 = engines::hafnian_seconds(40, 4, NumberKind::Integer, false, 2);
  const double t44 = engines::hafnian_seconds(44, 4, NumberKind::Integer, false, 2);
  EXPECT_GT(t44, 3 * t40);
  EXPECT_LE(engines::hafnian_seconds(44, 0, NumberKind::Real, false, 2), t44);  // four orders: one pass
  EXPECT_GT(engines::hafnian_seconds(44, 0, NumberKind::Complex, true, 2), t44);
  EXPECT_GT(engines::hafnian_seconds(44, 8, NumberKind::Integer, false, 2), 1.5 * t44);
}
