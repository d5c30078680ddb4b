// The library's small dense kernels (matchcount/small_dense.hpp: the "glynn" engine's walk, the
// "hafnian" engine's float walks) on a NumPy array, for the batch functions and the one-matrix quick path.
#pragma once

#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>

#include "convert.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount::py {

constexpr int kSmallMax = kSmallDenseMax;
using SmallValue = SmallDenseValue;

/// The library's element type for a NumPy dtype; nothing for a dtype it does not read.
std::optional<DenseElement> element_of(nb::dlpack::dtype t);

/// small_dense_permanent on an array of dtype `dtype`: a value of kind None, without counting,
/// where the general path must count (small_dense.hpp says when), also for a dtype the library
/// does not read.
SmallValue small_permanent(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                           std::int64_t s0, std::int64_t s1, ExactMode mode);

/// small_dense_torontonian likewise (kind None where the engine counts).
SmallValue small_torontonian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                             std::int64_t s0, std::int64_t s1);

/// small_dense_loop_torontonian likewise, gamma's 2n values of dtype `gamma_dtype` `gamma_stride`
/// elements apart.
SmallValue small_loop_torontonian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                                  std::int64_t s0, std::int64_t s1, const void* gamma, nb::dlpack::dtype gamma_dtype,
                                  std::int64_t gamma_stride);

/// small_dense_hafnian (loop hafnians where `loops`) likewise: kind None where the general path
/// counts (exact numbers, asymmetric matrices, n > kSmallHafnianMax, ...).
SmallValue small_hafnian(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                         std::int64_t s0, std::int64_t s1, bool loops, ExactMode mode);

}  // namespace matchcount::py
