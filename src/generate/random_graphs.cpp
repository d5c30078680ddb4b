// Random general graphs: Erdos-Renyi G(n, p) and random simple d-regular graphs.
//
// Both draw from generate_detail::Draws (raw mt19937_64 output, our own arithmetic), so a seed
// gives the same graph on every platform.
//   G(n, p)      pairs (u, v), u < v, in row-major order of the upper triangle, one keep-draw
//                each, as the random matrices do.
//   d-regular    the configuration model: n*d points (d per vertex) in a random order
//                (Fisher-Yates from the top, index j uniform in [0, i] by rejection), paired
//                2k with 2k+1. A pairing is rarely simple for larger d (probability about
//                exp((1 - d^2) / 4)), so instead of drawing again its loops and repeated edges are
//                removed one at a time by switches: bad edge {u, v} and a uniformly drawn edge
//                {x, y} (orientation drawn too) become {u, x} and {v, y} when neither exists
//                and neither is a loop. A switch keeps every degree, removes one defect and
//                creates none, so the repair ends. The result is not exactly uniform, but a
//                sparse pairing has few defects (about (d^2 - 1)/4), so few edges are touched
//                (cf. McKay-Wormald's switchings). For d > (n-1)/2 the complement of a random
//                (n-1-d)-regular graph is returned: sparse pairings repair easily, dense ones
//                do not.

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "generate/draws.hpp"
#include "generate/graph_build.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount {

using generate_detail::check_size;
using generate_detail::Draws;
using generate_detail::finish;

namespace {

constexpr int kMaxRandomN = 1 << 15;  // G(n, p): n^2/2 draws
// The repair keeps a hash table of all edges: about 64 bytes an edge.
constexpr std::int64_t kMaxRegularEdges = std::int64_t(1) << 25;

/// A multigraph under repair: the edge list and the multiplicity of every vertex pair (a hash
/// table, so that a check costs O(1) whatever the degree).
class Pairing {
 public:
  explicit Pairing(std::vector<std::pair<int, int>> edges) : edges_(std::move(edges)) {
    count_.reserve(2 * edges_.size());
    for (auto [u, v] : edges_) ++count_[key(u, v)];
  }
  int multiplicity(int u, int v) const {
    const auto it = count_.find(key(u, v));
    return it == count_.end() ? 0 : it->second;
  }
  bool bad(std::size_t i) const {
    const auto [u, v] = edges_[i];
    return u == v || multiplicity(u, v) > 1;
  }
  /// Replaces edge i = {u, v} and edge j = {x, y} by {u, x} and {v, y} when that adds neither
  /// a loop nor an existing edge; false (nothing changed) otherwise.
  bool try_switch(std::size_t i, std::size_t j, bool flip) {
    const auto [u, v] = edges_[i];
    auto [x, y] = edges_[j];
    if (flip) std::swap(x, y);
    if (u == x || v == y) return false;
    if (multiplicity(u, x) > 0 || multiplicity(v, y) > 0) return false;
    if (key(u, x) == key(v, y)) return false;  // the same new edge twice
    drop(u, v);
    drop(x, y);
    edges_[i] = {u, x};
    edges_[j] = {v, y};
    ++count_[key(u, x)];
    ++count_[key(v, y)];
    return true;
  }
  std::size_t size() const { return edges_.size(); }
  const std::vector<std::pair<int, int>>& edges() const { return edges_; }

 private:
  static std::uint64_t key(int u, int v) {
    const auto [a, b] = std::minmax(u, v);
    return static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
  }
  void drop(int u, int v) {
    const auto it = count_.find(key(u, v));
    if (--it->second == 0) count_.erase(it);
  }
  std::vector<std::pair<int, int>> edges_;
  std::unordered_map<std::uint64_t, int> count_;
};

EdgeList complement(const EdgeList& g) {
  std::vector<std::vector<char>> has(static_cast<std::size_t>(g.vertices),
                                     std::vector<char>(static_cast<std::size_t>(g.vertices), 0));
  for (auto [u, v] : g.edges) has[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)] = 1;
  EdgeList c;
  c.vertices = g.vertices;
  for (int u = 0; u < g.vertices; ++u)
    for (int v = u + 1; v < g.vertices; ++v)
      if (!has[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)]) c.edges.emplace_back(u, v);
  return c;
}

}  // namespace

EdgeList erdos_renyi_graph(int n, double p, std::uint64_t seed) {
  if (n < 0) throw UsageError("gnp: N must be at least 0 (got " + std::to_string(n) + ")");
  if (!(p >= 0.0 && p <= 1.0))
    throw UsageError("gnp: P must be in [0, 1] (got " + std::to_string(p) + ")");
  if (n > kMaxRandomN)
    throw RefusedError("gnp: N = " + std::to_string(n) + " needs N(N-1)/2 random draws; the limit is N <= " +
                       std::to_string(kMaxRandomN));
  Draws draws(seed);
  const auto t = Draws::threshold(p);
  EdgeList g;
  g.vertices = n;
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v)
      if (draws.keep(t)) g.edges.emplace_back(u, v);
  return g;
}

EdgeList random_regular_graph(int n, int d, std::uint64_t seed) {
  if (n < 0) throw UsageError("random-regular: N must be at least 0 (got " + std::to_string(n) + ")");
  if (d < 0 || (n > 0 && d >= n) || (n == 0 && d > 0))
    throw UsageError("random-regular: D must be in [0, N-1] (got D = " + std::to_string(d) +
                     ", N = " + std::to_string(n) + ")");
  if ((static_cast<std::int64_t>(n) * d) % 2 != 0)
    throw UsageError("random-regular: N*D must be even (got " + std::to_string(n) + " * " +
                     std::to_string(d) + "): the degrees sum to twice the edges");
  check_size("random-regular", n, static_cast<std::int64_t>(n) * d / 2);
  if (static_cast<std::int64_t>(n) * std::min(d, n - 1 - d) / 2 > kMaxRegularEdges)
    throw RefusedError("random-regular: N = " + std::to_string(n) + ", D = " + std::to_string(d) +
                       " needs a pairing of more than " + std::to_string(kMaxRegularEdges) +
                       " edges, more than this generator repairs");
  if (2 * d > n - 1) {
    // The complement is built densely (n^2 flags): keep that within the size limit too.
    check_size("random-regular", n, static_cast<std::int64_t>(n) * n / 2);
    EdgeList g = complement(random_regular_graph(n, n - 1 - d, seed));
    return g;
  }
  Draws draws(seed);
  std::vector<int> points;
  points.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(d));
  for (int v = 0; v < n; ++v) points.insert(points.end(), static_cast<std::size_t>(d), v);
  for (std::size_t i = points.size(); i > 1; --i) std::swap(points[i - 1], points[draws.index(i)]);
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(points.size() / 2);
  for (std::size_t k = 0; k + 1 < points.size(); k += 2) pairs.emplace_back(points[k], points[k + 1]);
  Pairing pairing(std::move(pairs));
  const std::size_t edges = pairing.size();
  for (std::size_t i = 0; i < edges; ++i)
    for (std::size_t tries = 0; pairing.bad(i); ++tries) {
      if (tries > 1000 + 100 * edges)
        throw RefusedError("random-regular: no switch repairs the pairing (N = " + std::to_string(n) +
                           ", D = " + std::to_string(d) + ")");
      const std::size_t j = draws.index(edges);
      const bool flip = (draws.raw() >> 63) != 0;
      if (j != i) pairing.try_switch(i, j, flip);
    }
  EdgeList g;
  g.vertices = n;
  g.edges = pairing.edges();
  for (auto& [u, v] : g.edges)
    if (u > v) std::swap(u, v);
  finish(g);
  return g;
}

}  // namespace matchcount
