// The domino tiling samplers of src/engines/lattice: every output is a tiling of its region; the
// distribution is uniform by a chi-square test against all tilings of small regions, found here by
// a plain search (and the test is shown to catch a mild bias); seeds reproduce; large regions
// finish; the stop check stops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <stdexcept>
#include <vector>

#include "engines/lattice/lattice_samplers.hpp"
#include "matchcount/checkpoint.hpp"

namespace matchcount {
namespace {

using engines::Domino;
using engines::LatticeCell;
using Tiling = std::vector<int>;  // each cell's partner (row-major index), -1 outside the region
using Sampler = std::function<std::vector<Domino>(std::uint64_t seed)>;

/// A region: its bounding box and which cells of the box belong to it.
struct Region {
  int rows = 0, cols = 0;
  std::function<bool(int, int)> inside;
  int index(int r, int c) const { return r * cols + c; }
  bool holds(int r, int c) const { return r >= 0 && r < rows && c >= 0 && c < cols && inside(r, c); }
};

Region aztec(int n) {
  return {2 * n, 2 * n, [n](int r, int c) { return engines::in_aztec_diamond(n, {r, c}); }};
}
Region rectangle(int rows, int cols) {
  return {rows, cols, [](int, int) { return true; }};
}

/// Whether `dominoes` tile `g`: every domino two adjacent cells of g, every cell of g covered
/// exactly once. The tiling as partners into `out` when given.
testing::AssertionResult is_tiling(const Region& g, const std::vector<Domino>& dominoes, Tiling* out = nullptr) {
  Tiling partner(static_cast<std::size_t>(g.rows * g.cols), -1);
  for (const auto& [x, y] : dominoes) {
    if (!g.holds(x.r, x.c) || !g.holds(y.r, y.c)) {
      return testing::AssertionFailure() << "domino (" << x.r << "," << x.c << ")-(" << y.r << "," << y.c << ") leaves the region";
    }
    if (std::abs(x.r - y.r) + std::abs(x.c - y.c) != 1) {
      return testing::AssertionFailure() << "cells (" << x.r << "," << x.c << ") and (" << y.r << "," << y.c << ") not adjacent";
    }
    for (const LatticeCell& z : {x, y}) {
      if (partner[static_cast<std::size_t>(g.index(z.r, z.c))] != -1) {
        return testing::AssertionFailure() << "cell (" << z.r << "," << z.c << ") covered twice";
      }
    }
    partner[static_cast<std::size_t>(g.index(x.r, x.c))] = g.index(y.r, y.c);
    partner[static_cast<std::size_t>(g.index(y.r, y.c))] = g.index(x.r, x.c);
  }
  for (int r = 0; r < g.rows; ++r) {
    for (int c = 0; c < g.cols; ++c) {
      if (g.inside(r, c) && partner[static_cast<std::size_t>(g.index(r, c))] == -1) {
        return testing::AssertionFailure() << "cell (" << r << "," << c << ") not covered";
      }
    }
  }
  if (out) *out = std::move(partner);
  return testing::AssertionSuccess();
}

/// Every tiling of g: the first free cell (row-major) pairs with its right or its lower neighbour.
void enumerate(const Region& g, Tiling& partner, int from, std::vector<Tiling>& all) {
  int at = from;
  while (at < g.rows * g.cols && (!g.inside(at / g.cols, at % g.cols) || partner[static_cast<std::size_t>(at)] != -1)) ++at;
  if (at == g.rows * g.cols) {
    all.push_back(partner);
    return;
  }
  const int r = at / g.cols, c = at % g.cols;
  for (const auto& [dr, dc] : {std::pair{0, 1}, std::pair{1, 0}}) {
    if (!g.holds(r + dr, c + dc) || partner[static_cast<std::size_t>(g.index(r + dr, c + dc))] != -1) continue;
    const int other = g.index(r + dr, c + dc);
    partner[static_cast<std::size_t>(at)] = other;
    partner[static_cast<std::size_t>(other)] = at;
    enumerate(g, partner, at + 1, all);
    partner[static_cast<std::size_t>(at)] = partner[static_cast<std::size_t>(other)] = -1;
  }
}
std::vector<Tiling> all_tilings(const Region& g) {
  Tiling partner(static_cast<std::size_t>(g.rows * g.cols), -1);
  std::vector<Tiling> all;
  enumerate(g, partner, 0, all);
  return all;
}

/// How often each tiling of g comes out of `samples` draws, with seeds first, first + 1, ...
std::vector<long> histogram(const Region& g, const std::vector<Tiling>& all, long samples, std::uint64_t first,
                            const Sampler& sample) {
  std::map<Tiling, std::size_t> index;
  for (std::size_t i = 0; i < all.size(); ++i) index[all[i]] = i;
  std::vector<long> counts(all.size(), 0);
  Tiling t;
  for (long s = 0; s < samples; ++s) {
    const auto dominoes = sample(first + static_cast<std::uint64_t>(s));
    EXPECT_TRUE(is_tiling(g, dominoes, &t));
    const auto it = index.find(t);
    if (it == index.end()) {
      ADD_FAILURE() << "a tiling the search did not find";
      break;
    }
    ++counts[it->second];
  }
  return counts;
}

/// Pearson's statistic of `counts` against the uniform distribution.
double chi_square(const std::vector<long>& counts) {
  double total = 0;
  for (long c : counts) total += static_cast<double>(c);
  const double expected = total / static_cast<double>(counts.size());
  double x = 0;
  for (long c : counts) x += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return x;
}

/// The chi-square quantile z standard deviations up (Wilson-Hilferty): at z = 6 a uniform sampler
/// passes but for about one in 10^9 seeds, while a bias of a few percent over many tilings, at
/// thousands of samples a tiling, adds hundreds to the statistic.
double chi_square_bound(std::size_t tilings, double z = 6) {
  const double k = static_cast<double>(tilings - 1), h = 2 / (9 * k);
  const double t = 1 - h + z * std::sqrt(h);
  return k * t * t * t;
}

/// Samples drawn per tiling of the region in the chi-square tests.
constexpr long kPerTiling = 3000;

/// Draws kPerTiling samples per tiling of g and tests them against the uniform distribution.
void expect_uniform(const Region& g, std::size_t tilings, std::uint64_t first, const Sampler& sample) {
  const auto all = all_tilings(g);
  ASSERT_EQ(all.size(), tilings);
  const auto counts = histogram(g, all, kPerTiling * static_cast<long>(tilings), first, sample);
  const double x = chi_square(counts), bound = chi_square_bound(tilings);
  testing::Test::RecordProperty("chi_square", std::to_string(x));
  EXPECT_LT(x, bound) << g.rows << " x " << g.cols << " box, " << tilings << " tilings";
  for (long c : counts) EXPECT_GT(c, 0);
}

TEST(LatticeSamplerAztec, Shape) {
  for (int n = 1; n <= 12; ++n) {
    int cells = 0;
    for (int r = -1; r <= 2 * n; ++r) {
      for (int c = -1; c <= 2 * n; ++c) cells += engines::in_aztec_diamond(n, {r, c}) ? 1 : 0;
    }
    EXPECT_EQ(cells, 2 * n * (n + 1));
    EXPECT_TRUE(engines::in_aztec_diamond(n, {0, n - 1}) && engines::in_aztec_diamond(n, {0, n}));
    EXPECT_FALSE(engines::in_aztec_diamond(n, {0, n - 2}) || engines::in_aztec_diamond(n, {0, n + 1}));
    EXPECT_TRUE(engines::in_aztec_diamond(n, {n, 0}) && engines::in_aztec_diamond(n, {2 * n - 1, n}));
  }
  // The search finds 2^{n(n+1)/2} tilings, so that it can serve as the reference below.
  for (int n = 1; n <= 4; ++n) EXPECT_EQ(all_tilings(aztec(n)).size(), std::size_t(1) << (n * (n + 1) / 2));
}

TEST(LatticeSamplerAztec, Tilings) {
  for (int n = 1; n <= 16; ++n) {
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      const auto t = engines::aztec_diamond_tiling(n, seed);
      EXPECT_EQ(t.size(), static_cast<std::size_t>(n * (n + 1)));
      EXPECT_TRUE(is_tiling(aztec(n), t)) << "order " << n << ", seed " << seed;
    }
  }
  EXPECT_THROW(engines::aztec_diamond_tiling(0, 1), std::invalid_argument);
  EXPECT_THROW(engines::aztec_diamond_tiling(-3, 1), std::invalid_argument);
}

TEST(LatticeSamplerAztec, UniformOrder2) {
  expect_uniform(aztec(2), 8, 1000, [](std::uint64_t s) { return engines::aztec_diamond_tiling(2, s); });
}

TEST(LatticeSamplerAztec, UniformOrder3) {
  expect_uniform(aztec(3), 64, 2000, [](std::uint64_t s) { return engines::aztec_diamond_tiling(3, s); });
}

TEST(LatticeSamplerRectangle, Tilings) {
  const std::pair<int, int> shapes[] = {{1, 2}, {2, 1}, {1, 8}, {8, 1}, {2, 2}, {2, 7}, {7, 2}, {3, 4}, {4, 3},
                                        {5, 6}, {6, 5}, {3, 8}, {9, 4}, {4, 9}, {10, 10}, {11, 6}, {6, 11}, {13, 14}};
  for (const auto& [rows, cols] : shapes) {
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      const auto t = engines::rectangle_tiling(rows, cols, seed);
      EXPECT_EQ(t.size(), static_cast<std::size_t>(rows * cols / 2));
      EXPECT_TRUE(is_tiling(rectangle(rows, cols), t)) << rows << " x " << cols << ", seed " << seed;
    }
  }
  EXPECT_THROW(engines::rectangle_tiling(3, 3, 1), std::invalid_argument);
  EXPECT_THROW(engines::rectangle_tiling(0, 2, 1), std::invalid_argument);
  EXPECT_THROW(engines::rectangle_tiling(2, -2, 1), std::invalid_argument);
}

// 4 x 4 and 2 x 6 have C even as given; 3 x 4 has an odd R (the outer face also below); 4 x 5
// and 4 x 3 are sampled on their transposes.
TEST(LatticeSamplerRectangle, Uniform4x4) {
  expect_uniform(rectangle(4, 4), 36, 3000, [](std::uint64_t s) { return engines::rectangle_tiling(4, 4, s); });
}

TEST(LatticeSamplerRectangle, Uniform3x4) {
  expect_uniform(rectangle(3, 4), 11, 4000, [](std::uint64_t s) { return engines::rectangle_tiling(3, 4, s); });
}

TEST(LatticeSamplerRectangle, Uniform4x3) {
  expect_uniform(rectangle(4, 3), 11, 4500, [](std::uint64_t s) { return engines::rectangle_tiling(4, 3, s); });
}

TEST(LatticeSamplerRectangle, Uniform2x6) {
  expect_uniform(rectangle(2, 6), 13, 5000, [](std::uint64_t s) { return engines::rectangle_tiling(2, 6, s); });
}

TEST(LatticeSamplerRectangle, Uniform4x5) {
  expect_uniform(rectangle(4, 5), 95, 6000, [](std::uint64_t s) { return engines::rectangle_tiling(4, 5, s); });
}

// The same statistic on a sampler biased by redrawing a quarter of the tilings with a horizontal
// domino at the top-left corner (those come out about 10% less often than the rest): it fails.
TEST(LatticeSamplerRectangle, ChiSquareCatchesBias) {
  const Region g = rectangle(4, 4);
  const auto all = all_tilings(g);
  std::uint64_t extra = 0;
  const Sampler biased = [&extra](std::uint64_t s) {
    auto t = engines::rectangle_tiling(4, 4, s);
    bool horizontal = false;  // whether (0, 0) pairs with (0, 1)
    for (const auto& [x, y] : t) horizontal = horizontal || (x == LatticeCell{0, 0} && y == LatticeCell{0, 1});
    if (horizontal && ((s * 0x9E3779B97F4A7C15ULL) >> 62) == 0) t = engines::rectangle_tiling(4, 4, (s << 20) + ++extra);
    return t;
  };
  const auto counts = histogram(g, all, kPerTiling * static_cast<long>(all.size()), 3000, biased);
  testing::Test::RecordProperty("chi_square", std::to_string(chi_square(counts)));
  EXPECT_GT(chi_square(counts), chi_square_bound(all.size()));
}

TEST(LatticeSamplerSeeds, Reproduce) {
  EXPECT_EQ(engines::aztec_diamond_tiling(60, 5), engines::aztec_diamond_tiling(60, 5));
  EXPECT_NE(engines::aztec_diamond_tiling(60, 5), engines::aztec_diamond_tiling(60, 6));
  EXPECT_EQ(engines::rectangle_tiling(40, 50, 5), engines::rectangle_tiling(40, 50, 5));
  EXPECT_NE(engines::rectangle_tiling(40, 50, 5), engines::rectangle_tiling(40, 50, 6));
  EXPECT_EQ(engines::rectangle_tiling(41, 50, 7), engines::rectangle_tiling(41, 50, 7));
  EXPECT_NE(engines::rectangle_tiling(50, 41, 7), engines::rectangle_tiling(50, 41, 8));
}

/// FNV-1a over the dominoes' coordinates, in the order given.
std::uint64_t tiling_fingerprint(const std::vector<Domino>& dominoes) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& [x, y] : dominoes) {
    for (int v : {x.r, x.c, y.r, y.c}) {
      h ^= static_cast<std::uint32_t>(v);
      h *= 1099511628211ULL;
    }
  }
  return h;
}

// The tilings of fixed seeds, pinned: the samplers use no std:: distribution and no floating
// point, so these hold with every compiler, standard library and vector width. A change of them
// changes what every seed gives, which users who saved seeds would notice; make it on purpose.
TEST(LatticeSamplerSeeds, Pinned) {
  EXPECT_EQ(tiling_fingerprint(engines::aztec_diamond_tiling(20, 42)), 0xbec0350253f9097fULL);
  EXPECT_EQ(tiling_fingerprint(engines::aztec_diamond_tiling(333, 7)), 0x0165edf67695cff3ULL);
  EXPECT_EQ(tiling_fingerprint(engines::rectangle_tiling(20, 30, 42)), 0x21ae73f5da5dd797ULL);
  EXPECT_EQ(tiling_fingerprint(engines::rectangle_tiling(301, 200, 7)), 0xd6e978b987b37fdbULL);
}

TEST(LatticeSamplerLarge, Order100Diamond) {
  const auto t = engines::aztec_diamond_tiling(100, 11);
  EXPECT_EQ(t.size(), std::size_t(100 * 101));
  EXPECT_TRUE(is_tiling(aztec(100), t));
}

TEST(LatticeSamplerLarge, Rectangle200x300) {
  const auto t = engines::rectangle_tiling(200, 300, 12);
  EXPECT_EQ(t.size(), std::size_t(200 * 300 / 2));
  EXPECT_TRUE(is_tiling(rectangle(200, 300), t));
  EXPECT_TRUE(is_tiling(rectangle(201, 300), engines::rectangle_tiling(201, 300, 13)));
  EXPECT_TRUE(is_tiling(rectangle(300, 201), engines::rectangle_tiling(300, 201, 14)));
}

TEST(LatticeSamplerStop, Throws) {
  const engines::StopCheck now = [] { return true; };
  EXPECT_THROW(engines::aztec_diamond_tiling(1, 1, now), Interrupted);
  EXPECT_THROW(engines::aztec_diamond_tiling(40, 1, now), Interrupted);
  EXPECT_THROW(engines::rectangle_tiling(2, 2, 1, now), Interrupted);
  EXPECT_THROW(engines::rectangle_tiling(30, 30, 1, now), Interrupted);
  // A stop that comes during the run, and one that never comes.
  int calls = 0;
  const engines::StopCheck later = [&calls] { return ++calls == 5; };
  EXPECT_THROW(engines::aztec_diamond_tiling(40, 1, later), Interrupted);
  EXPECT_EQ(calls, 5);
  const engines::StopCheck never = [] { return false; };
  EXPECT_EQ(engines::aztec_diamond_tiling(20, 3, never), engines::aztec_diamond_tiling(20, 3));
  EXPECT_EQ(engines::rectangle_tiling(20, 30, 3, never), engines::rectangle_tiling(20, 30, 3));
  try {
    engines::aztec_diamond_tiling(10, 1, now);
    ADD_FAILURE() << "no Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), 2);
    EXPECT_STREQ(e.what(), "sampling stopped");
  }
}

}  // namespace
}  // namespace matchcount
