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

/// Pivot pairs a block: their two rows each give kProductBlock products a row.
constexpr int kPairBlock = kProductBlock / 2;

/// The pairs of a block so far: pair j's pivot rows k0 + 2j and k0 + 2j + 1 (up to date) and the
/// inverse of its pivot entry.
struct PairBlock {
  int k0 = 0, pairs = 0;
  double inv[kPairBlock];

  /// Row r's entries after column r brought up to date with the block's pairs: pair j (pivot
  /// rows k, k + 1, pivot a) adds (K(k+1, r)/a) K(k, c) - (K(k, r)/a) K(k+1, c) to K(r, c), the
  /// Schur complement of the pair written with the pivot rows' column r for row r's (skew:
  /// K(r, k) = -K(k, r)); pairs of zero multipliers are skipped.
  void update(const Front& at, int r, double p, double pinv, v4d P, v4d PI) const {
    double f[kProductBlock];
    const double* u[kProductBlock];
    int live = 0;
    for (int j = 0; j < pairs; ++j) {
      const int k = k0 + 2 * j;
      const double xr = at(k, r), yr = at(k + 1, r);
      if (!is_zero_mod(yr, p)) f[live] = modmul(yr, inv[j], p, pinv), u[live++] = &at(k, r + 1);
      if (!is_zero_mod(xr, p)) f[live] = -modmul(xr, inv[j], p, pinv), u[live++] = &at(k + 1, r + 1);
    }
    apply_products(live, &at(r, r + 1), f, u, at.order - r - 1, P, PI);
  }
};

}  // namespace

std::uint64_t pfaffian_mod_dissection(const Dissection& d, const std::vector<double>& cell, double p,
                                      DissectionScratch& scratch) {
  const double pinv = 1.0 / p;
  const v4d P = broadcast(p, v4d{}), PI = broadcast(pinv, v4d{});
  double pf = 1;
  bool negate = false;
  // Only the upper triangle (row < column) is kept and updated: entries below it, assembled or
  // added, are never read. The node's own pairs, kPairBlock at a time: a pair's pivot rows are
  // brought up to date with the block's earlier pairs when its turn comes, every other row
  // once after the block. A zero pivot K(k, k+1) ends the block (the rows after it are brought
  // up to date), and is replaced by any nonzero K(i, j) among the own rows left (exchanging own
  // rows keeps the front's structure; each exchange negates).
  const bool all = run_fronts(d, cell, p, scratch, true, [&](const Front& at) {
    const int s = at.own, F = at.order;
    PairBlock block;
    int k = 0;
    while (k + 1 < s) {
      block.k0 = k, block.pairs = 0;
      for (; k + 1 < s && block.pairs < kPairBlock; k += 2) {
        block.update(at, k, p, pinv, P, PI);
        block.update(at, k + 1, p, pinv, P, PI);
        if (is_zero_mod(at(k, k + 1), p)) {
          if (block.pairs > 0) break;  // rows k, k + 1 are up to date; the others after the block
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
        block.inv[block.pairs++] = double(inv_mod(to_residue(a, std::uint64_t(p)), std::uint64_t(p)));
      }
      // Rows k, k + 1 after a block that a zero pivot ended are up to date already.
      const int first = k + 1 < s && block.pairs < kPairBlock ? k + 2 : k;
      for (int r = first; r < F; ++r) block.update(at, r, p, pinv, P, PI);
    }
    return true;
  });
  if (!all) return kNoResidue;
  const std::uint64_t res = to_residue(pf, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

}  // namespace matchcount::engines::planar
