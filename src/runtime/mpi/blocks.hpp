// Blocks as messages between the ranks: a sparse matrix of any number kind, and its kind.
#pragma once

#include <cstdint>

#include "matchcount/matrix.hpp"
#include "runtime/mpi/messages.hpp"

namespace matchcount::cluster {

inline void put_value(Writer& w, const Integer& v) { w.put_string(v.get_str(32)); }
inline void put_value(Writer& w, double v) { w.put(v); }
inline void put_value(Writer& w, const Complex& v) { w.put(v.real()).put(v.imag()); }
inline void get_value(Reader& r, Integer& v) { v.set_str(r.get_string(), 32); }
inline void get_value(Reader& r, double& v) { v = r.get<double>(); }
inline void get_value(Reader& r, Complex& v) {
  const double re = r.get<double>();
  v = Complex(re, r.get<double>());
}

/// The kind of number of a block, as sent.
template <class T> constexpr std::uint64_t kind_code();
template <> constexpr std::uint64_t kind_code<Integer>() { return 1; }
template <> constexpr std::uint64_t kind_code<double>() { return 2; }
template <> constexpr std::uint64_t kind_code<Complex>() { return 3; }

template <class T>
inline void put_matrix(Writer& w, const SparseMatrix<T>& a) {
  const std::uint64_t entries = a.entries.size();
  w.put(a.rows);
  w.put(a.cols);
  w.put(entries);
  for (const auto& e : a.entries) {
    w.put(e.row);
    w.put(e.col);
    put_value(w, e.value);
  }
}

template <class T>
SparseMatrix<T> get_matrix(Reader& r) {
  SparseMatrix<T> a;
  a.rows = r.get<int>();
  a.cols = r.get<int>();
  a.entries.resize(r.get<std::uint64_t>());
  for (auto& e : a.entries) {
    e.row = r.get<int>();
    e.col = r.get<int>();
    get_value(r, e.value);
  }
  return a;
}

}  // namespace matchcount::cluster
