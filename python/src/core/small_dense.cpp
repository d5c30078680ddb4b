// NumPy's dtypes and the module's exact mode in the library's terms (small_dense.hpp).
#include "small_dense.hpp"

#include <optional>

namespace matchcount::py {

std::optional<DenseElement> element_of(nb::dlpack::dtype t) {
  using nb::dlpack::dtype_code;
  if (t.lanes != 1) return std::nullopt;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Bool:
      if (t.bits == 8) return DenseElement::Bool;
      break;
    case dtype_code::Int:
      if (t.bits == 8) return DenseElement::Int8;
      if (t.bits == 16) return DenseElement::Int16;
      if (t.bits == 32) return DenseElement::Int32;
      if (t.bits == 64) return DenseElement::Int64;
      break;
    case dtype_code::UInt:
      if (t.bits == 8) return DenseElement::UInt8;
      if (t.bits == 16) return DenseElement::UInt16;
      if (t.bits == 32) return DenseElement::UInt32;
      if (t.bits == 64) return DenseElement::UInt64;
      break;
    case dtype_code::Float:
      if (t.bits == 32) return DenseElement::Float32;
      if (t.bits == 64) return DenseElement::Float64;
      break;
    case dtype_code::Complex:
      if (t.bits == 64) return DenseElement::Complex64;
      if (t.bits == 128) return DenseElement::Complex128;
      break;
    default:
      break;
  }
  return std::nullopt;
}

namespace {

DenseMode dense_mode(ExactMode mode) {
  return mode == ExactMode::Exact ? DenseMode::Exact : mode == ExactMode::Float ? DenseMode::Float : DenseMode::Auto;
}

}  // namespace

SmallValue small_permanent(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                           std::int64_t s0, std::int64_t s1, ExactMode mode) {
  const auto element = element_of(dtype);
  if (!element) return {};
  return small_dense_permanent(data, *element, rows, cols, s0, s1, dense_mode(mode));
}

SmallValue small_hafnian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                         std::int64_t s0, std::int64_t s1, bool loops, ExactMode mode) {
  const auto element = element_of(dtype);
  if (!element) return {};
  return small_dense_hafnian(data, *element, rows, cols, s0, s1, loops, dense_mode(mode));
}

SmallValue small_torontonian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                             std::int64_t s0, std::int64_t s1) {
  const auto element = element_of(dtype);
  if (!element) return {};
  return small_dense_torontonian(data, *element, rows, cols, s0, s1);
}

SmallValue small_loop_torontonian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                                  std::int64_t s0, std::int64_t s1, const void* gamma, nb::dlpack::dtype gamma_dtype,
                                  std::int64_t gamma_stride) {
  const auto element = element_of(dtype), gamma_element = element_of(gamma_dtype);
  if (!element || !gamma_element) return {};
  return small_dense_loop_torontonian(data, *element, rows, cols, s0, s1, gamma, *gamma_element, gamma_stride);
}

}  // namespace matchcount::py
