// What the SVG pictures (which_svg.cpp, svg_lattice.cpp) share: a fast text builder, the frame
// that maps drawing units to pixels, the colour scale of probabilities and its colour bar, and
// the shape of a graph with coordinate names. Private to src/report.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "matchcount/svg.hpp"

namespace matchcount::svg_detail {

/// Appends text and numbers to one string (std::to_chars, no streams: a million dominoes are
/// written in a fraction of a second).
class Svg {
 public:
  std::string text;
  Svg& operator<<(std::string_view s) {
    text.append(s);
    return *this;
  }
  Svg& operator<<(char c) {
    text.push_back(c);
    return *this;
  }
  Svg& integer(long long v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    text.append(buf, r.ptr);
    return *this;
  }
  /// `v` with at most `digits` decimals, trailing zeros dropped.
  Svg& fixed(double v, int digits = 2);
  /// Text with &, <, >, " and ' escaped (names may hold anything).
  Svg& escaped(std::string_view s);
};

/// A path of many small shapes written with relative moves: each shape starts at an integer
/// point (x, y) of the drawing units and leaves the pen at (x, y) + `end` (for a closed shape
/// (0, 0)). The first move is absolute.
class RelativePath {
 public:
  void add(long long x, long long y, std::string_view shape, long long end_x, long long end_y);
  std::string data;

 private:
  bool started_ = false;
  long long pen_x_ = 0, pen_y_ = 0;
};

/// How the drawing's units map to pixels: the box [x0, x0 + w] x [y0, y0 + h] at sx, sy pixels
/// a unit (sy = aspect * sx), inside a margin, with room for the colour bar on the right.
struct Frame {
  double x0 = 0, y0 = 0, w = 1, h = 1;
  double sx = 1, sy = 1;
  double margin = 10;
  double width = 0, height = 0;
  bool legend = false;

  double px(double x) const { return margin + (x - x0) * sx; }
  double py(double y) const { return margin + (y - y0) * sy; }
};
/// `step` is the lattice's step in units (a cell, half an edge): pictures are about 24 pixels
/// a step, between 240 and 960 pixels on their longer side.
Frame make_frame(double x0, double y0, double w, double h, double aspect, bool legend, double step = 1);

/// <svg ...> with the white background and the title; close_svg adds the colour bar when the
/// frame has one.
void open_svg(Svg& out, const Frame& frame, const SvgOptions& options);
void close_svg(Svg& out, const Frame& frame);
/// <g transform="matrix(...)"> mapping drawing units to pixels (shifted by `shift` units).
void open_units(Svg& out, const Frame& frame, double shift_x = 0, double shift_y = 0);

/// The colour of probability p in [0, 1]: pale yellow (never) through red and purple to black
/// (always), as "#rrggbb".
std::string probability_colour(double p);
/// Probabilities in kBins classes (class i drawn at i / (kBins - 1)).
constexpr int kBins = 21;
int probability_bin(double p);
/// p clamped to [0, 1], NaN as 0.
double clamp_probability(double p);

/// The graph's vertices as cells of a lattice: every name a coordinate, no two the same.
struct Shape {
  DrawStyle style = DrawStyle::Plain;
  std::vector<std::pair<long, long>> rc;  // (row, column) per vertex, when coordinates
  bool odd_up = true;                     // lozenges: the up-pointing triangles have odd c
};
Shape shape_of(const DrawnGraph& g);

/// The lattice pictures (svg_lattice.cpp); `shape.style` is Dominoes or Lozenges.
std::string lattice_matching_svg(const DrawnGraph& g, const Shape& shape, const std::vector<char>& matched,
                                 const SvgOptions& options);
std::string lattice_marginals_svg(const DrawnGraph& g, const Shape& shape, const std::vector<double>& p,
                                  const SvgOptions& options);

}  // namespace matchcount::svg_detail
