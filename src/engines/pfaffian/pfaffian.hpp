// The Pfaffian (FKT) engine for planar general graphs (private to src/engines).
//
// The block A is the adjacency matrix of a graph G (both triangles stored). When G is planar,
// its edges have a Pfaffian orientation: in a plane embedding, every face but the outer one
// (per component) has an odd number of edges oriented clockwise. With K_uv = a_uv when u -> v
// and K_uv = -a_uv when v -> u, every perfect matching enters Pf(K) with the same sign, so
// haf(A) = eps * Pf(K) for any weights, eps = +-1 fixed by one perfect matching, and a
// Pfaffian takes polynomial time. pfaffian_orient.cpp finds the orientation and a banded
// vertex order; pfaffian_mod.cpp computes Pf modulo primes (banded skew-symmetric
// elimination) and reconstructs the integer; pfaffian_float.cpp does the same in floating
// point with an error estimate.
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "engines/graph_engine.hpp"
#include "engines/planar/sparse_logdet.hpp"

namespace matchcount::engines {

/// Largest graph: its up to 3n edges and 6n half-edges stay int (the banded engine meets its
/// memory limit far below; the sparse LU of --log does not).
constexpr int kPfaffianMaxN = 1 << 28;

/// name "pfaffian", loops() false, max_n kPfaffianMaxN.
std::unique_ptr<GraphEngine> make_pfaffian();

/// ln haf(A) of a planar graph with nonnegative weights, for counts wanted as logarithms
/// (pfaffian_log.cpp): haf A = |Pf K| = sqrt|det K| for the engine's Pfaffian orientation K,
/// and ln|det K| is the sparse LU log-determinant (planar::sparse_log_det, partial pivoting).
/// sign 0 (log -inf, error 0) when the graph has no perfect matching. RefusedError when it is not planar, has a negative
/// weight (det K = Pf(K)^2 does not tell the hafnian's sign), a loop, an entry beyond double
/// range, or is beyond the memory budget `max_bytes`. T: Integer or double.
/// `entry_error`: the entries' own relative error, as for kasteleyn_log_permanent.
template <class T>
planar::LogDet pfaffian_log_hafnian(const SparseMatrix<T>& a, double max_bytes,
                                    planar::Ordering ordering = planar::Ordering::Auto, double entry_error = 0);

/// What the planner needs: planarity, the band of the best vertex order and the work of one
/// Pfaffian in that order.
struct PfaffianPlan {
  bool planar = false, nested = false;
  int n = 0;
  int band = 0;        // max |pos(u) - pos(v)| over the edges
  double updates = 0;  // entry updates of one elimination (each two multiply-adds; nested: in those)
  double bytes = 0;    // one banded working matrix of 8-byte values (nested: a thread's fronts and plan)
  /// Exact counts' nested dissection (plan_pfaffian_fronts): its multiply-adds a prime (0: not
  /// planned, or no perfect matching) and a thread's fronts and plan in bytes.
  double fronts = 0, front_bytes = 0;
};

/// Planarity and the band of the best vertex order, from the symmetric pattern (each
/// undirected edge as (u,v) and (v,u), no diagonal).
PfaffianPlan plan_pfaffian(const std::vector<std::pair<int, int>>& pattern, int n);
/// Exact counts: nested dissection (2 x 2 pivots on a perfect matching of the pattern; no
/// planarity test) planned into p.fronts and p.front_bytes, then take_fronts.
void plan_pfaffian_fronts(PfaffianPlan& p, const std::vector<std::pair<int, int>>& pattern, int n);
/// p's band work and bytes replaced by the planned fronts' where exact_pfaffian takes them
/// (fronts_win); once per plan.
void take_fronts(PfaffianPlan& p);
/// Whether exact counts take fronts of `front_work` multiply-adds a prime over a band of
/// `band_updates` entry updates: MATCHCOUNT_PFAFFIAN_METHOD's choice, else the cheaper.
bool fronts_win(double front_work, double band_updates);
/// Time of one multiply-add of the Pfaffian's fronts, in band entry updates (two multiply-adds
/// each; kPfaffianUpdate), for the planner (docs/benchmarks.md, "Planar blocks by nested
/// dissection").
constexpr double kPfaffianDissectionUpdate = 0.5;
/// Exact counts take nested dissection when its multiply-adds, times this (its fronts'
/// clearing, assembly and shorter rows, which cost more than their count on small graphs),
/// are fewer than the band's (the fit: docs/benchmarks.md, "The Pfaffian by nested
/// dissection").
constexpr double kPfaffianFrontOverhead = 1.25;

/// Refusal threshold: one banded working matrix (per thread) above this many bytes.
constexpr double kPfaffianMemoryLimit = 4.0 * (1ull << 30);

/// Predicted seconds on `cores` cores for `primes` moduli. A float run (double, with its error
/// estimate) costs about kPfaffianFloatPrimes primes, a complex one about
/// kPfaffianComplexPrimes. Constants fitted on the 2-core development machine (release build,
/// triangular lattices of 400 to 10^4 vertices): one modular entry update (two multiply-adds
/// modulo p); the serial part (planarity, embedding, orientation, order, matching, bounds,
/// CRT) per vertex, and per vertex and vertex for what grows faster (the augmenting searches
/// of the matching); a fixed cost per block.
constexpr double kPfaffianUpdate = 0.75e-9, kPfaffianPerRow = 7e-6, kPfaffianPerRowRow = 5e-10,
                 kPfaffianFixed = 1e-4, kPfaffianFloatPrimes = 1.5, kPfaffianComplexPrimes = 5;
inline double pfaffian_seconds(const PfaffianPlan& plan, double primes, int cores) {
  const double parallel = std::min<double>(std::max(cores, 1), std::max(1.0, primes));
  return kPfaffianFixed + (kPfaffianPerRow + kPfaffianPerRowRow * plan.n) * plan.n +
         plan.updates * primes * kPfaffianUpdate / parallel;
}

}  // namespace matchcount::engines
