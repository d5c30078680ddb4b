// Edge lists: bipartite (left/right name spaces), undirected graphs (2-coloured) and digraphs.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/bipartite.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>

#include "reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t hash_name(std::string_view s) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t k = 0;
    std::memcpy(&k, p, 8);
    h = (h ^ mix64(k)) * 0x9fb21c651e98df25ull;
  }
  std::uint64_t k = 0;
  std::memcpy(&k, p, n);
  return mix64(h ^ k ^ (n << 56));
}

/// Vertex names numbered in order of first appearance: the names lie end to end in one string
/// and an open-addressing table finds them (no allocation per name). A slot holds the hash tag,
/// the id and where the name lies, so a lookup touches the table and the name only. Names that
/// are small decimal numbers without leading zeros (most files) are found in a plain array.
class NameTable {
 public:
  int id(std::string_view name, const LineReader& reader) {
    const std::size_t n = name.size();
    if (n <= 7 && name[0] >= '0' && name[0] <= '9' && (name[0] != '0' || n == 1)) {
      std::size_t v = 0;
      bool digits = true;
      for (char c : name) {
        digits = digits && c >= '0' && c <= '9';
        v = v * 10 + static_cast<std::size_t>(c - '0');
      }
      if (digits && v < kDirect) {
        if (v >= direct_.size()) direct_.resize(std::min(kDirect, std::max(2 * direct_.size(), v + 1)), -1);
        int& k = direct_[v];
        if (k < 0) k = add(name, 0, true, reader);
        return k;
      }
    }
    if (2 * (hashed_ + 1) > slots_.size()) grow();
    const std::uint64_t h = hash_name(name);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id1 == 0) {
        const int k = add(name, h, false, reader);
        slot = Slot{tag, static_cast<std::uint32_t>(k) + 1, where(static_cast<std::size_t>(k))};
        ++hashed_;
        return k;
      }
      if (slot.tag == tag && (slot.where & kSizeMask) == size_field(name.size())) {
        const int k = static_cast<int>(slot.id1 - 1);
        const std::string_view known = size_field(name.size()) == kSizeMask
                                           ? this->name(k)
                                           : std::string_view(arena_).substr(slot.where >> 24, n);
        if (known == name) return k;
      }
    }
  }
  std::size_t count() const { return ends_.size() - 1; }
  std::string_view name(int k) const {
    const std::size_t b = ends_[static_cast<std::size_t>(k)];
    return std::string_view(arena_).substr(b, ends_[static_cast<std::size_t>(k) + 1] - b);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(count());
    for (std::size_t k = 0; k < count(); ++k) out.emplace_back(name(static_cast<int>(k)));
    return out;
  }

 private:
  struct Slot {
    std::uint32_t tag = 0;
    std::uint32_t id1 = 0;    // id + 1; 0 = empty
    std::uint64_t where = 0;  // start in the arena << 24 | size (kSizeMask: look in ends_)
  };
  static constexpr std::uint64_t kSizeMask = (std::uint64_t(1) << 24) - 1;
  static std::uint64_t size_field(std::size_t size) { return std::min<std::uint64_t>(size, kSizeMask); }
  std::uint64_t where(std::size_t k) const {
    return static_cast<std::uint64_t>(ends_[k]) << 24 | size_field(ends_[k + 1] - ends_[k]);
  }
  static constexpr std::size_t kDirect = std::size_t(1) << 20;

  int add(std::string_view name, std::uint64_t h, bool direct, const LineReader& reader) {
    if (count() >= static_cast<std::size_t>(std::numeric_limits<int>::max()) - 1)
      reader.fail("too many vertices");
    arena_.append(name);
    ends_.push_back(arena_.size());
    hashes_.push_back(h);
    direct_name_.push_back(direct);
    return static_cast<int>(count() - 1);
  }
  void grow() {
    slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = 0; k < count(); ++k) {
      if (direct_name_[k]) continue;
      std::size_t i = hashes_[k] & mask;
      while (slots_[i].id1 != 0) i = (i + 1) & mask;
      slots_[i] = Slot{static_cast<std::uint32_t>(hashes_[k] >> 32),
                       static_cast<std::uint32_t>(k) + 1, where(k)};
    }
  }
  std::string arena_;
  std::vector<std::size_t> ends_{0};
  std::vector<std::uint64_t> hashes_;
  std::vector<bool> direct_name_;  // found through direct_, not the table
  std::vector<Slot> slots_;
  std::size_t hashed_ = 0;
  std::vector<int> direct_;
};

/// A vertex name as shown in messages (shortened when long).
std::string shown(std::string_view name) {
  return name.size() > 40 ? std::string(name.substr(0, 40)) + "..." : std::string(name);
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
      reader.fail("expected 'u v [weight]', found " + fields(n));
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
        reader.fail("self-loop on " + shown(left.name(a)) +
                    ": the graph is not bipartite " + kHafnian);
    }
    entries.push_back({a, b, reader.line_number(), w, Num{}});
  }
  if (entries.empty()) reader.fail_at(0, "empty input: no edges");
  if (as == InputFormat::Auto && first_looks_like_size_line && first_nnz == entries.size() - 1)
    result.notes.push_back(
        "the first line looks like the 'n n nnz' size line of a banner-less coordinate matrix "
        "file; such files are read as matrices when named *.mtx or read as a matrix explicitly");

  const NameTable& names_a = left;
  const NameTable& names_b = bipartite ? right : left;
  const char* what = as == InputFormat::Digraph ? "arc" : "edge";
  merge_duplicates(
      entries, pool, options.sum_duplicates, graph ? unordered_key : ordered_key,
      [&](const RawEntry& first, const RawEntry& later) {
        reader.fail_at(later.line, std::string("duplicate ") + what + " " +
                                       shown(names_a.name(later.a)) + " " +
                                       shown(names_b.name(later.b)) +
                                       " (first on line " + std::to_string(first.line) + ")");
      });

  int rows = 0, cols = 0;
  if (bipartite) {
    rows = static_cast<int>(left.count());
    cols = static_cast<int>(right.count());
    result.format = "bipartite edge list";
    result.row_names = left.names();
    result.col_names = right.names();
    if (rows != cols)
      result.notes.push_back(std::to_string(rows) + " left vertices but " + std::to_string(cols) +
                             " right vertices: no perfect matching");
  } else if (!graph) {
    rows = cols = static_cast<int>(left.count());
    result.format = "digraph arc list";
    result.row_names = left.names();
    result.col_names = result.row_names;
  } else {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    const std::size_t nv = left.count();
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
      for (std::size_t k = 0; k < shown_count; ++k) text += shown(left.name(static_cast<int>(cycle[k]))) + " - ";
      text += cycle.size() > shown_count ? std::string("... - ") : std::string();
      text += cycle.empty() ? std::string("?") : shown(left.name(static_cast<int>(cycle.front())));
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
        result.row_names.emplace_back(left.name(static_cast<int>(v)));
      } else {
        index_in_class[v] = cols++;
        result.col_names.emplace_back(left.name(static_cast<int>(v)));
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
