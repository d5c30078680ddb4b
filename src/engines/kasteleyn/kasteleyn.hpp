// The Kasteleyn (FKT) engine for planar bipartite blocks (private to src/engines).
//
// The block A is the biadjacency matrix of a bipartite graph G (rows r_i, columns c_j, one
// edge per stored entry). When G is planar, its edges have a Kasteleyn signing s: every
// face but one per component, of length 2k, has a number of -1 edges = k - 1 (mod 2). Then
// all perfect matchings enter det(K), K_ij = s(ij) A_ij, with the same sign, so
// perm(A) = ±det(K) for any weights, and a determinant takes polynomial time. The sign comes
// from one perfect matching. kasteleyn_sign.cpp finds the signing and a banded order;
// kasteleyn.cpp does the determinants (modulo primes, or LU in floating point).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "engines/engine.hpp"
#include "engines/planar/sparse_logdet.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {

/// A pattern as (row, col) pairs, each once (pattern_of in engines/common.hpp makes one).
using PatternRC = std::vector<std::pair<int, int>>;

/// True when the bipartite graph of the n x n pattern is planar (the left-right test; O(n + nnz),
/// and O(1) when nnz > 4n - 4, which no planar bipartite graph on 2n vertices exceeds).
bool planar_pattern(const PatternRC& pattern, int n);

/// A Kasteleyn signing of the graph of the pattern, one sign (+1 or -1) per pattern entry;
/// empty when the graph is not planar. Every component is signed on its own.
std::vector<signed char> kasteleyn_signing(const PatternRC& pattern, int n);
/// The engine's refusal of an n x n block with `edges` entries whose graph is not planar.
RefusedError not_planar_error(int n, std::size_t edges);

/// ln|perm A| of a planar block, for counts wanted as logarithms (kasteleyn_log.cpp): the sparse
/// LU log-determinant (planar::sparse_log_det) of its Kasteleyn matrix K = s * A with the
/// columns permuted by a perfect matching, so that K has a zero-free diagonal and perm A =
/// (product of the matching's signs) * det K for any weights. sign 0 (log -inf, error 0) when
/// the block has no perfect matching; RefusedError when its graph is not planar, when an
/// entry is beyond double range, or beyond the memory budget `max_bytes`. T: Integer or double.
/// `entry_error`: a bound on the entries' own relative error (decimals rounded to doubles,
/// preprocessing's roundings), which joins the backward error.
template <class T>
planar::LogDet kasteleyn_log_permanent(const SparseMatrix<T>& a, double max_bytes,
                                       planar::Ordering ordering = planar::Ordering::Auto, double entry_error = 0);

/// A row and column order that makes K banded: entry (r, c) moves to (row_pos[r],
/// col_pos[c]) of K' = P K Q, within -kl <= col - row <= ku. When `transposed`, K' is
/// (P K Q)^T, entry (r, c) at (row_pos[c], col_pos[r]): the orientation with kl <= ku is
/// kept, as the elimination's work grows with kl (and det K^T = det K).
struct BandOrder {
  std::vector<int> row_pos, col_pos;
  int kl = 0, ku = 0;
  bool transposed = false;
};

/// The better of the natural order and reverse Cuthill-McKee on G (rows and columns each
/// sorted by their vertex's position), by predicted elimination work.
BandOrder band_order(const PatternRC& pattern, int n);

/// Multiply-adds of banded LU on an n x n matrix of bandwidths kl, ku without row
/// interchanges: column c updates min(kl, n-1-c) rows over min(ku, n-1-c) + 1 columns.
/// Interchanges widen rows up to kl + ku, but modulo a prime they are rare (any nonzero
/// pivot serves).
double band_updates(int n, int kl, int ku);
/// Bytes of one banded working matrix: n rows of 2kl+ku+1 values (plus vector padding).
double band_bytes(int n, int kl, int ku, std::size_t value_size);

/// Largest block: its graph's 2n vertices, up to 4n edges and 8n half-edges stay int (the
/// banded engines meet their memory limit far below; the sparse LU of --log does not).
constexpr int kKasteleynMaxN = 1 << 27;

/// Refusal threshold: one banded working matrix (per thread) above this many bytes.
constexpr double kKasteleynMemoryLimit = 4.0 * (1ull << 30);

/// Time of one multiply-add of the nested-dissection fronts (planar/dissection.hpp) in band
/// updates, for the planner: fitted so that, with the rest of the model as it is (its serial
/// part and prime count are pessimistic), the whole prediction stays within a small factor of
/// the measured time across grid sizes (the fit: docs/benchmarks.md, "Planar blocks by nested
/// dissection"). Exact counts take nested dissection when its multiply-adds are fewer than the
/// band's.
constexpr double kDissectionUpdate = 0.35;

/// What the planner needs: planarity, the band of the best order and the work per prime.
/// With `exact`, the work and bytes are those of the method exact counts take (the band or
/// nested dissection, whichever predicts less work; `nested`), else the band's.
struct KasteleynPlan {
  bool planar = false, nested = false;
  int n = 0, kl = 0, ku = 0;
  double updates = 0;  // band_updates of the order (nested: the fronts' in band updates)
  double bytes = 0;    // band_bytes with 8-byte values (nested: a thread's fronts and plan)
};
/// What exact counts' nested dissection costs on the pattern (a perfect matching and the
/// dissection; no planarity test): its multiply-adds a prime and bytes; matched = false where
/// there is no perfect matching (the engine answers 0 at once). Computed once, it serves the
/// planner's estimate before the planarity test and its tested plan.
struct NestedCost {
  bool matched = false;
  double updates = 0, bytes = 0;
};
NestedCost nested_cost(const PatternRC& pattern, int n);
/// The exact counts' part of a plan: p's band work and bytes replaced by nested dissection's
/// where exact counts take it (take_nested, against the band's updates and the nnz entries).
void plan_nested(KasteleynPlan& p, const NestedCost& nested, std::size_t nnz);
/// The tested plan: planarity, the band order, and for exact counts (`nested` given) the
/// choice of nested dissection.
KasteleynPlan plan_kasteleyn(const PatternRC& pattern, int n, const NestedCost* nested = nullptr);

/// Predicted seconds on `cores` cores for `primes` moduli (a real float LU, on one core,
/// costs about as much as kKasteleynFloatPrimes primes), with constants calibrated by
/// matchcount-bench --planner-check (docs/benchmarks.md, "Planner check"): one modular
/// row-update entry 0.45 ns; planarity, embedding, signing and ordering 10 us per row plus
/// 2.5 ns per row and row (the serial part grows faster than n, so no flat rate per row fits
/// both small and large blocks), and 0.1 ms a block (matching, the bound, CRT).
constexpr double kKasteleynUpdate = 0.45e-9, kKasteleynPerRow = 1e-5, kKasteleynPerRowRow = 2.5e-9,
                 kKasteleynFloatPrimes = 1.0, kKasteleynFixed = 1e-4;
inline double kasteleyn_seconds(const KasteleynPlan& p, double primes, int cores) {
  const double parallel = std::min<double>(cores, std::max(1.0, primes));
  return kKasteleynFixed + (kKasteleynPerRow + kKasteleynPerRowRow * p.n) * p.n +
         p.updates * primes * kKasteleynUpdate / parallel;
}

std::unique_ptr<Engine> make_kasteleyn();

}  // namespace matchcount::engines
