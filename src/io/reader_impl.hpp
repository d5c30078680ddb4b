// Private pieces of the readers: a line reader, a tokeniser, compact exact numbers and the
// step that turns collected entries into a matrix. Not installed; used by src/io/*.cpp only.
#pragma once

#include <array>
#include <chrono>
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
// Time

/// The time cap of one read (ReadOptions::max_seconds), from the moment it is made.
class ReadClock {
 public:
  explicit ReadClock(double max_seconds);
  /// Refuses (BudgetError: "FILE: reading did not finish within the time cap ... by WHERE")
  /// once the cap has passed; `where` is called only then ("line 12", "byte offset 4096").
  template <class Where>
  void check(const std::string& name, Where&& where) const {
    if (capped_ && std::chrono::steady_clock::now() > deadline_) refuse(name, where());
  }

 private:
  [[noreturn]] void refuse(const std::string& name, const std::string& where) const;
  bool capped_ = false;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point deadline_{};
};

// ---------------------------------------------------------------------------------------------
// Lines

/// Reads a stream line by line in large blocks. Lines come back without '\n' and without a
/// trailing '\r'; a UTF-8 byte-order mark at the start is dropped. Bytes that do not belong in a
/// text file (NUL and the control characters other than tab, CR, VT, FF) raise InputError.
/// `prefix` holds bytes already taken from the stream (the probe for a binary magic).
class LineReader {
 public:
  LineReader(std::istream& in, std::string name, std::string prefix = {});

  /// While on, every byte read is kept so that rewind() can start over: format detection reads
  /// ahead (standard input cannot seek), then the chosen reader starts at line 1.
  void record(bool on);
  /// Starts again at the first byte recorded (the start of the input) as line 1.
  void rewind();
  /// Bytes read since the start (or the last rewind()).
  std::uint64_t bytes_read() const { return bytes_; }

  /// The next line; false at the end of the input. The view stays valid until the next call.
  bool next(std::string_view& line);
  /// Makes the next call of next() return the line just read again.
  void push_back();
  /// Number of the line last returned (1-based; 0 before the first).
  long line_number() const { return line_; }
  const std::string& name() const { return name_; }

  /// The read's time cap, checked as each block of input arrives and by check_time().
  void set_clock(const ReadClock* clock) { clock_ = clock; }
  void check_time() const {
    if (clock_) clock_->check(name_, [this] { return "line " + std::to_string(line_); });
  }

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
  bool stream_eof_ = false;
  std::string pending_;  // served before the stream: the prefix, or what rewind() replays
  std::size_t pending_pos_ = 0;
  std::string history_;  // every byte served while recording
  bool recording_ = false;
  std::uint64_t bytes_ = 0;
  std::string carry_;
  std::string_view last_;
  bool pushed_ = false;
  long line_ = 0;
  const ReadClock* clock_ = nullptr;
};

/// Splits a line at spaces, tabs, CR, VT and FF. Fills at most kMaxTokens views and returns the
/// total number of tokens (which may exceed kMaxTokens).
constexpr int kMaxTokens = 8;
using Tokens = std::array<std::string_view, kMaxTokens>;
int tokenize(std::string_view line, Tokens& out);

/// "1 field", "3 fields".
std::string fields(int n);

/// Quotes a token for messages, shortened when long, control characters as \xNN.
std::string quote(std::string_view token);

bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);

/// True when the line is a Matrix Market banner ("%%MatrixMarket ...", any case).
bool is_matrix_market_banner(std::string_view line);
/// True when a line that is not a banner was surely meant as one: a '%' comment whose first
/// word is "MatrixMarket" misspelt or spaced ("%MatrixMarket", "%% MatrixMarket",
/// "%%MatrixMarkt"), or whose words go on "matrix coordinate|array". Read as a comment, such a
/// line would let the file pass for a banner-less one and give a silently wrong count.
bool looks_like_matrix_market_banner(std::string_view line);

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
/// 1e1000 and 1e-1000 are read, 1e1001 is "out of range" (matchcount/io.hpp).
constexpr int kMaxDecimalScale = kMaxDecimalExponent;

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
  bool reversed = false;  // (a, b) is the line's (second, first): a graph's mirror or colouring
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

/// Reading's part of the memory budget (ReadOptions::max_memory), in bytes per entry collected:
/// the entry, the vector's growth, the matrix it becomes and the vertex names beside it, as
/// measured on large grids and random graphs (docs/benchmarks.md, "Planning at scale").
constexpr double kReadBytesPerEntry = 200;
/// Refuses (BudgetError: "FILE: reading needs more than the memory budget ... by line L") when
/// `entries` entries collected by the reader's current line take more than the budget.
void check_read_memory(std::size_t entries, const ReadOptions& options, const LineReader& reader);
/// The same for readers without lines (.npy): `where` is e.g. "byte offset 4096".
void check_read_memory(std::size_t entries, const ReadOptions& options, const std::string& name,
                       const std::string& where);
/// Appends an entry; the budget is checked each time the vector is about to grow, so the check
/// costs nothing per entry.
inline void collect(std::vector<RawEntry>& entries, const RawEntry& e, const ReadOptions& options,
                    const LineReader& reader) {
  if (entries.size() == entries.capacity() && entries.size() >= 4096) check_read_memory(entries.size(), options, reader);
  entries.push_back(e);
}

/// The message for a repeated edge or arc; `earlier` is the first line that gave it.
std::string duplicate_edge_message(const char* what, const std::string& u, const std::string& v,
                                   long earlier);

// ---------------------------------------------------------------------------------------------
// Matrix files: sizes and indices

constexpr std::uint64_t kMaxDim = 2147483647;  // INT_MAX: rows, columns and vertices are ints

/// A size ("rows", "cols", "nnz") from a size line; `expected` is the line's form for messages.
std::uint64_t parse_size(std::string_view token, std::uint64_t limit, const char* what,
                         const LineReader& reader, const std::string& expected);
/// A 1-based row or column index in 1..limit, returned 0-based.
int parse_index(std::string_view token, int limit, const char* what, const LineReader& reader);
Num parse_value(std::string_view token, NumPool& pool, const LineReader& reader);
/// "RxC".
std::string dims(std::uint64_t rows, std::uint64_t cols);
void duplicate_entry_error(const LineReader& reader, const RawEntry& first, const RawEntry& later);
/// The note on explicit zeros dropped ("2 explicit zero entries dropped"), when there were any.
void note_zeros(std::size_t zeros, ReadResult& result);

// ---------------------------------------------------------------------------------------------
// Graphs (graph.cpp) and zero hints (hints.cpp)

/// The name of vertex k, for messages and for ReadResult's names.
using NameOf = std::function<std::string(int)>;


/// Repeated edges of an undirected graph (a, b: vertex ids in either order). When every edge is
/// listed exactly twice, once in each direction with the same weight, each pair becomes one edge
/// (with a note) and true is returned. Otherwise a repeat is an error unless `sum`, which adds
/// the weights. Leaves the entries sorted by (min, max) vertex.
bool merge_undirected(std::vector<RawEntry>& entries, NumPool& pool, bool sum,
                      const LineReader& reader, const NameOf& name, ReadResult& result);

/// 2-colours an undirected graph on `vertices` vertices (entries sorted as merge_undirected
/// leaves them, no self-loops): the first colour class becomes the rows, the other the columns,
/// each entry (row, col). Fills the names and the note on unequal classes; returns {rows, cols}.
/// A graph that is not bipartite is left as it is and gives {-1, -1}.
std::pair<int, int> two_colour(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                               ReadResult& result);

/// An undirected graph's edges (entries (u, v), each once; self-loops (v, v)) into the
/// symmetric adjacency matrix's entries, for the hafnian: each edge also as (v, u); self-loops
/// stay on the diagonal with ReadOptions::loops, and are dropped with a note otherwise. Sets
/// the names and ReadResult::symmetric_graph.
void symmetric_adjacency(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                         const ReadOptions& options, ReadResult& result);

/// The graph path shared by edge lists and DIMACS files after the duplicates are merged:
/// self-loops and hafnian requests give the symmetric adjacency matrix; otherwise a bipartite
/// graph gives its biadjacency matrix and any other graph its symmetric adjacency matrix.
/// Returns {rows, cols}.
std::pair<int, int> read_undirected(int vertices, std::vector<RawEntry>& entries, const NameOf& name,
                                    const ReadOptions& options, ReadResult& result);

enum class GraphKind { Bipartite, Graph, Digraph };

/// Sets result.zero_hint, unless one is set already, from the assembled matrix of a graph:
/// a vertex without edges, sides or colour classes of unequal size, or a connected component
/// whose sides differ (bipartite, graph); a vertex without outgoing or incoming arcs (digraph).
/// `zeros`: edges of weight 0 were dropped, so "no edge" means "no edge of nonzero weight".
void graph_zero_hint(GraphKind kind, bool zeros, ReadResult& result);
/// Sets result.zero_hint, unless one is set already, for an empty row or column of a matrix on
/// its shorter side (an empty line on the longer side of a rectangular matrix does not make the
/// permanent 0).
void matrix_zero_hint(ReadResult& result);

// ---------------------------------------------------------------------------------------------
// Formats (reader is positioned at the first line)

/// What format detection saw before an edge list is read.
struct EdgeListContext {
  /// The KONECT header on line 1: "% sym ...", "% asym ...", "% bip ..." (empty: none).
  std::string konect;
  /// The optional second KONECT line "% m n1 n2" (0: absent).
  long konect_counts_line = 0;
  std::uint64_t konect_m = 0, konect_n1 = 0, konect_n2 = 0;
  /// The first data line looked like the 'rows cols nnz' size line of a banner-less coordinate
  /// file (three counts, nnz within rows * cols; 0: it did not); `misfit` says where and why the
  /// rest did not fit one.
  long size_line = 0;
  bool size_square = false;
  std::uint64_t size_nnz = 0;
  std::string misfit;
};

void read_edge_list(LineReader& reader, InputFormat as, const ReadOptions& options,
                    const EdgeListContext& context, ReadResult& result);
void read_dimacs(LineReader& reader, const ReadOptions& options, ReadResult& result);
void read_matrix_market(LineReader& reader, const ReadOptions& options, ReadResult& result);
void read_bannerless_coordinate(LineReader& reader, const ReadOptions& options,
                                ReadResult& result);
/// `magic`: the first bytes, already taken from `in`.
void read_npy(std::istream& in, const std::string& name, const std::string& magic,
              const ReadOptions& options, const ReadClock& clock, ReadResult& result);

}  // namespace matchcount::io_detail
