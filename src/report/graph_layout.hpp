// Where the pictures of matchings (matchcount/svg.hpp) put the vertices of a graph whose names are
// not coordinates: Tutte's barycentric embedding for planar components, a force layout for
// small other ones, a circle for large other ones. Private to src/report.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace matchcount::svg_detail {

struct Point {
  double x = 0, y = 0;
};

using Edges = std::vector<std::pair<int, int>>;

/// Components above this size are not given Tutte's embedding (its linear system would take
/// too long to solve); above kForceMax the force layout is not tried (it is O(n^2) a step).
constexpr int kTutteMax = 200000;
constexpr int kForceMax = 2000;

/// Tutte's embedding of a connected simple planar graph: the vertices of its largest face
/// whose boundary is a simple cycle (`pinned`, in the boundary's order) lie evenly on the unit
/// circle, every other vertex at the mean of its neighbours (the Laplacian system, solved by
/// conjugate gradients). nullopt when the graph is not planar, has no such face, or the result
/// is not an embedding: every inner face must turn the same way with a positive area and the
/// areas must add up to the pinned face's (a graph that is not 3-connected may fold or put
/// vertices on top of each other), or the solver did not converge.
struct TutteLayout {
  std::vector<Point> at;
  std::vector<int> pinned;
};
std::optional<TutteLayout> tutte_layout(int vertices, const Edges& edges);

/// Fruchterman-Reingold from a fixed pseudo-random start: the same graph gets the same
/// layout on every run. O(n^2) per step, for n <= kForceMax.
std::vector<Point> force_layout(int vertices, const Edges& edges);

enum class LayoutMethod { Tutte, Force, Circle };

/// Positions for any graph (loops and repeated edges allowed): each connected component by
/// Tutte's embedding when it is planar and the embedding checks out, else the force layout
/// (up to kForceMax vertices), else a circle; each scaled so that its median edge is 1 long,
/// and the components packed in rows, largest first. `method` is that of the largest component.
struct Layout {
  std::vector<Point> at;
  LayoutMethod method = LayoutMethod::Circle;
};
Layout layout_graph(int vertices, const Edges& edges);

}  // namespace matchcount::svg_detail
