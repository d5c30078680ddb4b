// Helpers shared by the reader tests: read text as a file, pull entries out, catch InputErrors.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "matchcount/error.hpp"
#include "matchcount/io.hpp"

namespace matchcount::iotest {

inline ReadResult read_text(const std::string& text, const std::string& name = "in.txt",
                            ReadOptions options = {}) {
  std::istringstream in(text);
  return read_input(in, name, options);
}

inline ReadResult read_as(const std::string& text, InputFormat as, const std::string& name = "in.txt") {
  ReadOptions o;
  o.as = as;
  return read_text(text, name, o);
}

template <class T>
using Triples = std::vector<std::tuple<int, int, T>>;

template <class T>
Triples<T> triples(const AnyMatrix& m) {
  const auto* s = std::get_if<SparseMatrix<T>>(&m);
  EXPECT_NE(s, nullptr) << "matrix kind is " << m.index();
  Triples<T> out;
  if (s != nullptr)
    for (const auto& e : s->entries) out.emplace_back(e.row, e.col, e.value);
  return out;
}

inline Triples<Integer> ints(std::initializer_list<std::tuple<int, int, long>> list) {
  Triples<Integer> out;
  for (const auto& [r, c, v] : list) out.emplace_back(r, c, Integer(v));
  return out;
}

/// An integer graph matrix keyed by vertex names: {row name, column name} -> value. Two readings
/// of one graph agree on it whatever order they number the vertices in.
inline std::map<std::pair<std::string, std::string>, Integer> by_name(const ReadResult& r) {
  std::map<std::pair<std::string, std::string>, Integer> out;
  for (const auto& [row, col, v] : triples<Integer>(r.matrix))
    out[{r.row_names.at(static_cast<std::size_t>(row)), r.col_names.at(static_cast<std::size_t>(col))}] = v;
  return out;
}

inline Rational q(const char* s) {
  Rational x(s);
  x.canonicalize();
  return x;
}

/// what() of the InputError thrown by `f`, or a failure.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no error";
  return {};
}

inline std::string error_text(const std::string& text, const std::string& name = "in.txt",
                              InputFormat as = InputFormat::Auto, bool exact = false) {
  ReadOptions o;
  o.as = as;
  o.exact = exact;
  return error_of([&] { read_text(text, name, o); });
}

}  // namespace matchcount::iotest

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)
