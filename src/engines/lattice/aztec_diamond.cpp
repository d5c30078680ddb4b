// The Aztec diamond: membership and a uniform random tiling by domino shuffling (Elkies,
// Kuperberg, Larsen and Propp, "Alternating-sign matrices and domino tilings", 1992; Propp,
// "Generalized domino-shuffling", 2003).
//
// The tiling of order k + 1 is made from one of order k in two passes over grids of cells in the
// order-n frame, in which the order-k diamond is the centred one (rows n-k .. n+k-1).
// A domino's type is its direction of travel, read off the checkerboard colour
// (r + c + k) mod 2 of its first cell (left cell of a horizontal, top cell of a vertical): at
// order k a horizontal domino of colour 1 is northbound and of colour 0 southbound, a vertical
// one of colour 1 westbound and of colour 0 eastbound. (Order 1 fixes the convention: the top
// domino of the two horizontal ones moves north when the diamond grows.) Sliding one unit
// changes both r + c and k by one, so a domino keeps its type from step to step.
//  1. Annihilation: a southbound domino directly above a northbound one, or an eastbound one
//     directly left of a westbound one, would collide; both are removed.
//  2. Sliding: every other domino moves one cell in its direction. Passes 1 and 2 are one pass
//     (slide) that computes each cell of the order-(k+1) grid from the order-k one.
//  3. Creation: what is left empty in the order-(k+1) diamond is a disjoint union of 2 x 2
//     blocks, each of which gets two horizontal or two vertical dominoes by a fair coin. Row by
//     row, once the blocks met in the row above are filled, an empty cell of colour 1 is the
//     top-left corner of its block (create_run).
// Both passes are written as loops of fixed length over bytes without branches, which compilers
// vectorise (times: docs/benchmarks.md, "Which matchings: lattices").
// With fair coins the result is exactly uniform when the input is (EKLP, section 5): every
// tiling of order n comes out with probability 2^{-n(n+1)/2}. A step costs O(k^2), so order n
// costs O(n^3) time; the two grids cost about 2 (2n)^2 bytes.
#include <cstring>
#include <stdexcept>
#include <string>

#include "engines/lattice/lattice_random.hpp"
#include "engines/lattice/lattice_samplers.hpp"
#include "matchcount/checkpoint.hpp"

namespace matchcount::engines {
namespace {

// What a grid cell holds: nothing, or which half of which kind of domino.
enum : std::uint8_t { kEmpty = 0, kLeft = 1, kRight = 2, kTop = 3, kBottom = 4 };

// Order limit: (2n)^2 bytes per grid must stay addressable and the coordinates ints.
constexpr int kMaxOrder = 1 << 20;

// The slide works on runs of kRun cells whose first is at a storage column that is a multiple of
// kRun: a loop of a fixed count, which compilers turn into vector code even at -O2, with no
// remainder loop. Margins keep the runs and their neighbours in the array: kLead columns before
// column 0, kTrail after column 2n - 1, two rows above and below.
constexpr int kRun = 32, kLead = kRun, kTrail = 2 * kRun;

/// The (2n) x (2n) grid of the order-n frame, with margins of empty cells.
class Grid {
 public:
  explicit Grid(int n)
      : width_(2 * static_cast<std::size_t>(n) + kLead + kTrail), cells_(width_ * (2 * static_cast<std::size_t>(n) + 4), kEmpty) {}
  /// Row r (-2 .. 2n+1), indexed by column (-kLead .. 2n-1+kTrail).
  std::uint8_t* row(int r) { return cells_.data() + static_cast<std::size_t>(r + 2) * width_ + kLead; }
  std::size_t width() const { return width_; }

 private:
  std::size_t width_;
  std::vector<std::uint8_t> cells_;
};

/// Columns first .. last of row r of the order-k diamond centred in the order-n frame.
struct Span {
  int first, last;
};
Span diamond_span(int n, int k, int r) {
  const int i = r - (n - k);                // the row within the order-k diamond
  const int j = i < k ? i : 2 * k - 1 - i;  // its distance from the nearer tip
  return {n - 1 - j, n + j};
}

/// 1 at the cells of colour 0 of a run whose first cell has colour 0 (kEven) or 1 (kEven + 1).
constexpr std::uint8_t kEven[kRun + 1] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1,
                                          0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};

/// kRun cells of row r of the order-(k+1) grid from rows r-1, r, r+1 of the order-k one (up, mid,
/// down, all at the run's first column). Each cell is pulled rather than each domino pushed:
/// every case is a select, not a branch, and a run becomes vector code. With P the colour
/// (r + c + k) mod 2, the cell (r, c) can only receive
///   P = 0: the left half of a northbound domino from (r+1, c), the right half of a southbound
///          one from (r-1, c-1), the top of a westbound one from (r, c+1), the bottom of an
///          eastbound one from (r-1, c-1);
///   P = 1: the left half of a southbound one from (r-1, c), the right half of a northbound one
///          from (r+1, c-1), the top of an eastbound one from (r, c-1), the bottom of a
///          westbound one from (r-1, c+1);
/// each unless annihilated, which is when the cell the mover heads into holds the first cell of
/// a parallel domino (of the opposite type, by its colour). At most one case holds: sliding
/// never collides.
void slide_run(const std::uint8_t* __restrict up, const std::uint8_t* __restrict mid, const std::uint8_t* __restrict down,
               std::uint8_t* __restrict out, int colour) {
  // Bytes, bitwise operators and a table for the colour only: a && or ?: would be a branch, and
  // wider types or a computed parity keep GCC's vectoriser off the loop.
  const std::uint8_t* even = kEven + colour;
  for (int i = 0; i < kRun; ++i) {
    const std::uint8_t e = even[i], o = e ^ 1;
    const std::uint8_t m = mid[i], u = up[i];
    const std::uint8_t left = ((e & (down[i] == kLeft)) | (o & (u == kLeft))) & (m != kLeft);
    const std::uint8_t right = ((e & (up[i - 1] == kLeft)) | (o & (down[i - 1] == kLeft))) & (mid[i - 1] != kLeft);
    const std::uint8_t top = ((e & (mid[i + 1] == kTop)) | (o & (mid[i - 1] == kTop))) & (m != kTop);
    const std::uint8_t bottom = ((e & (up[i - 1] == kTop)) | (o & (up[i + 1] == kTop))) & (u != kTop);
    out[i] = static_cast<std::uint8_t>(left * kLeft + right * kRight + top * kTop + bottom * kBottom);
  }
}

/// Annihilation and sliding: every cell of the order-(k+1) diamond in `to` from the order-k
/// tiling in `from`, holes left empty. Cells of `to` outside the diamond stay or become empty:
/// the runs past its edges only ever write kEmpty, and `to` last held a smaller diamond.
void slide(Grid& from, Grid& to, int n, int k) {
  for (int r = n - k - 1; r <= n + k; ++r) {
    const Span s = diamond_span(n, k + 1, r);
    // The first run starts at the multiple of kRun in storage at or before the span.
    for (int c = ((s.first + kLead) / kRun) * kRun - kLead; c <= s.last; c += kRun) {
      slide_run(from.row(r - 1) + c, from.row(r) + c, from.row(r + 1) + c, to.row(r) + c, (r + c + k) & 1);
    }
  }
}

/// 0, 1, .., kRun - 1: the positions in a run as bytes, for byte-wide comparisons.
constexpr std::uint8_t kIndex[kRun] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                       16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/// Creation in the run at `row` (row r) of positions lo .. hi, which lie in the diamond, with
/// `next` the run below and `colour` that of the run's first cell. Once the holes of row r - 1
/// have filled their lower halves, the empty cells of row r come in pairs, the top halves of its
/// holes, each pair a cell of colour 1 (top-left, as the creation at order 1 shows) and the one
/// to its right. So every cell finds its role without a scan: empty of colour 1 starts a block,
/// which is horizontal when the low bit of coin[i] is 1; empty of colour 0 ends the block of
/// coin[i - 1].
void create_run(std::uint8_t* __restrict row, std::uint8_t* __restrict next, const std::uint8_t* __restrict coin, int colour,
                std::uint8_t lo, std::uint8_t hi) {
  const std::uint8_t* starts = kEven + (colour ^ 1);  // 1 at the cells of colour 1
  for (int i = 0; i < kRun; ++i) {
    const std::uint8_t empty = (row[i] == kEmpty) & (kIndex[i] >= lo) & (kIndex[i] <= hi);
    const std::uint8_t start = starts[i];
    const std::uint8_t horizontal = ((start & coin[i]) | ((start ^ 1) & coin[i - 1])) & 1;
    const std::uint8_t side = static_cast<std::uint8_t>(kRight - start);  // kLeft or kRight
    const auto fill = static_cast<std::uint8_t>(-empty), across = static_cast<std::uint8_t>(-horizontal);
    row[i] = static_cast<std::uint8_t>(row[i] | (fill & ((across & side) | (~across & kTop))));
    next[i] = static_cast<std::uint8_t>(next[i] | (fill & ((across & side) | (~across & kBottom))));
  }
}

/// Creation: fills the empty 2 x 2 blocks of the order-k diamond in `grid` by fair coins. Every
/// cell gets a random byte, whether it starts a hole or not: the holes get independent fair
/// coins (the bytes' low bits), as they must, and the runs need no branch. The bytes of a row
/// are drawn before its runs, 8 at a time; a run's loads of them then do not wait on the
/// stores that wrote them, as they would if drawn run by run.
void create(Grid& grid, std::vector<std::uint8_t>& coins, int n, int k, lattice::Random& random) {
  std::uint8_t* coin = coins.data() + kLead;  // indexed by column, as a grid row
  for (int r = n - k; r < n + k; ++r) {
    const Span s = diamond_span(n, k, r);
    const int first = ((s.first + kLead) / kRun) * kRun - kLead;  // the first run's first column
    lattice::Random local = random;  // a copy the byte stores cannot alias: its state stays in registers
    for (int c = first - 8; c <= s.last; c += 8) {
      const std::uint64_t word = local.next();
      std::memcpy(coin + c, &word, sizeof word);
    }
    random = local;
    for (int c = first; c <= s.last; c += kRun) {
      const auto lo = static_cast<std::uint8_t>(s.first > c ? s.first - c : 0);
      const auto hi = static_cast<std::uint8_t>(s.last - c < kRun - 1 ? s.last - c : kRun - 1);
      create_run(grid.row(r) + c, grid.row(r + 1) + c, coin + c, (r + c + k) & 1, lo, hi);
    }
  }
}

/// Throws std::logic_error unless the cells of `grid` tile the order-k diamond: each holds a half
/// whose other half is in its place, inside the diamond. Cheap next to a step of the shuffle, so
/// it runs on the result always, and after every step in debug builds.
void check_tiling(Grid& grid, int n, int k) {
  for (int r = n - k; r < n + k; ++r) {
    const Span s = diamond_span(n, k, r);
    const Span above = r > n - k ? diamond_span(n, k, r - 1) : Span{0, -1};
    const Span below = r + 1 < n + k ? diamond_span(n, k, r + 1) : Span{0, -1};
    const std::uint8_t* row = grid.row(r);
    for (int c = s.first; c <= s.last; ++c) {
      const std::uint8_t v = row[c];
      const bool ok = (v == kLeft && c < s.last && row[c + 1] == kRight) || (v == kRight && c > s.first && row[c - 1] == kLeft) ||
                      (v == kTop && c >= below.first && c <= below.last && grid.row(r + 1)[c] == kBottom) ||
                      (v == kBottom && c >= above.first && c <= above.last && grid.row(r - 1)[c] == kTop);
      if (!ok) {
        throw std::logic_error("aztec_diamond_tiling: not a tiling at order " + std::to_string(k) + ", cell (" + std::to_string(r) +
                               ", " + std::to_string(c) + ")");
      }
    }
  }
}

}  // namespace

bool in_aztec_diamond(int order, LatticeCell cell) {
  const long long n = order, r = cell.r, c = cell.c;  // 2n would overflow an int for a huge order
  if (n < 1 || r < 0 || r >= 2 * n) return false;
  const long long j = r < n ? r : 2 * n - 1 - r;
  return c >= n - 1 - j && c <= n + j;
}

std::vector<Domino> aztec_diamond_tiling(int order, std::uint64_t seed, const StopCheck& stop) {
  if (order < 1 || order > kMaxOrder) {
    throw std::invalid_argument("aztec_diamond_tiling: the order must be 1 .. " + std::to_string(kMaxOrder) + ", not " +
                                std::to_string(order));
  }
  const int n = order;
  lattice::Random random(seed);
  Grid a(n), b(n);
  std::vector<std::uint8_t> coins(a.width());
  Grid* current = &a;
  Grid* spare = &b;
  create(*current, coins, n, 1, random);
  for (int k = 1; k < n; ++k) {
    if (stop && stop()) throw Interrupted(2, "sampling stopped");
    slide(*current, *spare, n, k);
    std::swap(current, spare);
    create(*current, coins, n, k + 1, random);
#ifndef NDEBUG
    check_tiling(*current, n, k + 1);
#endif
  }
  if (stop && stop()) throw Interrupted(2, "sampling stopped");
  check_tiling(*current, n, n);

  std::vector<Domino> tiling;
  tiling.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n + 1));
  for (int r = 0; r < 2 * n; ++r) {
    const Span s = diamond_span(n, n, r);
    const std::uint8_t* row = current->row(r);
    for (int c = s.first; c <= s.last; ++c) {
      if (row[c] == kLeft) tiling.push_back({{r, c}, {r, c + 1}});
      if (row[c] == kTop) tiling.push_back({{r, c}, {r + 1, c}});
    }
  }
  return tiling;
}

}  // namespace matchcount::engines
