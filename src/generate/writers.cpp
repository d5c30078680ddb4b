// Writers for the text formats that read_input understands.
//
//   edge list      "# comment" lines, then "u v" per edge, 0-based (read --as graph), or
//                  with the vertices' names (coordinates "r,c") in place of the numbers
//   arc list       "# comment" lines, then "u v [w]" per arc u -> v, 0-based (read --as digraph)
//   bipartite      "# comment" lines, then "r<i> c<j> [w]" per entry, 0-based
//   Matrix Market  %%MatrixMarket matrix coordinate integer|real|complex general, 1-based
//   graph edges    "# comment" lines, then "u v [w]" per entry u <= v of a symmetric matrix
//                  (u u w: a loop weight), 0-based (read --as graph)
//   symmetric MM   %%MatrixMarket ... symmetric: the lower triangle only, 1-based
//
// Doubles are written in the shortest form that reads back to the same double; rationals as
// exact decimals. An exact value the readers would refuse (a decimal exponent beyond
// kMaxDecimalExponent, matchcount/io.hpp) is refused here, before anything is written: no
// text form of it reads back, and rounding it would change the count. Line-oriented formats
// cannot show a vertex without edges (an empty row or column of the matrix): such vertices are
// named in a comment, and the file then describes a smaller graph. The matrix formats keep the
// size.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>
#include <vector>

#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"

namespace matchcount {

namespace {

void write_comment(std::ostream& out, const std::string& comment, const char* prefix) {
  if (comment.empty()) return;
  std::istringstream lines(comment);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) out << prefix << '\n';
    else out << prefix << ' ' << line << '\n';
  }
}

std::string format_double(double v) {
  if (!std::isfinite(v)) throw RefusedError("cannot write the non-finite value " + std::to_string(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) throw RefusedError("cannot format a double");
  return std::string(buf, end);
}

template <class T>
SparseMatrix<T> checked_copy(const SparseMatrix<T>& m, const char* what) {
  if (m.rows < 0 || m.cols < 0) throw UsageError(std::string(what) + ": negative matrix size");
  for (const auto& e : m.entries)
    if (e.row < 0 || e.col < 0 || e.row >= m.rows || e.col >= m.cols)
      throw UsageError(std::string(what) + ": entry (" + std::to_string(e.row) + ", " +
                       std::to_string(e.col) + ") is outside a " + std::to_string(m.rows) + " x " +
                       std::to_string(m.cols) + " matrix");
  SparseMatrix<T> copy = m;
  copy.normalize();
  return copy;
}

/// `value` for a message, "about 4.94066e-324": six digits of its decimal expansion, however far
/// beyond the double range (the values refused have hundreds of digits).
std::string short_value(const Rational& value) {
  const mpf_class x(value, 64);
  mp_exp_t exp = 0;
  char buf[16];  // 6 digits, a sign and the terminator
  std::string digits = mpf_get_str(buf, &exp, 10, 6, x.get_mpf_t());
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  std::string out = negative ? "about -" : "about ";
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const long e = static_cast<long>(exp) - 1;  // mpf's digits are 0.d1d2... x 10^exp
  return out + "e" + (e < 0 ? "-" : "+") + std::to_string(e < 0 ? -e : e);
}

/// Refuses an entry whose exact value the readers would not take back (text_readable).
template <class V>
void check_readable(const V& value, int row, int col) {
  if (text_readable(value)) return;
  throw RefusedError("entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ") = " +
                     short_value(Rational(value)) + " needs a decimal exponent beyond +-" +
                     std::to_string(kMaxDecimalExponent) + ", which the readers refuse; it cannot be written exactly");
}

void append_name(std::string& list, const char* prefix, int v) {
  list += ' ';
  list += prefix;
  list += std::to_string(v);
}

/// Names the empty rows and columns (vertices an edge-style file cannot show).
void note_empty_lines(std::ostream& out, const SparseMatrix<Integer>& m, const char* row_prefix,
                      const char* col_prefix, bool same_vertices) {
  std::vector<char> row_used(static_cast<std::size_t>(m.rows), 0),
      col_used(static_cast<std::size_t>(m.cols), 0);
  for (const auto& e : m.entries) {
    row_used[static_cast<std::size_t>(e.row)] = 1;
    col_used[static_cast<std::size_t>(e.col)] = 1;
  }
  std::string missing;
  int count = 0;
  if (same_vertices) {
    for (int v = 0; v < m.rows; ++v)
      if (!row_used[static_cast<std::size_t>(v)] && !col_used[static_cast<std::size_t>(v)]) {
        ++count;
        if (count <= 20) append_name(missing, row_prefix, v);
      }
  } else {
    for (int v = 0; v < m.rows; ++v)
      if (!row_used[static_cast<std::size_t>(v)]) {
        ++count;
        if (count <= 20) append_name(missing, row_prefix, v);
      }
    for (int v = 0; v < m.cols; ++v)
      if (!col_used[static_cast<std::size_t>(v)]) {
        ++count;
        if (count <= 20) append_name(missing, col_prefix, v);
      }
  }
  if (count > 0)
    out << "# " << count << " vertices without edges are not in this file" << (count > 20 ? " (first 20):" : ":")
        << missing << '\n';
}

/// Names the vertices (rows) of a symmetric matrix without entries, which an edge list cannot show.
template <class T>
void note_isolated(std::ostream& out, const SparseMatrix<T>& a) {
  std::vector<char> used(static_cast<std::size_t>(a.rows), 0);
  for (const auto& e : a.entries) used[static_cast<std::size_t>(e.row)] = 1;
  std::string missing;
  int count = 0;
  for (int v = 0; v < a.rows; ++v)
    if (!used[static_cast<std::size_t>(v)] && ++count <= 20) append_name(missing, "", v);
  if (count > 0)
    out << "# " << count << " vertices without edges are not in this file"
        << (count > 20 ? " (first 20):" : ":") << missing << '\n';
}

}  // namespace

bool text_readable(const Integer& value) {
  if (value == 0) return true;
  Integer rest;
  return mpz_remove(rest.get_mpz_t(), value.get_mpz_t(), Integer(10).get_mpz_t()) <=
         static_cast<unsigned long>(kMaxDecimalExponent);
}

bool text_readable(const Rational& value) {
  if (value.get_den() == 1) return text_readable(Integer(value.get_num()));
  // Reduced, a denominator 2^a 5^b leaves the numerator without a factor 10: the decimal is
  // written with max(a, b) digits after the point and no trailing zero.
  Integer rest;
  const auto twos = mpz_remove(rest.get_mpz_t(), value.get_den_mpz_t(), Integer(2).get_mpz_t());
  const auto fives = mpz_remove(rest.get_mpz_t(), value.get_den_mpz_t(), Integer(5).get_mpz_t());
  return std::max(twos, fives) <= static_cast<unsigned long>(kMaxDecimalExponent);
}

bool exact_decimal(const Rational& value, std::string& out) {
  mpz_class den = value.get_den();
  unsigned long twos = mpz_remove(den.get_mpz_t(), den.get_mpz_t(), mpz_class(2).get_mpz_t());
  unsigned long fives = mpz_remove(den.get_mpz_t(), den.get_mpz_t(), mpz_class(5).get_mpz_t());
  if (den != 1) return false;
  const unsigned long k = std::max(twos, fives);
  mpz_class scaled = value.get_num();
  mpz_class factor;
  mpz_ui_pow_ui(factor.get_mpz_t(), 2, k - twos);
  scaled *= factor;
  mpz_ui_pow_ui(factor.get_mpz_t(), 5, k - fives);
  scaled *= factor;
  const bool negative = scaled < 0;
  std::string digits = mpz_class(abs(scaled)).get_str();
  if (k > 0) {
    if (digits.size() <= k) digits.insert(0, k + 1 - digits.size(), '0');
    digits.insert(digits.size() - k, 1, '.');
  }
  out = (negative ? "-" : "") + digits;
  return true;
}

namespace {

/// Refuses names the edge-list readers would not read back as the same vertices.
void check_names(const EdgeList& g, const std::vector<std::string>& names) {
  if (names.size() != static_cast<std::size_t>(g.vertices))
    throw UsageError("write_edge_list: " + std::to_string(names.size()) + " names for " +
                     std::to_string(g.vertices) + " vertices");
  std::vector<std::string_view> sorted;
  sorted.reserve(names.size());
  for (std::size_t v = 0; v < names.size(); ++v) {
    const std::string& name = names[v];
    const bool bad_start = !name.empty() && (name[0] == '#' || name[0] == '%' || name[0] == '(');
    const bool space = std::any_of(name.begin(), name.end(), [](char ch) {
      return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
    });
    if (name.empty() || bad_start || space)
      throw UsageError("write_edge_list: vertex " + std::to_string(v) + " has the name '" + name +
                       "', which an edge list cannot hold (empty, whitespace, or a leading '#', '%' or '(')");
    sorted.push_back(name);
  }
  std::sort(sorted.begin(), sorted.end());
  if (const auto it = std::adjacent_find(sorted.begin(), sorted.end()); it != sorted.end())
    throw UsageError("write_edge_list: two vertices have the name '" + std::string(*it) + "'");
}

void write_edges(std::ostream& out, const EdgeList& g, const std::string& comment,
                 const std::vector<std::string>* names) {
  if (g.vertices < 0) throw UsageError("write_edge_list: negative vertex count");
  std::vector<char> touched(static_cast<std::size_t>(g.vertices), 0);
  for (const auto& [u, v] : g.edges) {
    if (u < 0 || v < 0 || u >= g.vertices || v >= g.vertices)
      throw UsageError("write_edge_list: edge (" + std::to_string(u) + ", " + std::to_string(v) +
                       ") names a vertex outside 0.." + std::to_string(g.vertices - 1));
    touched[static_cast<std::size_t>(u)] = touched[static_cast<std::size_t>(v)] = 1;
  }
  if (names) check_names(g, *names);  // before anything is written
  write_comment(out, comment, "#");
  const auto name = [&](int v) { return names ? (*names)[static_cast<std::size_t>(v)] : std::to_string(v); };
  if (names)
    out << "# undirected graph: " << g.vertices << " named vertices, " << g.edges.size() << " edges\n";
  else
    out << "# undirected graph: " << g.vertices << " vertices 0.." << g.vertices - 1 << ", "
        << g.edges.size() << " edges\n";
  std::string missing;
  int count = 0;
  for (int v = 0; v < g.vertices; ++v)
    if (!touched[static_cast<std::size_t>(v)] && ++count <= 20) {
      missing += ' ';
      missing += name(v);
    }
  if (count > 0)
    out << "# " << count << " vertices without edges are not in this file"
        << (count > 20 ? " (first 20):" : ":") << missing << '\n';
  std::string buf;
  for (const auto& [u, v] : g.edges) {
    buf.clear();
    buf += name(u);
    buf += ' ';
    buf += name(v);
    buf += '\n';
    out << buf;
  }
}

}  // namespace

void write_edge_list(std::ostream& out, const EdgeList& g, const std::string& comment) {
  write_edges(out, g, comment, nullptr);
}

void write_edge_list(std::ostream& out, const EdgeList& g, const std::string& comment,
                     const std::vector<std::string>& names) {
  write_edges(out, g, comment, &names);
}

void write_edge_list(std::ostream& out, const EdgeList& g) { write_edge_list(out, g, ""); }

void write_arc_list(std::ostream& out, const SparseMatrix<Integer>& m, const std::string& comment) {
  if (!m.square())
    throw UsageError("write_arc_list: a digraph's adjacency matrix must be square (got " +
                     std::to_string(m.rows) + " x " + std::to_string(m.cols) + ")");
  const auto a = checked_copy(m, "write_arc_list");
  for (const auto& e : a.entries) check_readable(e.value, e.row, e.col);  // before anything is written
  write_comment(out, comment, "#");
  out << "# directed graph: " << a.rows << " vertices 0.." << a.rows - 1 << ", " << a.nnz()
      << " arcs \"u v\" meaning u -> v\n";
  note_empty_lines(out, a, "", "", true);
  for (const auto& e : a.entries) {
    out << e.row << ' ' << e.col;
    if (e.value != 1) out << ' ' << e.value.get_str();
    out << '\n';
  }
}

void write_bipartite_edges(std::ostream& out, const SparseMatrix<Integer>& m,
                           const std::string& comment) {
  const auto a = checked_copy(m, "write_bipartite_edges");
  for (const auto& e : a.entries) check_readable(e.value, e.row, e.col);  // before anything is written
  write_comment(out, comment, "#");
  out << "# bipartite graph: rows r0..r" << a.rows - 1 << ", columns c0..c" << a.cols - 1 << ", "
      << a.nnz() << " edges\n";
  note_empty_lines(out, a, "r", "c", false);
  for (const auto& e : a.entries) {
    out << 'r' << e.row << " c" << e.col;
    if (e.value != 1) out << ' ' << e.value.get_str();
    out << '\n';
  }
}

void write_bipartite_edges(std::ostream& out, const SparseMatrix<Integer>& m) {
  write_bipartite_edges(out, m, "");
}

namespace {

/// Matrix Market's field word for an entry type.
template <class T>
const char* field_of() {
  if constexpr (std::is_same_v<T, Integer>) return "integer";
  else if constexpr (std::is_same_v<T, Complex>) return "complex";
  else return "real";
}

/// Every value as text ("re im" for complex), formatted before anything is written, so that a
/// refusal leaves nothing half written.
template <class T>
std::vector<std::string> format_values(const SparseMatrix<T>& a) {
  std::vector<std::string> values;
  values.reserve(a.entries.size());
  for (const auto& e : a.entries) {
    if constexpr (std::is_same_v<T, Integer>) {
      check_readable(e.value, e.row, e.col);
      values.push_back(e.value.get_str());
    } else if constexpr (std::is_same_v<T, Rational>) {
      std::string s;
      if (!exact_decimal(e.value, s))
        throw RefusedError("entry (" + std::to_string(e.row + 1) + ", " + std::to_string(e.col + 1) +
                           ") = " + e.value.get_str() +
                           " has no exact decimal form; a text file cannot hold it");
      check_readable(e.value, e.row, e.col);
      values.push_back(std::move(s));
    } else if constexpr (std::is_same_v<T, double>) {
      values.push_back(format_double(e.value));
    } else {
      values.push_back(format_double(e.value.real()) + " " + format_double(e.value.imag()));
    }
  }
  return values;
}

template <class T>
void write_coordinate(std::ostream& out, const SparseMatrix<T>& a, const char* symmetry,
                      const std::string& comment) {
  const std::vector<std::string> values = format_values(a);
  out << "%%MatrixMarket matrix coordinate " << field_of<T>() << ' ' << symmetry << '\n';
  write_comment(out, comment, "%");
  out << a.rows << ' ' << a.cols << ' ' << a.nnz() << '\n';
  for (std::size_t i = 0; i < a.entries.size(); ++i)
    out << a.entries[i].row + 1 << ' ' << a.entries[i].col + 1 << ' ' << values[i] << '\n';
}

/// The normalized copy of a symmetric matrix; UsageError naming the writer otherwise.
template <class T>
SparseMatrix<T> checked_symmetric(const SparseMatrix<T>& m, const char* what) {
  auto a = checked_copy(m, what);
  if (!is_symmetric(AnyMatrix(a)))
    throw UsageError(std::string(what) + ": the " + std::to_string(a.rows) + " x " +
                     std::to_string(a.cols) + " matrix is not symmetric");
  return a;
}

/// Only the entries with row >= col (lower) or row <= col (upper).
template <class T>
SparseMatrix<T> triangle(const SparseMatrix<T>& a, bool lower) {
  SparseMatrix<T> t;
  t.rows = a.rows;
  t.cols = a.cols;
  for (const auto& e : a.entries)
    if (lower ? e.row >= e.col : e.row <= e.col) t.entries.push_back(e);
  return t;
}

}  // namespace

void write_matrix_market(std::ostream& out, const AnyMatrix& any, const std::string& comment) {
  std::visit([&](const auto& m) { write_coordinate(out, checked_copy(m, "write_matrix_market"), "general", comment); },
             any);
}

void write_matrix_market_symmetric(std::ostream& out, const AnyMatrix& any, const std::string& comment) {
  std::visit(
      [&](const auto& m) {
        const auto a = checked_symmetric(m, "write_matrix_market_symmetric");
        write_coordinate(out, triangle(a, true), "symmetric", comment);
      },
      any);
}

void write_graph_edges(std::ostream& out, const AnyMatrix& any, const std::string& comment) {
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries.front().value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          throw RefusedError("write_graph_edges: an edge list holds real weights only; write a "
                             "complex matrix as Matrix Market");
        } else {
          const auto a = checked_symmetric(m, "write_graph_edges");
          const auto upper = triangle(a, false);
          const std::vector<std::string> values = format_values(upper);
          std::size_t loops = 0;
          for (const auto& e : upper.entries) loops += e.row == e.col;
          write_comment(out, comment, "#");
          out << "# undirected graph: " << a.rows << " vertices 0.." << a.rows - 1 << ", "
              << upper.nnz() - loops << " edges";
          if (loops > 0) out << ", " << loops << " loops (weights on the diagonal)";
          out << "; \"u v w\" is the entry A(u, v) = A(v, u), w = 1 when not written\n";
          note_isolated(out, a);
          for (std::size_t i = 0; i < upper.entries.size(); ++i) {
            const auto& e = upper.entries[i];
            out << e.row << ' ' << e.col;
            if (values[i] != "1") out << ' ' << values[i];
            out << '\n';
          }
        }
      },
      any);
}

void write_matrix_market(std::ostream& out, const AnyMatrix& m) { write_matrix_market(out, m, ""); }

}  // namespace matchcount
