// Exact uniform samplers of domino tilings of two lattice regions: the Aztec diamond by domino
// shuffling (aztec_diamond.cpp) and the rectangle by the generalised Temperley bijection with
// Wilson's algorithm (rectangle_tiling.cpp). The random bits come from lattice_random.hpp, so
// that a seed gives the same tiling with every compiler and standard library.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace matchcount::engines {

/// A cell of the square lattice, row r (down) and column c (right), 0-based.
struct LatticeCell {
  int r = 0, c = 0;
  friend bool operator==(const LatticeCell&, const LatticeCell&) = default;
};
using Domino = std::pair<LatticeCell, LatticeCell>;
/// Called now and then; returning true stops the sampler, which then throws
/// matchcount::Interrupted(2, "sampling stopped") (matchcount/checkpoint.hpp).
using StopCheck = std::function<bool()>;

/// The Aztec diamond of order n in these coordinates: rows 0..2n-1; row r < n holds the cells with
/// columns n-1-r .. n+r; row r >= n is row 2n-1-r mirrored (same column range). 2n(n+1) cells.
bool in_aztec_diamond(int order, LatticeCell cell);

/// A uniform random domino tiling of the Aztec diamond of order n >= 1 by domino shuffling
/// (Elkies-Kuperberg-Larsen-Propp; Propp's "creation, annihilation, sliding"), exact: every
/// tiling has probability exactly 2^{-n(n+1)/2}. O(n^3) time, O(n^2) memory. Each domino is
/// (left, right) or (top, bottom); dominoes in row-major order of their first cell.
/// std::invalid_argument when order < 1 or order > 2^20.
std::vector<Domino> aztec_diamond_tiling(int order, std::uint64_t seed, const StopCheck& stop = {});

/// A uniform random domino tiling of the rows x cols rectangle (rows*cols even, both >= 1) by the
/// generalised Temperley bijection and Wilson's algorithm. Each domino is (left, right) or
/// (top, bottom). std::invalid_argument when a side is < 1 or over 2^30, or rows*cols is odd or
/// over 2^32.
std::vector<Domino> rectangle_tiling(int rows, int cols, std::uint64_t seed, const StopCheck& stop = {});

}  // namespace matchcount::engines
