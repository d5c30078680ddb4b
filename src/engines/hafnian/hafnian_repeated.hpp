// Hafnians of matrices with repeated rows and columns (photon-number patterns), without the
// expanded matrix: the recursion of haf_walk.hpp over repeated pair types (haf_rpt_walk.hpp).
//
// The definition is thewalrus's hafnian_repeated(A, rpt, mu, loop): vertex i of the symmetric
// n x n matrix A is repeated rpt[i] times (0 drops it), N = sum rpt vertices; two copies of i
// are joined by A_ii (so the diagonal counts even without loops); with loops each copy of i has
// loop weight mu[i] (diag(A) by default). Exact counts run modulo small primes (no division
// anywhere: the weights are binomials); floats walk four variants of the pattern in the lanes
// (haf_setup.hpp's error estimate).
#pragma once

#include <cstdint>
#include <vector>

#include "engines/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::engines {

/// The input: dense row-major symmetric `a` of n x n, the repetitions and the loop weights
/// (used only with loops).
template <class T>
struct RepeatedHafnian {
  int n = 0;
  std::vector<T> a, mu;
  std::vector<std::uint64_t> rpt;
  bool loops = false;
  /// Where the pair walk runs (repeated_device): Gpu on the CUDA devices (the CPU where a run
  /// fails), Auto there where a device is present and the walk is long enough to repay it.
  DevicePolicy device = DevicePolicy::Cpu;
};

/// How the copies are paired: pair type t joins a copy of mode a[t] with a copy of mode b[t]
/// (a[t] == b[t]: two copies of one mode), mult[t] times. The modes with rpt > 0 are paired
/// largest with next largest, mult = the smaller count, and a mode left alone pairs with
/// itself; with loops an odd N gains a mode n (one copy, loop weight 1, no edges).
struct PairTypes {
  std::vector<int> a, b, mult;
  /// prod (mult + 1): the recursion's leaves (infinite beyond double range).
  double leaves() const;
};
PairTypes pair_types(const std::vector<std::uint64_t>& rpt, bool loops);

/// The largest number of vertices (N, with the loop's extra vertex) counted: the polynomials
/// of the recursion have degree N/2 and its frames hold O(N^3) coefficients.
constexpr std::uint64_t kRepeatedMaxVertices = 400;

/// The values. RefusedError beyond kRepeatedMaxVertices or 2^62 leaves; N = 0 gives 1 and an
/// odd N without loops 0.
Integer hafnian_repeated(const RepeatedHafnian<Integer>& in, const EngineOptions& opt);
Approx<double> hafnian_repeated(const RepeatedHafnian<double>& in, const EngineOptions& opt);
Approx<Complex> hafnian_repeated(const RepeatedHafnian<Complex>& in, const EngineOptions& opt);

/// Whether hafnian_repeated counts `in` with the pair walk (work units, which checkpoints and MPI
/// ranks share) rather than Kan's formula (one sequential sum).
bool repeated_uses_walk(const RepeatedHafnian<Integer>& in);
bool repeated_uses_walk(const RepeatedHafnian<double>& in);
bool repeated_uses_walk(const RepeatedHafnian<Complex>& in);

/// The pair walk alone (hafnian_repeated chooses between it and Kan's formula).
Integer hafnian_rpt_walk(const RepeatedHafnian<Integer>& in, const EngineOptions& opt);
Approx<double> hafnian_rpt_walk(const RepeatedHafnian<double>& in, const EngineOptions& opt);
Approx<Complex> hafnian_rpt_walk(const RepeatedHafnian<Complex>& in, const EngineOptions& opt);

/// Kan's moment formula over the modes (hafnian_kan.cpp): prod (r_i + 1) terms, for patterns of
/// few modes with many photons each. Exact for integers (GMP); floats with a bound that holds.
/// The walk's entry points choose it where it costs less (kan_preferred).
double kan_terms(const std::vector<std::uint64_t>& rpt);
Integer hafnian_kan(const RepeatedHafnian<Integer>& in);
Approx<double> hafnian_kan(const RepeatedHafnian<double>& in);
Approx<Complex> hafnian_kan(const RepeatedHafnian<Complex>& in);

/// Planner cost model: predicted seconds on `cores` cores (integers: `primes` CRT primes).
double hafnian_repeated_seconds(const PairTypes& p, double primes, NumberKind kind, int cores);

/// The GPU walk takes patterns of up to this many vertices (the GPU hafnian's largest block,
/// gpu::kHafMaxM pairs).
constexpr int kRepeatedGpuMaxVertices = 72;

/// The pair walk on the CUDA devices (gpu_hafnian_repeated.cpp), the same tree as the CPU's:
/// GpuError where it cannot run there (no CUDA or device, more than kRepeatedGpuMaxVertices).
Integer gpu_hafnian_rpt_walk(const RepeatedHafnian<Integer>& in, const EngineOptions& opt);
Approx<double> gpu_hafnian_rpt_walk(const RepeatedHafnian<double>& in, const EngineOptions& opt);
Approx<Complex> gpu_hafnian_rpt_walk(const RepeatedHafnian<Complex>& in, const EngineOptions& opt);

/// Predicted seconds of the GPU walk over `channels` channels (primes, or 4 float lanes).
double hafnian_repeated_gpu_seconds(const PairTypes& p, double channels);

/// Where hafnian_repeated walks a pattern of values of `kind` (Cpu or Gpu: `asked` resolved; Cpu
/// where Kan's formula counts it, where the pattern is too large for the GPU, or for Auto below
/// half a second on `cores` cores): it depends on the pattern and the kind alone. The pipeline
/// resolves it once, so that MPI ranks walk the same walk.
DevicePolicy repeated_device(const std::vector<std::uint64_t>& rpt, bool loops, NumberKind kind, DevicePolicy asked,
                             int cores);
template <class T>
DevicePolicy repeated_device(const RepeatedHafnian<T>& in, int cores) {
  return repeated_device(in.rpt, in.loops, number_kind<T>(), in.device, cores);
}

}  // namespace matchcount::engines
