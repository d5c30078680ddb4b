// Undirected graphs: repeated edges (symmetric pairs) and the 2-colouring into a bipartite
// biadjacency matrix. Shared by edge lists read as graphs, KONECT "sym" files and DIMACS.
#include <algorithm>
#include <iterator>

#include "io/names.hpp"
#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

std::string duplicate_edge_message(const char* what, const std::string& u, const std::string& v,
                                   long earlier) {
  return std::string("duplicate ") + what + " " + shown(u) + " " + shown(v) + " (first on line " +
         std::to_string(earlier) + "): --sum-duplicates adds the weights of repeated " + what + "s";
}

namespace {

std::pair<int, int> unordered_key(const RawEntry& e) {
  return {std::min(e.a, e.b), std::max(e.a, e.b)};
}

std::uint64_t packed(const std::pair<int, int>& k) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.first)) << 32) |
         static_cast<std::uint32_t>(k.second);
}

bool same_value(const NumPool& pool, const Num& x, const Num& y) {
  if (x.big < 0 && y.big < 0) return x.mant == y.mant && x.scale == y.scale;
  return pool.to_rational(x) == pool.to_rational(y);
}

}  // namespace

bool merge_undirected(std::vector<RawEntry>& entries, NumPool& pool, bool sum,
                      const LineReader& reader, const NameOf& name, ReadResult& result) {
  const std::size_t n = entries.size();
  if (!sum && n > 0) {
    // Groups of entries on the same vertex pair, each in file order.
    std::vector<std::pair<std::uint64_t, std::size_t>> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = {packed(unordered_key(entries[i])), i};
    std::sort(order.begin(), order.end());
    std::size_t singles = 0, pairs = 0;
    bool plain_repeat = false;   // a pair in one direction, different weights, or three or more
    std::size_t pair_at = n;     // the pair whose second line comes first in the file
    for (std::size_t k = 0; k < n;) {
      std::size_t end = k + 1;
      while (end < n && order[end].first == order[k].first) ++end;
      if (end - k == 1) {
        ++singles;
      } else if (end - k == 2) {
        const RawEntry& x = entries[order[k].second];
        const RawEntry& y = entries[order[k + 1].second];
        if (x.a == y.b && x.b == y.a && same_value(pool, x.re, y.re)) {
          ++pairs;
          if (pair_at == n || order[k + 1].second < order[pair_at + 1].second) pair_at = k;
        } else {
          plain_repeat = true;
        }
      } else {
        plain_repeat = true;
      }
      k = end;
    }
    if (!plain_repeat && pairs > 0 && singles == 0) {
      std::vector<RawEntry> out;
      out.reserve(pairs);
      for (std::size_t k = 0; k < n; k += 2) out.push_back(entries[order[k].second]);
      entries = std::move(out);
      result.notes.push_back("every edge is listed twice, as u v and v u: each pair is read as one edge");
      return true;
    }
    if (!plain_repeat && pairs > 0) {
      const RawEntry& first = entries[order[pair_at].second];
      const RawEntry& later = entries[order[pair_at + 1].second];
      reader.fail_at(later.line,
                     "duplicate edge " + shown(name(later.a)) + " " + shown(name(later.b)) +
                         " (first on line " + std::to_string(first.line) + " as " +
                         shown(name(first.a)) + " " + shown(name(first.b)) + "): " +
                         std::to_string(pairs) + (pairs == 1 ? " edge is" : " edges are") +
                         " listed in both directions but " + std::to_string(singles) +
                         " only once; list every edge once or every edge in both directions "
                         "(--sum-duplicates adds the weights of repeated edges)");
    }
  }
  merge_duplicates(entries, pool, sum, unordered_key, [&](const RawEntry& first, const RawEntry& later) {
    reader.fail_at(later.line, duplicate_edge_message("edge", name(later.a), name(later.b), first.line));
  });
  return false;
}

std::pair<int, int> two_colour(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                               ReadResult& result) {
  // Breadth first over compressed adjacency lists (a few bytes per edge; a Boost graph took
  // about a hundred): the least vertex of each component is white (a row), and the colouring
  // of a connected bipartite graph is fixed by one vertex, so the classes are Boost's
  // is_bipartite's.
  const auto nv = static_cast<std::size_t>(vertices);
  std::vector<std::size_t> start(nv + 1, 0);
  for (const RawEntry& e : entries) ++start[static_cast<std::size_t>(e.a) + 1], ++start[static_cast<std::size_t>(e.b) + 1];
  for (std::size_t v = 0; v < nv; ++v) start[v + 1] += start[v];
  std::vector<int> adj(start[nv]);
  {
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (const RawEntry& e : entries) adj[fill[std::size_t(e.a)]++] = e.b, adj[fill[std::size_t(e.b)]++] = e.a;
  }
  enum : signed char { kUnset = -1, kWhite = 0, kBlack = 1 };
  std::vector<signed char> part(nv, kUnset);
  std::vector<int> queue;
  for (std::size_t root = 0; root < nv; ++root) {
    if (part[root] != kUnset) continue;
    part[root] = kWhite;
    queue.assign(1, int(root));
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const auto v = std::size_t(queue[h]);
      for (std::size_t k = start[v]; k < start[v + 1]; ++k) {
        const auto u = std::size_t(adj[k]);
        if (part[u] == kUnset) part[u] = part[v] == kWhite ? kBlack : kWhite, queue.push_back(int(u));
        else if (part[u] == part[v]) return {-1, -1};
      }
    }
  }
  adj = {};
  start = {};
  const signed char white = kWhite;
  std::vector<int> index_in_class(nv);
  int rows = 0, cols = 0;
  for (std::size_t v = 0; v < nv; ++v) {
    if (part[v] == white) {
      index_in_class[v] = rows++;
      result.row_names.push_back(name(static_cast<int>(v)));
    } else {
      index_in_class[v] = cols++;
      result.col_names.push_back(name(static_cast<int>(v)));
    }
  }
  for (RawEntry& e : entries) {
    if (part[static_cast<std::size_t>(e.a)] != white) std::swap(e.a, e.b), e.reversed = !e.reversed;
    e.a = index_in_class[static_cast<std::size_t>(e.a)];
    e.b = index_in_class[static_cast<std::size_t>(e.b)];
  }
  if (rows != cols)
    result.notes.push_back("the colour classes have " + std::to_string(rows) + " and " +
                           std::to_string(cols) + " vertices: no perfect matching");
  return {rows, cols};
}

namespace {

/// Removes the self-loops (they lie in no perfect matching) with a note and a zero hint.
void drop_loops(std::vector<RawEntry>& entries, ReadResult& result) {
  std::size_t loops = 0;
  long first = 0;
  for (const RawEntry& e : entries)
    if (e.a == e.b) {
      ++loops;
      if (first == 0 || e.line < first) first = e.line;
    }
  if (loops == 0) return;
  std::erase_if(entries, [](const RawEntry& e) { return e.a == e.b; });
  result.notes.push_back(std::to_string(loops) + (loops == 1 ? " self-loop (line " : " self-loops (first on line ") +
                         std::to_string(first) +
                         ") ignored: a loop lies in no perfect matching; --loop-hafnian counts loops as weights");
  result.zero_hint = std::to_string(loops) + (loops == 1 ? " self-loop was" : " self-loops were") +
                     " ignored: --loop-hafnian also counts the matchings that cover vertices by their loops";
}

}  // namespace

void symmetric_adjacency(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                         const ReadOptions& options, ReadResult& result) {
  if (!options.loops) drop_loops(entries, result);
  std::vector<RawEntry> out;
  out.reserve(2 * entries.size());
  for (const RawEntry& e : entries) {
    out.push_back(e);
    if (e.a == e.b) continue;
    RawEntry mirror = e;
    std::swap(mirror.a, mirror.b);
    mirror.reversed = !e.reversed;
    out.push_back(mirror);
  }
  entries = std::move(out);
  result.row_names.clear();
  for (int v = 0; v < vertices; ++v) result.row_names.push_back(name(v));
  result.col_names = result.row_names;
  result.symmetric_graph = true;
}

std::pair<int, int> read_undirected(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                                    const ReadOptions& options, ReadResult& result) {
  const bool self_loops =
      std::any_of(entries.begin(), entries.end(), [](const RawEntry& e) { return e.a == e.b; });
  if (!options.hafnian && !(self_loops && options.loops)) {
    drop_loops(entries, result);
    const auto sides = two_colour(vertices, entries, name, result);
    if (sides.first >= 0) return sides;
    result.notes.push_back("the graph is not bipartite: its perfect matchings are counted as a hafnian");
  }
  symmetric_adjacency(vertices, entries, name, options, result);
  return {vertices, vertices};
}

}  // namespace matchcount::io_detail
