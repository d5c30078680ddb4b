// The SVG pictures' shared pieces (svg_writer.hpp) and the reading of coordinate names.
#include "report/svg_writer.hpp"

#include "matchcount/which.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace matchcount {


DrawStyle drawing_style(const DrawnGraph& g) { return svg_detail::shape_of(g).style; }

namespace svg_detail {

Svg& Svg::fixed(double v, int digits) {
  if (!std::isfinite(v)) v = 0;
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, digits);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  if (s.find('.') != std::string_view::npos) {
    while (s.back() == '0') s.remove_suffix(1);
    if (s.back() == '.') s.remove_suffix(1);
  }
  if (s == "-0") s = "0";
  text.append(s);
  return *this;
}

Svg& Svg::escaped(std::string_view s) {
  for (char ch : s) {
    switch (ch) {
      case '&': text += "&amp;"; break;
      case '<': text += "&lt;"; break;
      case '>': text += "&gt;"; break;
      case '"': text += "&quot;"; break;
      case '\'': text += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t') text += ch;
        else text += '?';
    }
  }
  return *this;
}

void RelativePath::add(long long x, long long y, std::string_view shape, long long end_x, long long end_y) {
  const auto append = [this](long long v) {
    char buf[24];
    data.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  };
  const long long dx = started_ ? x - pen_x_ : x, dy = started_ ? y - pen_y_ : y;
  data.push_back(started_ ? 'm' : 'M');
  append(dx);
  if (dy >= 0) data.push_back(' ');
  append(dy);
  data.append(shape);
  started_ = true;
  pen_x_ = x + end_x;
  pen_y_ = y + end_y;
}

Frame make_frame(double x0, double y0, double w, double h, double aspect, bool legend, double step) {
  Frame f;
  f.x0 = x0, f.y0 = y0, f.w = std::max(w, 1e-9), f.h = std::max(h, 1e-9);
  const double units = std::max({f.w, f.h * aspect, step});
  const double longest = std::clamp(24 * units / step, 240.0, 960.0);
  f.sx = longest / units;
  f.sy = f.sx * aspect;
  f.legend = legend;
  f.width = f.w * f.sx + 2 * f.margin + (legend ? 110 : 0);
  f.height = std::max(f.h * f.sy + 2 * f.margin, legend ? 300.0 : 0.0);
  return f;
}

void open_svg(Svg& out, const Frame& frame, const SvgOptions& options) {
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
  out.fixed(frame.width, 1) << "\" height=\"";
  out.fixed(frame.height, 1) << "\" viewBox=\"0 0 ";
  out.fixed(frame.width, 1) << ' ';
  out.fixed(frame.height, 1) << "\">\n";
  if (!options.title.empty()) {
    out << "<title>";
    out.escaped(options.title) << "</title>\n";
  }
  out << "<rect width=\"";
  out.fixed(frame.width, 1) << "\" height=\"";
  out.fixed(frame.height, 1) << "\" fill=\"white\"/>\n";
}

void open_units(Svg& out, const Frame& frame, double shift_x, double shift_y) {
  out << "<g transform=\"matrix(";
  out.fixed(frame.sx, 6) << " 0 0 ";
  out.fixed(frame.sy, 6) << ' ';
  out.fixed(frame.px(shift_x), 4) << ' ';
  out.fixed(frame.py(shift_y), 4) << ")\"";
}

void close_svg(Svg& out, const Frame& frame) {
  if (frame.legend) {
    const double x = frame.width - 100, top = frame.margin + 30, height = 200;
    out << "<defs><linearGradient id=\"mc-probability\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
    for (int i = 0; i <= 4; ++i) {
      out << "<stop offset=\"";
      out.fixed(i / 4.0) << "\" stop-color=\"" << probability_colour(i / 4.0) << "\"/>";
    }
    out << "</linearGradient></defs>\n<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n";
    out << "<text x=\"";
    out.fixed(x, 1) << "\" y=\"";
    out.fixed(top - 12, 1) << "\">probability</text>\n<rect x=\"";
    out.fixed(x, 1) << "\" y=\"";
    out.fixed(top, 1) << "\" width=\"16\" height=\"";
    out.fixed(height, 1) << "\" fill=\"url(#mc-probability)\" stroke=\"#444\" stroke-width=\"0.5\"/>\n";
    for (int i = 0; i <= 4; ++i) {
      const double y = top + (1 - i / 4.0) * height;
      out << "<path d=\"M";
      out.fixed(x + 16, 1) << ' ';
      out.fixed(y, 1) << "h4\" stroke=\"#444\"/><text x=\"";
      out.fixed(x + 24, 1) << "\" y=\"";
      out.fixed(y + 4, 1) << "\">";
      out.fixed(i / 4.0) << "</text>\n";
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
}

double clamp_probability(double p) { return p >= 0 ? std::min(p, 1.0) : 0.0; }  // NaN -> 0

int probability_bin(double p) { return static_cast<int>(std::lround(clamp_probability(p) * (kBins - 1))); }

std::string probability_colour(double p) {
  // Five stops of matplotlib's magma, reversed: pale on the white page for edges in no
  // matching, dark for edges in every one.
  static constexpr std::array<std::array<double, 3>, 5> kStops = {{
      {252, 253, 191}, {252, 137, 97}, {183, 55, 121}, {81, 18, 124}, {0, 0, 4}}};
  const double t = clamp_probability(p) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  char buf[8];
  int rgb[3];
  for (int k = 0; k < 3; ++k)
    rgb[k] = static_cast<int>(std::lround(kStops[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] * (1 - f) +
                                          kStops[static_cast<std::size_t>(i + 1)][static_cast<std::size_t>(k)] * f));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

Shape shape_of(const DrawnGraph& g) {
  Shape shape;
  shape.rc.reserve(g.names.size());
  for (const std::string& name : g.names) {
    const auto rc = lattice_cell_of_name(name);
    if (!rc) {
      shape.rc.clear();
      return shape;
    }
    shape.rc.emplace_back(rc->first, rc->second);
  }
  auto cells = shape.rc;
  std::sort(cells.begin(), cells.end());
  if (std::adjacent_find(cells.begin(), cells.end()) != cells.end()) {
    shape.rc.clear();  // two names for one cell: not a picture of a lattice
    return shape;
  }
  bool square = true, honeycomb = true, any = false;
  int up_parity = -1;  // of the upper ends of the diagonal edges
  for (auto [u, v] : g.edges) {
    if (u == v) continue;
    auto a = shape.rc[static_cast<std::size_t>(u)], b = shape.rc[static_cast<std::size_t>(v)];
    if (b < a) std::swap(a, b);
    const long dr = b.first - a.first, dc = b.second - a.second;
    any = true;
    const bool across = dr == 0 && dc == 1;
    square = square && (across || (dr == 1 && dc == 0));
    if (honeycomb && !across) {
      const int parity = static_cast<int>(a.second & 1);
      honeycomb = dr == 1 && dc == -1 && (up_parity < 0 || up_parity == parity);
      up_parity = parity;
    }
    if (!square && !honeycomb) break;
  }
  if (any && square) shape.style = DrawStyle::Dominoes;
  else if (any && honeycomb && up_parity >= 0) shape.style = DrawStyle::Lozenges;
  shape.odd_up = up_parity != 0;
  return shape;
}

}  // namespace svg_detail
}  // namespace matchcount
