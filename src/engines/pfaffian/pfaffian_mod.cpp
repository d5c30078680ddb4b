// Exact hafnians of the Pfaffian engine (pfaffian.hpp): Pf(K') modulo primes below 2^50 by a
// banded skew-symmetric elimination in FP64 FMA modular arithmetic, primes in parallel, then
// CRT with a proven bound on |haf|.
#include <algorithm>
#include <cmath>
#include <string>

#include "engines/common.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "engines/pfaffian/pfaffian_impl.hpp"
#include "engines/planar/band_mod.hpp"

namespace matchcount::engines::pfaffian_detail {
namespace {

using arith::broadcast;
using arith::modmul;
using arith::modreduce;
using planar::is_zero_mod;
using planar::load4;
using planar::mul_add_mod;
using planar::store4;

/// The upper triangle of a skew-symmetric matrix within a band: K(i, j), i < j <= i + cap, at
/// buf[i * stride + (j - i)]. Slot 0 (the diagonal) is unused and the 3 slots after cap are
/// zero padding, so that 4-wide vectors may run past a row's end. ext[i] >= i is the last
/// column row i may hold nonzero. One per thread, reused over primes.
struct ModBand {
  int n = 0, cap = 0, stride = 0;
  std::vector<double> buf, f;
  std::vector<int> ext;
  double& at(int i, int j) { return buf[std::size_t(i) * std::size_t(stride) + std::size_t(j - i)]; }

  void reset(int rows, int band) {
    n = rows, cap = (std::max(band, 1) + 3) / 4 * 4, stride = cap + 4;
    buf.assign(std::size_t(n) * std::size_t(stride), 0.0);
    f.assign(std::size_t(stride) + 4, 0.0);
    ext.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) ext[std::size_t(i)] = i;
  }
  /// Room for columns up to i + need in every row (rare: only interchanges widen the band).
  void widen(int need) {
    const int new_cap = (std::max(need, cap + cap / 2 + 4) + 3) / 4 * 4, new_stride = new_cap + 4;
    std::vector<double> wide(std::size_t(n) * std::size_t(new_stride), 0.0);
    for (int i = 0; i < n; ++i)
      std::copy_n(&buf[std::size_t(i) * std::size_t(stride)], stride, &wide[std::size_t(i) * std::size_t(new_stride)]);
    buf.swap(wide);
    cap = new_cap, stride = new_stride;
    f.assign(std::size_t(stride) + 4, 0.0);
  }
  /// Exchanges positions P and Q (k < P < Q) in rows and columns of the active part (rows
  /// >= k): K' = E K E^T for the transposition E, which negates the Pfaffian.
  void exchange(int k, int P, int Q) {
    if (ext[std::size_t(Q)] - P > cap) widen(ext[std::size_t(Q)] - P);
    std::swap(at(k, P), at(k, Q));
    for (int y = P + 1; y < Q; ++y) {  // K'(P, y) = K(Q, y) = -K(y, Q), K'(y, Q) = -K(P, y)
      const double t = at(P, y);
      at(P, y) = -at(y, Q);
      at(y, Q) = -t;
      if (t != 0) ext[std::size_t(y)] = std::max(ext[std::size_t(y)], Q);
    }
    at(P, Q) = -at(P, Q);
    const int ep = ext[std::size_t(P)], eq = ext[std::size_t(Q)];
    for (int z = Q + 1; z <= std::max(ep, eq); ++z) std::swap(at(P, z), at(Q, z));
    ext[std::size_t(P)] = std::max(eq, Q);
    ext[std::size_t(Q)] = std::max(ep, Q);
  }
};

/// Pf(K') mod p in [0, p). Step k takes the pivot pair (k, k+1), after exchanging k+1 with
/// the first column j holding a nonzero K(k, j) (any nonzero pivot serves modulo p); then
/// Pf(K) = K(k, k+1) Pf(S) for the Schur complement
///   S(x, y) = K(x, y) - f_x K(k+1, y) + K(k+1, x) f_y,  f = K(k, .) / K(k, k+1),
/// two multiply-adds per entry of the triangle of rows k+2..E, E the last column the pair
/// reaches. Without interchanges the band is kept: S(x, .) ends at E <= x + band.
std::uint64_t pfaffian_mod(const SkewBlock& b, const std::vector<double>& cell, double p, ModBand& m) {
  const int n = b.n;
  const double pinv = 1.0 / p;
  m.reset(n, b.band);
  for (std::size_t k = 0; k < cell.size(); ++k) {
    m.at(b.row[k], b.col[k]) = cell[k];
    m.ext[std::size_t(b.row[k])] = std::max(m.ext[std::size_t(b.row[k])], b.col[k]);
  }
  const v4d P = broadcast(p, v4d{}), PI = broadcast(pinv, v4d{});
  double pf = 1;
  bool negate = false;
  for (int k = 0; k < n; k += 2) {
    int j = k + 1;
    const int ek = m.ext[std::size_t(k)];
    while (j <= ek && is_zero_mod(m.at(k, j), p)) ++j;
    if (j > ek) return 0;  // row k of the active part is zero
    if (j != k + 1) m.exchange(k, k + 1, j), negate = !negate;
    const double a = modreduce(m.at(k, k + 1), p, pinv);
    pf = modmul(pf, a, p, pinv);
    const int E = std::max(m.ext[std::size_t(k)], m.ext[std::size_t(k + 1)]);
    if (E <= k + 2) continue;
    const double inv = double(inv_mod(to_residue(a, std::uint64_t(p)), std::uint64_t(p)));
    // f[t] = f_y and bp[t] = K(k+1, y) for y = k+1+t; zero past E (padding for the vectors).
    double* f = m.f.data();
    const double* bp = &m.at(k + 1, k + 1);
    const int span = E - k - 1;
    f[0] = 0;
    for (int t = 1; t <= span; ++t) f[t] = modmul(m.at(k, k + 1 + t), inv, p, pinv);
    for (int t = span + 1; t <= span + 4; ++t) f[t] = 0;
    for (int x = k + 2; x < E; ++x) {
      const int t0 = x - k - 1;
      if (is_zero_mod(f[t0], p) && is_zero_mod(bp[t0], p)) continue;  // sparse fronts: fill-in only
      m.ext[std::size_t(x)] = std::max(m.ext[std::size_t(x)], E);
      const v4d c1 = broadcast(-f[t0], v4d{}), c2 = broadcast(bp[t0], v4d{});
      double* q = &m.at(x, x + 1);
      const double *bb = bp + t0 + 1, *ff = f + t0 + 1;
      const int len = E - x;
      for (int s = 0; s < len; s += 4)
        store4(q + s, mul_add_mod(mul_add_mod(load4(q + s), c1, load4(bb + s), P, PI), c2, load4(ff + s), P, PI));
    }
  }
  std::uint64_t res = to_residue(pf, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}

/// |Pf(K)| = sqrt|det K| <= (prod_i sum_j |a_ij|^2)^(1/4) by Hadamard's inequality; rounded
/// up. For 0-1 graphs of degree >= 3 it is below hafnian_bound's Bregman factors.
Integer hadamard_pfaffian_bound(const SparseMatrix<Integer>& a) {
  std::vector<Integer> row(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) row[std::size_t(e.row)] += e.value * e.value;
  // A balanced product tree: one factor at a time is quadratic in the size of the product.
  while (row.size() > 1) {
    std::vector<Integer> next((row.size() + 1) / 2);
    for (std::size_t i = 0; i < next.size(); ++i)
      next[i] = 2 * i + 1 < row.size() ? row[2 * i] * row[2 * i + 1] : row[2 * i];
    row.swap(next);
  }
  Integer root;
  if (!mpz_root(root.get_mpz_t(), row[0].get_mpz_t(), 4)) root += 1;
  return root;
}

}  // namespace

Integer exact_pfaffian(const SparseMatrix<Integer>& a, const SkewBlock& b, const EngineOptions& opt) {
  const Integer bound = std::min(hafnian_bound(a, false), hadamard_pfaffian_bound(a));
  std::vector<Integer> value;
  for (std::size_t k = 0; k < b.entry.size(); ++k) value.push_back(b.s[k] * a.entries[b.entry[k]].value);
  const double bytes = band_bytes(b.n, b.band, sizeof(double));
  const double limit = std::min(kPfaffianMemoryLimit, opt.max_bytes);
  auto band = [&b](const std::vector<double>& cell, double p, ModBand& m) { return pfaffian_mod(b, cell, p, m); };
  // Each entry update of the band is two multiply-adds.
  if (!b.mate.empty()) {
    std::vector<std::pair<int, int>> rc;
    rc.reserve(2 * b.row.size());
    for (std::size_t k = 0; k < b.row.size(); ++k) rc.emplace_back(b.row[k], b.col[k]), rc.emplace_back(b.col[k], b.row[k]);
    const planar::Dissection d = planar::dissect(b.n, rc, &b.mate);
    const double nested_work = front_work(d);
    if (fronts_win(nested_work, b.updates) && d.scratch_bytes() + d.plan_bytes() <= limit) {
      std::vector<Integer> both;  // (r, c) and (c, r), as rc
      both.reserve(2 * value.size());
      for (const Integer& v : value) both.push_back(v), both.push_back(-v);
      // The fronts give Pf of K' in elimination order, sgn(order) Pf K': every residue is
      // turned into Pf K' mod p, the band's, so that the band may count any prime again.
      const bool odd = planar::permutation_sign(d.pos) < 0;
      planar::ResidueRetry retry;
      retry.work_per_prime = 2 * b.updates, retry.scratch_bytes = bytes;
      if (bytes <= limit)
        retry.residue = [&b, &value](const std::vector<double>& cell2, double p, std::vector<double>&) {
          std::vector<double> cell(value.size());
          for (std::size_t k = 0; k < cell.size(); ++k) cell[k] = cell2[2 * k];
          ModBand m;
          return pfaffian_mod(b, cell, p, m);
        };
      else
        retry.refusal = "pfaffian: nested dissection met a zero pivot pair and the band would not fit the memory";
      return b.eps * planar::integer_from_residues<planar::DissectionScratch>(
                         bound, both, nested_work, d.scratch_bytes(), limit - d.plan_bytes(), opt,
                         [&d, odd](const std::vector<double>& cell, double p, planar::DissectionScratch& s) {
                           const std::uint64_t r = planar::pfaffian_mod_dissection(d, cell, p, s);
                           return odd && r != 0 && r != planar::kNoResidue ? std::uint64_t(p) - r : r;
                         },
                         retry);
    }
  }
  if (bytes > limit) refuse_band(b.n, b.band, bytes, limit, " (nested dissection was not taken or would not fit)");
  return b.eps * planar::integer_from_residues<ModBand>(bound, value, 2 * b.updates, bytes, limit, opt, band);
}

}  // namespace matchcount::engines::pfaffian_detail
