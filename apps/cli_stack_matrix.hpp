// One matrix of a stack as the batch reads it: in place where the reader kept the stack as
// stored (ReadResult::stored: floats, the kernels read the values where they are), else the
// reader's sparse matrix (exact values); the sparse form of a stored matrix is built only for
// the pipeline.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "matchcount/io.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount::cli {

/// The small kernels' element type of a stored stack.
inline DenseElement element_of(const StoredStack& s) {
  if (s.complex) return s.element_bytes == 8 ? DenseElement::Complex64 : DenseElement::Complex128;
  return s.element_bytes == 4 ? DenseElement::Float32 : DenseElement::Float64;
}

/// Entry (r, c) of stored matrix i as a complex double.
inline std::complex<double> stored_entry(const StoredStack& s, std::int64_t i, std::int64_t r, std::int64_t c) {
  const char* at = s.matrix(i) + (r * s.s1 + c * s.s2) * s.element_bytes;
  switch (element_of(s)) {
    case DenseElement::Float32: return *reinterpret_cast<const float*>(at);
    case DenseElement::Float64: return *reinterpret_cast<const double*>(at);
    case DenseElement::Complex64: return *reinterpret_cast<const std::complex<float>*>(at);
    default: return *reinterpret_cast<const std::complex<double>*>(at);
  }
}

class StackMatrix {
 public:
  StackMatrix(const ReadResult& in, std::int64_t i) : in_(in), i_(i) {}

  bool stored() const { return in_.stored.element_bytes != 0; }
  int rows() const { return stored() ? static_cast<int>(in_.stored.rows) : rows_of(in_.stack[std::size_t(i_)]); }
  int cols() const { return stored() ? static_cast<int>(in_.stored.cols) : cols_of(in_.stack[std::size_t(i_)]); }
  NumberKind kind() const { return stored() ? (in_.stored.complex ? NumberKind::Complex : NumberKind::Real) : kind_of(sparse()); }

  /// The sparse matrix the pipeline counts (a stored one's nonzero entries, by row).
  const AnyMatrix& sparse() const {
    if (!stored()) return in_.stack[std::size_t(i_)];
    if (!built_) {
      const StoredStack& s = in_.stored;
      const auto fill = [&](auto m) -> AnyMatrix {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        for (int r = 0; r < m.rows; ++r)
          for (int c = 0; c < m.cols; ++c) {
            const std::complex<double> x = stored_entry(s, i_, r, c);
            if (x == 0.0) continue;
            if constexpr (std::is_same_v<T, double>) m.entries.push_back({r, c, x.real()});
            else m.entries.push_back({r, c, x});
          }
        return m;
      };
      built_ = s.complex ? fill(SparseMatrix<Complex>{rows(), cols(), {}}) : fill(SparseMatrix<double>{rows(), cols(), {}});
    }
    return *built_;
  }

  std::size_t nnz() const {
    if (!stored()) return nnz_of(sparse());
    std::size_t count = 0;
    for (int r = 0; r < rows(); ++r)
      for (int c = 0; c < cols(); ++c) count += stored_entry(in_.stored, i_, r, c) != 0.0;
    return count;
  }

  /// count(data, type, n, row_stride, col_stride) on the square float matrix in place; kind
  /// None (the pipeline counts it) for a non-square matrix and for a stack not kept as stored,
  /// whose values are exact (the CLI reads float stacks with ReadOptions::dense_stacks).
  template <class Count>
  SmallDenseValue dense(Count count) const {
    const int n = rows();
    if (!stored() || n != cols()) return {};
    return count(in_.stored.matrix(i_), element_of(in_.stored), n, in_.stored.s1, in_.stored.s2);
  }

 private:
  const ReadResult& in_;
  std::int64_t i_;
  mutable std::optional<AnyMatrix> built_;
};

}  // namespace matchcount::cli
