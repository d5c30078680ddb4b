// A uniform random domino tiling of a rectangle by the generalised Temperley bijection (Temperley;
// Kenyon, Propp and Wilson, "Trees and matchings", 2000) and Wilson's algorithm (Wilson,
// "Generating random spanning trees more quickly than the cover time", 1996).
//
// The work is on an R x C rectangle with C even (the caller's rectangle, transposed when its
// column count is odd; then its row count is even). Cells (i, j) fall in four classes:
//   primal vertices (2a, 2b); dual vertices (2a+1, 2b+1);
//   horizontal edge cells (2a, 2b+1): the edge from primal (2a, 2b) to (2a, 2b+2), or to the
//     extra vertex "outside" when 2b+2 >= C;
//   vertical edge cells (2a+1, 2b): the edge from (2a, 2b) to (2a+2, 2b), or to outside when
//     2a+2 >= R.
// So the primal graph G is the grid of primal vertices with its right column (and, when R is
// even, its bottom row) joined to outside; the bottom-right vertex then has two parallel edges
// to outside. G is planar; its faces are the dual cells and one outer face, which touches the top
// and left sides (and the bottom, when R is odd). Tilings are in bijection with spanning trees of
// G: every primal vertex covers the edge cell towards its parent (the tree rooted at outside), and
// the unused edge cells form the dual spanning tree, rooted at the outer face, in which every
// dual cell covers the edge cell towards its parent. The cell counts agree: there are as many
// horizontal edge cells as primal vertices and as many vertical ones as dual vertices, and a
// tree uses one edge per primal vertex. Hence a uniform spanning tree (Wilson's loop-erased
// walks, which choose uniformly among a vertex's edges, parallel ones counted separately) gives
// a uniform tiling.
//
// Wilson's algorithm takes expected time sum_v G(v, v) (the Green function of the walk killed at
// outside), O(RC log(RC)) on these grids, whose right and bottom sides absorb; memory is a byte
// per cell and per primal vertex, besides the answer.
#include <stdexcept>
#include <string>

#include "engines/lattice/lattice_random.hpp"
#include "engines/lattice/lattice_samplers.hpp"
#include "matchcount/checkpoint.hpp"

namespace matchcount::engines {
namespace {

// A primal vertex's edges, by the direction of their edge cell.
enum Direction : std::uint8_t { kRightward = 0, kDownward = 1, kLeftward = 2, kUpward = 3 };
constexpr int kDr[4] = {0, 1, 0, -1};
constexpr int kDc[4] = {1, 0, -1, 0};

// How many walk steps pass between two calls of the stop check.
constexpr std::uint64_t kStopEvery = std::uint64_t(1) << 20;

/// The primal graph of an R x C rectangle, C even: vertex v = a * width + b is cell (2a, 2b).
struct Primal {
  int rows, cols;     // the rectangle
  int height, width;  // primal vertices per column and per row
  Primal(int r, int c) : rows(r), cols(c), height((r + 1) / 2), width(c / 2) {}
  int count() const { return height * width; }

  /// The edges of v, as directions, into `out`; returns how many (2, 3 or 4).
  int edges(int a, int b, Direction* out) const {
    int n = 0;
    out[n++] = kRightward;                         // to (a, b+1) or, in the last column, outside
    if (2 * a + 1 < rows) out[n++] = kDownward;    // to (a+1, b) or, when R is even, outside
    if (b > 0) out[n++] = kLeftward;
    if (a > 0) out[n++] = kUpward;
    return n;
  }
  /// The vertex that v's edge in direction d leads to; -1 for outside.
  int step(int a, int b, Direction d) const {
    const int a2 = a + kDr[d], b2 = b + kDc[d];
    if (b2 >= width || 2 * a2 >= rows) return -1;
    return a2 * width + b2;
  }
};

/// Wilson's algorithm rooted at outside: for every primal vertex the direction of its parent.
std::vector<Direction> uniform_spanning_tree(const Primal& g, lattice::Random& random, const StopCheck& stop) {
  const int count = g.count();
  std::vector<Direction> parent(static_cast<std::size_t>(count), kRightward);
  std::vector<std::uint8_t> in_tree(static_cast<std::size_t>(count), 0);
  std::uint64_t steps = 0;
  Direction edges[4];
  for (int start = 0; start < count; ++start) {
    // The loop-erased walk from `start`: overwriting parent[] at each visit erases the loops,
    // so that following parent[] from `start` afterwards gives the loop-erased path.
    int a = start / g.width, b = start % g.width;
    for (int v = start; v >= 0 && !in_tree[static_cast<std::size_t>(v)];) {
      const int n = g.edges(a, b, edges);
      const Direction d = edges[random.below(static_cast<std::uint32_t>(n))];
      parent[static_cast<std::size_t>(v)] = d;
      v = g.step(a, b, d);
      a += kDr[d];
      b += kDc[d];
      if ((++steps & (kStopEvery - 1)) == 0 && stop && stop()) throw Interrupted(2, "sampling stopped");
    }
    for (int v = start; v >= 0 && !in_tree[static_cast<std::size_t>(v)];) {
      in_tree[static_cast<std::size_t>(v)] = 1;
      v = g.step(v / g.width, v % g.width, parent[static_cast<std::size_t>(v)]);
    }
  }
  return parent;
}

/// The domino of cells x and y (adjacent), as (left, right) or (top, bottom), transposed back
/// when the work was on the transpose.
Domino domino(LatticeCell x, LatticeCell y, bool transposed) {
  if (transposed) {
    x = {x.c, x.r};
    y = {y.c, y.r};
  }
  if (y.r < x.r || y.c < x.c) std::swap(x, y);
  return {x, y};
}

/// The tiling of the R x C rectangle (C even) that the spanning tree `parent` stands for.
std::vector<Domino> temperley_tiling(const Primal& g, const std::vector<Direction>& parent, bool transposed) {
  const int rows = g.rows, cols = g.cols;
  const auto cell = [cols](int i, int j) { return static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j); };
  std::vector<std::uint8_t> covered(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0);
  std::vector<Domino> tiling;
  tiling.reserve(covered.size() / 2);

  // The primal dominoes: each vertex and the edge cell towards its parent.
  for (int v = 0; v < g.count(); ++v) {
    const int i = 2 * (v / g.width), j = 2 * (v % g.width);
    const Direction d = parent[static_cast<std::size_t>(v)];
    const int ei = i + kDr[d], ej = j + kDc[d];
    covered[cell(i, j)] = covered[cell(ei, ej)] = 1;
    tiling.push_back(domino({i, j}, {ei, ej}, transposed));
  }

  // The dual dominoes: a search of the dual tree from the outer face across the unused edge
  // cells; each dual cell covers the edge cell it was reached through. An edge cell's two dual
  // neighbours lie across it (above and below a horizontal one, left and right of a vertical
  // one); one outside the rectangle is the outer face.
  std::vector<LatticeCell> stack;
  const auto hang = [&](int ei, int ej, int di, int dj) {  // dual (di, dj) reached through (ei, ej)
    if (covered[cell(ei, ej)]) return;
    if (di < 0 || di >= rows || dj < 0 || dj >= cols || covered[cell(di, dj)]) {
      // The outer face reached twice, or a dual cell twice: the unused edges hold a cycle.
      throw std::logic_error("rectangle_tiling: the unused edge cells do not form a tree");
    }
    covered[cell(ei, ej)] = covered[cell(di, dj)] = 1;
    tiling.push_back(domino({di, dj}, {ei, ej}, transposed));
    stack.push_back({di, dj});
  };
  for (int j = 1; j < cols; j += 2) {
    if (rows > 1) hang(0, j, 1, j);                                 // row 0: the outer face above
    if (rows % 2 == 1 && rows > 1) hang(rows - 1, j, rows - 2, j);  // odd R: the outer face below
  }
  for (int i = 1; i < rows; i += 2) hang(i, 0, i, 1);  // column 0: the outer face to the left
  while (!stack.empty()) {
    const LatticeCell d = stack.back();
    stack.pop_back();
    if (d.r - 2 >= 0) hang(d.r - 1, d.c, d.r - 2, d.c);
    else if (!covered[cell(d.r - 1, d.c)]) throw std::logic_error("rectangle_tiling: a second edge to the outer face");
    if (d.r + 1 < rows) hang(d.r + 1, d.c, d.r + 2, d.c);
    hang(d.r, d.c - 1, d.r, d.c - 2);  // d.c >= 1, and column 0 holds only edge cells
    if (d.c + 1 < cols) hang(d.r, d.c + 1, d.r, d.c + 2);
  }
  if (tiling.size() * 2 != covered.size()) throw std::logic_error("rectangle_tiling: the dual tree missed dual cells");
  return tiling;
}

}  // namespace

std::vector<Domino> rectangle_tiling(int rows, int cols, std::uint64_t seed, const StopCheck& stop) {
  if (rows < 1 || cols < 1 || (static_cast<long long>(rows) * cols) % 2 != 0) {
    throw std::invalid_argument("rectangle_tiling: the sides must be >= 1 with an even product, not " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  }
  // A byte per cell, and primal vertex numbers and doubled coordinates that fit an int.
  if (static_cast<long long>(rows) * cols > (1LL << 32) || rows > (1 << 30) || cols > (1 << 30)) {
    throw std::invalid_argument("rectangle_tiling: " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " is more than 2^32 cells or a side over 2^30");
  }
  if (stop && stop()) throw Interrupted(2, "sampling stopped");
  const bool transposed = cols % 2 != 0;
  const Primal g = transposed ? Primal(cols, rows) : Primal(rows, cols);
  lattice::Random random(seed);
  const std::vector<Direction> parent = uniform_spanning_tree(g, random, stop);
  return temperley_tiling(g, parent, transposed);
}

}  // namespace matchcount::engines
