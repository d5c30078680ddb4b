// Pictures of perfect matchings as standalone SVG: one matching (--sample 1 --svg) or every
// edge shaded by its probability (--marginals --svg).
//
// Where the vertices go:
//   - every name is a coordinate "r,c" or "(r, c)" (integers, spaces allowed): row r (down),
//     column c (right);
//   - otherwise, per connected component, Tutte's barycentric embedding of a planar component
//     (its largest simple face pinned on a circle), a force layout (Fruchterman-Reingold from a
//     fixed start, deterministic) of another component of at most 2000 vertices, a circle
//     beyond (graph_layout.hpp).
// How they are drawn:
//   - Dominoes (square lattice): coordinates, and every edge joins (r,c) to (r,c+1) or (r+1,c).
//     Vertex (r,c) is the unit cell [c,c+1] x [r,r+1]; a matched edge is the 2 x 1 domino on
//     its two cells, in one of the four colours of Aztec-diamond pictures: horizontal or
//     vertical, with the left (top) cell of even or odd r+c. Nothing else is drawn. Each
//     colour is one <path> of relative moves, about 14 bytes a domino.
//   - Lozenges (honeycomb): coordinates in the triangular-lattice convention of
//     matchcount-generate hexagon --names coordinates (matchcount/generate.hpp,
//     hexagon_coordinates): vertex (r,c) is a unit triangle in horizontal strip r, c its place
//     along the strip in the sheared frame; up- and down-pointing triangles alternate in c.
//     Every edge joins (r,c) to (r,c+1) or an up-pointing (r,c) to (r+1,c-1), and the
//     up-pointing ones are those of one parity of c (c odd in the generator; the other parity
//     is taken too). A matched edge is the lozenge of its two triangles, in one of three
//     colours by its orientation (the "stacked cubes" picture).
//   - Plain (anything else): vertices as dots (named when there are at most 40), every edge
//     a thin grey line, the matched ones thick.
// Marginals: the lattices draw each edge as the segment between its cells' (triangles')
// centres, plain graphs as lines, coloured (and, plain, widened) by the probability, with a
// colour bar; plain graphs of at most 5000 edges carry each value as a <title> tooltip.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace matchcount {

/// A graph to draw: n = names.size() vertices, undirected edges (u, v) with 0 <= u, v < n,
/// each once (a loop is never drawn).
struct DrawnGraph {
  std::vector<std::string> names;
  std::vector<std::pair<int, int>> edges;
};

struct SvgOptions {
  std::string title;  ///< a <title> of the picture (shown by viewers), when not empty
};

/// One matching: `matched[i]` says whether edges[i] is in it. UsageError when the sizes differ
/// or an edge names a vertex outside the graph.
std::string matching_svg(const DrawnGraph& g, const std::vector<char>& matched, const SvgOptions& options = {});
/// Edge probabilities p[i] of edges[i] (clamped to [0, 1]; NaN drawn as 0). UsageError as
/// matching_svg.
std::string marginals_svg(const DrawnGraph& g, const std::vector<double>& p, const SvgOptions& options = {});

enum class DrawStyle { Dominoes, Lozenges, Plain };

/// The style a graph is drawn in (above).
DrawStyle drawing_style(const DrawnGraph& g);

}  // namespace matchcount
