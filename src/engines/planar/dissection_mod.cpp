// det M mod p in nested-dissection order (dissection.hpp): the multifrontal elimination, one
// dense front per node of the plan, in the FP64 FMA modular arithmetic of band_mod.hpp.
#include <algorithm>

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

std::uint64_t det_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                 DissectionScratch& scratch) {
  const double pinv = 1.0 / p;
  double det = 1;
  bool negate = false;
  // Each node's own s columns, pivots from its own rows (their structure in the dense front is
  // the same, so exchanging them costs nothing but the sign).
  const bool all = run_fronts(d, cell, p, scratch, false, [&](const Front& at) {
    const int s = at.own, F = at.order;
    for (int k = 0; k < s; ++k) {
      int r = k;
      while (r < s && is_zero_mod(at(r, k), p)) ++r;
      if (r == s) return false;
      if (r != k) {
        std::swap_ranges(&at(r, 0), &at(r, 0) + at.stride, &at(k, 0));
        negate = !negate;
      }
      const double pivot = modreduce(at(k, k), p, pinv);
      det = modmul(det, pivot, p, pinv);
      const double inv = double(inv_mod(to_residue(pivot, std::uint64_t(p)), std::uint64_t(p)));
      const double* prow = &at(k, k + 1);
      const int len = F - k - 1;
      int rows[2], pending = 0;  // rows updated in pairs: one load of the pivot row serves both
      for (int rr = k + 1; rr <= F; ++rr) {
        if (rr < F) {
          if (is_zero_mod(at(rr, k), p)) continue;
          rows[pending++] = rr;
          if (pending < 2) continue;
        }
        if (pending > 0)
          eliminate_rows(pending, &at(rows[0], k + 1), at(rows[0], k), pending == 2 ? &at(rows[1], k + 1) : nullptr,
                         pending == 2 ? at(rows[1], k) : 0.0, prow, len, inv, p, pinv);
        pending = 0;
      }
    }
    return true;
  });
  if (!all) return kNoResidue;
  const std::uint64_t res = to_residue(det, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

}  // namespace matchcount::engines::planar
