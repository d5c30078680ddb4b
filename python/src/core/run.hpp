// Counts and estimates for the Python module: the GIL is released while the library works,
// Ctrl-C stops the count (KeyboardInterrupt), an optional Python callback sees the progress.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <optional>
#include <string>
#include <vector>

#include "convert.hpp"
#include "matchcount/io.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::py {

/// A matrix handed from Python to the counts (made by from_dense/from_coo/from_coo_big).
struct Matrix {
  AnyMatrix m;
};

/// What every count takes besides the matrix.
struct Request {
  int what = 0;                     // 0 permanent, 1 hafnian, 2 loop hafnian
  bool perfect_matchings = false;   // a graph: a non-square matrix counts 0 (CountOptions)
  std::string device = "auto", engine = "auto";
  int threads = 0;
  std::string row_mult, col_mult;   // "1,0,2" (the CLI's --row-mult), empty: none
  std::string checkpoint;           // file, empty: none
  double checkpoint_every = 60;
  nb::object progress;              // None or a callable
  double progress_every = 0.5;      // seconds between progress calls
  bool interruptible = false;       // main thread: install the Ctrl-C handler
  int details = 0;                  // 0 the value, 1 the --json record, 2 the --explain record
  std::string format;               // "format" of the record, e.g. "NumPy array float64"
  std::vector<std::string> names;   // vertex names of a graph (messages, Tutte witness)
  std::vector<std::string> notes;   // remarks of the Python side (self-loops dropped, ...)
  double max_memory = 0;            // CountOptions::max_memory: 0 the default, inf none
  double max_seconds = 0;           // CountOptions::max_seconds, and the cap while counting
  bool log = false;                 // CountOptions::log: the value as (sign, ln|count|, error)
};

/// True when preprocessing would hand `m` to the planner unchanged (a dense square matrix).
bool preprocessing_is_identity(const AnyMatrix& m);

/// device="cpu" | "gpu" | "auto" as a policy; "gpu" without a usable GPU is refused in the
/// CLI's words.
DevicePolicy device_policy(const std::string& device);

/// The --json record's description of a matrix handed from Python (its kind and size; `format`
/// names where it came from).
ReadResult described(const AnyMatrix& m, const std::string& format, const std::vector<std::string>& names,
                     const std::vector<std::string>& notes);

/// The value (int, Fraction, float, complex) or, with details, the JSON record as a string.
nb::object count(const Matrix& m, const Request& r);

/// The permanent of a small dense array with default options, without the Request: the
/// per-call overhead of the common case.
nb::object permanent_dense(const nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>& a, int mode, int threads);

struct EstimateRequest {
  bool hafnian = false, loops = false, perfect_matchings = false;
  std::string method = "scaling+";
  std::uint64_t samples = 0;
  double rel_error = 0.01, max_seconds = 60;
  std::uint64_t max_samples = 1'000'000'000, seed = 1;
  int threads = 0, exact_up_to = 20, scale_interval = 0, scale_sweeps = 5;
  std::string device = "auto";
  nb::object progress;
  double progress_every = 0.5;
  bool interruptible = false;
  std::string format;
  double max_memory = 0;  // EstimateOptions::max_memory
};

/// The estimate's fields as a dict (value, std_error, ci_low/high, samples, target_met, exact,
/// exact_value, heavy_tail, method, text, json).
nb::dict estimate(const Matrix& m, const EstimateRequest& r);

/// What a batch counts of each matrix.
enum class BatchOf { Permanent = 0, Hafnian = 1, LoopHafnian = 2, Torontonian = 3 };

/// The values of a stack (k, m, n) with OpenMP threads across the matrices, one thread each.
/// mode Exact: a list of the exact values (ints, Fractions; floats where the input is one);
/// otherwise a complex128 array when the input or any value is complex, else float64. Ctrl-C
/// (`interruptible`: the main thread) stops the batch after the matrices under way and raises
/// KeyboardInterrupt. An error names the first matrix it concerns. Float (loop) hafnians
/// symmetric within np.isclose(A, A.T, rtol, atol), as thewalrus tests, are counted as
/// (A + A.T) / 2; others that are not symmetric are refused by the count, in its words.
/// Torontonians with `gammas` (k, 2n) are the loop torontonians, row i matrix i's gamma.
nb::object batch(const nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>& a, BatchOf what, int mode, int threads,
                 const std::string& device, const std::string& engine, bool interruptible, double rtol, double atol,
                 const std::optional<nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>>& gammas = std::nullopt);

}  // namespace matchcount::py
