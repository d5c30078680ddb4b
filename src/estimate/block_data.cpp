// A block's CSR/CSC arrays and the Sinkhorn scaling that the scaling estimators start from.
#include <algorithm>
#include <cmath>

#include "matchcount/matching.hpp"
#include "matchcount/matrix.hpp"
#include "estimate/runner.hpp"

namespace matchcount::estimate {
namespace {

// Sinkhorn-Knopp: alternately normalise rows and columns of diag(r) A diag(c). Stops when
// every row sum is within 1e-3 of 1 (columns are exact after each sweep) or after
// scaling_sweeps(); the sampling probabilities only need to be close, not converged.
std::vector<double> column_scaling(const BlockData& b) {
  const int n = b.n;
  std::vector<double> r(n, 1.0), c(n, 1.0);
  const int sweeps = scaling_sweeps(b.row_val.size());
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      double s = 0.0;
      for (int k = b.row_start[i]; k < b.row_start[i + 1]; ++k) s += b.row_val[k] * c[b.col_of[k]];
      worst = std::max(worst, std::fabs(s * r[i] - 1.0));
      r[i] = 1.0 / s;
    }
    if (sweep > 0 && worst < 1e-3) break;
    for (int j = 0; j < n; ++j) {
      double s = 0.0;
      for (int k = b.col_start[j]; k < b.col_start[j + 1]; ++k) s += b.col_val[k] * r[b.row_of[k]];
      c[j] = 1.0 / s;
    }
    if (!std::all_of(c.begin(), c.end(), [](double x) { return std::isfinite(x) && x > 0; })) {
      std::fill(c.begin(), c.end(), 1.0);  // degenerate values: plain weights are still valid
      break;
    }
  }
  return c;
}

}  // namespace

BlockData BlockData::from(const SparseMatrix<double>& a) {
  BlockData b;
  const int n = b.n = a.rows;
  b.row_start.assign(n + 1, 0);
  b.col_start.assign(n + 1, 0);
  for (const auto& e : a.entries) ++b.row_start[e.row + 1], ++b.col_start[e.col + 1];
  for (int i = 0; i < n; ++i) {
    b.max_degree = std::max(b.max_degree, b.row_start[i + 1]);
    b.row_start[i + 1] += b.row_start[i];
    b.col_start[i + 1] += b.col_start[i];
  }
  const std::size_t nnz = a.entries.size();
  b.col_of.resize(nnz), b.row_val.resize(nnz), b.row_of.resize(nnz), b.col_val.resize(nnz);
  std::vector<int> rnext(b.row_start.begin(), b.row_start.end() - 1), cnext(b.col_start.begin(), b.col_start.end() - 1);
  for (const auto& e : a.entries) {  // sorted by (row, col): both lists come out ascending
    b.col_of[rnext[e.row]] = e.col, b.row_val[rnext[e.row]++] = e.value;
    b.row_of[cnext[e.col]] = e.row, b.col_val[cnext[e.col]++] = e.value;
  }
  b.col_scale0 = column_scaling(b);
  const Matching m = hopcroft_karp(Pattern::of(a));
  if (m.perfect()) b.match0 = m.col_of_row;
  if (b.small()) {
    b.row_bits.assign(n, 0), b.col_bits.assign(n, 0), b.dense.assign(std::size_t(n) * n, 0.0);
    b.unit = true;
    for (const auto& e : a.entries) {
      b.row_bits[e.row] |= std::uint64_t{1} << e.col;
      b.col_bits[e.col] |= std::uint64_t{1} << e.row;
      b.dense[std::size_t(e.row) * n + e.col] = e.value;
      b.unit = b.unit && e.value == 1.0;
    }
  }
  return b;
}

SmallBlock BlockData::small_view() const {
  SmallBlock s;
  s.n = n, s.unit = unit, s.rows = row_bits.data(), s.cols = col_bits.data(), s.val = dense.data();
  s.match0 = match0.empty() ? nullptr : match0.data();
  return s;
}

BlockView BlockData::view() const {
  BlockView v;
  v.n = n;
  v.max_degree = max_degree;
  v.row_start = row_start.data(), v.col_of = col_of.data(), v.row_val = row_val.data();
  v.col_start = col_start.data(), v.row_of = row_of.data(), v.col_val = col_val.data();
  v.col_scale0 = col_scale0.data();
  v.match0 = match0.empty() ? nullptr : match0.data();
  return v;
}

}  // namespace matchcount::estimate
