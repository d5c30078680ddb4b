// Determinants modulo primes in nested-dissection order (private to src/engines): the exact
// planar engines' alternative to the band when the band is wide (grids: the band costs
// O(n^2) a prime, nested dissection O(n^1.5), since planar graphs have separators of O(sqrt n)
// vertices).
//
// The matrix M is n x n with its nonzeros on a structurally symmetric pattern that includes
// the diagonal (kasteleyn moves a perfect matching onto it, so that the pivots are there
// generically). dissect() orders the pattern's graph by recursive separators: a breadth-first
// level of a component splits it in two (the level is a separator: BFS edges join only
// equal or adjacent levels), the parts are ordered first, the separator last. The separators
// form a tree; every node is eliminated as a dense frontal matrix over its own vertices and
// its boundary (the later vertices next to its subtree), the multifrontal method: children's
// Schur complements are added into the parent's front, so no sparse fill is tracked.
//
// Pivots are taken from the node's own rows (any nonzero residue serves, rows exchanged
// within the node keep the front's structure). Where none is nonzero the order fails for that
// prime (M's leading minors need not be nonzero: a signed count can cancel); the caller then
// counts that prime otherwise (kasteleyn: the banded elimination).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace matchcount::engines::planar {

/// What det_mod_dissection returns for a prime where the order found no nonzero pivot.
constexpr std::uint64_t kNoResidue = ~std::uint64_t(0);

/// The elimination plan: nodes in postorder (children before parents), each with its pivot
/// positions [begin, end) in the elimination order and its boundary.
struct Dissection {
  struct Node {
    int begin = 0, end = 0;         // own pivots: positions [begin, end)
    int bnd = 0, bnd_len = 0;       // boundary: parent-front indices at rel[bnd ...]
    int child = 0, child_len = 0;   // children: children[child ...]
    int entry = 0, entry_end = 0;   // assembled entries: entries[entry ... entry_end)
    int parent = -1;
    int front() const { return end - begin + bnd_len; }
  };
  int n = 0;
  std::vector<Node> nodes;
  std::vector<int> rel;       // per node's boundary: where each lands in its parent's front
  std::vector<int> children;  // per node: its children's ids, in postorder
  /// Per matrix entry k (in the order given to dissect), the node that assembles it and its
  /// offset row * stride + col in that node's front.
  std::vector<std::pair<int, int>> entries;  // (cell k, offset), grouped by node
  int max_front = 0;          // largest front's order
  double stack_peak = 0;      // most values the Schur complements waiting for parents hold
  double updates = 0;         // multiply-adds a prime, upper bound (zero multipliers skip rows)
  /// Values of a front row: its order rounded up to 4, plus 4 for vector overrun.
  static int stride(int front) { return (front + 3) / 4 * 4 + 4; }
  /// Bytes of one working set (det_mod_dissection's scratch), per thread.
  double scratch_bytes() const {
    return 8.0 * (double(max_front) * double(stride(max_front)) + stack_peak) + 64.0 * double(n);
  }
  /// Bytes of the plan itself, shared by the threads.
  double plan_bytes() const {
    return double(nodes.size() * sizeof(Node)) + 4.0 * double(rel.size() + children.size()) +
           8.0 * double(entries.size());
  }
};

/// The plan for an n x n matrix whose entry k lies at (rc[k].first, rc[k].second), both in
/// [0, n). Every diagonal (i, i) is assumed present; entries off the diagonal are made
/// symmetric. O((n + nnz) log n).
Dissection dissect(int n, const std::vector<std::pair<int, int>>& rc);

/// Scratch of det_mod_dissection, one per thread and reused over primes.
struct DissectionScratch {
  std::vector<double> front, stack;
};

/// det M mod p in [0, p) for the entries `cell` (in the order given to dissect, exact
/// integers in [-p, p]), p a prime in (2^49, 2^50); kNoResidue where a node has no nonzero
/// pivot modulo p left.
std::uint64_t det_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                 DissectionScratch& scratch);

}  // namespace matchcount::engines::planar
