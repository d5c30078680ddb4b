// read_input: opens the input, recognises its format and hands it to the reader.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "io/reader_impl.hpp"

namespace matchcount {

namespace io_detail {
namespace {

const std::string kNpyMagic = "\x93NUMPY";

/// What the first lines say about the format (read ahead, then the reader rewinds).
struct Detected {
  bool banner = false;  // line 1 is a %%MatrixMarket banner
  long dimacs_p_line = 0;  // the first line other than comments is 'p edge|col ...'
  bool bannerless = false;  // the whole input has the shape of a banner-less coordinate file
  EdgeListContext edges;
};

bool is_comment(std::string_view token) { return token.front() == '#' || token.front() == '%'; }

/// "% sym unweighted", "% bip ...", "%asym": the KONECT kind, or empty.
std::string konect_kind(const Tokens& t, int n) {
  if (n == 0) return {};
  std::string_view word;
  if (t[0] == "%" && n >= 2) word = t[1];
  else if (t[0].size() > 1 && t[0].front() == '%') word = t[0].substr(1);
  if (word == "sym" || word == "asym" || word == "bip") return std::string(word);
  return {};
}

/// Follows a candidate 'rows cols nnz' line through the input: true when exactly nnz entries
/// follow, each 'i j v' or 'i j re im' (one width throughout) with i in 1..rows and j in
/// 1..cols. Otherwise `misfit` says why, naming the line.
bool fits_bannerless(LineReader& reader, std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz,
                     std::string& misfit) {
  std::string_view line;
  Tokens t;
  std::uint64_t seen = 0;
  int width = 0;
  const auto at = [&](const std::string& what) {
    misfit = "line " + std::to_string(reader.line_number()) + " " + what;
    return false;
  };
  while (reader.next(line)) {
    const int n = tokenize(line, t);
    if (n == 0 || is_comment(t[0])) continue;
    if (seen == nnz) return at("is one more than the " + std::to_string(nnz) + " entries it declares");
    ++seen;
    if (width == 0 && (n == 3 || n == 4)) width = n;
    if (n != width) return at("has " + fields(n) + ", not 'i j value' or 'i j re im'");
    std::uint64_t i = 0, j = 0;
    if (!parse_count(t[0], ~0ull, i) || i < 1 || i > rows)
      return at("has row " + quote(t[0]) + ", not in 1.." + std::to_string(rows));
    if (!parse_count(t[1], ~0ull, j) || j < 1 || j > cols)
      return at("has column " + quote(t[1]) + ", not in 1.." + std::to_string(cols));
  }
  if (seen < nnz) {
    misfit = "only " + std::to_string(seen) + " of the " + std::to_string(nnz) + " entries it declares follow";
    return false;
  }
  return true;
}

Detected detect(LineReader& reader, InputFormat as, const std::string& name) {
  Detected d;
  std::string_view line;
  Tokens t;
  if (!reader.next(line)) return d;
  d.banner = is_matrix_market_banner(line);
  if (d.banner) return d;
  if (looks_like_matrix_market_banner(line))
    reader.fail("this looks like a Matrix Market banner but is not one: a banner starts "
                "'%%MatrixMarket matrix coordinate|array ...' (two '%', no space, that spelling)");
  int n = tokenize(line, t);
  d.edges.konect = konect_kind(t, n);
  if (!d.edges.konect.empty()) {
    std::uint64_t m = 0, n1 = 0, n2 = 0;
    if (reader.next(line) && (n = tokenize(line, t)) == 4 && t[0] == "%" && parse_count(t[1], ~0ull, m) &&
        parse_count(t[2], ~0ull, n1) && parse_count(t[3], ~0ull, n2)) {
      d.edges.konect_counts_line = 2;
      d.edges.konect_m = m;
      d.edges.konect_n1 = n1;
      d.edges.konect_n2 = n2;
    }
    return d;
  }
  reader.push_back();
  // The first line other than blanks and comments ('c' for DIMACS, '#' and '%' for lists).
  while (reader.next(line)) {
    n = tokenize(line, t);
    if (n == 0 || t[0] == "c" || is_comment(t[0])) continue;
    if (t[0] == "p" && n >= 2 && (t[1] == "edge" || t[1] == "col")) d.dimacs_p_line = reader.line_number();
    break;
  }
  if (d.dimacs_p_line > 0 || as != InputFormat::Auto || iends_with(name, ".mtx")) return d;
  // A size line: the first line other than blanks and '#' or '%' comments.
  reader.rewind();
  while (reader.next(line)) {
    n = tokenize(line, t);
    if (n == 0 || is_comment(t[0])) continue;
    std::uint64_t rows = 0, cols = 0, nnz = 0;
    if (n == 3 && parse_count(t[0], kMaxDim, rows) && parse_count(t[1], kMaxDim, cols) &&
        parse_count(t[2], ~0ull, nnz) && nnz <= rows * cols) {
      d.edges.size_line = reader.line_number();
      d.edges.size_square = rows == cols;
      d.edges.size_nnz = nnz;
      d.bannerless = fits_bannerless(reader, rows, cols, nnz, d.edges.misfit);
    }
    break;
  }
  return d;
}

[[noreturn]] void not_a_list(const LineReader& reader, long line, const char* what, InputFormat as) {
  reader.fail_at(line, std::string(what) + ", which --as " +
                           input_format_names()[static_cast<std::size_t>(as)] +
                           " does not read (--as auto recognises it)");
}

}  // namespace
}  // namespace io_detail

ReadResult read_input(std::istream& in, const std::string& name, const ReadOptions& options) {
  using namespace io_detail;
  const InputFormat as = options.as;
  ReadResult result;
  const ReadClock clock(options.max_seconds);
  // Binary formats first: the line reader refuses bytes that do not belong in text.
  std::string prefix(kNpyMagic.size(), '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  prefix.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError(name, 0, "read error");
  if (prefix == kNpyMagic) {
    if (as != InputFormat::Auto && as != InputFormat::Matrix && as != InputFormat::Npy)
      throw InputError(name, 0, "a NumPy .npy file is a matrix, which --as " +
                                    input_format_names()[static_cast<std::size_t>(as)] +
                                    " does not read (--as auto or --as npy reads it)");
    read_npy(in, name, prefix, options, clock, result);
    // The text readers check symmetry entry by entry with line numbers (assemble.cpp); an
    // array has no lines, so its check names the entries.
    if (options.hafnian)
      std::visit(
          [&](const auto& m) {
            if (!m.square())
              throw InputError(name, 0, "the hafnian needs a square symmetric matrix, got " + std::to_string(m.rows) +
                                            "x" + std::to_string(m.cols));
            if (const auto [r, c] = first_asymmetric_entry(m); r >= 0)
              throw InputError(name, 0, "the matrix is not symmetric: entry [" + std::to_string(r) + ", " +
                                            std::to_string(c) + "] differs from entry [" + std::to_string(c) + ", " +
                                            std::to_string(r) + "] (0-based; the hafnian needs a symmetric matrix)");
          },
          result.matrix);
    return result;
  }
  if (as == InputFormat::Npy)
    throw InputError(name, 0, "not a NumPy .npy file: it does not start with \"\\x93NUMPY\"");

  LineReader reader(in, name, std::move(prefix));
  reader.set_clock(&clock);
  reader.record(true);
  const Detected d = detect(reader, as, name);
  reader.rewind();
  reader.record(false);

  if (d.banner) {
    if (as == InputFormat::Auto || as == InputFormat::Matrix) read_matrix_market(reader, options, result);
    else if (as == InputFormat::Dimacs) not_a_list(reader, 1, "a Matrix Market file is a matrix", as);
    else reader.fail_at(1, "a Matrix Market file is a matrix, not an edge list (read it as a matrix)");
    return result;
  }
  switch (as) {
    case InputFormat::Matrix:
      read_bannerless_coordinate(reader, options, result);
      break;
    case InputFormat::Dimacs:
      read_dimacs(reader, options, result);
      break;
    case InputFormat::Bipartite:
    case InputFormat::Digraph:
      if (d.dimacs_p_line > 0)
        not_a_list(reader, d.dimacs_p_line, "a DIMACS file ('p edge N M') is an undirected graph", as);
      read_edge_list(reader, as, options, d.edges, result);
      break;
    case InputFormat::Graph:
      if (d.dimacs_p_line > 0) read_dimacs(reader, options, result);
      else read_edge_list(reader, as, options, d.edges, result);
      break;
    case InputFormat::Npy:
      break;  // refused above
    case InputFormat::Auto:
      if (d.dimacs_p_line > 0) {
        read_dimacs(reader, options, result);
      } else if (iends_with(name, ".mtx")) {
        read_bannerless_coordinate(reader, options, result);
      } else if (d.bannerless) {
        read_bannerless_coordinate(reader, options, result);
        result.notes.push_back("read as a banner-less coordinate matrix: line " +
                               std::to_string(d.edges.size_line) +
                               " is its 'rows cols nnz' size line and every entry fits it");
      } else {
        read_edge_list(reader, as, options, d.edges, result);
      }
      break;
  }
  return result;
}

std::vector<std::string> input_format_names() {
  return {"auto", "bipartite", "graph", "digraph", "matrix", "dimacs", "npy"};
}

InputFormat parse_input_format(const std::string& name) {
  const std::vector<std::string> names = input_format_names();
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<InputFormat>(k);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw UsageError("unknown input format '" + name + "' (" + list + ")");
}

ReadResult read_input(const std::string& path, const ReadOptions& options) {
  if (path == "-") return read_input(std::cin, "<stdin>", options);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, "cannot open: Is a directory");
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int err = errno;
    throw InputError(path, 0, std::string("cannot open") + (err != 0 ? std::string(": ") + std::strerror(err) : ""));
  }
  return read_input(file, path, options);
}

}  // namespace matchcount
