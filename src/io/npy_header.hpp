// The .npy header: the Python-literal dict (descr, fortran_order, shape) after the magic,
// version and length (npy.cpp reads the rest).
#pragma once

#include <cstdint>
#include <string>

namespace matchcount::io_detail {

struct NpyDtype {
  char order = '<';  // '<', '>' or '|'
  char kind = 'i';   // 'b', 'i', 'u', 'f', 'c'
  int size = 0;      // bytes per element
  std::string text;  // as written, for messages
};

struct NpyHeader {
  NpyDtype dtype;
  bool fortran = false;
  std::uint64_t rows = 0, cols = 0;
  /// A 3-D stack (k, m, n): k matrices of m x n, read as one (k m) x n matrix (in either order
  /// the slices' rows are whole rows of it) and split after; 0 for a 2-D array.
  std::uint64_t stack = 0, slice_rows = 0;
  bool is_stack = false;
};

/// The header dict `text`, which starts at byte `offset` of file `name`; InputError naming the
/// byte offset where it is malformed or describes no matrix (or stack) of numbers. With
/// `vectors`, a 1-D shape (n,) is an n x 1 column (ReadOptions::vectors).
NpyHeader parse_npy_header(const std::string& text, std::uint64_t offset, const std::string& name, bool vectors = false);

}  // namespace matchcount::io_detail
