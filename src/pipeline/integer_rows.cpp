#include "pipeline/integer_rows.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/arith.hpp"

namespace matchcount::detail {
namespace {

/// True when v / c is an integer of size at most 2^20, exactly.
bool divides(double c, double v, double& quotient) {
  const double b = v / c;
  if (!(std::fabs(b) <= 0x1p20) || b != std::nearbyint(b) || b * c != v) return false;
  quotient = b;
  return true;
}

}  // namespace

std::optional<IntegerRows> integer_rows(const SparseMatrix<double>& a, double max_bits) {
  IntegerRows out;
  out.scale.assign(static_cast<std::size_t>(a.rows), 1.0);
  out.b.rows = a.rows;
  out.b.cols = a.cols;
  out.b.entries.reserve(a.nnz());
  // Entries are sorted by row: take one row's run [lo, hi) at a time.
  for (std::size_t lo = 0, hi; lo < a.entries.size(); lo = hi) {
    const int row = a.entries[lo].row;
    hi = lo;
    while (hi < a.entries.size() && a.entries[hi].row == row) ++hi;
    // Candidate scales: the row's smallest |entry|, and the largest power of two dividing all
    // of its entries (integers, and dyadic values such as 0.25 or 1.5).
    double smallest = 0;
    int low_bit = 1 << 20;
    for (std::size_t k = lo; k < hi; ++k) {
      const double v = std::fabs(a.entries[k].value);
      if (!std::isfinite(v)) return std::nullopt;
      if (smallest == 0 || v < smallest) smallest = v;
      int ex = 0;
      const auto mant = static_cast<std::uint64_t>(std::ldexp(std::frexp(v, &ex), 53));
      low_bit = std::min(low_bit, ex - 53 + std::countr_zero(mant));
    }
    bool found = false;
    for (double c : {smallest, std::ldexp(1.0, low_bit)}) {
      if (!(c > 0) || !std::isfinite(c)) continue;
      std::vector<double> q(hi - lo);
      bool ok = true;
      for (std::size_t k = lo; k < hi && ok; ++k) ok = divides(c, a.entries[k].value, q[k - lo]);
      if (!ok) continue;
      for (std::size_t k = lo; k < hi; ++k)
        out.b.entries.push_back({row, a.entries[k].col, Integer(static_cast<long>(q[k - lo]))});
      out.scale[static_cast<std::size_t>(row)] = c;
      found = true;
      break;
    }
    if (!found) return std::nullopt;
  }
  // The least of the row-sum, column-sum and (0-1) Bregman bounds: 62! for the all-ones
  // 62 x 62 matrix, where the row sums alone would claim 62^62.
  if (double(mpz_sizeinbase(permanent_bound(out.b).get_mpz_t(), 2)) > max_bits) return std::nullopt;
  return out;
}

double scaled_product(const std::vector<double>& scale, const Integer& v) {
  long ex = 0;
  double m = mpz_get_d_2exp(&ex, v.get_mpz_t());
  for (double c : scale) {
    int e = 0;
    m *= std::frexp(c, &e);
    ex += e;
    int e2 = 0;
    m = std::frexp(m, &e2);
    ex += e2;
  }
  return std::ldexp(m, static_cast<int>(ex));
}

void count_integer_rows(const IntegerRows& split, const CountOptions& options, CountReport& report,
                        const CountIntegers& count) {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const int n = split.b.rows;
  SparseMatrix<Integer> b = split.b;
  const Integer content = extract_content(b);  // before the count, which needs b divided
  const Integer exact = content * count(b, options, report);
  Integer abs_exact = abs(exact);  // perm(|b|) = |perm(b)| when b >= 0
  if (std::any_of(split.b.entries.begin(), split.b.entries.end(), [](const auto& e) { return e.value < 0; })) {
    SparseMatrix<Integer> abs_b = split.b;
    for (auto& e : abs_b.entries) e.value = abs(e.value);
    CountOptions quiet = options;  // a side count: no checkpoint, no progress of its own
    quiet.checkpoint = nullptr, quiet.progress = nullptr;
    CountReport scratch;
    const Integer abs_content = extract_content(abs_b);
    abs_exact = abs_content * count(abs_b, quiet, scratch);
  }
  std::vector<double> abs_scale = split.scale;
  for (double& c : abs_scale) c = std::fabs(c);
  const double v = scaled_product(split.scale, exact);
  // scaled_product truncates the integer (2u) and rounds n products (u each).
  const double rounding = (2.0 * n + 4) * u;
  const double decimals = std::expm1(n * std::log1p(u)) * (1 + 1e-12);
  report.value.value = v;
  report.value.abs_error = rounding * std::fabs(v) + decimals * scaled_product(abs_scale, abs_exact) * (1 + rounding);
  report.notes.push_back("every row is a multiple of a row of small integers: counted exactly, then scaled");
}

/// Divides each row, then each column, by the gcd of its entries: perm(A) = G * perm(A / ...).
Integer extract_content(SparseMatrix<Integer>& a) {
  Integer g_total = 1;
  for (int side = 0; side < 2; ++side) {
    std::vector<Integer> g(static_cast<std::size_t>(side == 0 ? a.rows : a.cols), 0);
    for (const auto& e : a.entries) {
      Integer& gi = g[side == 0 ? e.row : e.col];
      mpz_gcd(gi.get_mpz_t(), gi.get_mpz_t(), e.value.get_mpz_t());
    }
    for (auto& e : a.entries) e.value /= g[side == 0 ? e.row : e.col];
    for (const auto& gi : g)
      if (gi != 0) g_total *= gi;
  }
  return g_total;
}

}  // namespace matchcount::detail
