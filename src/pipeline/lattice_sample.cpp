// Samples of whole lattice regions (lattice_sample.hpp).
#include "pipeline/lattice_sample.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <unordered_map>

#include "engines/lattice/lattice_samplers.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"

namespace matchcount {

std::optional<std::pair<int, int>> lattice_cell_of_name(std::string_view name) {
  const auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  name = trim(name);
  if (name.size() >= 2 && name.front() == '(' && name.back() == ')') name = trim(name.substr(1, name.size() - 2));
  const std::size_t comma = name.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  int xy[2];
  const std::string_view parts[2] = {trim(name.substr(0, comma)), trim(name.substr(comma + 1))};
  for (int i = 0; i < 2; ++i) {
    const auto [end, ec] = std::from_chars(parts[i].data(), parts[i].data() + parts[i].size(), xy[i]);
    if (parts[i].empty() || ec != std::errc() || end != parts[i].data() + parts[i].size()) return std::nullopt;
  }
  return std::pair<int, int>{xy[0], xy[1]};
}

namespace detail {
namespace {

std::uint64_t key(long long r, long long c) { return (static_cast<std::uint64_t>(r) << 32) ^ static_cast<std::uint32_t>(c); }

}  // namespace

LatticeRegion lattice_region(const SparseMatrix<Integer>& a, bool symmetric, const std::vector<std::pair<int, int>>& cells) {
  LatticeRegion region;
  const std::size_t n = static_cast<std::size_t>(symmetric ? a.rows : a.rows + a.cols);
  if (cells.size() != n || n == 0) return region.why = "the vertices are not lattice cells", region;
  int top = std::numeric_limits<int>::max(), left = top, bottom = std::numeric_limits<int>::min(), right = bottom;
  for (const auto& [r, c] : cells) top = std::min(top, r), left = std::min(left, c), bottom = std::max(bottom, r), right = std::max(right, c);
  const long long rows = 1LL + bottom - top, cols = 1LL + right - left;
  if (rows > (1 << 20) || cols > (1 << 20)) return region.why = "the cells span too far", region;
  std::unordered_map<std::uint64_t, int> at;
  at.reserve(n * 2);
  for (std::size_t v = 0; v < n; ++v)
    if (!at.emplace(key(cells[v].first - top, cells[v].second - left), static_cast<int>(v)).second)
      return region.why = "two vertices name one cell", region;
  // Induced: every edge joins neighbouring cells with weight 1, and every pair of neighbouring
  // cells is an edge (a symmetric matrix holds each edge twice, once each way).
  std::size_t neighbours = 0;
  for (std::size_t v = 0; v < n; ++v) {
    const long long r = cells[v].first - top, c = cells[v].second - left;
    neighbours += at.count(key(r + 1, c)) + at.count(key(r, c + 1));
  }
  std::size_t edges = 0;
  for (const auto& e : a.entries) {
    if (symmetric && e.row == e.col) continue;
    const auto [r1, c1] = cells[static_cast<std::size_t>(e.row)];
    const auto [r2, c2] = cells[static_cast<std::size_t>(symmetric ? e.col : a.rows + e.col)];
    if (std::abs(static_cast<long long>(r1) - r2) + std::abs(static_cast<long long>(c1) - c2) != 1)
      return region.why = "an edge joins cells that are not neighbours", region;
    if (e.value != 1) return region.why = "the weights are not all 1", region;
    ++edges;
  }
  if (edges != (symmetric ? 2 : 1) * neighbours) return region.why = "some neighbouring cells are not joined", region;
  region.top = top, region.left = left;
  if (static_cast<long long>(n) == rows * cols) {
    if (n % 2) return region.why = "the rectangle has an odd number of cells", region;
    region.kind = LatticeRegion::Rectangle, region.rows = static_cast<int>(rows), region.cols = static_cast<int>(cols);
    return region;
  }
  if (rows == cols && rows % 2 == 0) {
    const int order = static_cast<int>(rows / 2);
    bool inside = static_cast<long long>(n) == 2LL * order * (order + 1);
    for (std::size_t v = 0; inside && v < n; ++v)
      inside = engines::in_aztec_diamond(order, {cells[v].first - top, cells[v].second - left});
    if (inside) {
      region.kind = LatticeRegion::AztecDiamond, region.order = order;
      return region;
    }
  }
  region.why = "the region is neither a rectangle nor an Aztec diamond";
  return region;
}

std::optional<std::vector<std::vector<std::pair<int, int>>>> lattice_samples(const MatchingGraph& g, const SampleOptions& options) {
  if (options.method != WhichMethod::Auto && options.method != WhichMethod::Lattice) return std::nullopt;
  const auto* a = std::get_if<SparseMatrix<Integer>>(&g.matrix);
  LatticeRegion region;
  region.why = "the vertices are not lattice cells";
  if (!a) region.why = "the weights are not all 1";
  else if (!g.cells.empty()) region = lattice_region(*a, g.symmetric, g.cells);
  const int rows = g.symmetric || !a ? 0 : a->rows;
  if (region.kind == LatticeRegion::None) {
    if (options.method == WhichMethod::Lattice) throw RefusedError("the lattice samplers do not apply: " + region.why);
    return std::nullopt;
  }
  std::unordered_map<std::uint64_t, int> at;
  at.reserve(g.cells.size() * 2);
  for (std::size_t v = 0; v < g.cells.size(); ++v) at.emplace(key(g.cells[v].first - region.top, g.cells[v].second - region.left), static_cast<int>(v));
  std::vector<std::vector<std::pair<int, int>>> out;
  for (std::uint64_t i = 0; i < options.samples; ++i) {
    if (options.stop && options.stop()) throw Interrupted(2, "sampling stopped");
    // One seed a sample from (seed, index), as the other methods take theirs.
    const std::uint64_t seed = options.seed * 0x9e3779b97f4a7c15ULL + i;
    const auto tiling = region.kind == LatticeRegion::AztecDiamond
                            ? engines::aztec_diamond_tiling(region.order, seed, options.stop)
                            : engines::rectangle_tiling(region.rows, region.cols, seed, options.stop);
    std::vector<std::pair<int, int>> pairs;
    pairs.reserve(tiling.size());
    for (const auto& [a, b] : tiling) {
      int u = at.at(key(a.r, a.c)), v = at.at(key(b.r, b.c));
      if (u > v) std::swap(u, v);
      if (rows > 0) v -= rows;  // (row, rows + column) -> (row, column)
      pairs.emplace_back(u, v);
    }
    std::sort(pairs.begin(), pairs.end());
    out.push_back(std::move(pairs));
  }
  return out;
}

}  // namespace detail
}  // namespace matchcount
