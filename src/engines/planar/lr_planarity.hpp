// The left-right planarity test (de Fraysseix and Rosenstiehl; in the form of U. Brandes, "The
// Left-Right Planarity Test", 2009) with the plane embedding it yields, for planar.cpp. Boost's
// Boyer-Myrvold walks along the outer faces of its partial embeddings without the short-cuts
// that make it linear, and on lattices those walks grow with the side: its time grows as
// n^1.5 on square grids (docs/benchmarks.md, "Sparse LU log-determinants"). This test runs
// three depth-first searches, each linear, and sorts every adjacency list once. Private to
// src/engines.
#pragma once

#include <optional>
#include <vector>

#include "engines/planar/planar.hpp"

namespace matchcount::engines::planar {

/// A plane embedding as a rotation system. Half-edge 2k is edge k = (u, v) leaving u, 2k + 1
/// leaving v; next[h] is the half-edge after h around its origin, in the same sense at every
/// vertex (so the faces are the orbits of h -> next[h ^ 1]).
struct Rotation {
  std::vector<int> next;
};

/// The embedding of the graph on `vertices` vertices (simple, no loops); nullopt when it is not
/// planar. With `embed` false only the test runs (a Rotation with no half-edges when planar).
std::optional<Rotation> lr_planarity(int vertices, const EdgeList& edges, bool embed = true);

}  // namespace matchcount::engines::planar
