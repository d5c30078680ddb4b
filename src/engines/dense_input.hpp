// Reading a strided array of any DenseElement (matchcount/small_dense.hpp) into doubles, for the
// small dense kernels that count without the pipeline (the glynn engine's permanents,
// small_hafnian.cpp's hafnians), and the number kind the NumPy reader would give it.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "matchcount/small_dense.hpp"

namespace matchcount::engines::dense {

/// Calls f with a null pointer of the element type (f reads the array through it).
template <class F>
bool dispatch(DenseElement t, F&& f) {
  switch (t) {
    case DenseElement::Bool: return f(static_cast<const bool*>(nullptr));
    case DenseElement::Int8: return f(static_cast<const std::int8_t*>(nullptr));
    case DenseElement::Int16: return f(static_cast<const std::int16_t*>(nullptr));
    case DenseElement::Int32: return f(static_cast<const std::int32_t*>(nullptr));
    case DenseElement::Int64: return f(static_cast<const std::int64_t*>(nullptr));
    case DenseElement::UInt8: return f(static_cast<const std::uint8_t*>(nullptr));
    case DenseElement::UInt16: return f(static_cast<const std::uint16_t*>(nullptr));
    case DenseElement::UInt32: return f(static_cast<const std::uint32_t*>(nullptr));
    case DenseElement::UInt64: return f(static_cast<const std::uint64_t*>(nullptr));
    case DenseElement::Float32: return f(static_cast<const float*>(nullptr));
    case DenseElement::Float64: return f(static_cast<const double*>(nullptr));
    case DenseElement::Complex64: return f(static_cast<const std::complex<float>*>(nullptr));
    case DenseElement::Complex128: return f(static_cast<const std::complex<double>*>(nullptr));
  }
  return false;
}

/// x as a double pair; false where the general path must read it: a non-finite value (whose
/// message it gives) or an integer beyond 2^53 (which doubles would round).
template <class T>
bool to_doubles(T x, double& re, double& im) {
  im = 0;
  if constexpr (std::is_same_v<T, bool>) re = x;
  else if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) == 8) {
      constexpr T big = T(1) << 53;
      if (x > big) return false;
      if constexpr (std::is_signed_v<T>) if (x < -big) return false;
    }
    re = static_cast<double>(x);
  } else if constexpr (std::is_floating_point_v<T>) re = x;
  else re = x.real(), im = x.imag();
  return std::isfinite(re) && std::isfinite(im);
}

/// The n x n array at `data` (strides s0, s1) into row-major re and im; false where the general
/// path must read it (to_doubles). Sets `integral` when every entry is a real integer and
/// `any_imag` when some imaginary part is not 0.
inline bool read_square(const void* data, DenseElement type, int n, std::int64_t s0, std::int64_t s1,
                        std::vector<double>& re, std::vector<double>& im, bool& integral, bool& any_imag) {
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  re.assign(nn, 0.0), im.assign(nn, 0.0);
  integral = true, any_imag = false;
  return dispatch(type, [&](auto* tag) {
    const auto* p = static_cast<decltype(tag)>(data);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double x, y;
        if (!to_doubles(p[i * s0 + j * s1], x, y)) return false;
        integral = integral && y == 0 && std::trunc(x) == x;
        any_imag = any_imag || y != 0;
        const auto at = static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
        re[at] = x, im[at] = y;
      }
    return true;
  });
}

/// Whether the n x n row-major matrix (re, im) read by read_square equals its transpose exactly
/// (an asymmetric matrix goes to the pipeline, which names the entry).
inline bool exactly_symmetric(const std::vector<double>& re, const std::vector<double>& im, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      const auto a = static_cast<std::size_t>(i * n + j), b = static_cast<std::size_t>(j * n + i);
      if (re[a] != re[b] || im[a] != im[b]) return false;
    }
  return true;
}

constexpr bool is_complex_type(DenseElement t) { return t == DenseElement::Complex64 || t == DenseElement::Complex128; }
constexpr bool is_float_type(DenseElement t) { return t == DenseElement::Float32 || t == DenseElement::Float64; }

/// The number kind of the NumPy reader (python/src/core/convert.cpp, Collector::finish) for an
/// array of `type` whose entries are all (real) integers where `integral`: Exact (integers),
/// Real or Cplx; None for exact fractions, which the small kernels leave to the pipeline.
inline SmallDenseValue::Kind number_kind(DenseElement type, bool integral, DenseMode mode) {
  if (is_complex_type(type) && !integral) return SmallDenseValue::Cplx;
  if (is_float_type(type) && !integral && mode == DenseMode::Exact) return SmallDenseValue::None;
  if ((is_float_type(type) && !integral) || mode == DenseMode::Float) return SmallDenseValue::Real;
  return SmallDenseValue::Exact;
}

}  // namespace matchcount::engines::dense
