// Random symmetric matrices (for hafnians and loop hafnians) and the symmetry test.
//
// Draw order, fixed so that a seed gives the same matrix on every platform: positions (i, j)
// with i <= j in row-major order of the upper triangle, one keep-draw each (Draws::keep), then
// the value draws of a kept entry, exactly as random_integer_matrix / random_real_matrix /
// random_complex_matrix draw theirs; the entry is stored at (i, j) and (j, i). The diagonal
// (loop weights) takes part only when asked for and otherwise draws nothing, so the
// off-diagonal part of a seed's matrix differs with and without it.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>

#include "generate/draws.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

using generate_detail::Draws;

namespace {

constexpr int kMaxRandomN = 1 << 15;  // n^2/2 draws, 2^29 entries at most

std::string num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

void check_random(const char* family, int n, double p, const char* pname) {
  if (n < 0)
    throw UsageError(std::string(family) + ": N must be at least 0 (got " + std::to_string(n) + ")");
  if (!(p >= 0.0 && p <= 1.0))
    throw UsageError(std::string(family) + ": " + pname + " must be in [0, 1] (got " + num(p) + ")");
  if (n > kMaxRandomN)
    throw RefusedError(std::string(family) + ": N = " + std::to_string(n) +
                       " needs N^2/2 random draws; the limit is N <= " + std::to_string(kMaxRandomN));
}

/// The upper triangle drawn in row-major order (the diagonal only with `diagonal`), each kept
/// position valued by value() and mirrored.
template <class T, class Value>
SparseMatrix<T> symmetric_entries(int n, double density, bool diagonal, Draws& draws, Value value) {
  const auto t = Draws::threshold(density);
  SparseMatrix<T> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = diagonal ? i : i + 1; j < n; ++j) {
      if (!draws.keep(t)) continue;
      const T v = value();
      m.entries.push_back({i, j, v});
      if (i != j) m.entries.push_back({j, i, v});
    }
  m.normalize();
  return m;
}

}  // namespace

SparseMatrix<Integer> random_symmetric_01(int n, double p, bool diagonal, std::uint64_t seed) {
  check_random("symmetric-01", n, p, "P");
  Draws draws(seed);
  return symmetric_entries<Integer>(n, p, diagonal, draws, [] { return Integer(1); });
}

SparseMatrix<Integer> random_symmetric_integer(int n, double density, long lo, long hi,
                                               bool diagonal, std::uint64_t seed) {
  check_random("symmetric-int", n, density, "density");
  if (lo > hi)
    throw UsageError("symmetric-int: lo must not exceed hi (got [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "])");
  if (lo == 0 && hi == 0) throw UsageError("symmetric-int: [0, 0] has no nonzero value");
  Draws draws(seed);
  return symmetric_entries<Integer>(n, density, diagonal, draws,
                                    [&] { return Integer(draws.nonzero_integer(lo, hi)); });
}

SparseMatrix<double> random_symmetric_real(int n, double density, double lo, double hi,
                                           bool diagonal, std::uint64_t seed) {
  check_random("symmetric-real", n, density, "density");
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi && std::isfinite(hi - lo)))
    throw UsageError("symmetric-real: need finite lo <= hi (got [" + num(lo) + ", " + num(hi) + "])");
  if (lo == 0.0 && hi == 0.0) throw UsageError("symmetric-real: [0, 0] has no nonzero value");
  Draws draws(seed);
  return symmetric_entries<double>(n, density, diagonal, draws, [&] {
    double v = 0.0;
    while (v == 0.0) v = draws.real(lo, hi);
    return v;
  });
}

SparseMatrix<Complex> random_symmetric_complex(int n, double density, bool diagonal,
                                               std::uint64_t seed) {
  check_random("symmetric-complex", n, density, "density");
  Draws draws(seed);
  return symmetric_entries<Complex>(n, density, diagonal, draws, [&] {
    const double re = draws.real(-1.0, 1.0);
    const double im = draws.real(-1.0, 1.0);
    return Complex(re, im);  // exactly 0 has probability 2^-106 (then dropped by normalize)
  });
}

bool is_symmetric(const AnyMatrix& any) {
  return std::visit(
      [](const auto& m) {
        if (m.rows != m.cols) return false;
        auto a = m;
        a.normalize();
        const auto t = transpose(a);
        if (t.entries.size() != a.entries.size()) return false;
        for (std::size_t k = 0; k < a.entries.size(); ++k)
          if (a.entries[k].row != t.entries[k].row || a.entries[k].col != t.entries[k].col ||
              !(a.entries[k].value == t.entries[k].value))
            return false;
        return true;
      },
      any);
}

}  // namespace matchcount
