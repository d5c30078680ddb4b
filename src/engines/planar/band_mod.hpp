// The modular side that the planar engines share (kasteleyn: det K' mod p by banded LU;
// pfaffian: Pf K' mod p by banded skew-symmetric elimination): the FP64 FMA row update on
// entries kept as exact integers in [-p, p], and the run of one elimination per prime below
// 2^50, primes in parallel, combined by CRT. The eliminations themselves stay with each
// engine.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engines/common.hpp"

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

/// The integer x, |x| <= bound, from x mod p for each prime p that choose_primes(bound)
/// picks: `residue_mod(cell, p, scratch)` gives x mod p in [0, p) from the matrix entries
/// `values` reduced into [0, p) (`cell`, in the order of `values`). Primes run in parallel,
/// each thread with its own `Scratch` (reused over its primes); threads are limited by the
/// work (`work_per_prime` basic steps a prime) and by `memory_limit` for `scratch_bytes` each.
/// Reports progress per prime, then 1.
template <class Scratch, class ResidueMod>
Integer integer_from_residues(const Integer& bound, const std::vector<Integer>& values, double work_per_prime,
                              double scratch_bytes, double memory_limit, const EngineOptions& opt,
                              ResidueMod residue_mod) {
  std::vector<std::uint64_t> primes;
  for (double p : choose_primes(bound)) primes.push_back(std::uint64_t(p));
  // Small entries are exact doubles, reduced per prime by one FMA; others go through GMP.
  bool small = true;
  for (const Integer& v : values) small = small && abs(v) < (Integer(1) << 50);
  int threads = std::min<int>(thread_count(opt, work_per_prime * double(primes.size())), int(primes.size()));
  threads = std::max(1, std::min(threads, int(memory_limit / scratch_bytes)));
  std::vector<std::uint64_t> residues(primes.size());
  Progress progress(opt, primes.size());
#pragma omp parallel num_threads(threads)
  {
    Scratch scratch;
    std::vector<double> cell(values.size());
#pragma omp for schedule(dynamic, 1)
    for (std::size_t k = 0; k < primes.size(); ++k) {
      const double p = double(primes[k]), pinv = 1.0 / p;
      for (std::size_t e = 0; e < cell.size(); ++e)
        cell[e] = small ? arith::modreduce(values[e].get_d(), p, pinv) : arith::modreduce(residue_of(values[e], p), p, pinv);
      residues[k] = residue_mod(cell, p, scratch);
      progress.tick();
    }
  }
  if (opt.progress) opt.progress(1.0);
  return crt_symmetric(residues, primes);
}

}  // namespace matchcount::engines::planar
