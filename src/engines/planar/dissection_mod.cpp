// det M mod p in nested-dissection order (dissection.hpp): the multifrontal elimination, one
// dense front per node of the plan, in the FP64 FMA modular arithmetic of band_mod.hpp.
#include <algorithm>
#include <vector>

#include "engines/planar/band_mod.hpp"
#include "engines/planar/dissection.hpp"

namespace matchcount::engines::planar {

using arith::broadcast;
using arith::modmul;
using arith::modreduce;

void assemble_front(const Dissection& d, const Dissection::Node& x, const std::vector<double>& cell, double p,
                    double* f, const double* stack, std::size_t& top, bool upper) {
  const double pinv = 1.0 / p;
  const int F = x.front(), S = Dissection::stride(F);
  std::fill_n(f, std::size_t(F) * std::size_t(S), 0.0);
  for (int e = x.entry; e < x.entry_end; ++e) f[d.entries[std::size_t(e)].second] = cell[std::size_t(d.entries[std::size_t(e)].first)];
  // Children's Schur complements, added where their boundary lies in this front; the last
  // child's is on top of the stack. A child's boundary keeps its order in the parent's front,
  // so an upper triangle lands in the parent's.
  for (int k = x.child_len - 1; k >= 0; --k) {
    const Dissection::Node& c = d.nodes[std::size_t(d.children[std::size_t(x.child + k)])];
    const std::size_t mc = std::size_t(c.bnd_len);
    top -= mc * mc;
    const double* u = stack + top;
    const int* rel = &d.rel[std::size_t(c.bnd)];
    for (std::size_t a = 0; a < mc; ++a) {
      double* row = f + std::size_t(rel[a]) * std::size_t(S);
      for (std::size_t b = upper ? a + 1 : 0; b < mc; ++b) row[rel[b]] = modreduce(row[rel[b]] + u[a * mc + b], p, pinv);
    }
  }
}

namespace {

/// Pivots a block (band_mod.hpp's apply_products says why eight).
constexpr int kPivotBlock = kProductBlock;

/// A block's panel: its columns [k0, k0 + count) of the front's rows [k0, F), column-major
/// (`ld` values a column, padded with zeros), so that each pivot's multipliers and its updates
/// of the panel run four rows a vector. A row's multipliers replace its panel entries, which
/// are dead after elimination; nothing goes back to the front, whose later steps read only
/// the columns after the block.
struct Panel {
  std::vector<double> v;
  int k0 = 0, count = 0, ld = 0;
  double* col(int j) { return v.data() + std::size_t(j) * std::size_t(ld); }
  double& at(int row, int j) { return v[std::size_t(j) * std::size_t(ld) + std::size_t(row - k0)]; }
  void load(const Front& f, int first, int n) {
    k0 = first, count = n, ld = (f.order - first + 3) / 4 * 4 + 4;
    v.assign(std::size_t(ld) * std::size_t(n), 0.0);
    for (int j = 0; j < n; ++j)
      for (int r = first; r < f.order; ++r) at(r, j) = f(r, first + j);
  }
  void swap_rows(int a, int b) {
    for (int j = 0; j < count; ++j) std::swap(at(a, j), at(b, j));
  }
};

/// Row r's columns [to, F) brought up to date with the panel's first `count` pivots, whose
/// rows' columns [to, F) are final; pivots of zero multiplier are skipped.
inline void update_row(const Front& at, Panel& panel, int r, int count, int to, v4d P, v4d PI) {
  double f[kPivotBlock];
  const double* u[kPivotBlock];
  int live = 0;
  for (int j = 0; j < count; ++j)
    if (panel.at(r, j) != 0) f[live] = panel.at(r, j), u[live++] = &at(panel.k0 + j, to);
  apply_products(live, &at(r, to), f, u, at.order - to, P, PI);
}

/// Pivot j of the panel (row k0 + j) with inverse `inv`: the multipliers -x inv of the rows
/// below it, in place of their column j, and their later panel columns updated.
inline void eliminate_in_panel(Panel& panel, int j, double inv, v4d P, v4d PI, int rows) {
  const v4d I = broadcast(inv, v4d{});
  double* x = panel.col(j);
  for (int i = j + 1; i < rows; i += 4) store4(x + i, -modmul(load4(x + i), I, P, PI));
  for (int c = j + 1; c < panel.count; ++c) {
    double* y = panel.col(c);
    const v4d u = broadcast(y[j], v4d{});
    for (int i = j + 1; i < rows; i += 4) store4(y + i, mul_add_mod(load4(y + i), load4(x + i), u, P, PI));
  }
}

}  // namespace

std::uint64_t det_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                 DissectionScratch& scratch) {
  const double pinv = 1.0 / p;
  const v4d P = broadcast(p, v4d{}), PI = broadcast(pinv, v4d{});
  double det = 1;
  bool negate = false;
  Panel panel;
  // Each node's own s columns, pivots from its own rows (their structure in the dense front is
  // the same, so exchanging them costs nothing but the sign), in blocks of kPivotBlock: within
  // a block only the block's columns (the panel) are updated pivot by pivot, which is what the
  // choice of the next pivot reads, and the rest of every row is updated once for the whole
  // block (a pivot row when it is chosen, the others after the block's last pivot).
  const bool all = run_fronts(d, cell, p, scratch, false, [&](const Front& at) {
    const int s = at.own, F = at.order;
    for (int k0 = 0; k0 < s; k0 += kPivotBlock) {
      const int kend = std::min(s, k0 + kPivotBlock);
      panel.load(at, k0, kend - k0);
      for (int k = k0; k < kend; ++k) {
        int r = k;
        while (r < s && is_zero_mod(panel.at(r, k - k0), p)) ++r;
        if (r == s) return false;
        if (r != k) {
          std::swap_ranges(&at(r, kend), &at(r, 0) + at.stride, &at(k, kend));
          panel.swap_rows(r, k);
          negate = !negate;
        }
        update_row(at, panel, k, k - k0, kend, P, PI);
        const double pivot = modreduce(panel.at(k, k - k0), p, pinv);
        det = modmul(det, pivot, p, pinv);
        const double inv = double(inv_mod(to_residue(pivot, std::uint64_t(p)), std::uint64_t(p)));
        eliminate_in_panel(panel, k - k0, inv, P, PI, F - k0);
      }
      for (int rr = kend; rr < F; ++rr) update_row(at, panel, rr, kend - k0, kend, P, PI);
    }
    return true;
  });
  if (!all) return kNoResidue;
  const std::uint64_t res = to_residue(det, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

}  // namespace matchcount::engines::planar
