// The conformance suite: every square engine of the catalog (the rows with a factory) against
// what its row claims, the guards every engine shares, and the brute-force oracle (oracle.hpp)
// on small blocks of every number kind the row claims. GPU engines without a device count on
// the CPU; with one, blocks of n >= 8 (kGpuMinN) run on it, so n = 8 and 9 are in every loop.
// Engine-specific structure, known values, threads, progress and larger blocks stay in the
// engines' own files (engines_test.cpp, frontier_test.cpp, kasteleyn_test.cpp, ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "oracle.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// Scales every random loop of the suite (FLINT style): at 1 the suite takes under 2 s
/// (Release, 2 cores).
constexpr int kRepeat = 1;
/// Largest block the oracle enumerates.
constexpr int kMaxN = 9;
constexpr double kDensities[] = {0.3, 0.6, 1.0};
/// Added to every float tolerance (a denormal: the comparisons stay exact at 0).
constexpr double kSlack = 1e-300;
/// An error estimate above this share of prod_i (sum_j |a_ij|) (or the same over columns,
/// which bound every term of every formula here) says nothing: the estimate must stay below.
/// (The engines stay below 2e-13 of it at n <= 9.)
constexpr double kVacuous = 1e-11;

/// Engines that may refuse a small block for its structure: not planar (kasteleyn), too few
/// repeated lines (repeated), too wide a frontier (frontier, gpu-frontier).
bool structural(const std::string& engine) {
  return engine == "kasteleyn" || engine == "repeated" || engine == "frontier" || engine == "gpu-frontier";
}

/// One seed per (engine, kind), stable across platforms (FNV-1a of the name).
std::uint64_t seed_of(const std::string& engine, unsigned kind) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : engine) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h ^ kind;
}

/// Shapes of blocks: random; a band |i - j| <= 1 or 2; an arrow (first row, last column and
/// the tridiagonal); the biadjacency of a grid with rows and columns shuffled (planar: every
/// structural engine takes it); rows and columns of a few types (repeated lines).
enum Family { kRandom, kBand, kArrow, kGrid, kTyped };
constexpr const char* kFamilyNames[] = {"random", "band", "arrow", "grid", "typed"};

struct Case {
  int n;
  Family family;
  double density;  // random and typed: share of nonzero entries; grid: share of edges kept
  int mix;         // picks the values; cycles through every choice for each family
};

/// kRepeat rounds of n = 1..9: random blocks of each density, a band or an arrow, a grid and
/// a block of repeated lines.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (int r = 0; r < kRepeat; ++r)
    for (int n = 1; n <= kMaxN; ++n) {
      int pos = r + n;
      for (double d : kDensities) out.push_back({n, kRandom, d, pos++});
      out.push_back({n, n % 2 ? kBand : kArrow, 1.0, pos++});
      out.push_back({n, kGrid, n % 2 ? 1.0 : 0.85, pos++});
      out.push_back({n, kTyped, kDensities[n % 3], pos++});
    }
  return out;
}

std::vector<int> shuffled(std::mt19937_64& rng, int n) {
  std::vector<int> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

/// An n x n block of the case's family; `draw()` gives a nonzero entry.
template <class T, class Draw>
SparseMatrix<T> make_block(std::mt19937_64& rng, const Case& c, Draw draw) {
  const int n = c.n;
  std::uniform_real_distribution<double> u(0, 1);
  SparseMatrix<T> a;
  a.rows = a.cols = n;
  if (c.family == kGrid) {
    // m x k cells, m k = 2n: 1x2, 2x2, 2x3, 2x4, 2x5, 3x4, 2x7, 4x4, 3x6.
    const int m = n == 1 ? 1 : n % 4 == 0 && n >= 8 ? 4 : n % 3 == 0 && n >= 6 ? 3 : 2;
    const auto g = biadjacency(grid_graph(m, 2 * n / m));
    if (g.rows != n) throw std::logic_error("grid block of the wrong size");
    const auto rp = shuffled(rng, n), cp = shuffled(rng, n);
    for (const auto& e : g.entries)
      if (u(rng) < c.density)
        a.entries.push_back({rp[static_cast<std::size_t>(e.row)], cp[static_cast<std::size_t>(e.col)], draw()});
  } else if (c.family == kTyped) {
    auto types = [&](int k) {
      std::vector<int> t(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) t[static_cast<std::size_t>(i)] = i < k ? i : int(rng() % unsigned(k));
      std::shuffle(t.begin(), t.end(), rng);
      return t;
    };
    const int kr = 1 + int(rng() % unsigned(n)), kc = 1 + int(rng() % unsigned(n));
    const auto rt = types(kr), ct = types(kc);
    std::vector<T> v(static_cast<std::size_t>(kr * kc), T(0));
    for (auto& x : v)
      if (u(rng) < c.density) x = draw();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const T& x = v[static_cast<std::size_t>(rt[static_cast<std::size_t>(i)] * kc + ct[static_cast<std::size_t>(j)])];
        if (x != T(0)) a.entries.push_back({i, j, x});
      }
  } else {
    const int band = 1 + int(rng() % 2);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const bool on = c.family == kRandom ? u(rng) < c.density
                        : c.family == kBand ? std::abs(i - j) <= band && u(rng) < 0.9
                                            : (i == 0 || j == n - 1 || std::abs(i - j) <= 1) && u(rng) < 0.95;
        if (on) a.entries.push_back({i, j, draw()});
      }
  }
  a.normalize();
  return a;
}

using test::entries_as;

template <class T>
SparseMatrix<double> absolute(const SparseMatrix<T>& a) {
  return convert<double>(a, [](const T& v) { return std::abs(v); });
}

/// min(prod_i sum_j |a_ij|, prod_j sum_i |a_ij|): bounds |perm| and every Ryser term.
template <class T>
double line_bound(const SparseMatrix<T>& a) {
  std::vector<double> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
  for (const auto& e : a.entries) {
    row[static_cast<std::size_t>(e.row)] += std::abs(e.value);
    col[static_cast<std::size_t>(e.col)] += std::abs(e.value);
  }
  auto prod = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>()); };
  return std::min(prod(row), prod(col));
}

long nonzero(std::uniform_int_distribution<long>& val, std::mt19937_64& rng) {
  long v = 0;
  while (v == 0) v = val(rng);
  return v;
}

SparseMatrix<Integer> diagonal(int n) {
  SparseMatrix<Integer> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i) a.entries.push_back({i, i, Integer(1)});
  return a;
}

class Engines : public ::testing::TestWithParam<std::string> {
 protected:
  const catalog::Row& row() const { return catalog::entry(GetParam()); }
  bool claims(unsigned kind) const { return (row().kinds & kind) != 0; }

  /// Runs `check(rng, case)` on every case with the seed of (engine, kind). A RefusedError
  /// passes only from a structural engine, never on a grid (planar and narrow) nor, for the
  /// repeated engine, on a block of repeated lines; every engine must count at least half of
  /// the cases (kasteleyn, refusing the non-planar ones, counts about 60%).
  template <class Check>
  void for_cases(unsigned kind, Check check) {
    const std::uint64_t seed = seed_of(GetParam(), kind);
    std::mt19937_64 rng(seed);
    int counted = 0, refused = 0;
    for (const Case& c : cases()) {
      std::ostringstream where;
      where << "seed " << seed << ", n " << c.n << ", " << kFamilyNames[c.family] << ", density " << c.density
            << ", mix " << c.mix;
      SCOPED_TRACE(where.str());
      try {
        check(rng, c);
        ++counted;
      } catch (const RefusedError& e) {
        const bool promised = c.family == kGrid || (GetParam() == "repeated" && c.family == kTyped);
        if (!structural(GetParam()) || promised) ADD_FAILURE() << "refused: " << e.what();
        ++refused;
      }
      if (HasFailure()) return;
    }
    EXPECT_GE(2 * counted, counted + refused) << refused << " cases refused";
    RecordProperty("refused", refused);
  }

  std::unique_ptr<Engine> engine_ = make_engine(GetParam());
};

TEST_P(Engines, RowAgreesWithEngine) {
  const catalog::Row& r = row();
  EXPECT_EQ(r.name, GetParam());
  EXPECT_EQ(r.shape, catalog::Shape::Square);
  EXPECT_NE(r.kinds, 0u);
  EXPECT_EQ(r.kinds & ~unsigned(catalog::kAllKinds), 0u);
  EXPECT_GE(r.max_n, kMaxN);
  ASSERT_NE(r.make, nullptr);
  const auto made = r.make();
  EXPECT_EQ(made->name(), r.name);
  EXPECT_EQ(made->max_n(), r.max_n);
  EXPECT_EQ(engine_->name(), r.name);
  EXPECT_EQ(engine_->max_n(), r.max_n);
}

// The guards of Engine::permanent, in every kind (they run before the engine proper).
TEST_P(Engines, Guards) {
  const Engine& e = *engine_;
  const SparseMatrix<Integer> empty;
  EXPECT_EQ(e.permanent(empty, {}), 1);
  EXPECT_EQ(e.permanent(entries_as<double>(empty), {}).value, 1.0);
  EXPECT_EQ(e.permanent(entries_as<Complex>(empty), {}).value, Complex(1.0));
  for (auto [rows, cols] : {std::pair{2, 3}, std::pair{3, 2}}) {
    SparseMatrix<Integer> rect;
    rect.rows = rows, rect.cols = cols;
    for (int i = 0; i < std::min(rows, cols); ++i) rect.entries.push_back({i, i, Integer(1)});
    EXPECT_THROW(e.permanent(rect, {}), std::invalid_argument) << rows << "x" << cols;
    EXPECT_THROW(e.permanent(entries_as<double>(rect), {}), std::invalid_argument) << rows << "x" << cols;
    EXPECT_THROW(e.permanent(entries_as<Complex>(rect), {}), std::invalid_argument) << rows << "x" << cols;
  }
  // An empty row or column: 0, even in a block no structural engine would take.
  std::vector<SparseMatrix<Integer>> zero = {SparseMatrix<Integer>{1, 1, {}}, band_matrix(12, 1),
                                             complete_bipartite(12)};
  std::erase_if(zero[1].entries, [](const auto& x) { return x.row == 5; });
  std::erase_if(zero[2].entries, [](const auto& x) { return x.col == 7; });
  for (const auto& a : zero) {
    EXPECT_EQ(e.permanent(a, {}), 0) << a.rows;
    EXPECT_EQ(e.permanent(entries_as<double>(a), {}).value, 0.0) << a.rows;
    EXPECT_EQ(e.permanent(entries_as<Complex>(a), {}).value, Complex(0.0)) << a.rows;
  }
  // n = max_n + 1 is refused (where such a block is cheap to build).
  if (row().max_n <= 64) {
    const auto big = diagonal(row().max_n + 1);
    EXPECT_THROW(e.permanent(big, {}), RefusedError);
    EXPECT_THROW(e.permanent(entries_as<double>(big), {}), RefusedError);
    EXPECT_THROW(e.permanent(entries_as<Complex>(big), {}), RefusedError);
  }
}

// No perfect matching though every line has an entry (Hall's condition fails): the engine
// proper must find 0, exactly in every kind (the float entries are integers and halves, so
// no sum rounds). Both blocks are planar, so every engine takes them.
TEST_P(Engines, NoPerfectMatching) {
  // Rows 1 and 2 share column 2 only.
  SparseMatrix<Integer> small{3, 3, {{0, 0, Integer(1)}, {0, 1, Integer(-2)}, {1, 2, Integer(3)}, {2, 2, Integer(1)}}};
  // n = 8 (on the GPU with one): rows 0..2 lie in columns 0 and 1, rows 3..7 in a band.
  SparseMatrix<Integer> hall{8, 8, {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) hall.entries.push_back({i, j, Integer((i + j) % 2 ? -2 : 3)});
  for (int i = 3; i < 8; ++i)
    for (int j = i - 1; j <= i; ++j) hall.entries.push_back({i, j, Integer(1 + (i + j) % 3)});
  hall.normalize();
  for (const auto& a : {small, hall}) {
    if (claims(catalog::kInteger)) {
      EXPECT_EQ(engine_->permanent(a, {}), 0) << a.rows;
    }
    if (claims(catalog::kReal)) {
      EXPECT_EQ(engine_->permanent(entries_as<double>(a), {}).value, 0.0) << a.rows;
    }
    if (claims(catalog::kComplex)) {
      const auto c = convert<Complex>(a, [](const Integer& v) { return Complex(v.get_d(), -0.5 * v.get_d()); });
      EXPECT_EQ(engine_->permanent(c, {}).value, Complex(0.0)) << a.rows;
    }
  }
}

// Exact counts: 0/1 entries, small signed ones, and entries up to 1e3 and 1e15 (products up to
// 1e135 at n = 9: CRT over many primes, and row sums beyond 2^49).
TEST_P(Engines, IntegerAgainstOracle) {
  if (!claims(catalog::kInteger)) GTEST_SKIP() << "the row claims no integer blocks";
  constexpr long kRanges[][2] = {{1, 1}, {-3, 3}, {-1000, 1000}, {-1000000000000000L, 1000000000000000L}};
  for_cases(catalog::kInteger, [&](std::mt19937_64& rng, const Case& c) {
    std::uniform_int_distribution<long> val(kRanges[c.mix % 4][0], kRanges[c.mix % 4][1]);
    const auto a = make_block<Integer>(rng, c, [&] { return Integer(nonzero(val, rng)); });
    const Integer want = test::naive_permanent(a);
    ASSERT_EQ(engine_->permanent(a, {}), want);
  });
}

// Floats: signed entries in [-1, 1], positive ones in [0.1, 2] and small integers (then the
// oracle is exact and the engine's own estimate must cover all of its error).
TEST_P(Engines, RealAgainstOracle) {
  if (!claims(catalog::kReal)) GTEST_SKIP() << "the row claims no real blocks";
  for_cases(catalog::kReal, [&](std::mt19937_64& rng, const Case& c) {
    SparseMatrix<double> a;
    double want = 0, oracle_error = 0;
    if (c.mix % 3 == 2) {
      std::uniform_int_distribution<long> val(-3, 3);
      const auto ai = make_block<Integer>(rng, c, [&] { return Integer(nonzero(val, rng)); });
      a = entries_as<double>(ai);
      want = test::naive_permanent(ai).get_d();  // below 9! 3^9 < 2^53: exact
    } else {
      std::uniform_real_distribution<double> val(c.mix % 3 ? 0.1 : -1.0, c.mix % 3 ? 2.0 : 1.0);
      a = make_block<double>(rng, c, [&] { return val(rng); });
      want = test::naive_permanent(a);
      oracle_error = 1e-14 * test::naive_permanent(absolute(a));
    }
    const auto got = engine_->permanent(a, {});
    ASSERT_LE(std::fabs(got.value - want), got.abs_error + oracle_error + kSlack) << got.value << " vs " << want;
    ASSERT_GE(got.abs_error, 0.0);
    ASSERT_LE(got.abs_error, kVacuous * line_bound(a) + kSlack);  // not vacuous
  });
}

// Complex entries with parts in [-1, 1], and Gaussian integers (parts in [-2, 2]: the
// oracle's sums are exact).
TEST_P(Engines, ComplexAgainstOracle) {
  if (!claims(catalog::kComplex)) GTEST_SKIP() << "the row claims no complex blocks";
  for_cases(catalog::kComplex, [&](std::mt19937_64& rng, const Case& c) {
    const bool gaussian = c.mix % 2 == 1;
    std::uniform_real_distribution<double> part(-1.0, 1.0);
    std::uniform_int_distribution<long> ipart(-2, 2);
    const auto a = make_block<Complex>(rng, c, [&] {
      if (!gaussian) return Complex(part(rng), part(rng));
      Complex v;
      while (v == Complex(0.0)) v = Complex(double(ipart(rng)), double(ipart(rng)));
      return v;
    });
    const Complex want = test::naive_permanent(a);
    const double oracle_error = gaussian ? 0.0 : 1e-14 * test::naive_permanent(absolute(a));
    const auto got = engine_->permanent(a, {});
    ASSERT_LE(std::abs(got.value - want), got.abs_error + oracle_error + kSlack) << got.value << " vs " << want;
    ASSERT_GE(got.abs_error, 0.0);
    ASSERT_LE(got.abs_error, kVacuous * line_bound(a) + kSlack);  // not vacuous
  });
}

INSTANTIATE_TEST_SUITE_P(Conformance, Engines, ::testing::ValuesIn(test::square_engines()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace matchcount
