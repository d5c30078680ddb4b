// Modular arithmetic of the frontier DPs (bipartite frontier and graph frontier) on 64-bit
// words, private to src/engines: Shoup products by the residues of the entry values, fixed
// before the DP, Barrett reduction of sums, and the tables of those residues.
//
// The primes are below 2^50 (choose_primes), so a residue times 2^64 / p fits the quotients
// below and a few thousand unreduced terms below 2p fit a 64-bit sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// floor(w * 2^64 / p) for a residue w < p: Shoup's quotient, with which x * w mod p takes
/// two 64-bit products and no division.
inline std::uint64_t shoup_quotient(std::uint64_t w, std::uint64_t p) {
  __extension__ typedef unsigned __int128 u128;
  return std::uint64_t((u128(w) << 64) / p);
}

/// x * w mod p up to one p (in [0, 2p)) for any 64-bit x, with wq = shoup_quotient(w, p):
/// the quotient's estimate is short by at most one.
inline std::uint64_t shoup_mul_lazy(std::uint64_t x, std::uint64_t w, std::uint64_t wq, std::uint64_t p) {
  __extension__ typedef unsigned __int128 u128;
  const auto q = std::uint64_t((u128(x) * wq) >> 64);
  return x * w - q * p;
}

/// r mod p for r in [0, 2p).
inline std::uint64_t reduce_once(std::uint64_t r, std::uint64_t p) { return r >= p ? r - p : r; }

/// x * w mod p in [0, p) (shoup_mul_lazy reduced once).
inline std::uint64_t shoup_mul(std::uint64_t x, std::uint64_t w, std::uint64_t wq, std::uint64_t p) {
  return reduce_once(shoup_mul_lazy(x, w, wq, p), p);
}

/// (a + b) mod p for a, b in [0, p).
inline std::uint64_t add_mod(std::uint64_t a, std::uint64_t b, std::uint64_t p) { return reduce_once(a + b, p); }

/// floor(2^64 / p), the factor of barrett_reduce.
inline std::uint64_t barrett_factor(std::uint64_t p) {
  __extension__ typedef unsigned __int128 u128;
  return std::uint64_t((u128(1) << 64) / p);
}

/// x mod p for any 64-bit x, with factor = barrett_factor(p): the quotient's estimate
/// floor(x * factor / 2^64) is short by at most one (x < 2^64), so one subtraction finishes.
inline std::uint64_t barrett_reduce(std::uint64_t x, std::uint64_t p, std::uint64_t factor) {
  __extension__ typedef unsigned __int128 u128;
  const auto q = std::uint64_t((u128(x) * factor) >> 64);
  return reduce_once(x - q * p, p);
}

/// The distinct values of a matrix's entries: the DPs keep one residue table per value, not
/// per entry, as blocks of a few values (0-1 blocks with weights, small integers) are common.
struct DistinctValues {
  std::vector<Integer> values;            // in order of first appearance
  std::vector<std::uint32_t> index_of;    // entry index -> index into values
};

inline DistinctValues distinct_values(const SparseMatrix<Integer>& a) {
  DistinctValues d;
  std::map<Integer, std::uint32_t> index;
  for (const auto& e : a.entries) {
    auto it = index.try_emplace(e.value, std::uint32_t(d.values.size())).first;
    if (it->second == d.values.size()) d.values.push_back(e.value);
    d.index_of.push_back(it->second);
  }
  return d;
}

/// Per distinct value and prime (value-major: the primes of one value side by side, as a
/// state's words are): the value's residue and its Shoup quotient.
struct ShoupTable {
  std::vector<std::uint64_t> residue, quotient;

  ShoupTable() = default;
  template <class Primes>
  ShoupTable(const std::vector<Integer>& values, const Primes& primes) {
    for (const auto& v : values)
      for (std::uint64_t p : primes) {
        const std::uint64_t r = mpz_fdiv_ui(v.get_mpz_t(), p);
        residue.push_back(r), quotient.push_back(shoup_quotient(r, p));
      }
  }
};

}  // namespace matchcount::engines
