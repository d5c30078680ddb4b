// Edge lists: bipartite (left/right name spaces), undirected graphs (2-coloured) and digraphs.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/bipartite.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

/// Vertex names numbered in order of first appearance.
class NameTable {
 public:
  int id(std::string_view name, const LineReader& reader) {
    const auto it = map_.find(name);
    if (it != map_.end()) return it->second;
    if (names.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
      reader.fail("too many vertices");
    const int k = static_cast<int>(names.size());
    names.emplace_back(name);
    map_.emplace(names.back(), k);
    return k;
  }
  std::vector<std::string> names;

 private:
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> map_;
};

/// A vertex name as shown in messages (shortened when long).
std::string shown(const std::string& name) {
  return name.size() > 40 ? name.substr(0, 40) + "..." : name;
}

/// The weight in a networkx attribute dict such as "{'weight': 2.5}" ("{}" is weight 1).
Num dict_weight(std::string_view line, std::string_view dict_start, LineReader& reader,
                NumPool& pool) {
  std::string_view d = line.substr(static_cast<std::size_t>(dict_start.data() - line.data()));
  while (!d.empty() && (d.back() == ' ' || d.back() == '\t')) d.remove_suffix(1);
  if (d.size() < 2 || d.front() != '{' || d.back() != '}')
    reader.fail("malformed attribute dict " + quote(d) + ": expected 'u v [weight]'");
  std::size_t at = d.find("'weight'");
  if (at == std::string_view::npos) at = d.find("\"weight\"");
  if (at == std::string_view::npos) return Num{1, 0, -1};
  std::size_t i = at + 8;
  while (i < d.size() && (d[i] == ' ' || d[i] == '\t')) ++i;
  if (i == d.size() || d[i] != ':') reader.fail("malformed attribute dict " + quote(d));
  ++i;
  while (i < d.size() && (d[i] == ' ' || d[i] == '\t')) ++i;
  std::size_t j = i;
  while (j < d.size() && d[j] != ',' && d[j] != '}' && d[j] != ' ' && d[j] != '\t') ++j;
  const std::string_view token = d.substr(i, j - i);
  Num w;
  const NumStatus st = parse_number(token, w, pool);
  if (st != NumStatus::Ok) reader.fail(number_error(token, st));
  return w;
}

std::pair<int, int> ordered_key(const RawEntry& e) { return {e.a, e.b}; }
std::pair<int, int> unordered_key(const RawEntry& e) {
  return {std::min(e.a, e.b), std::max(e.a, e.b)};
}

constexpr const char* kHafnian =
    "(perfect matchings of general graphs are a hafnian, which matchcount does not count)";

}  // namespace

void read_edge_list(LineReader& reader, InputFormat as, const ReadOptions& options,
                    ReadResult& result) {
  const bool bipartite = as == InputFormat::Bipartite || as == InputFormat::Auto;
  const bool graph = as == InputFormat::Graph;
  NameTable left, right;  // graph and digraph use `left` only
  NumPool pool;
  std::vector<RawEntry> entries;
  Tokens t;
  std::string_view line;

  // Remembered to spot a banner-less coordinate file read as an edge list by mistake.
  bool first_looks_like_size_line = false;
  std::uint64_t first_nnz = 0;

  while (reader.next(line)) {
    const int n = tokenize(line, t);
    if (n == 0 || t[0].front() == '#' || t[0].front() == '%') continue;
    Num w{1, 0, -1};
    if (n >= 3 && t[2].front() == '{') {
      w = dict_weight(line, t[2], reader, pool);
    } else if (n == 3) {
      const NumStatus st = parse_number(t[2], w, pool);
      if (st != NumStatus::Ok) reader.fail(number_error(t[2], st));
    } else if (n != 2) {
      reader.fail("expected 'u v [weight]', found " + std::to_string(n) + " fields");
    }
    if (entries.empty()) {
      std::uint64_t a = 0, b = 0;
      first_looks_like_size_line = n == 3 && t[0] == t[1] && parse_count(t[0], ~0ull, a) &&
                                   parse_count(t[1], ~0ull, b) && parse_count(t[2], ~0ull, first_nnz);
    }
    int a = 0, b = 0;
    if (bipartite) {
      a = left.id(t[0], reader);
      b = right.id(t[1], reader);
    } else {
      a = left.id(t[0], reader);
      b = left.id(t[1], reader);
      if (graph && a == b)
        reader.fail("self-loop on " + shown(left.names[static_cast<std::size_t>(a)]) +
                    ": the graph is not bipartite " + kHafnian);
    }
    entries.push_back({a, b, reader.line_number(), w, Num{}});
  }
  if (entries.empty()) reader.fail_at(0, "empty input: no edges");
  if (as == InputFormat::Auto && first_looks_like_size_line && first_nnz == entries.size() - 1)
    result.notes.push_back(
        "the first line looks like the 'n n nnz' size line of a banner-less coordinate matrix "
        "file; such files are read as matrices when named *.mtx or read as a matrix explicitly");

  const auto& names_a = left.names;
  const auto& names_b = bipartite ? right.names : left.names;
  const char* what = as == InputFormat::Digraph ? "arc" : "edge";
  merge_duplicates(
      entries, pool, options.sum_duplicates, graph ? unordered_key : ordered_key,
      [&](const RawEntry& first, const RawEntry& later) {
        reader.fail_at(later.line, std::string("duplicate ") + what + " " +
                                       shown(names_a[static_cast<std::size_t>(later.a)]) + " " +
                                       shown(names_b[static_cast<std::size_t>(later.b)]) +
                                       " (first on line " + std::to_string(first.line) + ")");
      });

  int rows = 0, cols = 0;
  if (bipartite) {
    rows = static_cast<int>(left.names.size());
    cols = static_cast<int>(right.names.size());
    result.format = "bipartite edge list";
    result.row_names = std::move(left.names);
    result.col_names = std::move(right.names);
    if (rows != cols)
      result.notes.push_back(std::to_string(rows) + " left vertices but " + std::to_string(cols) +
                             " right vertices: no perfect matching");
  } else if (!graph) {
    rows = cols = static_cast<int>(left.names.size());
    result.format = "digraph arc list";
    result.row_names = left.names;
    result.col_names = std::move(left.names);
  } else {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    const std::size_t nv = left.names.size();
    Graph g(nv);
    for (const RawEntry& e : entries)
      boost::add_edge(static_cast<std::size_t>(e.a), static_cast<std::size_t>(e.b), g);
    std::vector<boost::default_color_type> part(nv);
    const auto index = boost::get(boost::vertex_index, g);
    auto colour = boost::make_iterator_property_map(part.begin(), index);
    if (!boost::is_bipartite(g, index, colour)) {
      std::vector<Graph::vertex_descriptor> cycle;
      boost::find_odd_cycle(g, index, std::back_inserter(cycle));
      std::string text;
      const std::size_t shown_count = std::min<std::size_t>(cycle.size(), 8);
      for (std::size_t k = 0; k < shown_count; ++k) text += shown(left.names[cycle[k]]) + " - ";
      text += cycle.size() > shown_count ? std::string("... - ") : std::string();
      text += cycle.empty() ? std::string("?") : shown(left.names[cycle.front()]);
      // The line of the edge that closes the cycle, when it can be found.
      long line_no = 0;
      if (cycle.size() >= 2) {
        const int u = static_cast<int>(cycle.back()), v = static_cast<int>(cycle.front());
        const std::pair<int, int> key{std::min(u, v), std::max(u, v)};
        const auto it = std::lower_bound(
            entries.begin(), entries.end(), key,
            [](const RawEntry& e, const std::pair<int, int>& k) { return unordered_key(e) < k; });
        if (it != entries.end() && unordered_key(*it) == key) line_no = it->line;
      }
      reader.fail_at(line_no, "graph is not bipartite: odd cycle " + text + " " + kHafnian);
    }
    const auto white = boost::color_traits<boost::default_color_type>::white();
    std::vector<int> index_in_class(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      if (part[v] == white) {
        index_in_class[v] = rows++;
        result.row_names.push_back(std::move(left.names[v]));
      } else {
        index_in_class[v] = cols++;
        result.col_names.push_back(std::move(left.names[v]));
      }
    }
    for (RawEntry& e : entries) {
      if (part[static_cast<std::size_t>(e.a)] != white) std::swap(e.a, e.b);
      e.a = index_in_class[static_cast<std::size_t>(e.a)];
      e.b = index_in_class[static_cast<std::size_t>(e.b)];
    }
    result.format = "graph edge list (2-coloured)";
    if (rows != cols)
      result.notes.push_back("the colour classes have " + std::to_string(rows) + " and " +
                             std::to_string(cols) + " vertices: no perfect matching");
  }

  const std::size_t zeros = assemble(rows, cols, entries, pool, false, options, reader, result);
  if (zeros > 0)
    result.notes.push_back(std::to_string(zeros) + (zeros == 1 ? " edge" : " edges") +
                           " of weight 0 dropped");
}

}  // namespace matchcount::io_detail
