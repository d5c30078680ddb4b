// Permanents of small dense square matrices (n <= 16) without the pipeline: Glynn's formula
// in Gray-code order on the stack, for the batch function and the one-matrix quick path,
// where planning, preprocessing and allocation would cost several times the count itself.
//
// It lives with the bindings rather than in src/engines because the module may be built
// against an installed library (MATCHCOUNT_INSTALLED), whose engine headers are private.
#pragma once

#include <nanobind/ndarray.h>

#include <cstdint>

#include "convert.hpp"
#include "matchcount/value.hpp"

namespace matchcount::py {

constexpr int kSmallMax = 16;  // 2^15 Glynn terms: ~0.1 ms, short enough not to need Ctrl-C

/// A result of the small kernel, plain data so that a batch stores it without allocation.
struct SmallValue {
  enum Kind : std::uint8_t { None, Exact, Real, Cplx } kind = None;  // None: not counted here
  double re = 0, im = 0;      // Exact: an integer of at most 2^53 held exactly
  double abs_error = 0;       // the error the ryser engine would give (0 when exact)
  bool estimated = false;     // abs_error is a model of the walk's drift, not a bound
  PermanentValue value() const;
};

/// The permanent of the rows x cols matrix at `data` (strides in elements), with the number
/// kind the NumPy reader gives its entries (exact integers, doubles or complex). Returns a
/// value of kind None, without counting, where the general path must count: a rectangular
/// matrix, n > kSmallMax, an exact fraction, a non-finite entry (whose message the general
/// path gives), or an integer matrix whose permanent may not fit the exact 53-bit walk.
SmallValue small_permanent(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols,
                           std::int64_t s0, std::int64_t s1, ExactMode mode);

}  // namespace matchcount::py
