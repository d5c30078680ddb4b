// Torontonians: the click probabilities of threshold detectors in Gaussian boson sampling.
//
//   Tor(O) = sum over Z subset of the modes of (-1)^(n - |Z|) / sqrt(det(I - O_Z)),
//
// O of 2n x 2n in thewalrus's (a, a^dagger) order, O_Z the rows and columns i and i + n of the
// modes i in Z. The loop torontonian (thewalrus's ltor) multiplies each term by
// exp(1/2 gamma_Z^T (I - O_Z)^-1 conj(gamma_Z)). For a Gaussian state I - O is the conjugate of
// Q^-1, Hermitian positive definite, and so is every I - O_Z (a principal submatrix): each term
// is 1 / prod diag(L_Z) for the Cholesky factor L_Z of I - O_Z, which extends the factor of
// Z without mode i by two rows (Kaposi et al., arXiv:2109.04528). The subsets are walked depth
// first, in work units fixed by the first modes' membership.
//
// The error bound holds (torontonian.cpp says why): a lower bound on the least eigenvalue of
// I - O, certified by a shifted Cholesky, bounds how far every computed determinant lies from
// the true one (Cauchy interlacing carries it to every principal submatrix), and the signed sum
// is kept in double-double.
#pragma once

#include <vector>

#include "engines/engine.hpp"
#include "matchcount/value.hpp"

namespace matchcount::engines {

/// O as given: 2n x 2n, row-major; gamma (2n values) for the loop torontonian, empty otherwise.
template <class T>
struct TorontonianInput {
  int modes = 0;
  std::vector<T> o;
  std::vector<T> gamma;
  /// Gpu: on the CUDA devices (the CPU where there are none or a run fails); Auto: there where
  /// a device is present and the walk is long enough to repay it.
  DevicePolicy device = DevicePolicy::Cpu;
};

/// The most modes counted: 2^n terms.
constexpr int kTorontonianMaxModes = 48;

/// The value and a bound on its error that holds. RefusedError when I - O is not Hermitian
/// positive definite (to within 1e-12 of its norm, where it is symmetrized) or the bound cannot
/// be made smaller than the value; a real O with a complex gamma is counted in complex.
Approx<double> torontonian(const TorontonianInput<double>& in, const EngineOptions& opt);
Approx<double> torontonian(const TorontonianInput<Complex>& in, const EngineOptions& opt);

/// Planner cost model: predicted seconds on `cores` cores (real: whether the walk runs in real
/// arithmetic), or on one GPU (gpu).
double torontonian_seconds(int modes, bool real, int cores, bool gpu = false);

/// The fewest modes the Auto policy takes to a GPU.
constexpr int kTorontonianGpuMinModes = 26;

}  // namespace matchcount::engines
