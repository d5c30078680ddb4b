// The expanded problem of a repeated-row hafnian (private to the hafnian engines): which mode
// sits at each position of the recursion, the entries and loop weights there, the float lanes'
// variants, the exact bound and the walk's work. The CPU walk (hafnian_repeated.cpp) and the
// GPU walk (gpu_hafnian_repeated.cpp) build their roots from it, so both walk the same tree.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engines/hafnian/hafnian_repeated.hpp"

namespace matchcount::engines::haf {

/// The modes of the positions of the recursion (positions 2l + 1 and 2l are eliminated at level
/// m - 1 - l) and the chain of pair types over the levels.
struct RptLayout {
  PairTypes types;
  std::vector<int> mode;  // mode of each position (n: the loop's extra vertex)
  int vertices = 0;
};
RptLayout layout_of(const std::vector<std::uint64_t>& rpt, bool loops);

/// Exact: |haf| <= prod_i (|mu_i| + sqrt(R_i))^rpt_i, R_i the off-diagonal row sum of |A| over
/// the copies (resume.cpp's log_bound on the expanded matrix), rounded up.
Integer bound_of(const RepeatedHafnian<Integer>& in);

/// The walk's work in vector multiply-adds: each include at a level of s vertices updates
/// tri(s) polynomials by truncated products (about m^2 / 2 each), once per node above it; plus
/// m a leaf.
double rpt_walk_work(const PairTypes& types, double vertices);

/// Entry of the root between modes p and q; the extra vertex has no edge.
template <class T>
T rpt_entry(const RepeatedHafnian<T>& in, int p, int q) {
  if (p >= in.n || q >= in.n) return T(0);
  return in.a[static_cast<std::size_t>(p) * static_cast<std::size_t>(in.n) + static_cast<std::size_t>(q)];
}
/// Loop weight of mode p (the extra vertex: 1).
template <class T>
T rpt_loop_weight(const RepeatedHafnian<T>& in, int p) {
  return p >= in.n ? T(1) : in.mu[static_cast<std::size_t>(p)];
}

/// Float lanes: lanes 0-2 walk the pattern with the modes scaled by d_i (haf(D A D) = prod
/// d_i^rpt_i haf A, undone by rpt_lane_factor) and, in lanes 1 and 2, each pair's two copies
/// swapped: their roundings differ, and their spread is the error estimate. Lane 3 walks |A|
/// and |mu| for what the entries' own errors move.
inline double rpt_lane_scale(int lane, int mode) {
  return lane == 0 || lane == 3 ? 1.0 : 1.0 + ((mode * 5 + lane * 3) % 7 - 3) / 32.0;
}

/// Lane `lane`'s entry at positions (i, j) of the recursion, the loop weight where i == j.
template <class T>
T rpt_lane_entry(const RepeatedHafnian<T>& in, const RptLayout& L, int lane, int i, int j) {
  const auto mode_at = [&](int p) { return L.mode[static_cast<std::size_t>((lane == 1 || lane == 2) ? (p ^ 1) : p)]; };
  const auto scale = [&](int mode) { return mode < in.n ? rpt_lane_scale(lane, mode) : 1.0; };
  const int mi = mode_at(i), mj = mode_at(j);
  const T x = i == j ? rpt_loop_weight(in, mi) : rpt_entry(in, mi, mj);
  if (lane == 3) return T(std::abs(x));
  return i == j ? x * scale(mi) : x * scale(mi) * scale(mj);
}

/// prod_i d_i^rpt_i of a lane, by which its walk is divided.
template <class T>
double rpt_lane_factor(const RepeatedHafnian<T>& in, int lane) {
  long double f = 1;
  for (int i = 0; i < in.n; ++i)
    f *= std::pow(static_cast<long double>(rpt_lane_scale(lane, i)), in.rpt[static_cast<std::size_t>(i)]);
  return static_cast<double>(f);
}

/// Every entry and loop weight stands for a decimal within u of itself; a matching's product of
/// at most N of them moves by at most (1 + u)^N - 1 of itself.
inline double rpt_excess(const RptLayout& L) { return std::expm1(L.vertices * std::log1p(0x1p-53)) * (1 + 1e-9); }

}  // namespace matchcount::engines::haf
