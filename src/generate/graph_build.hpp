// Helpers the graph families share: the size limit and the edge-list normal form (u < v,
// sorted, no repeats). Private to src/generate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount::generate_detail {

// Sizes above these are refused: the edge list alone would take gigabytes.
constexpr std::int64_t kMaxVertices = std::int64_t(1) << 27;
constexpr std::int64_t kMaxEdges = std::int64_t(1) << 28;

inline void check_size(const char* family, std::int64_t vertices, std::int64_t edges) {
  if (vertices > kMaxVertices || edges > kMaxEdges)
    throw RefusedError(std::string(family) + ": " + std::to_string(vertices) + " vertices and " +
                       std::to_string(edges) + " edges is more than this generator writes (limits " +
                       std::to_string(kMaxVertices) + " vertices, " + std::to_string(kMaxEdges) +
                       " edges)");
}

inline void add_edge(EdgeList& g, int u, int v) {
  if (u > v) std::swap(u, v);
  g.edges.emplace_back(u, v);
}

/// Sorts the edges and drops repeats.
inline void finish(EdgeList& g) {
  std::sort(g.edges.begin(), g.edges.end());
  g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
}

}  // namespace matchcount::generate_detail
