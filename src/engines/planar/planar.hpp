// What the engines for planar graphs (kasteleyn: bipartite graphs of square blocks; pfaffian:
// general graphs) share on the graph side: planarity, the faces of a plane embedding and the
// spanning tree of its dual along which both sign their edges (the FKT method), the reverse
// Cuthill-McKee order they band their matrices with, and the sign of a permutation (the sign
// of one perfect matching's term). Private to src/engines.
//
// The signing rules differ (a Kasteleyn signing counts -1 edges on a face, a Pfaffian
// orientation counts edges directed along the face's walk), so the rule stays with each
// engine; the traversal it is applied in is the one here.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace matchcount::engines::planar {

/// What the planarity test, the embedding and the orderings hold per edge (an entry of a
/// Kasteleyn block, an undirected edge of a Pfaffian one) while the planar engines prepare a
/// block (measured in docs/benchmarks.md, "Planning at scale"): the planner's predictions
/// (catalog.cpp) add it to the band matrices. The engines check only their bands against what
/// the budget leaves them: the machinery mostly reuses the heap planning left resident, which
/// that figure already counts (docs/benchmarks.md, "Memory budget against the measured peak").
constexpr double kPlanarBytesPerEdge = 300;

/// Undirected edges (u, v) of a simple graph without loops; edge k is entry k.
using EdgeList = std::vector<std::pair<int, int>>;

/// One step of a face's boundary walk: edge `edge` walked away from vertex `from`.
struct FaceStep {
  int from, edge;
};
/// A face as its boundary walk. The walks of all faces turn the same way around their face
/// (the orientation of the plane, or of its mirror image), so a rule about "clockwise" edges
/// may read "along the walk". A bridge lies twice on one face, walked once each way.
using Face = std::vector<FaceStep>;

/// A face whose sign rule is applied, with the one edge of it still free at that point: the
/// dual-tree edge to its parent face.
struct FaceToFix {
  int face, parent_edge;
};

/// The faces of a plane embedding and the order in which to sign them. The edges of a
/// spanning forest of the graph (Kruskal order: edge by edge) are left to the caller's
/// default sign; every other edge joins two distinct faces, and these edges form a spanning
/// tree of each component's dual (tree-cotree duality). Each dual tree is rooted at its first
/// face (the "outer" one: on the sphere any face may be); `leaves_first` lists every other
/// face after all of its children, so that when a face comes, all its edges but the one to
/// its parent have their final sign.
struct FaceTree {
  std::vector<Face> faces;
  std::vector<FaceToFix> leaves_first;
};

/// The face tree of the graph on `vertices` vertices (the left-right test's embedding,
/// lr_planarity.hpp); nullopt when the graph is not planar. Callers with a cheap edge-count
/// bound test it first.
std::optional<FaceTree> face_tree(int vertices, const EdgeList& edges);

/// True when the graph is planar (the left-right test, O(vertices + edges) apart from sorting
/// each adjacency list once).
bool is_planar(int vertices, const EdgeList& edges);

/// The vertices in reverse Cuthill-McKee order (Boost's, from its default start vertices).
std::vector<std::size_t> reverse_cuthill_mckee(int vertices, const EdgeList& edges);

/// The sign of the permutation i -> p[i] of 0..p.size()-1 (by its cycles).
int permutation_sign(const std::vector<int>& p);

}  // namespace matchcount::engines::planar
