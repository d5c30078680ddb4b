// Matrix Market files, and the size and index parsing that banner-less files share.
#include <algorithm>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

std::uint64_t parse_size(std::string_view token, std::uint64_t limit, const char* what,
                         const LineReader& reader, const std::string& expected) {
  std::uint64_t v = 0;
  if (parse_count(token, limit, v)) return v;
  const auto all_digits = [](std::string_view x) {
    return !x.empty() && x.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (token.size() > 1 && token.front() == '-' && all_digits(token.substr(1)))
    reader.fail(std::string("negative ") + what + " " + quote(token) + " in the size line");
  if (all_digits(token))
    reader.fail(std::string(what) + " " + quote(token) + " too large (at most " +
                std::to_string(limit) + ")");
  reader.fail("malformed size line: expected '" + expected + "', found " + quote(token));
}

int parse_index(std::string_view token, int limit, const char* what, const LineReader& reader) {
  std::uint64_t v = 0;
  if (!parse_count(token, ~0ull, v)) {
    if (!token.empty() && token.find_first_not_of("0123456789") == std::string_view::npos)
      reader.fail(std::string(what) + " index " + quote(token) + " out of range 1.." +
                  std::to_string(limit));
    reader.fail(std::string("malformed ") + what + " index " + quote(token));
  }
  if (v < 1 || v > static_cast<std::uint64_t>(limit))
    reader.fail(std::string(what) + " index " + std::to_string(v) + " out of range 1.." +
                std::to_string(limit));
  return static_cast<int>(v - 1);
}

Num parse_value(std::string_view token, NumPool& pool, const LineReader& reader) {
  Num x;
  const NumStatus st = parse_number(token, x, pool);
  if (st != NumStatus::Ok) reader.fail(number_error(token, st));
  return x;
}

std::string dims(std::uint64_t rows, std::uint64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

void duplicate_entry_error(const LineReader& reader, const RawEntry& first, const RawEntry& later) {
  reader.fail_at(later.line, "duplicate entry " + std::to_string(later.a + 1) + " " +
                                 std::to_string(later.b + 1) + " (first on line " +
                                 std::to_string(first.line) + ")");
}

void note_zeros(std::size_t zeros, ReadResult& result) {
  if (zeros > 0)
    result.notes.push_back(std::to_string(zeros) + " explicit zero " +
                           (zeros == 1 ? "entry" : "entries") + " dropped");
}

namespace {

enum class Field { Pattern, Integer, Real, Complex };
enum class Symmetry { General, Symmetric, Skew, Hermitian };

/// The next line that is neither blank nor a comment; false at the end of the input.
bool next_data_line(LineReader& reader, std::string_view& line, Tokens& t, int& n) {
  while (reader.next(line)) {
    n = tokenize(line, t);
    if (n == 0 || t[0].front() == '%') continue;
    return true;
  }
  return false;
}

}  // namespace

void read_matrix_market(LineReader& reader, const ReadOptions& options, ReadResult& result) {
  std::string_view line;
  Tokens t;
  reader.next(line);
  const int nb = tokenize(line, t);
  static const std::string kBannerForm = "'%%MatrixMarket matrix FORMAT FIELD SYMMETRY'";
  if (nb == 0 || !iequals(t[0], "%%MatrixMarket"))
    reader.fail("malformed Matrix Market banner: expected " + kBannerForm);
  if (nb < 5) reader.fail("incomplete Matrix Market banner: expected " + kBannerForm);
  if (nb > 5)
    reader.fail("unexpected word " + quote(t[5]) + " in the Matrix Market banner: expected " +
                kBannerForm);
  if (!iequals(t[1], "matrix"))
    reader.fail("unsupported Matrix Market object " + quote(t[1]) + " (only 'matrix')");
  bool coordinate = false;
  if (iequals(t[2], "coordinate")) coordinate = true;
  else if (!iequals(t[2], "array"))
    reader.fail("unknown Matrix Market format " + quote(t[2]) + " (coordinate or array)");
  Field field{};
  if (iequals(t[3], "pattern")) field = Field::Pattern;
  else if (iequals(t[3], "integer")) field = Field::Integer;
  else if (iequals(t[3], "real") || iequals(t[3], "double")) field = Field::Real;
  else if (iequals(t[3], "complex")) field = Field::Complex;
  else
    reader.fail("unknown Matrix Market field " + quote(t[3]) +
                " (pattern, integer, real or complex)");
  Symmetry sym{};
  if (iequals(t[4], "general")) sym = Symmetry::General;
  else if (iequals(t[4], "symmetric")) sym = Symmetry::Symmetric;
  else if (iequals(t[4], "skew-symmetric")) sym = Symmetry::Skew;
  else if (iequals(t[4], "hermitian")) sym = Symmetry::Hermitian;
  else
    reader.fail("unknown Matrix Market symmetry " + quote(t[4]) +
                " (general, symmetric, skew-symmetric or hermitian)");
  if (field == Field::Pattern && !coordinate)
    reader.fail("the pattern field needs the coordinate format, not array");
  if (field == Field::Pattern && sym == Symmetry::Skew)
    reader.fail("a pattern matrix cannot be skew-symmetric");
  if (field == Field::Pattern && sym == Symmetry::Hermitian)
    reader.fail("a pattern matrix cannot be hermitian");

  static const char* kFieldNames[] = {"pattern", "integer", "real", "complex"};
  static const char* kSymNames[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
  result.format = std::string("Matrix Market ") + (coordinate ? "coordinate " : "array ") +
                  kFieldNames[static_cast<int>(field)] + " " + kSymNames[static_cast<int>(sym)] +
                  (sym != Symmetry::General ? " (mirrored)" : "");

  // Size line.
  int n = 0;
  if (!next_data_line(reader, line, t, n)) reader.fail_at(reader.line_number(), "missing size line");
  const std::string expected = coordinate ? "rows cols nnz" : "rows cols";
  if (n != (coordinate ? 3 : 2))
    reader.fail("malformed size line: expected '" + expected + "', found " + fields(n));
  const std::uint64_t urows = parse_size(t[0], kMaxDim, "rows", reader, expected);
  const std::uint64_t ucols = parse_size(t[1], kMaxDim, "cols", reader, expected);
  if (sym != Symmetry::General && urows != ucols)
    reader.fail(std::string("a ") + kSymNames[static_cast<int>(sym)] + " matrix must be square, not " +
                dims(urows, ucols));
  // Positions a file may list: all, the lower triangle with or without the diagonal.
  // (A coordinate skew-symmetric file may list zeros on the diagonal; an array file does not.)
  const std::uint64_t positions =
      sym == Symmetry::General                  ? urows * ucols
      : sym == Symmetry::Skew && !coordinate    ? urows * (urows - (urows > 0)) / 2
                                                : urows * (urows + 1) / 2;
  std::uint64_t count = positions;
  const long size_line = reader.line_number();
  if (coordinate) {
    count = parse_size(t[2], ~0ull, "nnz", reader, expected);
    if (count > positions)
      reader.fail("nnz " + std::to_string(count) + " exceeds the " + std::to_string(positions) +
                  " positions of a " + dims(urows, ucols) +
                  (sym == Symmetry::General ? "" : " triangle") + " matrix");
  }
  const int rows = static_cast<int>(urows), cols = static_cast<int>(ucols);
  const bool complex = field == Field::Complex;

  NumPool pool;
  std::vector<RawEntry> entries;
  entries.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 20)));
  const int want = (coordinate ? 2 : 0) + (field == Field::Pattern ? 0 : complex ? 2 : 1);
  const std::string entry_form =
      coordinate ? (field == Field::Pattern ? "i j" : complex ? "i j re im" : "i j value")
                 : (complex ? "re im" : "value");
  std::uint64_t seen = 0;
  int ai = 0, aj = 0;  // array format: position of the next value (column-major)
  if (!coordinate && sym == Symmetry::Skew) ai = 1;
  while (next_data_line(reader, line, t, n)) {
    if (seen == count)
      reader.fail("more entries than the " + std::to_string(count) + " declared on line " +
                  std::to_string(size_line));
    ++seen;
    if (n != want)
      reader.fail("expected '" + entry_form + "', found " + fields(n));
    RawEntry e;
    e.line = reader.line_number();
    int k = 0;
    if (coordinate) {
      e.a = parse_index(t[0], rows, "row", reader);
      e.b = parse_index(t[1], cols, "column", reader);
      k = 2;
    } else {
      e.a = ai;
      e.b = aj;
      if (++ai == rows) {
        ++aj;
        ai = sym == Symmetry::General ? 0 : sym == Symmetry::Skew ? aj + 1 : aj;
      }
    }
    if (field == Field::Pattern) {
      e.re = Num{1, 0, -1};
    } else {
      e.re = parse_value(t[static_cast<std::size_t>(k)], pool, reader);
      if (complex) e.im = parse_value(t[static_cast<std::size_t>(k + 1)], pool, reader);
      if (field == Field::Integer && !pool.is_integer(e.re))
        reader.fail("non-integer value " + quote(t[static_cast<std::size_t>(k)]) +
                    " in an integer matrix");
    }
    if (coordinate && sym != Symmetry::General) {
      if (e.b > e.a)
        reader.fail("entry " + std::to_string(e.a + 1) + " " + std::to_string(e.b + 1) +
                    " above the diagonal: a " + kSymNames[static_cast<int>(sym)] +
                    " file stores only the lower triangle");
      if (e.a == e.b && sym == Symmetry::Skew && !(pool.is_zero(e.re) && pool.is_zero(e.im)))
        reader.fail("nonzero diagonal entry " + std::to_string(e.a + 1) + " " +
                    std::to_string(e.b + 1) + " in a skew-symmetric matrix");
    }
    if (e.a == e.b && sym == Symmetry::Hermitian && !pool.is_zero(e.im))
      reader.fail("diagonal entry " + std::to_string(e.a + 1) + " " + std::to_string(e.b + 1) +
                  " of a hermitian matrix has a nonzero imaginary part");
    if (!coordinate && pool.is_zero(e.re) && pool.is_zero(e.im)) continue;  // dense zeros
    collect(entries, e, options, reader);
  }
  if (seen < count)
    reader.fail_at(reader.line_number(), "only " + std::to_string(seen) + " of the " +
                                             std::to_string(count) + " entries declared on line " +
                                             std::to_string(size_line));

  if (coordinate)
    merge_duplicates(entries, pool, options.sum_duplicates, [](const RawEntry& e) {
      return std::pair<int, int>{e.a, e.b};
    }, [&](const RawEntry& first, const RawEntry& later) { duplicate_entry_error(reader, first, later); });

  if (sym != Symmetry::General) {
    const std::size_t stored = entries.size();
    check_read_memory(2 * stored, options, reader);  // the mirror images double the entries
    for (std::size_t k = 0; k < stored; ++k) {
      const RawEntry e = entries[k];
      if (e.a == e.b) continue;
      RawEntry m{e.b, e.a, e.line, e.re, e.im};
      if (sym == Symmetry::Skew) {
        m.re = pool.negate(e.re);
        m.im = pool.negate(e.im);
      } else if (sym == Symmetry::Hermitian) {
        m.im = pool.negate(e.im);
      }
      entries.push_back(m);
    }
  }
  const std::size_t zeros = assemble(rows, cols, entries, pool, complex, options, reader, result);
  note_zeros(coordinate ? zeros : 0, result);
  matrix_zero_hint(result);
}

}  // namespace matchcount::io_detail
