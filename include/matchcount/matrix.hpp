// Sparse matrices as every stage of matchcount sees them.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace matchcount {

using Integer = mpz_class;
using Rational = mpq_class;
using Complex = std::complex<double>;

/// The number system a matrix lives in; it decides whether the permanent is exact.
enum class NumberKind { Integer, Rational, Real, Complex };

std::string to_string(NumberKind kind);

/// One stored entry A(row, col) = value.
template <class T>
struct Entry {
  int row = 0;
  int col = 0;
  T value{};
};

/// A rows x cols sparse matrix in coordinate form. Invariant kept by normalize():
/// entries sorted by (row, col), no two with the same position, no stored zeros.
template <class T>
struct SparseMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<Entry<T>> entries;

  std::size_t nnz() const { return entries.size(); }
  bool square() const { return rows == cols; }

  /// Sorts entries and drops explicit zeros. Entries at the same position are summed
  /// (readers reject duplicates before calling this unless asked to sum them).
  void normalize() {
    std::sort(entries.begin(), entries.end(), [](const Entry<T>& a, const Entry<T>& b) {
      return a.row != b.row ? a.row < b.row : a.col < b.col;
    });
    std::vector<Entry<T>> out;
    out.reserve(entries.size());
    for (auto& e : entries) {
      if (!out.empty() && out.back().row == e.row && out.back().col == e.col)
        out.back().value += e.value;
      else
        out.push_back(std::move(e));
    }
    std::erase_if(out, [](const Entry<T>& e) { return e.value == T(0); });
    entries = std::move(out);
  }

  /// Row-major dense copy (rows*cols values).
  std::vector<T> dense() const {
    std::vector<T> d(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), T(0));
    for (const auto& e : entries) d[static_cast<std::size_t>(e.row) * cols + e.col] = e.value;
    return d;
  }
};

/// The transpose (normalized).
template <class T>
SparseMatrix<T> transpose(const SparseMatrix<T>& a) {
  SparseMatrix<T> t;
  t.rows = a.cols, t.cols = a.rows;
  t.entries.reserve(a.entries.size());
  for (const auto& e : a.entries) t.entries.push_back({e.col, e.row, e.value});
  t.normalize();
  return t;
}

/// The first entry of `a` (normalized: sorted by row, then column) whose mirror image is missing
/// or different, as {row, col}; {-1, -1} when `a` is symmetric; {0, 0} when it is not square.
template <class T>
std::pair<int, int> first_asymmetric_entry(const SparseMatrix<T>& a) {
  if (!a.square()) return {0, 0};
  for (const auto& e : a.entries) {
    if (e.row == e.col) continue;
    const auto it = std::lower_bound(a.entries.begin(), a.entries.end(), std::pair<int, int>{e.col, e.row},
                                     [](const Entry<T>& x, const std::pair<int, int>& k) {
                                       return x.row != k.first ? x.row < k.first : x.col < k.second;
                                     });
    if (it == a.entries.end() || it->row != e.col || it->col != e.row || !(it->value == e.value))
      return {e.row, e.col};
  }
  return {-1, -1};
}

/// Throws std::invalid_argument unless `a` is square and symmetric (a hafnian's input), naming
/// the first entry (1-based) whose mirror differs.
template <class T>
void require_symmetric(const SparseMatrix<T>& a) {
  if (!a.square())
    throw std::invalid_argument("the hafnian needs a square matrix, got " + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols));
  if (const auto [r, c] = first_asymmetric_entry(a); r >= 0)
    throw std::invalid_argument("the hafnian needs a symmetric matrix: entry (" + std::to_string(r + 1) + ", " +
                                std::to_string(c + 1) + ") differs from entry (" + std::to_string(c + 1) + ", " +
                                std::to_string(r + 1) + ")");
}

/// A matrix as read from a file: one of the number systems.
using AnyMatrix = std::variant<SparseMatrix<Integer>, SparseMatrix<Rational>, SparseMatrix<double>,
                               SparseMatrix<Complex>>;

inline NumberKind kind_of(const AnyMatrix& m) {
  return static_cast<NumberKind>(m.index());
}

/// The NumberKind of an entry type.
template <class T>
constexpr NumberKind number_kind() {
  if constexpr (std::is_same_v<T, Integer>) return NumberKind::Integer;
  else if constexpr (std::is_same_v<T, Rational>) return NumberKind::Rational;
  else if constexpr (std::is_same_v<T, double>) return NumberKind::Real;
  else return NumberKind::Complex;
}

inline int rows_of(const AnyMatrix& m) {
  return std::visit([](const auto& a) { return a.rows; }, m);
}
inline int cols_of(const AnyMatrix& m) {
  return std::visit([](const auto& a) { return a.cols; }, m);
}
inline std::size_t nnz_of(const AnyMatrix& m) {
  return std::visit([](const auto& a) { return a.nnz(); }, m);
}

/// Converts the entries of a matrix to another number type (e.g. Integer -> double).
template <class To, class From, class Convert>
SparseMatrix<To> convert(const SparseMatrix<From>& m, Convert&& f) {
  SparseMatrix<To> out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.entries.reserve(m.entries.size());
  for (const auto& e : m.entries) out.entries.push_back({e.row, e.col, f(e.value)});
  return out;
}

}  // namespace matchcount
