// Pf M mod p in nested-dissection order (dissection.hpp): the multifrontal elimination of a
// skew-symmetric matrix by 2 x 2 pivots, one dense front per node of a plan whose nodes own
// matched pairs, in the FP64 FMA modular arithmetic of band_mod.hpp. The Pfaffian engine's
// alternative to its band, as det_mod_dissection is Kasteleyn's: the Pfaffian itself, so the
// primes cover |haf| and not its square.
#include <algorithm>

#include "engines/planar/band_mod.hpp"
#include "engines/planar/dissection.hpp"

namespace matchcount::engines::planar {

using arith::broadcast;
using arith::modmul;
using arith::modreduce;

namespace {

/// Exchanges indices i < j of a skew front of which only the upper triangle (row < column) is
/// kept: M' = E M E^T for the transposition E, which negates the Pfaffian.
void exchange(double* f, int F, int S, int i, int j) {
  auto at = [f, S](int r, int c) -> double& { return f[std::size_t(r) * std::size_t(S) + std::size_t(c)]; };
  for (int y = 0; y < i; ++y) std::swap(at(y, i), at(y, j));
  for (int y = i + 1; y < j; ++y) {  // M'(i, y) = M(j, y) = -M(y, j), M'(y, j) = M(y, i) = -M(i, y)
    const double t = at(i, y);
    at(i, y) = -at(y, j);
    at(y, j) = -t;
  }
  at(i, j) = -at(i, j);
  for (int z = j + 1; z < F; ++z) std::swap(at(i, z), at(j, z));
}

}  // namespace

std::uint64_t pfaffian_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                      DissectionScratch& scratch) {
  const double pinv = 1.0 / p;
  const v4d P = broadcast(p, v4d{}), PI = broadcast(pinv, v4d{});
  double pf = 1;
  bool negate = false;
  // Only the upper triangle (row < column) is kept and updated: entries below it, assembled or
  // added, are never read. The node's own pairs: a zero pivot K(k, k+1) is replaced by any
  // nonzero K(i, j) among the own rows left (exchanging own rows keeps the front's structure;
  // each exchange negates).
  const bool all = run_fronts(d, cell, p, scratch, true, [&](const Front& at) {
    const int s = at.own, F = at.order;
    for (int k = 0; k + 1 < s; k += 2) {
      if (is_zero_mod(at(k, k + 1), p)) {
        int i = -1, j = -1;
        for (int r = k; r < s && i < 0; ++r)
          for (int c = r + 1; c < s; ++c)
            if (!is_zero_mod(at(r, c), p)) {
              i = r, j = c;
              break;
            }
        if (i < 0) return false;
        if (i != k) exchange(at.f, F, at.stride, k, i), negate = !negate;  // (i, j) is now (k, j): j > i > k
        if (j != k + 1) exchange(at.f, F, at.stride, k + 1, j), negate = !negate;
      }
      const double a = modreduce(at(k, k + 1), p, pinv);
      pf = modmul(pf, a, p, pinv);
      const double inv = double(inv_mod(to_residue(a, std::uint64_t(p)), std::uint64_t(p)));
      // For r < c, both after the pair: S(r, c) = K(r, c) - al_r K(k, c) - be_r K(k+1, c) with
      // al_r = K(r, k+1)/a = -K(k+1, r)/a and be_r = -K(r, k)/a = K(k, r)/a.
      for (int r = k + 2; r + 1 < F; ++r) {
        const double xr = at(k, r), yr = at(k + 1, r);
        if (is_zero_mod(xr, p) && is_zero_mod(yr, p)) continue;
        const v4d al = broadcast(modmul(yr, inv, p, pinv), v4d{}), be = broadcast(-modmul(xr, inv, p, pinv), v4d{});
        double* q = &at(r, r + 1);
        const double *u = &at(k, r + 1), *w = &at(k + 1, r + 1);
        const int len = F - r - 1;
        for (int t = 0; t < len; t += 4)
          store4(q + t, mul_add_mod(mul_add_mod(load4(q + t), al, load4(u + t), P, PI), be, load4(w + t), P, PI));
      }
    }
    return true;
  });
  if (!all) return kNoResidue;
  const std::uint64_t res = to_residue(pf, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

}  // namespace matchcount::engines::planar
