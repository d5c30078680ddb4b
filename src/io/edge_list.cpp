// Edge lists: bipartite (left/right name spaces), undirected graphs (2-coloured) and digraphs,
// with or without a KONECT header. Vertex names are tokens, or tuple names such as networkx's
// "(0, 1)" (names.hpp).
#include <algorithm>
#include <array>
#include <string>
#include <tuple>

#include "io/names.hpp"
#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

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

/// Splits a line whose first or second field is a tuple name (names.hpp): the two names, in
/// Python's spelling (held in `spelt`), then the other fields as tokenize splits them.
int split_tuple_names(std::string_view line, Tokens& t, std::array<std::string, 2>& spelt,
                      const LineReader& reader) {
  std::size_t i = 0;
  int count = 0;
  for (; count < 2; ++count) {
    while (i < line.size() && is_name_space(line[i])) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    if (line[i] == '(') {
      i = tuple_name_end(line, start);
      if (i == std::string_view::npos)
        reader.fail("unclosed '(' in the vertex name " + quote(line.substr(start)) +
                    ": a name that starts with '(' ends at its matching ')'");
      canonical_tuple_name(line.substr(start, i - start), spelt[static_cast<std::size_t>(count)]);
      t[static_cast<std::size_t>(count)] = spelt[static_cast<std::size_t>(count)];
    } else {
      while (i < line.size() && !is_name_space(line[i])) ++i;
      t[static_cast<std::size_t>(count)] = line.substr(start, i - start);
    }
  }
  Tokens rest;
  const int more = tokenize(line.substr(i), rest);
  for (int k = 0; k < more && count + k < kMaxTokens; ++k)
    t[static_cast<std::size_t>(count + k)] = rest[static_cast<std::size_t>(k)];
  return count + more;
}

/// The reading a KONECT header asks for ("sym", "asym" or "bip").
InputFormat konect_reading(const std::string& header) {
  return header == "bip" ? InputFormat::Bipartite
         : header == "sym" ? InputFormat::Graph
                           : InputFormat::Digraph;
}

const char* describe(InputFormat kind) {
  return kind == InputFormat::Bipartite ? "bipartite" : kind == InputFormat::Graph ? "graph" : "digraph";
}

}  // namespace

void read_edge_list(LineReader& reader, InputFormat as, const ReadOptions& options,
                    const EdgeListContext& context, ReadResult& result) {
  const bool konect = !context.konect.empty();
  // A hafnian asks for one undirected graph: a plain list is read as one.
  const InputFormat kind = as != InputFormat::Auto ? as
                           : konect                 ? konect_reading(context.konect)
                           : options.hafnian        ? InputFormat::Graph
                                                    : InputFormat::Bipartite;
  const bool bipartite = kind == InputFormat::Bipartite;
  const bool graph = kind == InputFormat::Graph;
  // A fourth column is KONECT's timestamp; a plain list read in auto mode keeps 'u v [weight]'.
  const bool timestamps_allowed = konect || as != InputFormat::Auto;
  NameTable left, right;  // graph and digraph use `left` only
  NumPool pool;
  std::vector<RawEntry> entries;
  Tokens t;
  std::array<std::string, 2> spelt;  // tuple names in Python's spelling
  std::string_view line;
  long timestamp_lines = 0;
  bool loop_line = false;  // a line 'x x': --as graph would refuse it as a self-loop
  long isolated_lines = 0;  // lines 'x': a vertex, which may have no edge

  while (reader.next(line)) {
    int n = tokenize(line, t);
    if (n == 0 || t[0].front() == '#' || t[0].front() == '%') continue;
    if (t[0].front() == '(' || (n >= 2 && t[1].front() == '(')) n = split_tuple_names(line, t, spelt, reader);
    if (n == 1) {  // a vertex without edges (a row vertex of a bipartite list)
      left.id(t[0], reader);
      ++isolated_lines;
      continue;
    }
    Num w{1, 0, -1};
    if (n >= 3 && t[2].front() == '{') {
      w = dict_weight(line, t[2], reader, pool);
    } else if (n == 3 || (n == 4 && timestamps_allowed)) {
      const NumStatus st = parse_number(t[2], w, pool);
      if (st != NumStatus::Ok) reader.fail(number_error(t[2], st));
      if (n == 4) {
        // Only checked: a column that is not a number means the file is not what it seems.
        Num stamp;
        NumPool scratch;
        if (parse_number(t[3], stamp, scratch) != NumStatus::Ok)
          reader.fail("not a number: " + quote(t[3]) + " (the fourth column is a timestamp)");
        ++timestamp_lines;
      }
    } else if (n != 2) {
      if (timestamps_allowed)
        reader.fail("expected 'u v [weight [timestamp]]' or a vertex 'u', found " + fields(n));
      reader.fail("expected 'u v [weight]' or a vertex 'u', found " + fields(n) +
                  (n == 4 ? " (a fourth column, such as KONECT's timestamps, is read with --as "
                            "bipartite, graph or digraph)"
                          : ""));
    }
    int a = 0, b = 0;
    if (bipartite) {
      a = left.id(t[0], reader);
      b = right.id(t[1], reader);
      loop_line = loop_line || t[0] == t[1];
    } else {
      a = left.id(t[0], reader);
      b = left.id(t[1], reader);
    }
    collect(entries, {a, b, reader.line_number(), w, Num{}}, options, reader);
  }
  if (entries.empty() && isolated_lines == 0) reader.fail_at(0, "empty input: no edges");

  if (context.size_line > 0 && (context.size_square || context.size_nnz == entries.size() - 1)) {
    const std::string looks =
        "the first line looks like the 'rows cols nnz' size line of a banner-less coordinate "
        "matrix, but " + context.misfit;
    result.notes.push_back(looks + ": read as an edge list");
    result.zero_hint = looks + ": --as matrix reads the file as a matrix";
  }
  if (konect && as != InputFormat::Auto && kind != konect_reading(context.konect))
    result.notes.push_back("the KONECT header says '" + context.konect + "' (" +
                           describe(konect_reading(context.konect)) + "), read as " +
                           describe(kind) + " as --as asks");
  if (timestamp_lines > 0)
    result.notes.push_back("the fourth column (a KONECT timestamp) is ignored on " +
                           std::to_string(timestamp_lines) +
                           (timestamp_lines == 1 ? " line" : " lines"));

  const NameTable& names_b = bipartite ? right : left;
  const char* what = kind == InputFormat::Digraph ? "arc" : "edge";
  int rows = 0, cols = 0;
  if (graph) {
    merge_undirected(entries, pool, options.sum_duplicates, reader,
                     [&](int k) { return std::string(left.name(k)); }, result);
    std::tie(rows, cols) = read_undirected(static_cast<int>(left.count()), entries,
                                           [&](int k) { return std::string(left.name(k)); }, options, result);
    result.format = result.symmetric_graph ? "graph edge list (symmetric adjacency matrix)" : "graph edge list (2-coloured)";
  } else {
    merge_duplicates(entries, pool, options.sum_duplicates, ordered_key,
                     [&](const RawEntry& first, const RawEntry& later) {
                       reader.fail_at(later.line,
                                      duplicate_edge_message(what, std::string(left.name(later.a)),
                                                             std::string(names_b.name(later.b)),
                                                             first.line));
                     });
    rows = static_cast<int>(left.count());
    cols = static_cast<int>(names_b.count());
    result.row_names = left.names();
    result.col_names = bipartite ? right.names() : result.row_names;
    result.format = bipartite ? "bipartite edge list" : "digraph arc list";
    if (bipartite && rows != cols)
      result.notes.push_back(std::to_string(rows) + " left vertices but " + std::to_string(cols) +
                             " right vertices: no perfect matching");
  }
  if (konect) result.format = "KONECT " + result.format;

  if (context.konect_counts_line > 0) {
    const std::uint64_t read_m = entries.size();
    const std::uint64_t n1 = left.count(), n2 = bipartite ? right.count() : left.count();
    const std::uint64_t want2 = bipartite ? context.konect_n2 : context.konect_n1;
    if (context.konect_n1 != n1 || want2 != n2 || context.konect_m != read_m)
      result.notes.push_back(
          "line " + std::to_string(context.konect_counts_line) + " declares " +
          std::to_string(context.konect_m) + " edges and " +
          (bipartite ? std::to_string(context.konect_n1) + " + " + std::to_string(context.konect_n2)
                     : std::to_string(context.konect_n1)) +
          " vertices; the edges give " + std::to_string(read_m) + " and " +
          (bipartite ? std::to_string(n1) + " + " + std::to_string(n2) : std::to_string(n1)) +
          " (vertices without edges are not read)");
  }

  if (bipartite && !konect && !loop_line && result.zero_hint.empty()) {
    // An undirected list read as bipartite: the same names turn up as u and as v.
    std::size_t both = 0;
    for (std::size_t k = 0; k < left.count(); ++k) both += right.find(left.name(static_cast<int>(k))) >= 0;
    if (both > 0)
      result.zero_hint = std::to_string(both) + (both == 1 ? " name appears" : " names appear") +
                         " both as u and as v, but a bipartite edge list keeps its two sides "
                         "apart: if the list is undirected, --as graph reads it as one graph";
  }

  const std::size_t zeros = assemble(rows, cols, entries, pool, false, options, reader, result);
  if (zeros > 0)
    result.notes.push_back(std::to_string(zeros) + (zeros == 1 ? " edge" : " edges") +
                           " of weight 0 dropped");
  graph_zero_hint(bipartite ? GraphKind::Bipartite : graph ? GraphKind::Graph : GraphKind::Digraph,
                  zeros > 0, result);
}

}  // namespace matchcount::io_detail
