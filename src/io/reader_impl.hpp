// Private pieces of the readers: a line reader, a tokeniser, compact exact numbers and the
// step that turns collected entries into a matrix. Not installed; used by src/io/*.cpp only.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "matchcount/error.hpp"
#include "matchcount/io.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::io_detail {

// ---------------------------------------------------------------------------------------------
// Lines

/// Reads a stream line by line in large blocks. Lines come back without '\n' and without a
/// trailing '\r'; a UTF-8 byte-order mark at the start is dropped. Bytes that do not belong in a
/// text file (NUL and the control characters other than tab, CR, VT, FF) raise InputError.
class LineReader {
 public:
  LineReader(std::istream& in, std::string name);

  /// The next line; false at the end of the input. The view stays valid until the next call.
  bool next(std::string_view& line);
  /// Makes the next call of next() return the line just read again.
  void push_back();
  /// Number of the line last returned (1-based; 0 before the first).
  long line_number() const { return line_; }
  const std::string& name() const { return name_; }

  [[noreturn]] void fail(const std::string& message) const { fail_at(line_, message); }
  [[noreturn]] void fail_at(long line, const std::string& message) const {
    throw InputError(name_, line, message);
  }

 private:
  bool fill();
  void check_text(const char* p, std::size_t n, long line) const;

  std::istream& in_;
  std::string name_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::string carry_;
  std::string_view last_;
  bool pushed_ = false;
  long line_ = 0;
};

/// Splits a line at spaces, tabs, CR, VT and FF. Fills at most kMaxTokens views and returns the
/// total number of tokens (which may exceed kMaxTokens).
constexpr int kMaxTokens = 8;
using Tokens = std::array<std::string_view, kMaxTokens>;
int tokenize(std::string_view line, Tokens& out);

/// "1 field", "3 fields".
std::string fields(int n);

/// Quotes a token for messages, shortened when long.
std::string quote(std::string_view token);

bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);

/// True when the line is a Matrix Market banner ("%%MatrixMarket ...", any case).
bool is_matrix_market_banner(std::string_view line);

// ---------------------------------------------------------------------------------------------
// Numbers

/// An exact decimal: mant * 10^scale when big < 0 (mant has at most 18 digits and no trailing
/// zeros; zero is {0, 0}), otherwise the rational pool[big].
struct Num {
  std::int64_t mant = 0;
  std::int32_t scale = 0;
  std::int32_t big = -1;
};

/// Holds the values that do not fit a Num's small form. Every value in it is a finite decimal.
class NumPool {
 public:
  Num add(Rational q);
  const Rational& operator[](std::int32_t i) const { return values_[static_cast<std::size_t>(i)]; }

  bool is_zero(const Num& x) const;
  bool is_integer(const Num& x) const;
  Num negate(const Num& x);
  Num sum(const Num& x, const Num& y);

  Integer to_integer(const Num& x) const;  // x must be an integer
  Rational to_rational(const Num& x) const;
  /// The double nearest to x (ties to even), +-inf beyond the double range.
  double to_double(const Num& x) const;

 private:
  std::vector<Rational> values_;
};

enum class NumStatus { Ok, Malformed, OutOfRange };

/// Largest |decimal exponent| of a value (after trailing zeros are taken into the exponent):
/// 1e1000 and 1e-1000 are read, 1e1001 is "out of range".
constexpr int kMaxDecimalScale = 1000;

/// Parses [+-](digits[.digits]|.digits)[(e|E)[+-]digits] exactly.
NumStatus parse_number(std::string_view text, Num& out, NumPool& pool);
/// The message for a token that parse_number refused.
std::string number_error(std::string_view token, NumStatus status);

/// Parses a non-negative decimal integer without sign; false on anything else or overflow of
/// `limit`.
bool parse_count(std::string_view text, std::uint64_t limit, std::uint64_t& out);

// ---------------------------------------------------------------------------------------------
// Entries into matrices

/// One value read from the file: rows/cols (or vertex ids) a and b, the line it came from, and
/// the value (im is used by complex inputs only).
struct RawEntry {
  int a = 0;
  int b = 0;
  long line = 0;
  Num re, im;
};

/// Sorts entries by position (key(a, b)) and line; duplicates throw via on_duplicate(first,
/// later) (the pair whose later line comes first in the file) unless `sum`, which adds them.
void merge_duplicates(std::vector<RawEntry>& entries, NumPool& pool, bool sum,
                      const std::function<std::pair<int, int>(const RawEntry&)>& key,
                      const std::function<void(const RawEntry&, const RawEntry&)>& on_duplicate);

/// Builds the matrix from entries with final coordinates (a = row, b = col): drops zeros and
/// chooses the number kind (see ReadResult). Returns the number of zero entries dropped.
std::size_t assemble(int rows, int cols, std::vector<RawEntry>& entries, const NumPool& pool,
                     bool complex, const ReadOptions& options, const LineReader& reader,
                     ReadResult& result);

// ---------------------------------------------------------------------------------------------
// Formats (reader is positioned at the first line)

void read_edge_list(LineReader& reader, InputFormat as, const ReadOptions& options,
                    ReadResult& result);
void read_matrix_market(LineReader& reader, const ReadOptions& options, ReadResult& result);
void read_bannerless_coordinate(LineReader& reader, const ReadOptions& options,
                                ReadResult& result);

}  // namespace matchcount::io_detail
