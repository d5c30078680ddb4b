// DIMACS graph files: 'c' comments, one 'p edge N M' (or 'p col N M') line, then 'e U V' lines
// with 1-based vertices. An undirected graph, read as an edge list read with --as graph.
#include <algorithm>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

/// A vertex number 1..n from an 'e' line, 0-based.
int parse_vertex(std::string_view token, std::uint64_t n, long p_line, const LineReader& reader) {
  std::uint64_t v = 0;
  if (!parse_count(token, ~0ull, v)) {
    if (!token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos)
      reader.fail("vertex " + quote(token) + " outside 1.." + std::to_string(n) +
                  " (the p line on line " + std::to_string(p_line) + ")");
    reader.fail("malformed vertex " + quote(token) + ": expected a number 1.." + std::to_string(n));
  }
  if (v < 1 || v > n)
    reader.fail("vertex " + std::to_string(v) + " outside 1.." + std::to_string(n) +
                " (the p line on line " + std::to_string(p_line) + ")");
  return static_cast<int>(v - 1);
}

// Vertices cost memory whether or not edges name them: a file may declare up to this many, or
// eight per byte of input, so that a short file cannot ask for gigabytes.
constexpr std::uint64_t kFreeVertices = std::uint64_t(1) << 20;

}  // namespace

void read_dimacs(LineReader& reader, const ReadOptions& options, ReadResult& result) {
  static const std::string kForm = "p edge N M";
  std::string_view line;
  Tokens t;
  long p_line = 0;
  std::uint64_t vertices = 0, declared = 0;
  long beyond_line = 0;  // the 'e' line that went past M
  NumPool pool;
  std::vector<RawEntry> entries;
  while (reader.next(line)) {
    const int n = tokenize(line, t);
    if (n == 0 || t[0] == "c" || t[0].front() == '#' || t[0].front() == '%') continue;
    if (t[0] == "p") {
      if (p_line > 0) reader.fail("a second p line (the first is line " + std::to_string(p_line) + ")");
      if (n >= 2 && t[1] != "edge" && t[1] != "col")
        reader.fail("unsupported DIMACS problem " + quote(t[1]) + ": expected 'p edge N M' or 'p col N M'");
      if (n != 4) reader.fail("expected 'p edge N M', found " + fields(n));
      vertices = parse_size(t[2], kMaxDim, "vertices", reader, kForm);
      declared = parse_size(t[3], ~0ull, "edges", reader, kForm);
      p_line = reader.line_number();
      continue;
    }
    if (t[0] != "e")
      reader.fail("unexpected line starting with " + quote(t[0]) +
                  ": a DIMACS graph has 'c', 'p edge N M' and 'e U V' lines");
    if (p_line == 0) reader.fail("edge before the 'p edge N M' line");
    if (n != 3) reader.fail("expected 'e U V', found " + fields(n));
    const int a = parse_vertex(t[1], vertices, p_line, reader);
    const int b = parse_vertex(t[2], vertices, p_line, reader);
    // Twice M are allowed while reading: a file may list every edge in both directions.
    if (entries.size() == declared) beyond_line = reader.line_number();
    if (declared < (std::uint64_t(1) << 62) && entries.size() >= 2 * declared)
      reader.fail_at(beyond_line, "more edges than the " + std::to_string(declared) +
                                      " declared on line " + std::to_string(p_line));
    collect(entries, {a, b, reader.line_number(), Num{1, 0, -1}, Num{}}, options, reader);
  }
  if (p_line == 0) reader.fail_at(0, "missing the 'p edge N M' line: not a DIMACS graph");
  if (vertices > std::max<std::uint64_t>(kFreeVertices, 8 * reader.bytes_read()))
    reader.fail_at(p_line, std::to_string(vertices) + " vertices for an input of " +
                               std::to_string(reader.bytes_read()) +
                               " bytes: more than the reader accepts (" +
                               std::to_string(kFreeVertices) + ", or 8 per byte)");

  const NameOf name = [](int k) { return std::to_string(k + 1); };
  const std::size_t lines = entries.size();
  const bool pairs = merge_undirected(entries, pool, options.sum_duplicates, reader, name, result);
  if (lines > declared && !(pairs && lines == 2 * declared))
    reader.fail_at(beyond_line, "more edges than the " + std::to_string(declared) +
                                    " declared on line " + std::to_string(p_line));
  if (lines < declared)
    reader.fail_at(reader.line_number(), "only " + std::to_string(lines) + " of the " +
                                             std::to_string(declared) + " edges declared on line " +
                                             std::to_string(p_line));
  const auto [rows, cols] = read_undirected(static_cast<int>(vertices), entries, name, options, result);
  result.format = result.symmetric_graph ? "DIMACS graph (symmetric adjacency matrix)" : "DIMACS graph (2-coloured)";
  assemble(rows, cols, entries, pool, false, options, reader, result);
  graph_zero_hint(GraphKind::Graph, false, result);
}

}  // namespace matchcount::io_detail
