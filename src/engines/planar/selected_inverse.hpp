// Selected entries of the inverse of a sparse real matrix M, in floating point: the entries
// (M^-1)(c, r) at the transposed positions of M's own entries (r, c), which is what edge
// probabilities of planar graphs need (kasteleyn_inverse.hpp, pfaffian_inverse.hpp). Private to
// src/engines.
//
// Method: M is first equilibrated, T = D1 M D2 with D1, D2 diagonal powers of two from
// Sinkhorn-Knopp (T^-1(c, r) = M^-1(c, r) / (D2(c) D1(r)), exactly), which for uneven weights
// lowers the condition number by orders of magnitude. Then T^-1 = (T^T T)^-1 T^T. A = T^T T is
// symmetric positive definite, so its Cholesky factor A = L L^T needs no pivoting; in a
// bandwidth-reducing order of T's columns (reverse Cuthill-McKee on T's bipartite graph, or the
// natural order, whichever predicts less work) the factor lives in A's envelope ("profile":
// row i from column first[i] to i, first[] non-decreasing), and the Takahashi / Erisman-Tinney
// recurrence
//   Z(i, j) = -sum_{k > j} Z(i, k) L(k, j) / L(j, j)            (i > j),
//   Z(j, j) = 1 / L(j, j)^2 - sum_{k > j} Z(k, j) L(k, j) / L(j, j)
// gives Z = A^-1 on that envelope (it is closed under the recurrence) in O(sum of squared row
// lengths), in place of L. Then T^-1(c, r) = sum_x Z(c, x) T(r, x) over the entries (r, x) of
// row r; c and x share the row r, so A(c, x) is structurally nonzero and Z(c, x) is in the
// envelope. When T T^T has the smaller envelope, the same is done on T^T ((T^T)^-1 (r, c) =
// T^-1(c, r)).
//
// Rounding: the normal equations square the conditioning of T. `error` is a first-order
// estimate per entry (selected_inverse.cpp: the perturbation of A by forming and factoring it,
// the recurrence's own roundings, the final sum), with rounding errors treated as random and
// the norms it needs estimated by random probes; a few columns of T^-1 computed independently
// by iterative refinement check it and scale it up where it falls short. It is an estimate,
// not a proven bound; past cond(T)^2 u sqrt(band) ~ 1e-3 the first order means nothing and
// the matrix is refused.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// Edge probabilities of a planar graph with their estimated errors (kasteleyn_inverse.hpp,
/// pfaffian_inverse.hpp).
struct PlanarEdgeProbabilities {
  std::vector<double> p;          // per entry of the input, in its order
  std::vector<double> abs_error;  // per entry: estimated |p - exact|
  bool error_estimated = true;    // always: abs_error comes from a rounding model, not a proof
  bool ok = false;
  std::string why;                // when !ok
  // Diagnostics of the run.
  double sigma_min = 0, sigma_max = 0;  // extreme singular values of the equilibrated signed matrix
                                        // (estimates: TransposedInverse)
  double max_vertex_residual = 0;       // max over vertices of |sum of its signed terms - 1|
  double model_scale = 1;               // factor the a-posteriori checks (sampled columns, vertex
                                        // sums, signs) put on the error model (>= 1)
  double work = 0;                      // predicted multiply-adds of the selected inverse
};

}  // namespace matchcount::engines

namespace matchcount::engines::planar {

/// Which Gram matrix is factored and in what order: `columns` true for M^T M over M's columns,
/// false for M M^T over its rows; pos[v] the position of column (row) v; first[i] the envelope.
struct GramOrder {
  bool columns = true;
  std::vector<int> pos;
  std::vector<int> first;  // non-decreasing, first[i] <= i
  double entries = 0;      // stored envelope entries: sum of (i - first[i] + 1)
  double work = 0;         // predicted multiply-adds of the factorization and the selected inverse
};

/// The better (by predicted work) of the natural order and reverse Cuthill-McKee, over M's
/// columns and over its rows. M square, entries in range (any order, no repeats).
GramOrder gram_order(const SparseMatrix<double>& m);
/// The envelope of the Gram matrix over the columns (columns = true) or rows with the
/// positions `pos` given.
GramOrder gram_order(const SparseMatrix<double>& m, bool columns, std::vector<int> pos);

/// Bytes the selected inverse holds in the order `o` (the envelope, and vectors per line).
double selected_inverse_bytes(const GramOrder& o);

struct TransposedInverse {
  bool ok = false;
  std::string why;              // when !ok
  std::vector<double> value;    // per entry (r, c) of M, in M's order: (M^-1)(c, r)
  std::vector<double> error;    // per entry: estimated |value - exact|
  // Of the equilibrated matrix T = D1 M D2 that is factored (see selected_inverse.cpp):
  double sigma_min = 0;         // ||(T^T T)^-1||_F^-1/2 (probes), below its smallest singular value
  double sigma_max = 0;         // sqrt(||T||_1 ||T||_inf), a bound on its largest
  double sample_scale = 1;      // factor the sampled columns put on the error model (>= 1)
  double work = 0;              // the order's predicted multiply-adds
  bool columns = true;          // the order's side
};

/// (M^-1)(c, r) for every entry (r, c) of the square real matrix M (finite values, no repeated
/// positions; explicit zeros are entries too), in the order `order` (gram_order(m) when
/// omitted). !ok with `why` when the envelope needs more than `max_bytes`, when M is singular
/// to working precision (a Cholesky pivot of the Gram matrix not above 4 (len + 1) u times its
/// diagonal), or too ill-conditioned for a first-order error estimate.
TransposedInverse inverse_at_transposed(const SparseMatrix<double>& m, double max_bytes, const GramOrder* order = nullptr);

/// Edge probabilities from the selected inverse x of a signed matrix K (a Kasteleyn matrix,
/// or a Pfaffian-oriented skew-symmetric one) whose entry k is the signed weight of an edge:
/// the term t_k = K_k (K^-1)(c, r) is that edge's probability, p_k = min(1, |t_k|). Every
/// row's and every column's terms sum to 1 (the diagonals of K K^-1 and K^-1 K) and each is
/// >= 0: where the computed ones miss by more than the estimated errors allow, all estimates
/// are scaled up by the largest such factor (model_scale, with x.sample_scale). Entries in K's
/// order.
inline PlanarEdgeProbabilities probabilities_from_inverse(const SparseMatrix<double>& k, const TransposedInverse& x) {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  PlanarEdgeProbabilities out;
  out.sigma_min = x.sigma_min, out.sigma_max = x.sigma_max, out.work = x.work;
  if (!x.ok) {
    out.why = x.why;
    return out;
  }
  const std::size_t m = k.entries.size();
  const auto n = std::size_t(k.rows);
  std::vector<double> t(m), est(m);
  std::vector<double> sum(2 * n, 0.0), allow(2 * n, 0.0);  // rows, then columns
  for (std::size_t e = 0; e < m; ++e) {
    const auto& en = k.entries[e];
    t[e] = en.value * x.value[e];
    est[e] = std::abs(en.value) * x.error[e] + u * std::abs(t[e]);
    for (std::size_t line : {std::size_t(en.row), n + std::size_t(en.col)}) {
      sum[line] += t[e];
      allow[line] += est[e] + 2 * u * std::abs(t[e]);  // and the sum's own rounding
    }
  }
  // The checks: each line's terms sum to 1, and every term is >= 0. A miss by more than the
  // estimates allow scales them all.
  double scale = 1;
  for (std::size_t line = 0; line < 2 * n; ++line) {
    const double miss = std::abs(sum[line] - 1);
    out.max_vertex_residual = std::max(out.max_vertex_residual, miss);
    if (miss > allow[line]) scale = std::max(scale, allow[line] > 0 ? miss / allow[line] : 1 / u);
  }
  for (std::size_t e = 0; e < m; ++e)
    if (-t[e] > est[e]) scale = std::max(scale, est[e] > 0 ? -t[e] / est[e] : 1 / u);
  out.model_scale = scale * x.sample_scale;
  out.p.resize(m), out.abs_error.resize(m);
  // p and the exact value both lie in [0, 1].
  for (std::size_t e = 0; e < m; ++e) out.p[e] = std::min(1.0, std::abs(t[e])), out.abs_error[e] = std::min(1.0, scale * est[e]);
  out.ok = true;
  return out;
}

}  // namespace matchcount::engines::planar
