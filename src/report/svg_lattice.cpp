// The lattice pictures (matchcount/svg.hpp): dominoes on the square lattice, lozenges on the
// honeycomb, and their probability pictures. Shapes of one colour make one <path> of relative
// moves on integer points of the drawing's units, drawn at one scale in x and y (so that line
// widths are the same in every direction, without vector-effect, which not every renderer has).
//
// Dominoes: units are cells; vertex (r, c) is the cell [c, c+1] x [r, r+1].
// Lozenges: with c' = c when the up-pointing triangles have odd c (else c + 1), triangle
// (r, c) spans half edges [c' + r, c' + r + 2] across and strip r down, its centre at
// c' + r + 1 half edges across and r + 1/3 (down-pointing) or r + 2/3 (up-pointing) strips
// down. A strip is sqrt(3) half edges tall; 26/15 = 1.7333 stands for sqrt(3) (0.07% off, no
// visible difference), so that a half edge is 15 units and a strip 26 (45 and 78 in the
// probability picture, whose centres lie at thirds of a strip).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "report/svg_writer.hpp"

namespace matchcount::svg_detail {

namespace {

// Half an edge and a strip of the honeycomb in units: matching pictures, probability pictures.
constexpr long long kHalf = 15, kStrip = 26;
constexpr long long kHalfP = 45, kStripP = 78;

/// One shape to draw: its start (x, y) in drawing units and its class (colour or bin).
struct Placed {
  long long y, x;
  int kind;
};

/// The shapes of each class as one path each, in reading order (short relative moves).
std::vector<RelativePath> paths_by_kind(std::vector<Placed>& placed, int kinds,
                                        const std::vector<std::string_view>& shape_of_kind,
                                        const std::vector<std::pair<int, int>>& end_of_kind) {
  std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.y != b.y ? a.y < b.y : a.x < b.x;
  });
  std::vector<RelativePath> paths(static_cast<std::size_t>(kinds));
  for (const Placed& s : placed) {
    const auto k = static_cast<std::size_t>(s.kind);
    paths[k].add(s.x, s.y, shape_of_kind[k], end_of_kind[k].first, end_of_kind[k].second);
  }
  return paths;
}

/// The bounding box of the vertices' cells (dominoes) or triangles (lozenges), in units.
struct Box {
  long long x0, y0, x1, y1;
};

/// c' of the file comment: the column in which odd means up-pointing.
long long sheared(const Shape& shape, long c) { return shape.odd_up ? c : c + 1; }

Box box_of(const Shape& shape, bool lozenges) {
  Box b{0, 0, 1, 1};
  bool first = true;
  for (auto [r, c] : shape.rc) {
    const long long x = lozenges ? sheared(shape, c) + r : c;
    const long long w = lozenges ? 2 : 1;
    if (first) b = {x, r, x + w, r + 1LL}, first = false;
    b = {std::min(b.x0, x), std::min(b.y0, static_cast<long long>(r)), std::max(b.x1, x + w),
         std::max(b.y1, r + 1LL)};
  }
  return b;
}

/// Where a matched lozenge starts and which of the three it is (0: vertical, 1: '/' with the
/// down-pointing triangle on the left, 2: '\\' with the up-pointing one on the left).
Placed lozenge(const Shape& shape, std::pair<long, long> a, std::pair<long, long> b) {
  if (b < a) std::swap(a, b);
  const long long r = a.first, c = sheared(shape, a.second);
  if (a.first == b.first) return (c & 1) ? Placed{r, c + r + 1, 2} : Placed{r, c + r, 1};
  return Placed{r, c + r + 1, 0};
}

/// The page of a lattice picture: the cells' box in units of hx by hy, with a colour bar when
/// `bar` (marginals).
Frame lattice_frame(const Box& box, long long hx, long long hy, bool bar) {
  return make_frame(double(box.x0 * hx), double(box.y0 * hy), double((box.x1 - box.x0) * hx), double((box.y1 - box.y0) * hy),
                    1.0, bar, double(hx));
}

}  // namespace

std::string lattice_matching_svg(const DrawnGraph& g, const Shape& shape, const std::vector<char>& matched,
                                 const SvgOptions& options) {
  const bool lozenges = shape.style == DrawStyle::Lozenges;
  const Box box = box_of(shape, lozenges);
  const long long hx = lozenges ? kHalf : 1, hy = lozenges ? kStrip : 1;
  const Frame frame = lattice_frame(box, hx, hy, false);
  std::vector<Placed> placed;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    if (!matched[i] || g.edges[i].first == g.edges[i].second) continue;
    auto a = shape.rc[static_cast<std::size_t>(g.edges[i].first)], b = shape.rc[static_cast<std::size_t>(g.edges[i].second)];
    if (lozenges) {
      Placed l = lozenge(shape, a, b);
      placed.push_back({l.y * kStrip, l.x * kHalf, l.kind});
    } else {
      if (b < a) std::swap(a, b);
      const bool vertical = a.second == b.second;
      placed.push_back({a.first, a.second, (vertical ? 2 : 0) + static_cast<int>((a.first + a.second) & 1)});
    }
  }
  Svg out;
  out.text.reserve(placed.size() * (lozenges ? 24 : 16) + 1024);
  open_svg(out, frame, options);
  open_units(out, frame);
  // Outlines where a shape is a few pixels across.
  if (frame.sx * double(hx) >= 3) out << " stroke=\"#222\" stroke-width=\"" << (lozenges ? "0.8" : "0.04") << '"';
  out << ">\n";
  if (lozenges) {
    static const std::vector<std::string_view> kShapes = {"l15 26l-15 26l-15-26z", "h30l15 26h-30z", "h30l-15 26h-30z"};
    static const char* kColours[] = {"#f2c14e", "#5b8e7d", "#bc4b51"};
    static const char* kNames[] = {"vertical", "slash", "backslash"};
    const auto paths = paths_by_kind(placed, 3, kShapes, {{0, 0}, {0, 0}, {0, 0}});
    for (std::size_t k = 0; k < paths.size(); ++k) {
      if (paths[k].data.empty()) continue;
      out << "<path class=\"lozenge " << kNames[k] << "\" fill=\"" << kColours[k] << "\" d=\"" << paths[k].data
          << "\"/>\n";
    }
  } else {
    // Horizontal and vertical, by the parity of the left (top) cell: the four classes of
    // Aztec-diamond pictures.
    static const std::vector<std::string_view> kShapes = {"h2v1h-2z", "h2v1h-2z", "h1v2h-1z", "h1v2h-1z"};
    static const char* kColours[] = {"#e41a1c", "#377eb8", "#4daf4a", "#ffd92f"};
    static const char* kNames[] = {"h-even", "h-odd", "v-even", "v-odd"};
    const auto paths = paths_by_kind(placed, 4, kShapes, {{0, 0}, {0, 0}, {0, 0}, {0, 0}});
    for (std::size_t k = 0; k < paths.size(); ++k) {
      if (paths[k].data.empty()) continue;
      out << "<path class=\"domino " << kNames[k] << "\" fill=\"" << kColours[k] << "\" d=\"" << paths[k].data
          << "\"/>\n";
    }
  }
  out << "</g>\n";
  close_svg(out, frame);
  return std::move(out.text);
}

std::string lattice_marginals_svg(const DrawnGraph& g, const Shape& shape, const std::vector<double>& p,
                                  const SvgOptions& options) {
  const bool lozenges = shape.style == DrawStyle::Lozenges;
  const Box box = box_of(shape, lozenges);
  const long long hx = lozenges ? kHalfP : 1, hy = lozenges ? kStripP : 1;
  const Frame frame = lattice_frame(box, hx, hy, true);
  // Kinds: bin * 4 + the segment's shape: dominoes across, down; lozenges down (up-pointing
  // (r,c) to (r+1,c-1)), up-right (from an up-pointing triangle), down-right.
  std::vector<Placed> placed;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    if (g.edges[i].first == g.edges[i].second) continue;
    auto a = shape.rc[static_cast<std::size_t>(g.edges[i].first)], b = shape.rc[static_cast<std::size_t>(g.edges[i].second)];
    if (b < a) std::swap(a, b);
    const int bin = probability_bin(p[i]) * 4;
    if (!lozenges) {
      placed.push_back({a.first, a.second, bin + (a.first == b.first ? 0 : 1)});
      continue;
    }
    const long long r = a.first, c = sheared(shape, a.second);
    const long long y = kStripP * r + ((c & 1) ? 52 : 26), x = kHalfP * (c + r + 1);
    placed.push_back({y, x, bin + (a.first != b.first ? 1 : (c & 1) ? 2 : 3)});
  }
  std::vector<std::string_view> shapes;
  std::vector<std::pair<int, int>> ends;
  for (int b = 0; b < kBins; ++b) {
    if (lozenges) {
      shapes.insert(shapes.end(), {"", "v52", "l45-26", "l45 26"});
      ends.insert(ends.end(), {{0, 0}, {0, 52}, {45, -26}, {45, 26}});
    } else {
      shapes.insert(shapes.end(), {"h1", "v1", "", ""});
      ends.insert(ends.end(), {{1, 0}, {0, 1}, {0, 0}, {0, 0}});
    }
  }
  const auto paths = paths_by_kind(placed, 4 * kBins, shapes, ends);

  Svg out;
  out.text.reserve(placed.size() * 12 + 4096);
  open_svg(out, frame, options);
  open_units(out, frame, lozenges ? 0 : 0.5, lozenges ? 0 : 0.5);  // dominoes: cell centres
  out << " fill=\"none\" stroke-width=\"" << (lozenges ? "14" : "0.3") << "\">\n";
  for (int b = 0; b < kBins; ++b) {
    std::string d;
    for (int s = 0; s < 4; ++s) d += paths[static_cast<std::size_t>(4 * b + s)].data;
    if (d.empty()) continue;
    out << "<path class=\"p" << std::to_string(b) << "\" stroke=\"" << probability_colour(double(b) / (kBins - 1))
        << "\" d=\"" << d << "\"/>\n";
  }
  out << "</g>\n";
  close_svg(out, frame);
  return std::move(out.text);
}

}  // namespace matchcount::svg_detail
