// The modular side that the planar engines share (kasteleyn: det K' mod p by banded LU;
// pfaffian: Pf K' mod p by banded skew-symmetric elimination): the FP64 FMA row update on
// entries kept as exact integers in [-p, p], and the run of one elimination per prime below
// 2^50, primes in parallel, combined by CRT (with a second way for the primes where the first
// way failed). The eliminations themselves stay with each engine.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engines/common.hpp"
#include "engines/planar/dissection.hpp"

namespace matchcount::engines::planar {

/// Four doubles from or to memory of any alignment (band rows start anywhere).
inline v4d load4(const double* p) {
  v4d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store4(double* p, v4d v) { std::memcpy(p, &v, sizeof v); }

/// y + f*b mod p for exact integers y, f, b in [-p, p] (p a prime in (2^49, 2^50), pinv =
/// 1/p), again in [-p, p]: one reduction for the product and the sum together (arith.hpp's
/// modmul, then a reduction of the sum, takes two). With h = RN(fb), l = fb - h (exact by
/// FMA, |l| <= 2^46 < p/8), z = RN(RN(h + y) * pinv) lies within 2^46/p + 2 * 2^-53 * 2^51 <=
/// 1/8 + 1/4 of (h + y)/p, so q = RN(z) is within 7/8 of it; h - qp is an integer below 2^51
/// (exact by FMA), and h - qp + l + y = fb + y - qp has |.| <= 7p/8 + p/8.
template <class V>
inline V mul_add_mod(V y, V f, V b, V p, V pinv) {
  const V h = f * b;
  const V l = arith::fmadd(f, b, -h);
  const V q = arith::round_nearest((h + y) * pinv);
  return arith::fmadd(-q, p, h) + l + y;
}

/// Whether an entry kept in [-p, p] is zero modulo p: -p, 0 and p are the zeros.
inline bool is_zero_mod(double x, double p) { return x == 0 || std::fabs(x) == p; }

/// Products a row takes in one pass (apply_products): each product reduced by modmul lies
/// within 7p/8, so eight of them and the entry (within p) sum below 8p < 2^53, exactly, and one
/// modreduce serves them all (its quotient errs by at most 1/2 + 2^-48 below 2^53, so the
/// result lies within p/2 + 4). The fronts' blocked eliminations take their pivots this many
/// rows at a time (dissection_mod.cpp, dissection_pfaffian.cpp).
constexpr int kProductBlock = 8;

/// q[t] <- q[t] + sum_j f[j] u[j][t] mod p for t in [0, len) (len padded to 4): the row is
/// loaded, reduced and stored once for N pivot rows, where rank-1 updates would do each N
/// times. Always inlined: out of line, a call a row slowed the grids' fronts (docs/benchmarks.md,
/// "Planar Pfaffian fronts: pairs in blocks").
template <int N>
[[gnu::always_inline]] inline void apply_products(double* q, const double* f, const double* const* u, int len, v4d P, v4d PI) {
  v4d fv[N];
  for (int j = 0; j < N; ++j) fv[j] = arith::broadcast(f[j], v4d{});
  for (int t = 0; t < len; t += 4) {
    v4d sum = load4(q + t);
    for (int j = 0; j < N; ++j) sum += arith::modmul(fv[j], load4(u[j] + t), P, PI);
    store4(q + t, arith::modreduce(sum, P, PI));
  }
}

/// apply_products for a count of 0..kProductBlock products known at run time.
[[gnu::always_inline]] inline void apply_products(int count, double* q, const double* f, const double* const* u, int len, v4d P, v4d PI) {
  switch (count) {
    case 1: return apply_products<1>(q, f, u, len, P, PI);
    case 2: return apply_products<2>(q, f, u, len, P, PI);
    case 3: return apply_products<3>(q, f, u, len, P, PI);
    case 4: return apply_products<4>(q, f, u, len, P, PI);
    case 5: return apply_products<5>(q, f, u, len, P, PI);
    case 6: return apply_products<6>(q, f, u, len, P, PI);
    case 7: return apply_products<7>(q, f, u, len, P, PI);
    case 8: return apply_products<8>(q, f, u, len, P, PI);
    default: return;
  }
}

/// One or two rows eliminated by the pivot row `prow` (its `len` entries after the pivot
/// column, padded to a multiple of 4): q_r[t] <- q_r[t] - (x_r * inv) * prow[t] mod p, where
/// x_r is row r's entry in the pivot column and inv the pivot's inverse. Two rows share each
/// load of the pivot row (the band's inner loop, rank-1 updates two at a time).
inline void eliminate_rows(int count, double* q0, double x0, double* q1, double x1, const double* prow, int len,
                           double inv, double p, double pinv) {
  const v4d P = arith::broadcast(p, v4d{}), PI = arith::broadcast(pinv, v4d{});
  const v4d f0 = arith::broadcast(-arith::modmul(x0, inv, p, pinv), v4d{});
  if (count == 2) {
    const v4d f1 = arith::broadcast(-arith::modmul(x1, inv, p, pinv), v4d{});
    for (int t = 0; t < len; t += 4) {
      const v4d u = load4(prow + t);
      store4(q0 + t, mul_add_mod(load4(q0 + t), f0, u, P, PI));
      store4(q1 + t, mul_add_mod(load4(q1 + t), f1, u, P, PI));
    }
  } else if (count == 1) {
    for (int t = 0; t < len; t += 4) store4(q0 + t, mul_add_mod(load4(q0 + t), f0, load4(prow + t), P, PI));
  }
}

/// A second way to find x mod p, for the primes where the first returned kNoResidue
/// (kasteleyn: the banded elimination where nested dissection met no nonzero pivot), with its
/// work a prime and the bytes of its scratch (a vector of doubles) per thread.
struct ResidueRetry {
  double work_per_prime = 0, scratch_bytes = 0;
  std::function<std::uint64_t(const std::vector<double>& cell, double p, std::vector<double>& scratch)> residue;
  std::string refusal;  // why there is no second way (RefusedError), when `residue` is empty
};

/// The residues x mod primes[k] for the k in `todo`, into `residues`: `residue_mod(cell, p,
/// scratch)` gives x mod p in [0, p) (or kNoResidue) from the matrix entries `values` reduced
/// into [0, p) (`cell`, in the order of `values`). Primes run in parallel, each thread with its
/// own `Scratch` (reused over its primes); threads are limited by the work (`work_per_prime`
/// basic steps a prime) and by `memory_limit` for `scratch_bytes` each.
template <class Scratch, class ResidueMod>
void residue_pass(const std::vector<std::uint64_t>& primes, const std::vector<std::size_t>& todo,
                  const std::vector<Integer>& values, double work_per_prime, double scratch_bytes,
                  double memory_limit, const EngineOptions& opt, Progress& progress, ResidueMod residue_mod,
                  std::vector<std::uint64_t>& residues) {
  // Small entries are exact doubles, converted from GMP once and reduced per prime by one FMA;
  // others go through GMP for every prime.
  bool small = true;
  for (const Integer& v : values) small = small && abs(v) < (Integer(1) << 50);
  std::vector<double> exact;
  if (small) {
    exact.reserve(values.size());
    for (const Integer& v : values) exact.push_back(v.get_d());
  }
  int threads = std::min<int>(thread_count(opt, work_per_prime * double(todo.size())), int(todo.size()));
  threads = std::max(1, std::min(threads, int(memory_limit / scratch_bytes)));
#pragma omp parallel num_threads(threads)
  {
    Scratch scratch;
    std::vector<double> cell(values.size());
#pragma omp for schedule(dynamic, 1)
    for (std::size_t i = 0; i < todo.size(); ++i) {
      const std::size_t k = todo[i];
      const double p = double(primes[k]), pinv = 1.0 / p;
      for (std::size_t e = 0; e < cell.size(); ++e)
        cell[e] = small ? arith::modreduce(exact[e], p, pinv) : arith::modreduce(residue_of(values[e], p), p, pinv);
      residues[k] = residue_mod(cell, p, scratch);
      if (residues[k] != kNoResidue) progress.tick();
    }
  }
}

/// The integer x, |x| <= bound, from its residues modulo the primes that choose_primes(bound)
/// picks (residue_pass), combined by CRT. Primes where `residue_mod` returns kNoResidue are
/// counted again by `retry` after the first pass (its scratches freed first). Reports
/// progress per prime, then 1.
template <class Scratch, class ResidueMod>
Integer integer_from_residues(const Integer& bound, const std::vector<Integer>& values, double work_per_prime,
                              double scratch_bytes, double memory_limit, const EngineOptions& opt,
                              ResidueMod residue_mod, const ResidueRetry& retry = {}) {
  std::vector<std::uint64_t> primes;
  for (double p : choose_primes(bound)) primes.push_back(std::uint64_t(p));
  std::vector<std::uint64_t> residues(primes.size());
  std::vector<std::size_t> todo(primes.size());
  for (std::size_t k = 0; k < todo.size(); ++k) todo[k] = k;
  Progress progress(opt, primes.size());
  residue_pass<Scratch>(primes, todo, values, work_per_prime, scratch_bytes, memory_limit, opt, progress, residue_mod,
                        residues);
  todo.clear();
  for (std::size_t k = 0; k < primes.size(); ++k)
    if (residues[k] == kNoResidue) todo.push_back(k);
  if (!todo.empty()) {
    if (!retry.residue) throw RefusedError(retry.refusal);
    residue_pass<std::vector<double>>(primes, todo, values, retry.work_per_prime, retry.scratch_bytes, memory_limit,
                                      opt, progress, retry.residue, residues);
  }
  if (opt.progress) opt.progress(1.0);
  return crt_symmetric(residues, primes);
}

}  // namespace matchcount::engines::planar
