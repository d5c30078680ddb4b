// The hexagon family: the honeycomb graph of the unit triangles inside the hexagon with sides
// A, B, C, A, B, C on the triangular lattice, whose perfect matchings are its lozenge tilings.
//
// Geometry (edge length 1, y pointing down): lattice point P(i, k) lies at x = i + k/2,
// y = k sqrt(3)/2. In the strip between point rows r and r+1 the triangle c = 2i is the
// down-pointing P(i,r) P(i+1,r) P(i,r+1), and c = 2i+1 the up-pointing P(i+1,r) P(i,r+1)
// P(i+1,r+1); both have their centre at 2x = c + r + 1. The hexagon has its top-left corner at
// P(0,0) and its top side along point row 0; in units of half an edge (X = 2x) and of rows
// (k) it is
//   X + k >= 0,  X - k + 2C >= 0,  X - k <= 2A,  X + k <= 2A + 2B,  0 <= k <= B + C.
// A triangle lies inside when its centre does (its sides lie on lattice lines, as do the
// hexagon's); the centre is at k = r + 1/3 (down) or r + 2/3 (up), so the test is exact in
// thirds.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "generate/graph_build.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

using generate_detail::add_edge;
using generate_detail::check_size;
using generate_detail::finish;

namespace {

/// The hexagon's triangles row by row: row r holds the columns first[r] .. first[r]+count[r]-1
/// (a convex region meets each strip in one interval), numbered from start[r] on. Columns are
/// those of hexagon_coordinates (already shifted).
struct HexagonRows {
  std::vector<std::int64_t> first, count, start;
  std::int64_t total = 0;

  std::int64_t id(std::int64_t r, std::int64_t c) const {
    if (r < 0 || r >= static_cast<std::int64_t>(first.size())) return -1;
    const auto ru = static_cast<std::size_t>(r);
    return c >= first[ru] && c < first[ru] + count[ru] ? start[ru] + (c - first[ru]) : -1;
  }
};

HexagonRows hexagon_rows(int a, int b, int c) {
  if (a < 0 || b < 0 || c < 0)
    throw UsageError("hexagon: A, B and C must be at least 0 (got " + std::to_string(a) + ", " +
                     std::to_string(b) + ", " + std::to_string(c) + ")");
  const std::int64_t A = a, B = b, C = c;
  const std::int64_t triangles = 2 * (A * B + B * C + C * A);
  check_size("hexagon", triangles, 3 * triangles);
  HexagonRows rows;
  const std::int64_t strips = B + C;
  rows.first.assign(static_cast<std::size_t>(strips), 0);
  rows.count.assign(static_cast<std::size_t>(strips), 0);
  rows.start.assign(static_cast<std::size_t>(strips), 0);
  auto inside = [&](std::int64_t r, std::int64_t col) {
    const std::int64_t k3 = 3 * r + ((col & 1) ? 2 : 1);  // 3k of the centre
    const std::int64_t x3 = 3 * (col + r + 1);           // 3X of the centre
    return x3 + k3 > 0 && x3 - k3 + 6 * C > 0 && x3 - k3 < 6 * A && x3 + k3 < 6 * A + 6 * B;
  };
  std::int64_t lowest = 0;
  bool any = false;
  for (std::int64_t r = 0; r < strips; ++r) {
    // The bounds on X = col + r + 1 for some k in [r, r + 1], widened by one.
    std::int64_t lo = std::max(-(r + 1), r - 2 * C) - 1 - (r + 1);
    std::int64_t hi = std::min(2 * A + r + 1, 2 * A + 2 * B - r) + 1 - (r + 1);
    while (lo <= hi && !inside(r, lo)) ++lo;
    while (hi >= lo && !inside(r, hi)) --hi;
    const auto ru = static_cast<std::size_t>(r);
    rows.first[ru] = lo;
    rows.count[ru] = lo <= hi ? hi - lo + 1 : 0;
    if (rows.count[ru] > 0) lowest = any ? std::min(lowest, lo) : lo, any = true;
  }
  // An even shift keeps the parity of c, which tells up from down.
  const std::int64_t shift = -lowest + ((lowest & 1) ? 1 : 0);
  for (std::size_t r = 0; r < rows.first.size(); ++r) {
    rows.first[r] += shift;
    rows.start[r] = rows.total;
    rows.total += rows.count[r];
  }
  if (rows.total != triangles)
    throw std::logic_error("hexagon: " + std::to_string(rows.total) + " triangles found, " +
                           std::to_string(triangles) + " expected");
  return rows;
}

}  // namespace

EdgeList hexagon_graph(int a, int b, int c) {
  const HexagonRows rows = hexagon_rows(a, b, c);
  EdgeList g;
  g.vertices = static_cast<int>(rows.total);
  g.edges.reserve(static_cast<std::size_t>(3 * rows.total / 2));
  for (std::size_t r = 0; r < rows.first.size(); ++r)
    for (std::int64_t col = rows.first[r]; col < rows.first[r] + rows.count[r]; ++col) {
      const auto ri = static_cast<std::int64_t>(r);
      const std::int64_t v = rows.id(ri, col);
      if (const std::int64_t w = rows.id(ri, col + 1); w >= 0) add_edge(g, int(v), int(w));
      // Across the horizontal side below an up-pointing triangle.
      if (col & 1)
        if (const std::int64_t w = rows.id(ri + 1, col - 1); w >= 0) add_edge(g, int(v), int(w));
    }
  finish(g);
  return g;
}

std::vector<std::pair<int, int>> hexagon_coordinates(int a, int b, int c) {
  const HexagonRows rows = hexagon_rows(a, b, c);
  std::vector<std::pair<int, int>> rc;
  rc.reserve(static_cast<std::size_t>(rows.total));
  for (std::size_t r = 0; r < rows.first.size(); ++r)
    for (std::int64_t col = rows.first[r]; col < rows.first[r] + rows.count[r]; ++col)
      rc.emplace_back(static_cast<int>(r), static_cast<int>(col));
  return rc;
}

std::vector<std::string> coordinate_names(const std::vector<std::pair<int, int>>& coordinates) {
  std::vector<std::string> names;
  names.reserve(coordinates.size());
  for (const auto& [r, c] : coordinates) names.push_back(std::to_string(r) + "," + std::to_string(c));
  return names;
}

}  // namespace matchcount
