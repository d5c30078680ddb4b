// Matrix families: all-ones, J - I, band matrices, and the random generators.
//
// Random generators draw from std::mt19937_64 seeded with `seed` (its output sequence is fixed
// by the C++ standard) and turn the raw 64-bit outputs into decisions and values themselves,
// so a seed gives the same matrix with every compiler and platform:
//   - positions are visited in row-major order, one draw each: the entry is present when
//     (x >> 11) < floor(p * 2^53) (always when p >= 1);
//   - a present entry then draws its value: integers uniformly in [lo, hi] by rejection
//     (x < 2^64 mod R redrawn, value lo + x mod R), redrawn while 0; reals lo + (hi-lo)*u with
//     u = (x >> 11) * 2^-53 in [0, 1), evaluated with one correctly rounded fma; complex
//     values draw the real part, then the imaginary part, each 2u - 1 in [-1, 1).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "generate/draws.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

namespace {

using generate_detail::Draws;

constexpr std::int64_t kMaxEntries = std::int64_t(1) << 28;
constexpr int kMaxRandomN = 1 << 15;  // n^2 draws = 2^30

/// Shortest decimal form of a double, for messages.
std::string num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void check_n(const char* family, int n) {
  if (n < 0) throw UsageError(std::string(family) + ": N must be at least 0 (got " + std::to_string(n) + ")");
}

void check_entries(const char* family, std::int64_t entries) {
  if (entries > kMaxEntries)
    throw RefusedError(std::string(family) + ": " + std::to_string(entries) +
                       " entries is more than this generator writes (limit " +
                       std::to_string(kMaxEntries) + ")");
}

void check_random(const char* family, int n, double p, const char* pname) {
  check_n(family, n);
  if (!(p >= 0.0 && p <= 1.0))
    throw UsageError(std::string(family) + ": " + pname + " must be in [0, 1] (got " +
                     num(p) + ")");
  if (n > kMaxRandomN)
    throw RefusedError(std::string(family) + ": N = " + std::to_string(n) +
                       " needs N^2 random draws; the limit is N <= " + std::to_string(kMaxRandomN));
}

SparseMatrix<Integer> square(int n) {
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  return m;
}

}  // namespace

SparseMatrix<Integer> complete_bipartite(int n) {
  check_n("complete-bipartite", n);
  check_entries("complete-bipartite", std::int64_t(n) * n);
  auto m = square(n);
  m.entries.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m.entries.push_back({i, j, Integer(1)});
  return m;
}

SparseMatrix<Integer> complete_loopless_digraph(int n) {
  check_n("complete-digraph", n);
  check_entries("complete-digraph", std::int64_t(n) * n);
  auto m = square(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) m.entries.push_back({i, j, Integer(1)});
  return m;
}

SparseMatrix<Integer> band_matrix(int n, int half_width) {
  check_n("band", n);
  if (half_width < 0)
    throw UsageError("band: W must be at least 0 (got " + std::to_string(half_width) + ")");
  const int w = std::min(half_width, n > 0 ? n - 1 : 0);
  check_entries("band", std::int64_t(n) * (2 * std::int64_t(w) + 1));
  auto m = square(n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - w); j <= std::min(n - 1, i + w); ++j)
      m.entries.push_back({i, j, Integer(1)});
  return m;
}

SparseMatrix<Integer> erdos_renyi_bipartite(int n, double p, std::uint64_t seed) {
  check_random("er", n, p, "P");
  Draws draws(seed);
  const auto t = Draws::threshold(p);
  auto m = square(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (draws.keep(t)) m.entries.push_back({i, j, Integer(1)});
  return m;
}

SparseMatrix<Integer> random_regular_bipartite(int n, int d, std::uint64_t seed) {
  check_n("regular", n);
  if (d < 1 || d > n) throw UsageError("regular: D must be in [1, N] (got " + std::to_string(d) + ")");
  check_entries("regular", std::int64_t(n) * d);
  // The union of d random permutations (Fisher-Yates on mt19937_64, index = x mod (k+1)), each
  // repaired where it repeats an earlier entry of its row by swapping with random other rows
  // until no row repeats: every row and column then has exactly d entries.
  std::mt19937_64 rng(seed);
  std::vector<std::vector<int>> rows(static_cast<std::size_t>(n));
  auto taken = [&](int i, int j) { return std::find(rows[i].begin(), rows[i].end(), j) != rows[i].end(); };
  std::vector<int> perm(static_cast<std::size_t>(n));
  for (int k = 0; k < d; ++k) {
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng() % static_cast<std::uint64_t>(i + 1)]);
    for (int i = 0; i < n; ++i)
      for (int tries = 0; taken(i, perm[i]); ++tries) {
        if (tries > 100 * n) throw RefusedError("regular: no repair found (D too close to N)");
        const int o = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
        if (!taken(o, perm[i]) && !taken(i, perm[o])) std::swap(perm[i], perm[o]);
      }
    for (int i = 0; i < n; ++i) rows[i].push_back(perm[i]);
  }
  auto m = square(n);
  m.entries.reserve(static_cast<std::size_t>(n) * d);
  for (int i = 0; i < n; ++i) {
    std::sort(rows[i].begin(), rows[i].end());
    for (int j : rows[i]) m.entries.push_back({i, j, Integer(1)});
  }
  return m;
}

SparseMatrix<Integer> random_digraph(int n, double p, std::uint64_t seed, bool loops) {
  check_random("digraph", n, p, "P");
  Draws draws(seed);
  const auto t = Draws::threshold(p);
  auto m = square(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j && !loops) continue;  // no draw for a forbidden loop
      if (draws.keep(t)) m.entries.push_back({i, j, Integer(1)});
    }
  return m;
}

SparseMatrix<Integer> random_integer_matrix(int n, double density, long lo, long hi,
                                            std::uint64_t seed) {
  check_random("random-int", n, density, "density");
  if (lo > hi)
    throw UsageError("random-int: lo must not exceed hi (got [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "])");
  if (lo == 0 && hi == 0) throw UsageError("random-int: [0, 0] has no nonzero value");
  Draws draws(seed);
  const auto t = Draws::threshold(density);
  auto m = square(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (!draws.keep(t)) continue;
      m.entries.push_back({i, j, Integer(draws.nonzero_integer(lo, hi))});
    }
  return m;
}

/// An n x n matrix whose entries are kept with probability `density`, each kept one valued by
/// value(); draws are taken in row-major order, so a seed always gives the same matrix.
template <class T, class Value>
SparseMatrix<T> random_entries(int n, double density, Draws& draws, Value value) {
  const auto t = Draws::threshold(density);
  SparseMatrix<T> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (draws.keep(t)) m.entries.push_back({i, j, value()});
  return m;
}

SparseMatrix<double> random_real_matrix(int n, double density, double lo, double hi,
                                        std::uint64_t seed) {
  check_random("random-real", n, density, "density");
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi && std::isfinite(hi - lo)))
    throw UsageError("random-real: need finite lo <= hi (got [" + num(lo) + ", " + num(hi) + "])");
  if (lo == 0.0 && hi == 0.0) throw UsageError("random-real: [0, 0] has no nonzero value");
  Draws draws(seed);
  return random_entries<double>(n, density, draws, [&] {
    double v = 0.0;
    while (v == 0.0) v = draws.real(lo, hi);
    return v;
  });
}

SparseMatrix<Complex> random_complex_matrix(int n, double density, std::uint64_t seed) {
  check_random("random-complex", n, density, "density");
  Draws draws(seed);
  SparseMatrix<Complex> m = random_entries<Complex>(n, density, draws, [&] {
    const double re = draws.real(-1.0, 1.0);
    const double im = draws.real(-1.0, 1.0);
    return Complex(re, im);  // exactly 0 has probability 2^-106
  });
  m.normalize();
  return m;
}

}  // namespace matchcount
