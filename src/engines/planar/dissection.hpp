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

#include <algorithm>
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
  std::vector<int> pos;       // index -> elimination position
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
    return double(nodes.size() * sizeof(Node)) + 4.0 * double(rel.size() + children.size() + pos.size()) +
           8.0 * double(entries.size());
  }
};

/// The plan for an n x n matrix whose entry k lies at (rc[k].first, rc[k].second), both in
/// [0, n). Every diagonal (i, i) is assumed present; entries off the diagonal are made
/// symmetric. O((n + nnz) log n). With `mate` (a perfect matching of the pattern's graph,
/// mate[mate[v]] = v), v and mate[v] take consecutive positions in one node, v first for the
/// smaller v: the 2 x 2 pivots of pfaffian_mod_dissection.
Dissection dissect(int n, const std::vector<std::pair<int, int>>& rc, const std::vector<int>* mate = nullptr);

/// Scratch of det_mod_dissection, one per thread and reused over primes.
struct DissectionScratch {
  std::vector<double> front, stack;
  /// Room for plan d's largest front and its stack at its peak; the stack's start.
  double* fit(const Dissection& d) {
    front.resize(std::size_t(d.max_front) * std::size_t(Dissection::stride(d.max_front)));
    stack.resize(std::size_t(d.stack_peak));
    return stack.data();
  }
};

/// det M mod p in [0, p) for the entries `cell` (in the order given to dissect, exact
/// integers in [-p, p]), p a prime in (2^49, 2^50); kNoResidue where a node has no nonzero
/// pivot modulo p left.
std::uint64_t det_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                 DissectionScratch& scratch);

/// Node x's front (x.front() rows of stride(x.front()) values, zeroed first) holding its
/// assembled entries and its children's Schur complements, popped from the stack (`top` is
/// lowered past them); with `upper`, only their upper triangles (skew fronts keep no other).
void assemble_front(const Dissection& d, const Dissection::Node& x, const std::vector<double>& cell, double p,
                    double* f, const double* stack, std::size_t& top, bool upper);

/// One node's dense front: own rows [0, own), boundary rows [own, order), `stride` values a row.
struct Front {
  double* f;
  int own, order, stride;
  double& operator()(int i, int j) const { return f[std::size_t(i) * std::size_t(stride) + std::size_t(j)]; }
};

/// The multifrontal elimination's frame: each node's front assembled (assemble_front, `upper`
/// as there), `eliminate(front)` on its own rows (false: no pivot left, the residue is not
/// found this way), then its boundary's Schur complement kept for the parent. Whether every
/// node was eliminated.
template <class Eliminate>
bool run_fronts(const Dissection& d, const std::vector<double>& cell, double p, DissectionScratch& scratch, bool upper,
                Eliminate eliminate) {
  double* const stack = scratch.fit(d);
  std::size_t top = 0;  // the Schur complements waiting for their parents, latest on top
  for (const Dissection::Node& x : d.nodes) {
    const Front front{scratch.front.data(), x.end - x.begin, x.front(), Dissection::stride(x.front())};
    assemble_front(d, x, cell, p, front.f, stack, top, upper);
    if (!eliminate(front)) return false;
    const int s = front.own, m = front.order - s;
    for (int a = 0; a < m; ++a) std::copy_n(&front(s + a, s), m, stack + top + std::size_t(a) * std::size_t(m));
    top += std::size_t(m) * std::size_t(m);
  }
  return true;
}

/// Pf M' mod p in [0, p) for M' = M in the plan's elimination order (M'(pos[r], pos[c]) =
/// M(r, c); Pf M = sgn(pos) Pf M'), M skew-symmetric with the entries `cell` (both (r, c) and
/// (c, r) given to dissect, with `mate`; exact integers in [-p, p]); kNoResidue where a node
/// has no nonzero pivot pair left. Step k of a node takes the pair (k, k+1) of its own rows,
/// after exchanging them with a pair of nonzero entry when K(k, k+1) is 0 modulo p; then
/// Pf = K(k, k+1) Pf(S), S = K - K(.,{k,k+1}) K({k,k+1},{k,k+1})^-1 K({k,k+1},.).
std::uint64_t pfaffian_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                      DissectionScratch& scratch);

}  // namespace matchcount::engines::planar
