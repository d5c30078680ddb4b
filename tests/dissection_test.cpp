// Determinants modulo primes in nested-dissection order (src/engines/planar/dissection.hpp)
// against dense elimination, on random sparse matrices of every structure (planar or not,
// disconnected, zero diagonals that force exchanges), and the second pass that counts the
// primes where the first way failed (band_mod.hpp).
#include <gtest/gtest.h>

#include <random>

#include "engines/planar/band_mod.hpp"
#include "engines/planar/dissection.hpp"

namespace matchcount {
namespace {

using u128 = unsigned __int128;
namespace planar = engines::planar;


/// det mod p of a dense matrix of residues by Gaussian elimination.
std::uint64_t dense_det(std::vector<std::vector<std::uint64_t>> a, std::uint64_t p) {
  const std::size_t n = a.size();
  std::uint64_t det = 1;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t r = c;
    while (r < n && a[r][c] == 0) ++r;
    if (r == n) return 0;
    if (r != c) std::swap(a[r], a[c]), det = det == 0 ? 0 : p - det;
    det = std::uint64_t(u128(det) * a[c][c] % p);
    const std::uint64_t inv = inv_mod(a[c][c], p);
    for (std::size_t i = c + 1; i < n; ++i) {
      const std::uint64_t f = std::uint64_t(u128(a[i][c]) * inv % p);
      if (f == 0) continue;
      for (std::size_t j = c; j < n; ++j) a[i][j] = std::uint64_t((a[i][j] + u128(p - f) * a[c][j]) % p);
    }
  }
  return det;
}

/// A random n x n matrix on a sparse pattern with its diagonal: grid-like neighbours (each vertex to the next and to the one `width`
/// on), some random long edges, some zero diagonal values.
struct DissectionCase {
  std::vector<std::pair<int, int>> rc;
  std::vector<long> value;
};
DissectionCase random_case(std::mt19937_64& rng, int n, int width, int long_edges, bool zero_diagonal) {
  DissectionCase c;
  auto add = [&](int i, int j, long v) { c.rc.emplace_back(i, j), c.value.push_back(v); };
  // Values of 40 bits: a Schur complement's pivot is then 0 modulo p only by chance (small
  // integers cancel exactly, often).
  auto value = [&] { return long(rng() >> 24) - (1l << 39); };
  for (int i = 0; i < n; ++i) add(i, i, zero_diagonal && rng() % 3 == 0 ? 0 : value());
  for (int i = 0; i < n; ++i) {
    if (i + 1 < n && (i + 1) % width != 0 && rng() % 4) add(i, i + 1, value());
    if (i + width < n && rng() % 4) add(i + width, i, value());
    if (i + width < n && rng() % 3 == 0) add(i, i + width, value());
  }
  for (int e = 0; e < long_edges; ++e) add(int(rng() % std::uint64_t(n)), int(rng() % std::uint64_t(n)), 1 + long(rng() % 3));
  // Duplicates would be assembled once each; keep the first of every position.
  std::vector<std::pair<int, int>> seen;
  DissectionCase u;
  for (std::size_t k = 0; k < c.rc.size(); ++k) {
    if (std::find(seen.begin(), seen.end(), c.rc[k]) != seen.end()) continue;
    seen.push_back(c.rc[k]), u.rc.push_back(c.rc[k]), u.value.push_back(c.value[k]);
  }
  return u;
}

TEST(KasteleynDissection, DeterminantsAgainstDenseElimination) {
  std::mt19937_64 rng(5);
  const std::uint64_t p = top_primes(1)[0];
  const double pd = double(p), pinv = 1 / pd;
  planar::DissectionScratch scratch;
  int compared = 0, failed = 0, nonzero = 0;
  for (int it = 0; it < 120; ++it) {
    const int n = 1 + int(rng() % (it < 80 ? 60 : 300)), width = 1 + int(rng() % 20);
    const DissectionCase c = random_case(rng, n, width, it % 4 == 0 ? int(rng() % 8) : 0, it % 2 == 1);
    const planar::Dissection d = planar::dissect(n, c.rc);
    ASSERT_EQ(d.n, n);
    std::vector<std::vector<std::uint64_t>> dense(std::size_t(n), std::vector<std::uint64_t>(std::size_t(n), 0));
    std::vector<double> cell;
    for (std::size_t k = 0; k < c.rc.size(); ++k) {
      dense[std::size_t(c.rc[k].first)][std::size_t(c.rc[k].second)] = std::uint64_t((c.value[k] % long(p) + long(p)) % long(p));
      cell.push_back(arith::modreduce(double(c.value[k]), pd, pinv));
    }
    const std::uint64_t got = planar::det_mod_dissection(d, cell, pd, scratch);
    if (got == planar::kNoResidue) {  // only where zero diagonals make a node's own block singular
      EXPECT_EQ(it % 2, 1) << "trial " << it;
      ++failed;
      continue;
    }
    const std::uint64_t want = dense_det(dense, p);
    EXPECT_EQ(got, want) << "trial " << it << " n " << n << " width " << width;
    ++compared, nonzero += want != 0;
  }
  EXPECT_GE(compared, 60);
  EXPECT_GE(nonzero, 60);
  EXPECT_GT(failed, 0);  // the zero diagonals do make some fail
}

// The plan: every position once, children before parents, fronts within max_front, and the
// grid's separators keep the work far below the band's n * w^2.
TEST(KasteleynDissection, PlanShape) {
  const int w = 60, n = w * w;
  std::vector<std::pair<int, int>> rc;
  for (int i = 0; i < n; ++i) {
    rc.emplace_back(i, i);
    if ((i + 1) % w) rc.emplace_back(i, i + 1);
    if (i + w < n) rc.emplace_back(i + w, i);
  }
  const planar::Dissection d = planar::dissect(n, rc);
  std::vector<int> seen(std::size_t(n), 0);
  for (std::size_t t = 0; t < d.nodes.size(); ++t) {
    const auto& x = d.nodes[t];
    for (int q = x.begin; q < x.end; ++q) ++seen[std::size_t(q)];
    EXPECT_LE(x.front(), d.max_front);
    if (x.parent >= 0) EXPECT_GT(x.parent, int(t));
    else EXPECT_EQ(x.bnd_len, 0);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(d.entries.size(), rc.size());
  EXPECT_LT(d.updates, 0.3 * double(n) * w * w);
  EXPECT_LT(d.max_front, 4 * w);
}

// Primes where the first way gives kNoResidue are counted by the retry; without a retry the
// count is refused, never wrong.
TEST(KasteleynDissection, RetriedPrimes) {
  const std::vector<Integer> values = {Integer(3), Integer(-7)};
  const Integer x("-123456789012345678901234567890123456789");
  auto residue = [&](double p) {
    const Integer r = ((x % Integer(std::uint64_t(p))) + Integer(std::uint64_t(p))) % Integer(std::uint64_t(p));
    return std::uint64_t(r.get_ui());
  };
  int calls = 0;
  auto first = [&](const std::vector<double>&, double p, std::vector<double>&) {
    return (calls++) % 2 ? planar::kNoResidue : residue(p);
  };
  planar::ResidueRetry retry{1, 8, [&](const std::vector<double>& cell, double p, std::vector<double>&) {
                               EXPECT_EQ(cell.size(), 2u);
                               return residue(p);
                             }, {}};
  EngineOptions o;
  o.threads = 1;
  EXPECT_EQ(planar::integer_from_residues<std::vector<double>>(abs(x), values, 1, 8, 1e9, o, first, retry), x);
  calls = 0;
  EXPECT_THROW(planar::integer_from_residues<std::vector<double>>(abs(x), values, 1, 8, 1e9, o, first,
                                                                   planar::ResidueRetry{0, 8, nullptr, "no band"}),
               RefusedError);
}

}  // namespace
}  // namespace matchcount

namespace matchcount {
namespace {

/// Pf mod p of a dense skew matrix of residues by 2 x 2 pivots (exchanges negate).
std::uint64_t dense_pfaffian(std::vector<std::vector<std::uint64_t>> a, std::uint64_t p) {
  const std::size_t n = a.size();
  auto exchange = [&](std::size_t i, std::size_t j) {
    std::swap(a[i], a[j]);
    for (auto& row : a) std::swap(row[i], row[j]);
  };
  std::uint64_t pf = 1;
  for (std::size_t k = 0; k + 1 < n; k += 2) {
    std::size_t j = k + 1;
    while (j < n && a[k][j] == 0) ++j;
    if (j == n) return 0;
    if (j != k + 1) exchange(j, k + 1), pf = pf == 0 ? 0 : p - pf;
    const std::uint64_t piv = a[k][k + 1], inv = inv_mod(piv, p);
    pf = std::uint64_t(u128(pf) * piv % p);
    for (std::size_t r = k + 2; r < n; ++r)
      for (std::size_t c = k + 2; c < n; ++c) {
        // a[r][c] -= (a[r][k+1] a[k][c] - a[r][k] a[k+1][c]) / a[k][k+1]
        const std::uint64_t t1 = std::uint64_t(u128(a[r][k + 1]) * a[k][c] % p);
        const std::uint64_t t2 = std::uint64_t(u128(a[r][k]) * a[k + 1][c] % p);
        const std::uint64_t d = std::uint64_t(u128((t1 + p - t2) % p) * inv % p);
        a[r][c] = (a[r][c] + p - d) % p;
      }
  }
  return pf;
}

/// Outcome of pfaffian_mod_dissection on random skew matrices against dense elimination.
struct SkewTally {
  int agreed = 0, failed = 0, nonzero = 0, large_nodes = 0;
};

/// `cases` skew matrices on random patterns holding a perfect matching (pairs kept together by
/// the plan): n = 2..2 max_half vertices, a band of width 2..max_width + 1, some long edges,
/// matched pairs of value 0 one in `zero_pair` (so that pivot pairs are exchanged, and nodes
/// may have none left). Pf in elimination order against dense elimination; large_nodes counts
/// the plans' nodes owning more than 8 pivots (more than one block of pairs).
SkewTally compare_skew_pfaffians(std::uint64_t seed, int cases, int max_half, int max_width, int zero_pair) {
  std::mt19937_64 rng(seed);
  const double p = 1125899906842597.0;  // a prime below 2^50
  const std::uint64_t P = std::uint64_t(p);
  SkewTally tally;
  for (int it = 0; it < cases; ++it) {
    const int n = 2 * (1 + int(rng() % std::uint64_t(max_half))), width = 2 + int(rng() % std::uint64_t(max_width));
    std::vector<int> label(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) label[std::size_t(i)] = i;
    std::shuffle(label.begin(), label.end(), rng);
    std::vector<int> mate(static_cast<std::size_t>(n));
    std::vector<std::pair<int, int>> rc;
    std::vector<long> value;
    auto add = [&](int i, int j, long v) {
      const int u = label[std::size_t(i)], w = label[std::size_t(j)];
      if (u == w || std::find(rc.begin(), rc.end(), std::make_pair(u, w)) != rc.end() ||
          std::find(rc.begin(), rc.end(), std::make_pair(w, u)) != rc.end())
        return;
      rc.emplace_back(u, w), value.push_back(v), rc.emplace_back(w, u), value.push_back(-v);
    };
    auto v = [&] { return rng() % 10 == 0 ? 0l : long(rng() % 7) - 3; };
    for (int i = 0; i < n; i += 2) {
      mate[std::size_t(label[std::size_t(i)])] = label[std::size_t(i + 1)];
      mate[std::size_t(label[std::size_t(i + 1)])] = label[std::size_t(i)];
      add(i, i + 1, rng() % std::uint64_t(zero_pair) == 0 ? 0 : 1 + long(rng() % 3));
    }
    for (int i = 0; i < n; ++i) {
      if (i + 1 < n && rng() % 2) add(i, i + 1, v());
      if (i + width < n && rng() % 3) add(i, i + width, v());
      if (rng() % 8 == 0) add(i, int(rng() % std::uint64_t(n)), v());
    }
    const planar::Dissection d = planar::dissect(n, rc, &mate);
    for (int i = 0; i < n; ++i) EXPECT_EQ(d.pos[std::size_t(mate[std::size_t(i)])] / 2, d.pos[std::size_t(i)] / 2);
    for (const planar::Dissection::Node& x : d.nodes) tally.large_nodes += x.end - x.begin > 8;
    std::vector<double> cell;
    std::vector<std::vector<std::uint64_t>> dense(std::size_t(n), std::vector<std::uint64_t>(std::size_t(n), 0));
    for (std::size_t k = 0; k < rc.size(); ++k) {
      cell.push_back(double(value[k]));
      dense[std::size_t(d.pos[std::size_t(rc[k].first)])][std::size_t(d.pos[std::size_t(rc[k].second)])] =
          std::uint64_t((value[k] % long(P) + long(P)) % long(P));
    }
    planar::DissectionScratch scratch;
    const std::uint64_t got = planar::pfaffian_mod_dissection(d, cell, p, scratch);
    const std::uint64_t want = dense_pfaffian(dense, P);
    if (got == planar::kNoResidue) {
      tally.failed += want != 0;  // often Pf = 0: these patterns' matchings cancel or are few
      continue;
    }
    EXPECT_EQ(got, want) << "case " << it << ", n = " << n;
    ++tally.agreed, tally.nonzero += want != 0;
  }
  return tally;
}

TEST(PfaffianDissection, PfaffiansAgainstDenseElimination) {
  const SkewTally t = compare_skew_pfaffians(31, 300, 40, 8, 12);
  EXPECT_GT(t.agreed, 80);
  EXPECT_GT(t.nonzero, 40);
  EXPECT_GT(t.failed, 0);  // nodes with no nonzero pair left: the caller counts those primes by the band
}

// Wide bands give separators of more than 8 own pivots, which the elimination takes 4 pairs a
// block; matched pairs of value 0 (one in 20) put zero pivots inside blocks, which end them
// (about a thousand blocks ended so, after 1 to 3 pairs, over this suite's two tests).
TEST(PfaffianDissection, BlocksOfPairsEndedByZeroPivots) {
  const SkewTally t = compare_skew_pfaffians(77, 60, 90, 24, 20);
  EXPECT_GT(t.large_nodes, 100);
  EXPECT_GT(t.agreed, 12);
  EXPECT_GT(t.nonzero, 10);
}

}  // namespace
}  // namespace matchcount
