// Pictures of matchings (matchcount/svg.hpp): coordinate names, the choice of style,
// dominoes and lozenges shape by shape, Tutte's embedding of C60 checked as an embedding, the
// force layout's determinism, well-formed output, and the size of a million-cell picture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/graph_matching.hpp"
#include "report/graph_layout.hpp"
#include "matchcount/which.hpp"
#include "matchcount/svg.hpp"

using namespace matchcount;
using svg_detail::Point;

namespace {

DrawnGraph drawn(const EdgeList& g, std::vector<std::string> names) {
  return DrawnGraph{std::move(names), g.edges};
}

DrawnGraph numbered(const EdgeList& g) {
  std::vector<std::string> names;
  for (int v = 0; v < g.vertices; ++v) names.push_back(std::to_string(v));
  return drawn(g, names);
}

/// Matched flags of a perfect matching (Edmonds), one per edge of g.
std::vector<char> perfect_matching(const EdgeList& g) {
  const GraphMatching m = edmonds_matching(GraphPattern::of(adjacency_matrix(g)));
  EXPECT_TRUE(m.perfect());
  std::vector<char> matched(g.edges.size(), 0);
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    matched[i] = m.mate[static_cast<std::size_t>(g.edges[i].first)] == g.edges[i].second;
  return matched;
}

/// Tags balanced (a stack of names), one root <svg>, the document starting and ending with it.
::testing::AssertionResult well_formed(const std::string& svg) {
  if (svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) != 0)
    return ::testing::AssertionFailure() << "does not start with <svg xmlns=...>";
  if (svg.size() < 7 || svg.compare(svg.size() - 7, 7, "</svg>\n") != 0)
    return ::testing::AssertionFailure() << "does not end with </svg>";
  if (svg.find("viewBox=") == std::string::npos || svg.find("fill=\"white\"") == std::string::npos)
    return ::testing::AssertionFailure() << "no viewBox or white background";
  std::vector<std::string> open;
  int roots = 0;
  for (std::size_t i = svg.find('<'); i != std::string::npos; i = svg.find('<', i + 1)) {
    const std::size_t end = svg.find('>', i);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
    const std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag at " << i;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        return ::testing::AssertionFailure() << "</" << tag.substr(1) << "> closes "
                                             << (open.empty() ? "nothing" : "<" + open.back() + ">");
      open.pop_back();
    } else if (tag.back() != '/') {
      const std::string name = tag.substr(0, tag.find_first_of(" \n"));
      if (open.empty()) ++roots;
      open.push_back(name);
    }
    if (svg.find('<', i + 1) < end) return ::testing::AssertionFailure() << "'<' inside a tag at " << i;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> is never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

/// The d attribute of the path with this class, or "" when there is none.
std::string path_data(const std::string& svg, const std::string& cls) {
  const std::size_t at = svg.find("class=\"" + cls + "\"");
  if (at == std::string::npos) return "";
  const std::size_t d = svg.find(" d=\"", at) + 4;
  return svg.substr(d, svg.find('"', d) - d);
}

/// The closed shapes of a path of relative moves: (absolute start x, y, shape text).
std::vector<std::tuple<long, long, std::string>> shapes(const std::string& d) {
  std::vector<std::tuple<long, long, std::string>> out;
  long x = 0, y = 0;
  std::size_t i = 0;
  while (i < d.size()) {
    EXPECT_TRUE(d[i] == 'M' || d[i] == 'm') << d.substr(i, 20);
    const bool relative = d[i] == 'm';
    ++i;
    std::size_t used = 0;
    const long dx = std::stol(d.substr(i), &used);
    i += used;
    if (d[i] == ' ') ++i;
    const long dy = std::stol(d.substr(i), &used);
    i += used;
    x = relative ? x + dx : dx;
    y = relative ? y + dy : dy;
    const std::size_t z = d.find('z', i);
    out.emplace_back(x, y, d.substr(i, z - i));
    i = z + 1;
  }
  return out;
}

bool segments_cross(Point a, Point b, Point c, Point d) {
  const auto orient = [](Point p, Point q, Point r) { return (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x); };
  const double d1 = orient(a, b, c), d2 = orient(a, b, d), d3 = orient(c, d, a), d4 = orient(c, d, b);
  return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 && d4 != 0;
}

}  // namespace

TEST(WhichSvg, CoordinateNames) {
  EXPECT_EQ(lattice_cell_of_name("3,4"), (std::pair<int, int>{3, 4}));
  EXPECT_EQ(lattice_cell_of_name("(3, 4)"), (std::pair<int, int>{3, 4}));
  EXPECT_EQ(lattice_cell_of_name(" ( -3 ,4 ) "), (std::pair<int, int>{-3, 4}));
  EXPECT_EQ(lattice_cell_of_name("(0,0)"), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(lattice_cell_of_name("123456789,-7"), (std::pair<int, int>{123456789, -7}));
  for (const char* bad : {"3", "a,b", "3,4,5", "(3, 4", "3, 4)", "3,", ",4", "12345678901,1", "(1, 2, 3)", "", "()",
                          "--1,2", "1.5,2", "(a, 1)"})
    EXPECT_FALSE(lattice_cell_of_name(bad).has_value()) << bad;
  // Both forms may mix; a name that is not a coordinate, or two names of one cell, make the
  // picture plain.
  const EdgeList edge{2, {{0, 1}}};
  EXPECT_EQ(drawing_style(drawn(edge, {"0,0", "(0, 1)"})), DrawStyle::Dominoes);
  EXPECT_EQ(drawing_style(drawn(edge, {"0,0", "x"})), DrawStyle::Plain);
  EXPECT_EQ(drawing_style(drawn(edge, {"0,0", "(0, 0)"})), DrawStyle::Plain);
  EXPECT_EQ(drawing_style(drawn(edge, {"0,0", "0,2"})), DrawStyle::Plain);  // not a lattice step
  EXPECT_EQ(drawing_style(numbered(grid_graph(3, 3))), DrawStyle::Plain);
  EXPECT_EQ(drawing_style(drawn(triangular_graph(3, 3), coordinate_names(grid_coordinates(3, 3)))), DrawStyle::Plain);
  EXPECT_EQ(drawing_style(drawn(aztec_diamond_graph(3), coordinate_names(aztec_diamond_coordinates(3)))),
            DrawStyle::Dominoes);
  EXPECT_EQ(drawing_style(drawn(hexagon_graph(2, 2, 2), coordinate_names(hexagon_coordinates(2, 2, 2)))),
            DrawStyle::Lozenges);
}

TEST(WhichSvg, GridWithCoordinatesIsDrawnAsDominoes) {
  const EdgeList g = grid_graph(4, 6);
  const DrawnGraph d = drawn(g, coordinate_names(grid_coordinates(4, 6)));
  ASSERT_EQ(drawing_style(d), DrawStyle::Dominoes);
  // Rows 0 and 1 horizontal, rows 2 and 3 vertical dominoes.
  std::vector<char> matched(g.edges.size(), 0);
  std::map<std::string, std::set<std::pair<long, long>>> want;  // class -> top-left cells (x, y)
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const auto [u, v] = g.edges[i];
    const int r = u / 6, c = u % 6;
    const bool horizontal = v == u + 1;
    if ((r < 2 && horizontal && c % 2 == 0) || (r == 2 && !horizontal)) {
      matched[i] = 1;
      want[std::string(horizontal ? "h-" : "v-") + ((r + c) % 2 ? "odd" : "even")].insert({c, r});
    }
  }
  const std::string svg = matching_svg(d, matched);
  ASSERT_TRUE(well_formed(svg));
  EXPECT_EQ(svg.find("<circle"), std::string::npos);  // no vertices, no unmatched edges
  std::size_t total = 0;
  for (const char* cls : {"h-even", "h-odd", "v-even", "v-odd"}) {
    std::set<std::pair<long, long>> got;
    for (const auto& [x, y, shape] : shapes(path_data(svg, std::string("domino ") + cls))) {
      EXPECT_EQ(shape, cls[0] == 'h' ? "h2v1h-2" : "h1v2h-1") << cls;
      got.insert({x, y});
    }
    EXPECT_EQ(got, want[cls]) << cls;
    EXPECT_EQ(got.size(), 3u) << cls;
    total += got.size();
  }
  EXPECT_EQ(total, 12u);
}

TEST(WhichSvg, HexagonIsDrawnAsLozengesOfThreeOrientations) {
  // Every lozenge tiling of the hexagon A, B, C has BC lozenges without a horizontal side and
  // AB, AC of the two tilted kinds.
  const int a = 2, b = 3, c = 4;
  const EdgeList g = hexagon_graph(a, b, c);
  const DrawnGraph d = drawn(g, coordinate_names(hexagon_coordinates(a, b, c)));
  ASSERT_EQ(drawing_style(d), DrawStyle::Lozenges);
  const std::string svg = matching_svg(d, perfect_matching(g));
  ASSERT_TRUE(well_formed(svg));
  std::map<std::string, std::size_t> count;
  for (const char* cls : {"vertical", "slash", "backslash"})
    for (const auto& [x, y, shape] : shapes(path_data(svg, std::string("lozenge ") + cls))) {
      ++count[cls];
      // Half an edge is 15 units across, a strip 26 down.
      EXPECT_EQ(shape, std::string(cls) == "vertical" ? "l15 26l-15 26l-15-26" : cls[0] == 's' ? "h30l15 26h-30" : "h30l-15 26h-30");
    }
  EXPECT_EQ(count["vertical"], std::size_t(b * c));
  EXPECT_EQ(count["slash"] + count["backslash"], std::size_t(a * b + a * c));
  EXPECT_TRUE(count["slash"] == std::size_t(a * b) || count["slash"] == std::size_t(a * c));
  // The other parity of c (up-pointing triangles at even c) is the same picture shifted.
  std::vector<std::string> shifted;
  for (auto [r, col] : hexagon_coordinates(a, b, c)) shifted.push_back(std::to_string(r) + "," + std::to_string(col + 1));
  EXPECT_EQ(drawing_style(drawn(g, shifted)), DrawStyle::Lozenges);
  EXPECT_TRUE(well_formed(marginals_svg(d, std::vector<double>(g.edges.size(), 1.0 / 3))));
}

TEST(WhichSvg, TutteEmbeddingOfC60) {
  const EdgeList g = c60_graph();
  const auto t = svg_detail::tutte_layout(g.vertices, g.edges);
  ASSERT_TRUE(t.has_value());
  ASSERT_EQ(t->pinned.size(), 6u);  // a largest face: a hexagon
  std::vector<char> pinned(60, 0);
  for (int v : t->pinned) {
    pinned[static_cast<std::size_t>(v)] = 1;
    EXPECT_NEAR(std::hypot(t->at[static_cast<std::size_t>(v)].x, t->at[static_cast<std::size_t>(v)].y), 1.0, 1e-12);
  }
  std::vector<std::vector<int>> adj(60);
  for (auto [u, v] : g.edges) adj[u].push_back(v), adj[v].push_back(u);
  for (int v = 0; v < 60; ++v) {
    const Point p = t->at[static_cast<std::size_t>(v)];
    if (pinned[static_cast<std::size_t>(v)]) continue;
    EXPECT_LT(std::hypot(p.x, p.y), 1 - 1e-3) << v;  // strictly inside the circle
    double mx = 0, my = 0;                           // at the mean of its neighbours
    for (int w : adj[static_cast<std::size_t>(v)]) mx += t->at[static_cast<std::size_t>(w)].x / 3, my += t->at[static_cast<std::size_t>(w)].y / 3;
    EXPECT_NEAR(p.x, mx, 1e-8);
    EXPECT_NEAR(p.y, my, 1e-8);
  }
  // The pinned face is a convex polygon (turns one way at every corner).
  int left = 0, right = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    const Point a = t->at[static_cast<std::size_t>(t->pinned[i])], b = t->at[static_cast<std::size_t>(t->pinned[(i + 1) % 6])],
                c = t->at[static_cast<std::size_t>(t->pinned[(i + 2) % 6])];
    ((b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x) > 0 ? left : right)++;
  }
  EXPECT_TRUE(left == 6 || right == 6);
  // An embedding: no two vertices together, no two edges crossing.
  for (int u = 0; u < 60; ++u)
    for (int v = u + 1; v < 60; ++v)
      EXPECT_GT(std::hypot(t->at[u].x - t->at[v].x, t->at[u].y - t->at[v].y), 1e-3) << u << " " << v;
  int crossings = 0;
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    for (std::size_t j = i + 1; j < g.edges.size(); ++j) {
      const auto [a, b] = g.edges[i];
      const auto [c, d] = g.edges[j];
      if (a == c || a == d || b == c || b == d) continue;
      crossings += segments_cross(t->at[a], t->at[b], t->at[c], t->at[d]);
    }
  EXPECT_EQ(crossings, 0);
  EXPECT_EQ(svg_detail::layout_graph(g.vertices, g.edges).method, svg_detail::LayoutMethod::Tutte);
  const std::string svg = matching_svg(numbered(g), perfect_matching(g), {"C60 & a <matching>"});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("<title>C60 &amp; a &lt;matching&gt;</title>"), std::string::npos);
}

TEST(WhichSvg, GraphsTutteCannotDrawFallBack) {
  // A pendant vertex (not 2-connected) and a tree: Tutte's embedding is refused; the layout
  // still gives every vertex its own place.
  const EdgeList pendant{5, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 4}}};
  EXPECT_FALSE(svg_detail::tutte_layout(5, pendant.edges).has_value());
  const auto layout = svg_detail::layout_graph(5, pendant.edges);
  EXPECT_EQ(layout.method, svg_detail::LayoutMethod::Force);
  // Two components, an isolated vertex, a loop and a repeated edge.
  const EdgeList parts{9, {{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 6}, {6, 3}, {3, 5}, {7, 7}, {0, 1}}};
  const auto at = svg_detail::layout_graph(9, parts.edges).at;
  for (std::size_t u = 0; u < at.size(); ++u)
    for (std::size_t v = u + 1; v < at.size(); ++v) EXPECT_GT(std::hypot(at[u].x - at[v].x, at[u].y - at[v].y), 0.1);
  EXPECT_TRUE(well_formed(matching_svg(numbered(parts), std::vector<char>(parts.edges.size(), 0))));
}

TEST(WhichSvg, ForceLayoutIsDeterministic) {
  const EdgeList g = petersen_graph();  // not planar: the force layout
  const auto a = svg_detail::layout_graph(g.vertices, g.edges), b = svg_detail::layout_graph(g.vertices, g.edges);
  EXPECT_EQ(a.method, svg_detail::LayoutMethod::Force);
  for (std::size_t v = 0; v < a.at.size(); ++v) {
    EXPECT_EQ(a.at[v].x, b.at[v].x);
    EXPECT_EQ(a.at[v].y, b.at[v].y);
  }
  const std::vector<char> matched = perfect_matching(g);
  EXPECT_EQ(matching_svg(numbered(g), matched), matching_svg(numbered(g), matched));
}

TEST(WhichSvg, MarginalsPictures) {
  const EdgeList petersen = petersen_graph();
  std::vector<double> p(petersen.edges.size(), 0.4);
  p[0] = 1, p[1] = 0, p[2] = std::nan("");
  const std::string plain = marginals_svg(numbered(petersen), p);
  ASSERT_TRUE(well_formed(plain));
  std::size_t titles = 0;
  for (std::size_t at = plain.find("<title>"); at != std::string::npos; at = plain.find("<title>", at + 1)) ++titles;
  EXPECT_EQ(titles, petersen.edges.size());  // a tooltip per edge
  EXPECT_NE(plain.find("linearGradient"), std::string::npos);  // the colour bar
  const EdgeList grid = grid_graph(3, 4);
  const std::string dominoes =
      marginals_svg(drawn(grid, coordinate_names(grid_coordinates(3, 4))), std::vector<double>(grid.edges.size(), 0.5));
  ASSERT_TRUE(well_formed(dominoes));
  // Every edge a unit segment between cell centres, all in the bin of 1/2.
  std::size_t segments = 0;
  const std::string d = path_data(dominoes, "p10");
  for (char ch : d) segments += ch == 'h' || ch == 'v';
  EXPECT_EQ(segments, grid.edges.size());
  // Sizes must agree and edges name vertices of the graph.
  EXPECT_THROW(marginals_svg(numbered(petersen), {0.5}), UsageError);
  EXPECT_THROW(matching_svg(DrawnGraph{{"a"}, {{0, 1}}}, {1}), UsageError);
  EXPECT_TRUE(well_formed(matching_svg(DrawnGraph{}, {})));  // an empty graph is an empty picture
}

TEST(WhichSvg, AMillionCellsOfDominoesStayCompact) {
  constexpr int n = 1000;
  const EdgeList g = grid_graph(n, n);
  const DrawnGraph d = drawn(g, coordinate_names(grid_coordinates(n, n)));
  // Pairs of rows alternately tiled by horizontal and by vertical dominoes.
  std::vector<char> matched(g.edges.size(), 0);
  std::size_t dominoes = 0;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const auto [u, v] = g.edges[i];
    const int r = u / n, c = u % n;
    const bool horizontal = v == u + 1;
    if ((r / 2) % 2 == 0 ? horizontal && c % 2 == 0 : !horizontal && r % 2 == 0) matched[i] = 1, ++dominoes;
  }
  ASSERT_EQ(dominoes, std::size_t(n) * n / 2);
  const std::string svg = matching_svg(d, matched);
  EXPECT_LT(double(svg.size()) / double(dominoes), 20.0) << svg.size() << " bytes";
  std::size_t closed = 0;
  for (char ch : svg) closed += ch == 'z';
  EXPECT_EQ(closed, dominoes);
  EXPECT_EQ(svg.compare(svg.size() - 7, 7, "</svg>\n"), 0);
}
