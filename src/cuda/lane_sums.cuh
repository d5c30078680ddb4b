// Modular sums of the exact DPs on the device (gpu-frontier, gpu-graph-frontier), in the layout
// of prime_passes.hpp: a group of blockDim.x lanes computes one state, lane x holding primes
// x, x + lanes, ... (J of them), so the group's loads of a source state's residues are one
// contiguous run of memory. Values are integers in (-p, p) held in doubles (device_arith.cuh).
#pragma once

#include "cuda/device_arith.cuh"

namespace mcgpu {

/// The primes of this lane (idle slots hold 3: they compute nothing, but stay finite).
template <int J>
struct LanePrimes {
  double p[J], pinv[J];
  int G;
  __device__ __forceinline__ LanePrimes(const double* prime, const double* inv, int primes) : G(primes) {
#pragma unroll
    for (int i = 0; i < J; ++i) {
      const int j = slot(i);
      p[i] = j < G ? prime[j] : 3.0;
      pinv[i] = j < G ? inv[j] : 1.0 / 3.0;
    }
  }
  /// The prime index of this lane's i-th value.
  __device__ __forceinline__ int slot(int i) const { return int(threadIdx.x) + i * int(blockDim.x); }
};

/// One state's sum over its sources, reduced every four terms: a term is below p in absolute
/// value and the folded sum below p/2 or so, so |sum| < 4.5 p < 2^53 stays exact.
template <int J>
struct LaneSums {
  double acc[J];
  int terms = 0;
  __device__ __forceinline__ LaneSums() {
#pragma unroll
    for (int i = 0; i < J; ++i) acc[i] = 0.0;
  }
  /// acc += src * w (mod p) per prime: a source state's values times an entry's residues.
  __device__ __forceinline__ void mul_add(const LanePrimes<J>& P, const double* src, const double* w) {
#pragma unroll
    for (int i = 0; i < J; ++i) {
      const int j = P.slot(i);
      if (j < P.G) acc[i] += modmul(src[j], __ldg(w + j), P.p[i], P.pinv[i]);
    }
    fold(P);
  }
  /// acc += src per prime (a weight of 1: no product).
  __device__ __forceinline__ void add(const LanePrimes<J>& P, const double* src) {
#pragma unroll
    for (int i = 0; i < J; ++i) {
      const int j = P.slot(i);
      if (j < P.G) acc[i] += src[j];
    }
    fold(P);
  }
  /// The reduced sums, written to this lane's slots of dst.
  __device__ __forceinline__ void store(const LanePrimes<J>& P, double* dst) const {
#pragma unroll
    for (int i = 0; i < J; ++i) {
      const int j = P.slot(i);
      if (j < P.G) dst[j] = modreduce(acc[i], P.p[i], P.pinv[i]);
    }
  }

 private:
  __device__ __forceinline__ void fold(const LanePrimes<J>& P) {
    if (++terms < 4) return;
    terms = 0;
#pragma unroll
    for (int i = 0; i < J; ++i) acc[i] = modreduce(acc[i], P.p[i], P.pinv[i]);
  }
};

}  // namespace mcgpu
