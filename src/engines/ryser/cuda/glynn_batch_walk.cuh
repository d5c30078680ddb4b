// One thread's share of Glynn's formula for the GPU batch of small dense permanents
// (glynn_batch.cu), written for host and device so that the tests check it on the CPU:
//   perm(A) = 2^(1-n) sum_{d in {+-1}^n, d_0 = +1} (prod_i d_i) prod_c s_c(d),  s_c = sum_i d_i a_ic.
// Thread j of 2^t fixes the signs of rows n-t .. n-1 by the bits of j (bit b: row n-t+b is -1)
// and walks rows 1 .. n-1-t in Gray order, one row flipped a step, so that its 2^(n-1-t) terms
// cost n additions and n-1 products each. Terms are summed in double-double, with their |terms|
// (the error model's scale).
#pragma once

#ifdef __CUDACC__
#define MC_GLYNN_HD __host__ __device__
#else
#define MC_GLYNN_HD
#endif
#ifdef __CUDA_ARCH__  // the device pass (the host compiler does not know the pragma)
#define MC_GLYNN_UNROLL _Pragma("unroll")
#else
#define MC_GLYNN_UNROLL
#endif

namespace matchcount::gpu::glynn_batch {

/// A thread's sums: the signed terms' real and imaginary parts in double-double, and the sum of
/// |re| + |im| of the terms.
struct ThreadSums {
  double re_hi = 0, re_lo = 0, im_hi = 0, im_lo = 0, abs = 0;
};

MC_GLYNN_HD inline void two_sum(double& hi, double& lo, double x) {
  const double s = hi + x, bp = s - hi;
  lo += (hi - (s - bp)) + (x - bp);
  hi = s;
}

MC_GLYNN_HD inline int lowest_bit(unsigned g) {
#ifdef __CUDA_ARCH__
  return __ffs(static_cast<int>(g)) - 1;
#else
  return __builtin_ctz(g);
#endif
}

/// Thread j's terms of the N x N matrix (ar, ai: row-major; ai unused when !CX), threads 2^t
/// (1 <= N - 1 - t).
template <int N, bool CX>
MC_GLYNN_HD inline ThreadSums glynn_thread(const double* ar, const double* ai, unsigned j, int t) {
  double sr[N], si[N];
  int parity = 0;
MC_GLYNN_UNROLL
  for (int c = 0; c < N; ++c) {
    double r = 0, m = 0;
    for (int i = 0; i < N; ++i) r += ar[i * N + c], m += CX ? ai[i * N + c] : 0.0;
    sr[c] = r, si[c] = m;
  }
  for (int b = 0; b < t; ++b)
    if ((j >> b) & 1) {
      parity ^= 1;
      const int row = N - t + b;
MC_GLYNN_UNROLL
      for (int c = 0; c < N; ++c) {
        sr[c] -= 2 * ar[row * N + c];
        if (CX) si[c] -= 2 * ai[row * N + c];
      }
    }
  ThreadSums out;
  const unsigned steps = 1u << (N - 1 - t);
  for (unsigned g = 0; g < steps; ++g) {
    if (g > 0) {  // step g flips row lowest_bit(g) + 1, to -1 when that bit of gray(g) is set
      const int b = lowest_bit(g);
      const double d = ((g ^ (g >> 1)) >> b) & 1 ? -2.0 : 2.0;
      const double* rr = ar + (b + 1) * N;
      const double* ri = ai + (b + 1) * N;
MC_GLYNN_UNROLL
      for (int c = 0; c < N; ++c) {
        sr[c] += d * rr[c];
        if (CX) si[c] += d * ri[c];
      }
    }
    // The product in two interleaved chains (even and odd columns: half the multiply latency).
    double pr, pi = 0;
    if (CX) {
      double er = sr[0], ei = si[0], or_ = sr[1], oi = si[1];
MC_GLYNN_UNROLL
      for (int c = 2; c < N; ++c) {
        double& xr = c % 2 ? or_ : er;
        double& xi = c % 2 ? oi : ei;
        const double nr = xr * sr[c] - xi * si[c];
        xi = xr * si[c] + xi * sr[c];
        xr = nr;
      }
      pr = er * or_ - ei * oi;
      pi = er * oi + ei * or_;
    } else {
      double e = sr[0], o = sr[1];
MC_GLYNN_UNROLL
      for (int c = 2; c < N; ++c) (c % 2 ? o : e) *= sr[c];
      pr = e * o;
    }
    // The sign prod_i d_i: the fixed rows' parity and gray(g)'s, which is g's lowest bit.
    if ((parity ^ static_cast<int>(g & 1)) != 0) pr = -pr, pi = -pi;
    two_sum(out.re_hi, out.re_lo, pr);
    if (CX) two_sum(out.im_hi, out.im_lo, pi);
    out.abs += (pr < 0 ? -pr : pr) + (pi < 0 ? -pi : pi);
  }
  return out;
}

}  // namespace matchcount::gpu::glynn_batch
