// The work units of the CPU hafnian walks (private to the hafnian engines), shared by the plain
// walk (hafnian.cpp) and the repeated-pair walk (hafnian_repeated.cpp): the exact walks' passes
// of four primes and their CRT, and the float walks' double-double lane sums, both through
// runtime::run_units (threads, checkpoints, MPI).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/arith.hpp"
#include "engines/common.hpp"
#include "engines/hafnian/haf_walk.hpp"
#include "runtime/thread_walk.hpp"

namespace matchcount::engines::haf {

/// The lanes of the exact walks: four primes a pass. A pass short of primes repeats its last
/// one; the repeats are ignored at the end.
inline std::vector<ModArith> prime_passes(const std::vector<double>& primes) {
  std::vector<ModArith> out;
  for (std::size_t q = 0; q < (primes.size() + 3) / 4; ++q) {
    v4d p{}, pinv{};
    for (int l = 0; l < 4; ++l) {
      p[l] = primes[std::min(4 * q + static_cast<std::size_t>(l), primes.size() - 1)];
      pinv[l] = 1.0 / p[l];
    }
    out.push_back({p, pinv});
  }
  return out;
}

/// x in the lanes of `ar` as symmetric residues (the walk's inputs).
inline v4d residues(const Integer& x, const ModArith& ar) {
  v4d r{};
  for (int l = 0; l < 4; ++l) {
    const double v = residue_of(x, ar.p[l]);
    r[l] = v > ar.p[l] / 2 ? v - ar.p[l] : v;
  }
  return r;
}

/// The exact walks' units: unit b is unit b % per_pass of pass b / per_pass, whose walk make(q)
/// makes; the value by CRT over `primes`.
template <class Make>
Integer exact_units(const std::vector<double>& primes, const std::vector<ModArith>& ariths, std::uint64_t per_pass,
                    int threads, const EngineOptions& opt, const std::string& tag, Make make) {
  const std::size_t passes = ariths.size();
  struct State {
    std::size_t pass = ~std::size_t{0};
    std::unique_ptr<WalkBase<ModArith>> walk;
  };
  const std::vector<double> zero(4 * passes, 0.0);
  auto walk_unit = [&](State& st, std::uint64_t b) {
    const std::size_t q = static_cast<std::size_t>(b / per_pass);
    if (st.pass != q) st.walk = make(q), st.pass = q;
    const v4d s = st.walk->run(b % per_pass).s;
    std::vector<double> out = zero;
    for (int l = 0; l < 4; ++l) out[4 * q + static_cast<std::size_t>(l)] = s[l];
    return out;
  };
  auto combine = [&](std::vector<double>& total, const std::vector<double>& s) {
    if (total.empty()) total = zero;
    for (std::size_t i = 0; i < total.size(); ++i) {
      const double p = ariths[i / 4].p[i % 4];
      total[i] = arith::modreduce(total[i] + s[i], p, 1.0 / p);
    }
  };
  const std::vector<double> sums = runtime::run_units<std::vector<double>>(
      per_pass * passes, threads, opt, tag, zero, [] { return State{}; }, walk_unit, combine);
  std::vector<std::uint64_t> residue, ps;
  for (std::size_t k = 0; k < primes.size(); ++k) {
    const auto p = static_cast<std::uint64_t>(primes[k]);
    const double x = arith::modreduce(k < sums.size() ? sums[k] : 0.0, primes[k], 1.0 / primes[k]);
    residue.push_back(to_residue(x, p));
    ps.push_back(p);
  }
  return crt_symmetric(residue, ps);
}

/// The float walks' units: `units` units of walks make() makes; each lane's sum a double-double
/// (per part for complex lanes), combined in unit order. Returns each lane's value.
template <class Ar, class Make>
auto float_units(std::uint64_t units, int threads, const EngineOptions& opt, const std::string& tag, Make make) {
  constexpr bool cplx = std::is_same_v<Ar, ComplexArith>;
  constexpr std::size_t words = cplx ? 16 : 8;
  const std::vector<double> zero(words, 0.0);
  auto walk_unit = [](std::unique_ptr<WalkBase<Ar>>& w, std::uint64_t b) {
    const auto acc = w->run(b);
    std::vector<double> out;
    for (int l = 0; l < 4; ++l) {
      if constexpr (cplx) out.insert(out.end(), {acc.re_hi[l], acc.re_lo[l], acc.im_hi[l], acc.im_lo[l]});
      else out.insert(out.end(), {acc.hi[l], acc.lo[l]});
    }
    return out;
  };
  auto combine = [&](std::vector<double>& total, const std::vector<double>& s) {
    if (total.empty()) total = zero;
    for (std::size_t k = 0; k + 1 < words; k += 2) {
      DDSum v{total[k], total[k + 1], 0, 0};
      v.add(s[k]), v.add(s[k + 1]);
      total[k] = v.hi, total[k + 1] = v.lo;
    }
  };
  const std::vector<double> s =
      runtime::run_units<std::vector<double>>(units, threads, opt, tag, zero, make, walk_unit, combine);
  std::vector<std::conditional_t<cplx, Complex, double>> lanes;
  for (std::size_t l = 0; l < 4; ++l) {
    if constexpr (cplx) lanes.emplace_back(s[4 * l] + s[4 * l + 1], s[4 * l + 2] + s[4 * l + 3]);
    else lanes.push_back(s[2 * l] + s[2 * l + 1]);
  }
  return lanes;
}

}  // namespace matchcount::engines::haf
