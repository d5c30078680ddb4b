// A batch's one look at its stack before counting: which matrices are integral, finite and
// (for hafnians) exactly symmetric, on the module's threads, and the symmetrised copy of a
// stack whose near-symmetric matrices pass thewalrus's test. One pass for the GPU's choice and
// the symmetric test together: a second pass over a stack of hundreds of megabytes cost more
// than the GPU's whole call (docs/benchmarks.md, "Python's batches on the GPU").
#pragma once

#include <nanobind/ndarray.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace matchcount::py {

namespace nb = nanobind;

/// A stack's layout: entry (r, c) of matrix i at element i * s0 + r * s1 + c * s2 of `base`
/// (strides in elements, as nanobind gives them).
struct StackLayout {
  const char* base = nullptr;
  std::int64_t count = 0, n = 0, s0 = 0, s1 = 0, s2 = 0;
  nb::dlpack::dtype dtype{};
  std::int64_t item = 0;  // bytes an element
  const char* at(std::int64_t i) const { return base + i * s0 * item; }
};

/// What the look finds in one matrix, as bits.
enum MatrixFlag : std::uint8_t { kIntegral = 1, kFinite = 2, kSymmetric = 4 };

/// f(element) with a value of the stored element type (float and complex dtypes).
template <class F>
void with_element(const nb::dlpack::dtype& t, F f) {
  if (t.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)) {
    if (t.bits == 32) f(float{});
    else f(double{});
  } else if (t.bits == 64) {
    f(std::complex<float>{});
  } else {
    f(std::complex<double>{});
  }
}

/// Each square float or complex matrix's flags, on `threads` threads; kSymmetric is tested only
/// where `symmetric` is asked (else it is set).
std::vector<std::uint8_t> scan_stack(const StackLayout& s, bool symmetric, int threads);

/// Where some matrices are not exactly symmetric but every entry passes
/// np.isclose(A, A.T, rtol, atol), as thewalrus's test: a contiguous copy of the stack in
/// `copy`, those matrices made (A + A.T) / 2 in the stored type (as hafnian does, and
/// NumPy would), the rest as they are; `s` then describes the copy and `flags` their new
/// flags. False, and nothing changed, where no matrix is near without being symmetric.
bool symmetrise_near(StackLayout& s, std::vector<std::uint8_t>& flags, double rtol, double atol, int threads,
                     std::unique_ptr<char[]>& copy);

}  // namespace matchcount::py
