// Readers: graph files and matrix files into a sparse matrix whose permanent is the answer.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// How to read a file. Auto: NumPy .npy when the input starts with the "\x93NUMPY" magic;
/// Matrix Market when the first line is a %%MatrixMarket banner; SUPerman's banner-less
/// coordinate format when the name ends in ".mtx" or the whole input has that shape; DIMACS
/// when the first line other than 'c' comments is "p edge N M" or "p col N M"; a KONECT
/// edge list read as its "% sym|asym|bip" header says; otherwise a bipartite edge list.
/// Matrix reads Matrix Market, banner-less coordinate files and .npy.
enum class InputFormat { Auto, Bipartite, Graph, Digraph, Matrix, Dimacs, Npy };

struct ReadOptions {
  InputFormat as = InputFormat::Auto;
  /// Keep non-integer decimal values as exact rationals (otherwise they become doubles).
  bool exact = false;
  /// Sum the weights of repeated edges/entries instead of rejecting them.
  bool sum_duplicates = false;
  /// A hafnian is wanted: undirected graphs give their symmetric adjacency matrix even when
  /// bipartite, and a matrix that is not square and symmetric is an error naming the line of
  /// the first entry without its mirror image.
  bool hafnian = false;
  /// Self-loops of undirected graphs are loop weights (on the diagonal, for the loop hafnian);
  /// otherwise they are dropped with a note, as they lie in no perfect matching.
  bool loops = false;
  /// The memory budget in bytes (CountOptions::max_memory; 0 for default_max_memory(),
  /// infinity for none). Reading refuses (BudgetError, naming the file and line) once what it
  /// has collected would not fit (docs/usage.md, "Time caps, memory and large inputs").
  double max_memory = 0;
  /// The time cap in seconds (CountOptions::max_seconds; 0 for none), counted from the call of
  /// read_input: reading refuses (BudgetError, naming the file and the line or byte offset
  /// reached) once it has passed, checked after every block of input and after each pass over
  /// the entries (docs/usage.md, "Time caps, memory and large inputs").
  double max_seconds = 0;
  /// Keep the line each entry came from (ReadResult::entry_lines), for answers that list the
  /// file's edges in file order (--marginals).
  bool keep_lines = false;
  /// A 3-D .npy stack of floats or complex values that are not all (real) integers, read without
  /// ReadOptions::exact, is kept as it was stored (ReadResult::stored) rather than as sparse
  /// matrices: the batch kernels read it in place.
  bool dense_stacks = false;
  /// A 1-D .npy array (n,) reads as an n x 1 column: for files of values (--gamma, --mu).
  bool vectors = false;
};

/// A stack kept as it was stored (ReadOptions::dense_stacks), in native byte order: entry (r, c)
/// of matrix i is element i * s0 + r * s1 + c * s2 of `values` (strides in elements, C or
/// Fortran order), elements of `element_bytes` bytes: float32 or float64 (4, 8), or with
/// `complex` complex64 or complex128 (8, 16). Every value is finite.
struct StoredStack {
  std::vector<char> values;
  bool complex = false;
  int element_bytes = 0;  // 0: nothing is stored
  std::int64_t count = 0, rows = 0, cols = 0, s0 = 0, s1 = 0, s2 = 0;
  const char* matrix(std::int64_t i) const { return values.data() + i * s0 * element_bytes; }
};

/// Where an entry of the matrix came from: (row, col) and the file's line (with duplicates
/// summed, the first line).
struct EntryLine {
  int row = 0, col = 0;
  long line = 0;
  /// The line names the column (a graph's second vertex) first: a symmetric graph's mirror
  /// entry, or an edge whose first vertex was coloured as a column.
  bool reversed = false;
};

struct ReadResult {
  /// Integer when every value is an integer (pattern files, 0-1 graphs, integer-valued real
  /// files, complex files whose values are all real integers); Rational for non-integer
  /// decimals with ReadOptions::exact; Real otherwise; Complex for complex values.
  AnyMatrix matrix;
  /// What was read, e.g. "Matrix Market coordinate real symmetric (mirrored)".
  std::string format;
  /// Vertex names of rows and columns for graph inputs (empty for matrix files).
  std::vector<std::string> row_names;
  std::vector<std::string> col_names;
  /// Remarks the user should see with -v/--json, e.g. why sides are unequal.
  std::vector<std::string> notes;
  /// Why a count of 0 may come from how the input was read rather than from the graph, with
  /// the option that reads it the other way (one line, e.g. "the edge list looks undirected
  /// (...): --as graph reads it as one"). Printed on stderr when the count is 0.
  std::string zero_hint;
  /// The matrix is the symmetric adjacency matrix of an undirected graph (both triangles; loop
  /// weights on the diagonal): its hafnian counts the perfect matchings. Set for graphs that are
  /// not bipartite, have self-loops kept by ReadOptions::loops, or were read with
  /// ReadOptions::hafnian.
  bool symmetric_graph = false;
  /// A 3-D NumPy stack (k, m, n): its k matrices, in order (`matrix` is then an empty m x n
  /// matrix of their number kind). Only .npy files give stacks; the program counts each.
  bool is_stack = false;
  std::vector<AnyMatrix> stack;
  /// With ReadOptions::dense_stacks, a float or complex stack counted as floats: its matrices
  /// are here, as stored, and `stack` is empty.
  StoredStack stored;
  /// With ReadOptions::keep_lines, from line-based readers: each nonzero entry's line, sorted by
  /// (row, col) (a symmetric graph's edge is there twice, once each way).
  std::vector<EntryLine> entry_lines;
};

/// The names --as accepts, in the order of InputFormat: auto, bipartite, graph, digraph, matrix,
/// dimacs, npy.
std::vector<std::string> input_format_names();
/// The InputFormat named `name` (one of input_format_names()); UsageError for any other.
InputFormat parse_input_format(const std::string& name);

/// Reads `path` ("-" is standard input). Throws InputError("FILE:LINE: what") on bad input.
ReadResult read_input(const std::string& path, const ReadOptions& options);
/// Reads from a stream; `name` is used in messages and for the ".mtx" rule.
ReadResult read_input(std::istream& in, const std::string& name, const ReadOptions& options);

/// Parses a decimal number ("-12", "0.91", ".5e-3", "1E+4") exactly; false if malformed.
bool parse_exact_decimal(const std::string& text, Rational& out);

/// The text readers take a decimal value whose exponent, after its trailing zeros are taken
/// into it, lies within +-this: 1e1000 and 1e-1000 are read, 1e1001 (or an integer of 1001
/// trailing zeros) is "number out of range". The bound keeps a short token from expanding into
/// a huge exact number; the writers refuse values beyond it (matchcount/generate.hpp).
constexpr int kMaxDecimalExponent = 1000;

}  // namespace matchcount
