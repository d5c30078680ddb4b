// Pictures of matchings (matchcount/svg.hpp): the checks, the choice of style, and the plain style
// of any graph (dots and lines at coordinates or at the layout's positions). The lattice
// styles are in svg_lattice.cpp.
#include "matchcount/svg.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "matchcount/error.hpp"
#include "report/graph_layout.hpp"
#include "report/svg_writer.hpp"

namespace matchcount {

namespace {

using namespace svg_detail;

constexpr std::size_t kMaxLabels = 40;       // vertices named in the plain picture
constexpr std::size_t kMaxTooltips = 5000;   // edges of a plain probability picture as <line>s
constexpr std::size_t kMaxCircles = 20000;   // dots as <circle>s, beyond as round caps

void check(const DrawnGraph& g, std::size_t values, const char* what) {
  if (values != g.edges.size())
    throw UsageError(std::string(what) + ": " + std::to_string(values) + " values for " +
                     std::to_string(g.edges.size()) + " edges");
  const auto n = static_cast<long>(g.names.size());
  for (auto [u, v] : g.edges)
    if (u < 0 || v < 0 || u >= n || v >= n)
      throw UsageError(std::string(what) + ": edge (" + std::to_string(u) + ", " + std::to_string(v) +
                       ") names a vertex outside 0.." + std::to_string(n - 1));
}

/// The plain picture's frame and every vertex's position in pixels.
struct Placement {
  Frame frame;
  std::vector<Point> px;
};

Placement place(const DrawnGraph& g, const Shape& shape, bool legend) {
  std::vector<Point> at;
  if (!shape.rc.empty()) {
    at.reserve(shape.rc.size());
    for (auto [r, c] : shape.rc) at.push_back({double(c), double(r)});
  } else {
    at = layout_graph(static_cast<int>(g.names.size()), g.edges).at;
  }
  double x0 = 0, y0 = 0, x1 = 1, y1 = 1;
  if (!at.empty()) {
    x0 = x1 = at[0].x, y0 = y1 = at[0].y;
    for (const Point& p : at) x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
  }
  // Half a unit around the extreme vertices, for their dots and labels.
  // About 48 pixels a unit (a lattice step, or a median edge of a layout).
  Placement out{make_frame(x0 - 0.5, y0 - 0.5, x1 - x0 + 1, y1 - y0 + 1, 1.0, legend, 0.5), {}};
  out.px.reserve(at.size());
  for (const Point& p : at) out.px.push_back({out.frame.px(p.x), out.frame.py(p.y)});
  return out;
}

void point(Svg& out, const Point& p) {
  out.fixed(p.x, 1) << ' ';
  out.fixed(p.y, 1);
}

void segment(Svg& out, const Placement& at, std::pair<int, int> e) {
  out << 'M';
  point(out, at.px[static_cast<std::size_t>(e.first)]);
  out << 'L';
  point(out, at.px[static_cast<std::size_t>(e.second)]);
}

void dots(Svg& out, const Placement& at, double radius, const char* colour) {
  if (at.px.empty()) return;
  if (at.px.size() <= kMaxCircles) {
    out << "<g fill=\"" << colour << "\">\n";
    for (const Point& p : at.px) {
      out << "<circle cx=\"";
      out.fixed(p.x, 1) << "\" cy=\"";
      out.fixed(p.y, 1) << "\" r=\"";
      out.fixed(radius, 2) << "\"/>\n";
    }
    out << "</g>\n";
    return;
  }
  // Zero-length lines with round caps: a dot each, in a fraction of a <circle>'s bytes.
  out << "<path stroke=\"" << colour << "\" stroke-linecap=\"round\" stroke-width=\"";
  out.fixed(2 * radius, 2) << "\" d=\"";
  for (const Point& p : at.px) {
    out << 'M';
    point(out, p);
    out << "h0";
  }
  out << "\"/>\n";
}

void labels(Svg& out, const DrawnGraph& g, const Placement& at, double radius) {
  if (g.names.size() > kMaxLabels) return;
  out << "<g font-family=\"sans-serif\" font-size=\"10\" fill=\"#000\">\n";
  for (std::size_t v = 0; v < g.names.size(); ++v) {
    out << "<text x=\"";
    out.fixed(at.px[v].x + radius + 1, 1) << "\" y=\"";
    out.fixed(at.px[v].y - radius - 1, 1) << "\">";
    out.escaped(g.names[v]) << "</text>\n";
  }
  out << "</g>\n";
}

/// Line widths and dot size from the length of a unit (a median edge, or a lattice step).
struct Pens {
  double thin, thick, radius;
  explicit Pens(double unit_px)
      : thin(std::clamp(0.05 * unit_px, 0.5, 1.5)),
        thick(std::clamp(0.2 * unit_px, 2.0, 6.0)),
        radius(std::clamp(0.12 * unit_px, 1.0, 4.0)) {}
};

std::string plain_matching(const DrawnGraph& g, const Shape& shape, const std::vector<char>& matched,
                           const SvgOptions& options) {
  const Placement at = place(g, shape, false);
  const Pens pens(at.frame.sx);
  Svg out;
  open_svg(out, at.frame, options);
  out << "<g fill=\"none\" stroke-linecap=\"round\">\n<path class=\"edges\" stroke=\"#b0b0b0\" stroke-width=\"";
  out.fixed(pens.thin, 2) << "\" d=\"";
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    if (!matched[i] && g.edges[i].first != g.edges[i].second) segment(out, at, g.edges[i]);
  out << "\"/>\n<path class=\"matched\" stroke=\"#d62728\" stroke-width=\"";
  out.fixed(pens.thick, 2) << "\" d=\"";
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    if (matched[i] && g.edges[i].first != g.edges[i].second) segment(out, at, g.edges[i]);
  out << "\"/>\n</g>\n";
  dots(out, at, pens.radius, "#333");
  labels(out, g, at, pens.radius);
  close_svg(out, at.frame);
  return std::move(out.text);
}

std::string plain_marginals(const DrawnGraph& g, const Shape& shape, const std::vector<double>& p,
                            const SvgOptions& options) {
  const Placement at = place(g, shape, true);
  const Pens pens(at.frame.sx);
  const auto width = [&](double q) { return pens.thin + (pens.thick - pens.thin) * clamp_probability(q); };
  std::vector<std::size_t> order(g.edges.size());
  std::iota(order.begin(), order.end(), 0);
  // The likely edges last, on top of the others.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return clamp_probability(p[a]) < clamp_probability(p[b]); });
  Svg out;
  open_svg(out, at.frame, options);
  out << "<g fill=\"none\" stroke-linecap=\"round\">\n";
  if (g.edges.size() <= kMaxTooltips) {
    for (std::size_t i : order) {
      const auto [u, v] = g.edges[i];
      if (u == v) continue;
      out << "<path stroke=\"" << probability_colour(p[i]) << "\" stroke-width=\"";
      out.fixed(width(p[i]), 2) << "\" d=\"";
      segment(out, at, g.edges[i]);
      out << "\"><title>";
      out.escaped(g.names[static_cast<std::size_t>(u)]) << " - ";
      out.escaped(g.names[static_cast<std::size_t>(v)]) << ": ";
      out.fixed(clamp_probability(p[i]), 6) << "</title></path>\n";
    }
  } else {
    std::vector<std::string> bins(kBins);
    for (std::size_t i : order) {
      if (g.edges[i].first == g.edges[i].second) continue;
      Svg d;
      segment(d, at, g.edges[i]);
      bins[static_cast<std::size_t>(probability_bin(p[i]))] += d.text;
    }
    for (int b = 0; b < kBins; ++b) {
      if (bins[static_cast<std::size_t>(b)].empty()) continue;
      const double q = double(b) / (kBins - 1);
      out << "<path class=\"p" << std::to_string(b) << "\" stroke=\"" << probability_colour(q) << "\" stroke-width=\"";
      out.fixed(width(q), 2) << "\" d=\"" << bins[static_cast<std::size_t>(b)] << "\"/>\n";
    }
  }
  out << "</g>\n";
  dots(out, at, 0.7 * pens.radius, "#555");
  labels(out, g, at, pens.radius);
  close_svg(out, at.frame);
  return std::move(out.text);
}

}  // namespace

std::string matching_svg(const DrawnGraph& g, const std::vector<char>& matched, const SvgOptions& options) {
  check(g, matched.size(), "matching_svg");
  const Shape shape = shape_of(g);
  if (shape.style != DrawStyle::Plain) return lattice_matching_svg(g, shape, matched, options);
  return plain_matching(g, shape, matched, options);
}

std::string marginals_svg(const DrawnGraph& g, const std::vector<double>& p, const SvgOptions& options) {
  check(g, p.size(), "marginals_svg");
  const Shape shape = shape_of(g);
  if (shape.style != DrawStyle::Plain) return lattice_marginals_svg(g, shape, p, options);
  return plain_marginals(g, shape, p, options);
}

}  // namespace matchcount
