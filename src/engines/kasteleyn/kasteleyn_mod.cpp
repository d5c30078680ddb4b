// Exact counts of the Kasteleyn engine (kasteleyn.hpp): det K modulo primes below 2^50,
// combined by CRT, either by banded elimination or in nested-dissection order (the cheaper by
// predicted work; planar/dissection.hpp), with Hadamard's bound on |det K| choosing the primes.
#include <algorithm>
#include <atomic>
#include <string>

#include "core/tuning.hpp"
#include "engines/common.hpp"
#include "engines/kasteleyn/kasteleyn_band.hpp"
#include "engines/planar/band_mod.hpp"
#include "engines/planar/dissection.hpp"
#include "engines/planar/planar.hpp"

namespace matchcount::engines {

using arith::broadcast;
using arith::modmul;
using arith::modreduce;
using planar::load4;
using planar::mul_add_mod;
using planar::store4;

SignedBlock signed_block(const PatternRC& pattern, int n, const BandOrder& o, std::vector<signed char> s,
                         const Matching& m) {
  SignedBlock b;
  b.n = n, b.kl = o.kl, b.ku = o.ku;
  b.s = std::move(s);
  for (auto [r, c] : pattern) {
    b.row.push_back(o.transposed ? o.row_pos[std::size_t(c)] : o.row_pos[std::size_t(r)]);
    b.col.push_back(o.transposed ? o.col_pos[std::size_t(r)] : o.col_pos[std::size_t(c)]);
  }
  // All perfect matchings enter det K' with the sign of this one: perm = sign * det K'.
  std::vector<int> tau(static_cast<std::size_t>(n));
  b.sign = 1;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (m.col_of_row[std::size_t(pattern[k].first)] != pattern[k].second) continue;
    tau[std::size_t(b.row[k])] = b.col[k];
    b.sign *= b.s[k];
  }
  b.sign *= planar::permutation_sign(tau);
  return b;
}

/// det K' mod p in [0, p): banded LU with row interchanges (as LAPACK's gbtrf: U's band
/// widens to kl + ku), any nonzero pivot serving. Entries are kept as exact integers in
/// [-p, p] (so -p, 0 and p are the zeros); a row update is one mul_add_mod per entry, four
/// entries a vector. `buf` is the caller's scratch (n * stride doubles).
std::uint64_t det_mod(const SignedBlock& b, const std::vector<double>& cell, double p, std::vector<double>& buf) {
  const int n = b.n, kl = b.kl;
  const std::size_t S = std::size_t(b.stride());
  const double pinv = 1.0 / p;
  buf.assign(std::size_t(n) * S, 0.0);
  auto at = [&](int i, int j) -> double& { return buf[std::size_t(i) * S + std::size_t(j - i + kl)]; };
  std::vector<int> rend(static_cast<std::size_t>(n), 0);  // last column a row may hold nonzero
  for (std::size_t k = 0; k < cell.size(); ++k) {
    at(b.row[k], b.col[k]) = cell[k];
    rend[std::size_t(b.row[k])] = std::max(rend[std::size_t(b.row[k])], b.col[k]);
  }
  double det = 1;
  bool negate = false;
  for (int c = 0; c < n; ++c) {
    const int last = std::min(n - 1, c + kl);
    int r = c;
    while (r <= last && planar::is_zero_mod(at(r, c), p)) ++r;
    if (r > last) return 0;
    if (r != c) {
      for (int j = c, e = std::max(rend[std::size_t(r)], rend[std::size_t(c)]); j <= e; ++j) std::swap(at(r, j), at(c, j));
      std::swap(rend[std::size_t(r)], rend[std::size_t(c)]);
      negate = !negate;
    }
    const double pivot = modreduce(at(c, c), p, pinv);
    det = modmul(det, pivot, p, pinv);
    const double inv = double(inv_mod(to_residue(pivot, std::uint64_t(p)), std::uint64_t(p)));
    const double* prow = &at(c, c + 1);
    // Only the pivot row's extent is updated: without interchanges U keeps bandwidth ku, and
    // the work is kl * ku a column instead of gbtrf's kl * (kl + ku).
    const int rc = rend[std::size_t(c)], len = rc - c;
    int rows[2], pending = 0;  // rows updated in pairs: one load of the pivot row serves both
    for (int rr = c + 1; rr <= last + 1; ++rr) {
      if (rr <= last) {
        if (at(rr, c) == 0) continue;  // sparse rows: only the fill-in so far is touched
        rows[pending++] = rr;
        rend[std::size_t(rr)] = std::max(rend[std::size_t(rr)], rc);
        if (pending < 2) continue;
      }
      if (pending > 0)
        planar::eliminate_rows(pending, &at(rows[0], c + 1), at(rows[0], c), pending == 2 ? &at(rows[1], c + 1) : nullptr,
                       pending == 2 ? at(rows[1], c) : 0.0, prow, len, inv, p, pinv);
      pending = 0;
    }
  }
  std::uint64_t res = to_residue(det, std::uint64_t(p));
  return negate && res != 0 ? std::uint64_t(p) - res : res;
}


void check_memory(const std::string& what, double bytes, double max_bytes) {
  const double limit = std::min(kKasteleynMemoryLimit, max_bytes);
  if (bytes <= limit) return;
  refuse_memory(limit < kKasteleynMemoryLimit,
                "kasteleyn: " + what + " needs " + three_digits(bytes / double(1ull << 30)) + " GiB, over the " +
                    (limit < kKasteleynMemoryLimit ? "memory budget (--max-memory) of " : "limit of ") +
                    three_digits(limit / double(1ull << 30)) + " GiB");
}

std::string band_text(int n, const BandOrder& o) {
  return "banded elimination of this " + std::to_string(n) + " x " + std::to_string(n) + " block (bandwidths " +
         std::to_string(o.kl) + " and " + std::to_string(o.ku) + ")";
}

planar::Dissection matching_dissection(const PatternRC& pattern, int n, const Matching& m) {
  std::vector<std::pair<int, int>> rc;
  rc.reserve(pattern.size());
  for (auto [r, c] : pattern) rc.emplace_back(r, m.row_of_col[std::size_t(c)]);
  return planar::dissect(n, rc);
}

bool take_nested(double nested_updates, double band_work) {
  const int method = tuning::tuning().kasteleyn_method;
  if (method != 0) return method == 2;
  return nested_updates < band_work;
}

namespace {

/// |perm A| = |det K| <= Hadamard's bound, the product of K's row (or column) Euclidean
/// lengths, the smaller of the two, rounded up. For 0-1 blocks it is below Bregman's bound
/// (sqrt(d) <= (d!)^(1/d)): on grids about 7/8 of its bits, so 7/8 of the primes.
Integer hadamard_bound(const SparseMatrix<Integer>& a) {
  auto product = [](std::vector<Integer> f) {
    // A balanced product tree: one factor at a time is quadratic in the size of the product.
    while (f.size() > 1) {
      std::vector<Integer> next((f.size() + 1) / 2);
      for (std::size_t i = 0; i < next.size(); ++i) next[i] = 2 * i + 1 < f.size() ? f[2 * i] * f[2 * i + 1] : f[2 * i];
      f.swap(next);
    }
    return f.empty() ? Integer(1) : f[0];
  };
  std::vector<Integer> row(std::size_t(a.rows)), col(std::size_t(a.cols));
  for (const auto& e : a.entries) row[std::size_t(e.row)] += e.value * e.value, col[std::size_t(e.col)] += e.value * e.value;
  const Integer squared = std::min(product(std::move(row)), product(std::move(col)));
  Integer root;
  if (!mpz_root(root.get_mpz_t(), squared.get_mpz_t(), 2)) root += 1;
  return root;
}

}  // namespace

Integer exact_permanent(const SparseMatrix<Integer>& a, const Matching& m, const EngineOptions& opt) {
  const int n = a.rows;
  const PatternRC pattern = pattern_of(a);
  if (n >= 2 && a.nnz() > std::size_t(4 * n - 4)) throw not_planar_error(n, a.nnz());  // Euler, before any order
  const BandOrder o = band_order(pattern, n);
  const double band_work = band_updates(n, o.kl, o.ku) + double(a.nnz());
  const double band_scratch = band_bytes(n, o.kl, o.ku, sizeof(double));
  const double limit = std::min(kKasteleynMemoryLimit, opt.max_bytes);
  const planar::Dissection d = matching_dissection(pattern, n, m);
  const bool nested = take_nested(d.updates, band_work);
  const double nested_scratch = d.scratch_bytes() + d.plan_bytes();
  if (nested)
    check_memory("nested dissection of this " + std::to_string(n) + " x " + std::to_string(n) + " block (fronts up to " +
                     std::to_string(d.max_front) + ")",
                 nested_scratch, opt.max_bytes);
  else
    check_memory(band_text(n, o), band_scratch, opt.max_bytes);
  std::vector<signed char> signs = kasteleyn_signing(pattern, n);
  if (signs.empty()) throw not_planar_error(n, a.nnz());
  std::vector<Integer> value;
  for (std::size_t k = 0; k < a.entries.size(); ++k) value.push_back(signs[k] * a.entries[k].value);
  const Integer bound = std::min(permanent_bound(a), hadamard_bound(a));
  const SignedBlock b = signed_block(pattern, n, o, std::move(signs), m);
  auto banded = [&b](const std::vector<double>& cell, double p, std::vector<double>& buf) {
    return det_mod(b, cell, p, buf);
  };
  if (!nested)
    return b.sign * planar::integer_from_residues<std::vector<double>>(bound, value, band_work, band_scratch, limit, opt,
                                                                       banded);
  // The matching on K's diagonal: every term of det K has the sign of the matching's, the
  // product of its signs.
  int sigma = 1;
  for (std::size_t k = 0; k < pattern.size(); ++k)
    if (m.col_of_row[std::size_t(pattern[k].first)] == pattern[k].second) sigma *= b.s[k];
  // A prime where a node finds no nonzero pivot is counted by the band instead. Two such
  // primes suggest that a leading minor is 0 as an integer (a signed count that cancels), so
  // the rest go to the band at once.
  std::atomic<int> failed{0};
  auto dissected = [&](const std::vector<double>& cell, double p, planar::DissectionScratch& scratch) {
    if (failed.load(std::memory_order_relaxed) >= 2) return planar::kNoResidue;
    const std::uint64_t r = planar::det_mod_dissection(d, cell, p, scratch);
    if (r == planar::kNoResidue) failed.fetch_add(1, std::memory_order_relaxed);
    return r;
  };
  planar::ResidueRetry retry{band_work, band_scratch, banded, {}};
  if (band_scratch > limit) {
    retry.residue = nullptr;
    retry.refusal = "kasteleyn: nested dissection met a zero pivot, and " + band_text(n, o) + " needs " +
                    three_digits(band_scratch / double(1ull << 30)) + " GiB, over the limit of " +
                    three_digits(limit / double(1ull << 30)) + " GiB";
  }
  return sigma * planar::integer_from_residues<planar::DissectionScratch>(bound, value, d.updates, nested_scratch,
                                                                         limit, opt, dissected, retry);
}

}  // namespace matchcount::engines
