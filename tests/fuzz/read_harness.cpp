// The reader fuzz targets' checks. A failure prints what broke and the options of the read,
// then aborts, which libFuzzer reports as a crash and saves the input for.
#include "read_harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "core/hashing.hpp"
#include "io/reader_impl.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"

namespace matchcount::fuzz {
namespace {

std::string describe(const ReadOptions& o, const std::string& name) {
  return "--as " + input_format_names()[static_cast<std::size_t>(o.as)] + (o.exact ? " --exact" : "") +
         (o.sum_duplicates ? " --sum-duplicates" : "") +
         (o.loops ? " --loop-hafnian" : o.hafnian ? " --hafnian" : "") + (o.dense_stacks ? " (stacks kept as stored)" : "") +
         (o.vectors ? " (1-D arrays as columns)" : "") +
         " (file name '" + name + "')";
}

[[noreturn]] void broken(const std::string& what, const ReadOptions& o, const std::string& name) {
  std::fprintf(stderr, "fuzz check failed: %s\n  read with %s\n", what.c_str(), describe(o, name).c_str());
  std::fflush(stderr);
  std::abort();
}

bool one_line(const std::string& s) { return s.find_first_of("\n\r") == std::string::npos; }

/// An entry's value exactly and as the doubles nearest to it, to compare across number kinds.
struct Value {
  Rational re, im;
  double near_re = 0, near_im = 0;
};
// glibc's strtod rounds correctly (to nearest), as the readers do.
Value value_of(const Integer& v) { return {Rational(v), Rational(0), std::strtod(v.get_str().c_str(), nullptr), 0}; }
Value value_of(const Rational& v) { return {v, Rational(0), v.get_d(), 0}; }
Value value_of(double v) { return {Rational(v), Rational(0), v, 0}; }
Value value_of(const Complex& v) { return {Rational(v.real()), Rational(v.imag()), v.real(), v.imag()}; }

bool finite(const Integer&) { return true; }
bool finite(const Rational&) { return true; }
bool finite(double v) { return std::isfinite(v); }
bool finite(const Complex& v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); }

std::string show(const Value& v) {
  return v.im == 0 ? v.re.get_str() : "(" + v.re.get_str() + ", " + v.im.get_str() + ")";
}

struct Position {
  int row, col;
  Value value;
};

/// The matrix's invariants (matchcount/matrix.hpp: sorted, unique, no stored zeros), its size
/// limits and what ReadResult promises; returns the entries as exact values.
std::vector<Position> check_matrix(const ReadResult& r, const ReadOptions& o, const std::string& name,
                                   std::size_t input_bytes) {
  std::vector<Position> out;
  std::visit(
      [&](const auto& m) {
        if (m.rows < 0 || m.cols < 0 || std::uint64_t(m.rows) > io_detail::kMaxDim ||
            std::uint64_t(m.cols) > io_detail::kMaxDim)
          broken("dimensions " + std::to_string(m.rows) + "x" + std::to_string(m.cols) + " out of range", o, name);
        // Every entry comes from a line or an array element of the input, a mirrored one at most
        // twice: memory follows the input, never the declared shape.
        if (m.entries.size() > 2 * input_bytes + 2)
          broken(std::to_string(m.entries.size()) + " entries from " + std::to_string(input_bytes) + " bytes", o, name);
        for (std::size_t k = 0; k < m.entries.size(); ++k) {
          const auto& e = m.entries[k];
          if (e.row < 0 || e.col < 0 || e.row >= m.rows || e.col >= m.cols)
            broken("entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) + ") outside the matrix", o, name);
          if (k > 0) {
            const auto& p = m.entries[k - 1];
            if (p.row > e.row || (p.row == e.row && p.col >= e.col))
              broken("entries not sorted or repeated at index " + std::to_string(k), o, name);
          }
          if (!finite(e.value)) broken("a non-finite value", o, name);
          Value v = value_of(e.value);
          if (v.re == 0 && v.im == 0) broken("a stored zero", o, name);
          out.push_back({e.row, e.col, std::move(v)});
        }
        const bool symmetric = m.square() && first_asymmetric_entry(m).first < 0;
        if (r.symmetric_graph && !symmetric) broken("symmetric_graph set on a matrix that is not symmetric", o, name);
        // The program counts a hafnian of whatever comes back without vertex names (a matrix).
        if (o.hafnian && r.row_names.empty() && !symmetric)
          broken("--hafnian accepted a matrix that is not square and symmetric", o, name);
        if (!r.row_names.empty() && r.row_names.size() != static_cast<std::size_t>(m.rows))
          broken(std::to_string(r.row_names.size()) + " row names for " + std::to_string(m.rows) + " rows", o, name);
        if (!r.col_names.empty() && r.col_names.size() != static_cast<std::size_t>(m.cols))
          broken(std::to_string(r.col_names.size()) + " column names for " + std::to_string(m.cols) + " columns", o, name);
      },
      r.matrix);
  if (kind_of(r.matrix) == NumberKind::Rational && !o.exact) broken("exact rationals without --exact", o, name);
  if (r.format.empty()) broken("no format named", o, name);
  if (!one_line(r.format)) broken("a format name of several lines", o, name);
  if (!one_line(r.zero_hint)) broken("a zero hint of several lines: " + r.zero_hint, o, name);
  for (const std::string& note : r.notes)
    if (!one_line(note)) broken("a note of several lines: " + note, o, name);
  return out;
}

/// The matrix written as Matrix Market (the writer of matchcount-generate) and read again must
/// give the same entries. Doubles are written as the shortest decimals that round to them; where
/// those are integers the copy is read as exact integers (as a real file of integer values is),
/// so real and complex values are compared as the doubles they round to, the others exactly.
void check_round_trip(const ReadResult& r, const std::vector<Position>& entries, const ReadOptions& o,
                      const std::string& name) {
  // A sum of repeated entries (5e1000 + 5e1000) or a subnormal double read exactly from .npy can
  // lie beyond the decimal exponents the text readers take, which no text file can hold: the
  // writer must refuse it (text_readable), never round it. Doubles are always readable.
  const NumberKind kind = kind_of(r.matrix);
  bool readable = true;
  if (kind == NumberKind::Integer || kind == NumberKind::Rational)
    for (const Position& p : entries) readable = readable && text_readable(p.value.re);
  std::ostringstream text;
  try {
    write_matrix_market(text, r.matrix);
  } catch (const RefusedError& e) {
    if (!readable && one_line(e.what()) && text.str().empty()) return;
    broken(std::string("the Matrix Market writer refused what was read: ") + e.what(), o, name);
  } catch (const std::exception& e) {
    broken(std::string("the Matrix Market writer refused what was read: ") + e.what(), o, name);
  }
  if (!readable) broken("the Matrix Market writer wrote a value beyond the readers' decimal exponents", o, name);
  ReadOptions again;
  again.as = InputFormat::Matrix;
  // Decimals read exactly only for rationals: a double's shortest decimal is not its value.
  again.exact = kind == NumberKind::Rational;
  ReadResult back;
  std::istringstream in(text.str());
  try {
    back = read_input(in, "round-trip.mtx", again);
  } catch (const std::exception& e) {
    broken(std::string("the Matrix Market copy does not read back: ") + e.what(), o, name);
  }
  if (rows_of(back.matrix) != rows_of(r.matrix) || cols_of(back.matrix) != cols_of(r.matrix))
    broken("the Matrix Market copy has another size", o, name);
  const std::vector<Position> copy = check_matrix(back, again, "round-trip.mtx", text.str().size());
  if (copy.size() != entries.size()) broken("the Matrix Market copy has another number of entries", o, name);
  const bool floating = kind == NumberKind::Real || kind == NumberKind::Complex;
  const auto same = [floating](const Value& a, const Value& b) {
    return floating ? a.near_re == b.near_re && a.near_im == b.near_im : a.re == b.re && a.im == b.im;
  };
  for (std::size_t k = 0; k < copy.size(); ++k)
    if (copy[k].row != entries[k].row || copy[k].col != entries[k].col || !same(copy[k].value, entries[k].value))
      broken("the Matrix Market copy differs at entry (" + std::to_string(entries[k].row + 1) + ", " +
                 std::to_string(entries[k].col + 1) + "): " + show(entries[k].value) + " was read, " +
                 show(copy[k].value) + " came back from\n" + text.str(),
             o, name);
}

/// A stack kept as stored (ReadOptions::dense_stacks): only then, with no sparse matrices
/// beside it, its values within the input, in range of its strides and finite.
void check_stored(const ReadResult& r, const ReadOptions& o, const std::string& name, std::size_t input_bytes) {
  const StoredStack& s = r.stored;
  if (s.element_bytes == 0) {
    if (!s.values.empty()) broken("stored values without an element size", o, name);
    return;
  }
  if (!o.dense_stacks || !r.is_stack || !r.stack.empty()) broken("a stored stack where none was asked for, or beside sparse ones", o, name);
  const int part = s.complex ? s.element_bytes / 2 : s.element_bytes;
  if ((part != 4 && part != 8) || (s.complex ? kind_of(r.matrix) != NumberKind::Complex : kind_of(r.matrix) != NumberKind::Real))
    broken("a stored stack of element size " + std::to_string(s.element_bytes) + " and another number kind", o, name);
  if (s.count < 0 || s.rows != rows_of(r.matrix) || s.cols != cols_of(r.matrix))
    broken("a stored stack of another shape than its matrix", o, name);
  const auto elements = static_cast<std::uint64_t>(s.count) * static_cast<std::uint64_t>(s.rows) * static_cast<std::uint64_t>(s.cols);
  if (s.values.size() != elements * static_cast<std::uint64_t>(s.element_bytes) || s.values.size() > input_bytes)
    broken("stored values of " + std::to_string(s.values.size()) + " bytes for " + std::to_string(elements) + " elements", o, name);
  if (elements == 0) return;
  const std::int64_t last = (s.count - 1) * s.s0 + (s.rows - 1) * s.s1 + (s.cols - 1) * s.s2;
  if (last < 0 || static_cast<std::uint64_t>(last) >= elements) broken("stored strides beyond the values", o, name);
  for (std::uint64_t e = 0; e < elements * (s.complex ? 2 : 1); ++e) {
    const char* at = s.values.data() + e * static_cast<std::uint64_t>(part);
    const double x = part == 4 ? double(*reinterpret_cast<const float*>(at)) : *reinterpret_cast<const double*>(at);
    if (!std::isfinite(x)) broken("a non-finite stored value", o, name);
  }
}

void read_once(const std::string& input, const ReadOptions& o, const std::string& name) {
  ReadResult r;
  try {
    std::istringstream in(input);
    r = read_input(in, name, o);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (!one_line(what)) broken("an InputError message of several lines: " + what, o, name);
    if (e.file() != name || what.rfind(name + ":", 0) != 0)
      broken("an InputError that does not name the file first: " + what, o, name);
    return;
  } catch (const std::exception& e) {
    broken(std::string("an exception other than InputError (") + typeid(e).name() + "): " + e.what(), o, name);
  } catch (...) {
    broken("an exception that is not a std::exception", o, name);
  }
  check_stored(r, o, name, input.size());
  check_round_trip(r, check_matrix(r, o, name, input.size()), o, name);
}

}  // namespace

void read_and_check(const std::uint8_t* data, std::size_t size, const ReaderTarget& target) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::vector<InputFormat> modes(target.modes);
  const std::vector<const char*> names(target.names);

  ReadOptions plain;
  plain.as = modes.front();
  read_once(input, plain, names.front());

  std::uint64_t h = fnv1a64(input);
  const auto draw = [&h](std::uint64_t n) {
    const std::uint64_t v = h % n;
    h /= n;
    return v;
  };
  ReadOptions o;
  o.as = modes[draw(modes.size())];
  const std::string name = names[draw(names.size())];
  o.exact = draw(2);
  o.sum_duplicates = draw(2);
  o.dense_stacks = draw(2);
  o.vectors = draw(2);  // --gamma's and --mu's reading: 1-D arrays as columns
  // The program refuses --hafnian with --as bipartite or digraph before it reads anything.
  if (o.as != InputFormat::Bipartite && o.as != InputFormat::Digraph) {
    const std::uint64_t haf = draw(3);  // none, --hafnian, --loop-hafnian
    o.hafnian = haf > 0;
    o.loops = haf == 2;
  }
  read_once(input, o, name);
}

}  // namespace matchcount::fuzz
