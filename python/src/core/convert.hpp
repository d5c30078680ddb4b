// Python values <-> the library's matrices and results. Inputs follow the rules of the CLI's
// NumPy reader (src/io/npy.cpp): integers and integral floats are exact, other floats are
// doubles (or exact binary fractions with exact=True), and the error messages are its own.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::py {

namespace nb = nanobind;

/// exact=None follows the CLI; True keeps non-integral floats as exact fractions (--exact);
/// False gives a double-precision (or complex) result even for integer input.
enum class ExactMode { Auto = 0, Exact = 1, Float = 2 };

/// A 2-D numeric array (bool, int, uint, float32/64, complex64/128; any strides).
/// Throws TypeError-worthy std::domain_error for other dtypes and std::invalid_argument for
/// NaN/infinite entries, naming the entry as the CLI does.
AnyMatrix from_dense(const nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>& a, ExactMode mode);

/// The same from raw strided memory (strides in elements): one matrix of a stack.
AnyMatrix from_strided(const void* data, nb::dlpack::dtype dtype, std::int64_t rows, std::int64_t cols, std::int64_t s0,
                       std::int64_t s1, ExactMode mode);

/// The same from coordinates: entries (row[k], col[k]) = values[k]; duplicates are summed
/// (a networkx multigraph's parallel edges, scipy's duplicate COO entries).
AnyMatrix from_coo(int rows, int cols, const nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>& r,
                   const nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>& c,
                   const nb::ndarray<nb::ro, nb::ndim<1>, nb::device::cpu>& values, ExactMode mode);

/// Coordinates with arbitrary Python ints, or fractions as numerator and denominator lists
/// (`dens` None: integers).
AnyMatrix from_coo_big(int rows, int cols, const nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>& r,
                       const nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>& c,
                       const nb::list& nums, const nb::object& dens, ExactMode mode);

/// A Python int from a GMP integer, and back.
nb::object to_python(const Integer& v);
Integer to_integer(nb::handle obj);

/// int, fractions.Fraction, float or complex.
nb::object to_python(const PermanentValue& v);

/// "entry (row R, column C) " + what, 1-based, as the CLI's readers say it.
std::string entry_message(std::int64_t row, std::int64_t col, const std::string& what);

}  // namespace matchcount::py
