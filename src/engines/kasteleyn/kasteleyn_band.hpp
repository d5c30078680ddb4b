// What the Kasteleyn engine's files share (private to src/engines/kasteleyn): the block signed
// and in banded order, the banded determinant modulo a prime, and the exact count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/planar/dissection.hpp"
#include "matchcount/matching.hpp"

namespace matchcount::engines {

/// The block signed and reordered: perm(A) = sign * det(K'), K' banded (kasteleyn.hpp).
struct SignedBlock {
  int n = 0, kl = 0, ku = 0;
  int sign = 1;
  std::vector<int> row, col;          // per entry of A: its position in K'
  std::vector<signed char> s;         // per entry of A: its Kasteleyn sign
  int stride() const { return 2 * kl + ku + 4; }  // band 2kl+ku+1, 3 for vector overrun
};

/// The signed block in the band order `o`, with the signs `s` (kasteleyn_signing) and its
/// global sign from the perfect matching `m`.
SignedBlock signed_block(const PatternRC& pattern, int n, const BandOrder& o, std::vector<signed char> s,
                         const Matching& m);

/// Refuses (RefusedError, or BudgetError where the budget `max_bytes` was the limit) when
/// `bytes` of working memory exceed the engine's limit or the budget; `what` names the method.
void check_memory(const std::string& what, double bytes, double max_bytes);
/// "banded elimination of this n x n block (bandwidths kl and ku)", for refusals.
std::string band_text(int n, const BandOrder& o);

/// The nested-dissection plan of K with the perfect matching `m` on its diagonal: entry k =
/// (r, c) of the pattern at (r, the row matched to c).
planar::Dissection matching_dissection(const PatternRC& pattern, int n, const Matching& m);
/// Whether exact counts take nested dissection (`nested_updates` multiply-adds a prime, a
/// Dissection's updates) over a band of `band_work` updates a prime:
/// MATCHCOUNT_KASTELEYN_METHOD's choice, else the one of fewer multiply-adds.
bool take_nested(double nested_updates, double band_work);

/// det K' mod p in [0, p) by banded elimination (kasteleyn_mod.cpp); `buf` is the caller's
/// scratch (n * stride doubles).
std::uint64_t det_mod(const SignedBlock& b, const std::vector<double>& cell, double p, std::vector<double>& buf);

/// The exact permanent of a planar block with the perfect matching `m` (kasteleyn_mod.cpp).
Integer exact_permanent(const SparseMatrix<Integer>& a, const Matching& m, const EngineOptions& opt);

}  // namespace matchcount::engines
