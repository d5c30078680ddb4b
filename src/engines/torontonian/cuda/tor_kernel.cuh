// Device code of the GPU torontonian walk (tor_gpu_job.hpp says how a walk is cut; tor_walk.hpp
// is the same walk on the CPU, and torontonian.cpp why its bound holds). A block walks one unit
// at a time: (1) its root, the included fixed modes eliminated from M over them and the
// unit's modes, in global scratch; (2) the `middle` modes split breadth first into one Schur
// complement per thread (child 2p excludes the mode, 2p + 1 includes it); (3) each thread walks
// every subset of the last `free` modes depth first on a stack of packed lower triangles in
// local memory. All threads of a unit walk trees of one shape, so warps do not diverge.
#pragma once

#include <cstdint>

namespace mcgpu::tor {

constexpr int kThreads = 128;  // 2^kTorBlockModes
constexpr int kMaxModes = 48, kMaxThreadModes = 10;
/// A unit's output: the positive and negative sums in double-double, sum of |terms|, largest
/// q, failed.
constexpr int kOut = 7;
/// Packed lower triangles of dimension 2r for r = 1 .. kMaxThreadModes, and their residuals.
constexpr int kStack = 825, kStackW = 110;

struct Args {
  int n, fixed, middle, free;
  const double* m;  // (2n)^2, pair order
  const double* v;  // 2n, or null without loops
  unsigned long long unit_begin, units;
  double* scratch;
  long long scratch_per_block;  // doubles
  long long level_doubles;      // one breadth-first level's matrices (the largest)
  double* out;                  // units * kOut
};

__device__ inline int tri(int x) { return x * (x + 1) / 2; }

/// Two-sum of x into (hi, lo).
__device__ inline void dd_add(double& hi, double& lo, double x) {
  const double s = __dadd_rn(hi, x), bp = __dsub_rn(s, hi);
  lo = __dadd_rn(lo, __dadd_rn(__dsub_rn(hi, __dsub_rn(s, bp)), __dsub_rn(x, bp)));
  hi = s;
}

struct Sums {
  double pos_hi = 0, pos_lo = 0, neg_hi = 0, neg_lo = 0, abs = 0, max_q = 0, failed = 0;
  __device__ void term(int n, int k, double inv, double q, bool loop) {
    const double t = loop ? inv * exp(0.5 * q) : inv;
    if ((n - k) % 2) dd_add(neg_hi, neg_lo, t);
    else dd_add(pos_hi, pos_lo, t);
    abs += t;
    max_q = fmax(max_q, q);
  }
};

/// A 2 x 2 pivot block of outer-product Cholesky: false when a pivot is not positive.
struct Pivot {
  double inv0, l10, inv1, d01;
  __device__ bool make(double a00, double a10, double a11) {
    if (!(a00 > 0)) return false;
    const double d0 = __dsqrt_rn(a00);
    inv0 = __drcp_rn(d0);
    l10 = a10 * inv0;
    const double p1 = a11 - l10 * l10;
    if (!(p1 > 0)) return false;
    const double d1 = __dsqrt_rn(p1);
    inv1 = __drcp_rn(d1);
    d01 = d0 * d1;
    return true;
  }
};

/// The thread's depth-first walk from its Schur complement over `free` pairs (packed at st),
/// its residual (sw), 1 / sqrt(det) and q; k modes of Z so far.
__device__ inline void walk_thread(const Args& a, double* st, double* sw, double inv0, double q0, int k0,
                                   Sums& sums) {
  const bool loop = a.v != nullptr;
  const int f = a.free;
  int off[kMaxThreadModes + 1], woff[kMaxThreadModes + 1];
  off[0] = 0, woff[0] = 0;
  for (int t = 0; t < f; ++t) off[t + 1] = off[t] + tri(2 * (f - t)), woff[t + 1] = woff[t] + 2 * (f - t);
  int r[kMaxThreadModes + 1], next[kMaxThreadModes + 1];
  double inv[kMaxThreadModes + 1], q[kMaxThreadModes + 1];
  int t = 0;
  r[0] = f, next[0] = 0, inv[0] = inv0, q[0] = q0;
  sums.term(a.n, k0, inv0, q0, loop);
  double c0[2 * kMaxThreadModes], c1[2 * kMaxThreadModes];
  while (t >= 0) {
    if (next[t] == r[t]) {
      --t;
      continue;
    }
    const int j = next[t]++;
    const double* A = st + off[t];
    const double* w = sw + woff[t];
    const int i0 = 2 * j, i1 = i0 + 1, base = 2 * (j + 1), rest = 2 * r[t] - base;
    Pivot p;
    if (!p.make(A[tri(i0) + i0], A[tri(i1) + i0], A[tri(i1) + i1])) {
      sums.failed = 1;
      continue;
    }
    const double child_inv = __ddiv_rn(inv[t], p.d01);
    double child_q = q[t], y0 = 0, y1 = 0;
    if (loop) {
      y0 = w[i0] * p.inv0;
      y1 = (w[i1] - p.l10 * y0) * p.inv1;
      child_q += y0 * y0 + y1 * y1;
    }
    sums.term(a.n, k0 + t + 1, child_inv, child_q, loop);
    if (rest == 0) continue;  // no modes after j: a leaf
    for (int x = 0; x < rest; ++x) {
      const int row = tri(base + x);
      c0[x] = A[row + i0] * p.inv0;
      c1[x] = (A[row + i1] - c0[x] * p.l10) * p.inv1;
    }
    double* B = st + off[t + 1];
    for (int x = 0; x < rest; ++x) {
      const double* src = A + tri(base + x) + base;
      const double x0 = c0[x], x1 = c1[x];
      for (int y = 0; y <= x; ++y) B[tri(x) + y] = src[y] - x0 * c0[y] - x1 * c1[y];
    }
    if (loop) {
      double* wb = sw + woff[t + 1];
      for (int x = 0; x < rest; ++x) wb[x] = w[base + x] - c0[x] * y0 - c1[x] * y1;
    }
    ++t;
    r[t] = rest / 2, next[t] = 0, inv[t] = child_inv, q[t] = child_q;
  }
}

/// The block's walk of its units (grid-stride).
__device__ inline void walk_units(const Args& a) {
  __shared__ int rows[kMaxModes];
  __shared__ double col0[2 * kMaxModes], col1[2 * kMaxModes];
  __shared__ double piv[kThreads / 2][6];  // per parent of a level: inv0, l10, inv1, ok, y0, y1
  __shared__ double red[kThreads][kOut];
  __shared__ int included;
  __shared__ double root_inv, root_q, root_failed;
  const int tid = threadIdx.x, nt = blockDim.x;
  const bool loop = a.v != nullptr;
  const int d_all = 2 * a.n, unit_modes = a.middle + a.free;
  double* work = a.scratch + static_cast<long long>(blockIdx.x) * a.scratch_per_block;
  double* mat[2] = {work, work + d_all * d_all};
  double* vec[2] = {mat[1] + d_all * d_all, mat[1] + d_all * d_all + d_all};
  double* lev[2] = {vec[1] + d_all, vec[1] + d_all + a.level_doubles};
  double* lw[2] = {lev[1] + a.level_doubles, lev[1] + a.level_doubles + kThreads * 2 * unit_modes};
  double* meta[2] = {lw[1] + kThreads * 2 * unit_modes, lw[1] + kThreads * 2 * unit_modes + 3 * kThreads};
  double st[kStack], sw[kStackW];
  for (unsigned long long u = blockIdx.x; u < a.units; u += gridDim.x) {
    const unsigned long long unit = a.unit_begin + u;
    // (1) The root.
    if (tid == 0) {
      int z = 0;
      for (int i = 0; i < a.fixed; ++i)
        if ((unit >> (a.fixed - 1 - i)) & 1) rows[z++] = i;
      included = z;
      for (int i = a.fixed; i < a.n; ++i) rows[z++] = i;
      root_inv = 1, root_q = 0, root_failed = 0;
    }
    __syncthreads();
    int d = 2 * (included + unit_modes), cur = 0;
    for (int e = tid; e < d * d; e += nt) {
      const int x = e / d, y = e % d;
      mat[0][e] = a.m[(2 * rows[x / 2] + x % 2) * d_all + 2 * rows[y / 2] + y % 2];
    }
    if (loop)
      for (int x = tid; x < d; x += nt) vec[0][x] = a.v[2 * rows[x / 2] + x % 2];
    __syncthreads();
    for (int k = 0; k < included; ++k, d -= 2, cur ^= 1) {
      const double* A = mat[cur];
      const int rest = d - 2;
      if (tid == 0) {
        Pivot p;
        if (!p.make(A[0], A[d], A[d + 1])) root_failed = 1;
        piv[0][0] = p.inv0, piv[0][1] = p.l10, piv[0][2] = p.inv1;
        if (!root_failed) {
          root_inv = __ddiv_rn(root_inv, p.d01);
          if (loop) {
            const double y0 = vec[cur][0] * p.inv0, y1 = (vec[cur][1] - p.l10 * y0) * p.inv1;
            root_q += y0 * y0 + y1 * y1;
            piv[0][4] = y0, piv[0][5] = y1;
          }
        }
      }
      __syncthreads();
      if (root_failed) break;
      for (int x = tid; x < rest; x += nt) {
        col0[x] = A[(x + 2) * d] * piv[0][0];
        col1[x] = (A[(x + 2) * d + 1] - col0[x] * piv[0][1]) * piv[0][2];
      }
      __syncthreads();
      double* B = mat[cur ^ 1];
      for (int e = tid; e < rest * rest; e += nt) {
        const int x = e / rest, y = e % rest;
        B[e] = A[(x + 2) * d + y + 2] - col0[x] * col0[y] - col1[x] * col1[y];
      }
      if (loop)
        for (int x = tid; x < rest; x += nt) vec[cur ^ 1][x] = vec[cur][x + 2] - col0[x] * piv[0][4] - col1[x] * piv[0][5];
      __syncthreads();
    }
    // (2) The middle modes, breadth first: level l holds 2^l Schur complements over the unit's
    // modes after the first l (dimension dl), each with 1 / sqrt(det), q and failed.
    const int z = included;
    const bool unit_failed = root_failed != 0;
    int dl = 2 * unit_modes, lc = 0;
    for (int e = tid; e < dl * dl; e += nt) lev[0][e] = unit_failed ? 0 : mat[cur][e];
    for (int x = tid; x < dl; x += nt) lw[0][x] = loop ? vec[cur][x] : 0;
    if (tid == 0) meta[0][0] = root_inv, meta[0][1] = root_q, meta[0][2] = root_failed;
    __syncthreads();
    for (int l = 0; l < a.middle; ++l, dl -= 2, lc ^= 1) {
      const int parents = 1 << l, dn = dl - 2;
      const double* L = lev[lc];
      for (int p = tid; p < parents; p += nt) {
        const double* A = L + static_cast<long long>(p) * dl * dl;
        Pivot pv;
        const bool ok = meta[lc][3 * p + 2] == 0 && pv.make(A[0], A[dl], A[dl + 1]);
        piv[p][0] = pv.inv0, piv[p][1] = pv.l10, piv[p][2] = pv.inv1, piv[p][3] = ok;
        double* mo = meta[lc ^ 1];
        mo[3 * (2 * p)] = meta[lc][3 * p], mo[3 * (2 * p) + 1] = meta[lc][3 * p + 1], mo[3 * (2 * p) + 2] = meta[lc][3 * p + 2];
        mo[3 * (2 * p + 1)] = ok ? __ddiv_rn(meta[lc][3 * p], pv.d01) : 0;
        mo[3 * (2 * p + 1) + 2] = ok ? 0 : 1;
        double y0 = 0, y1 = 0;
        if (loop && ok) {
          const double* w = lw[lc] + p * dl;
          y0 = w[0] * pv.inv0, y1 = (w[1] - pv.l10 * y0) * pv.inv1;
        }
        mo[3 * (2 * p + 1) + 1] = meta[lc][3 * p + 1] + (y0 * y0 + y1 * y1);
        piv[p][4] = y0, piv[p][5] = y1;  // the residual's forward solve
      }
      __syncthreads();
      const long long per = static_cast<long long>(dn) * dn;
      for (long long e = tid; e < 2 * parents * per; e += nt) {
        const int child = static_cast<int>(e / per), p = child / 2;
        const int x = static_cast<int>(e % per) / dn, y = static_cast<int>(e % per) % dn;
        const double* A = L + static_cast<long long>(p) * dl * dl;
        double value = A[(x + 2) * dl + y + 2];
        if (child % 2 && piv[p][3] != 0) {
          const double cx0 = A[(x + 2) * dl] * piv[p][0], cy0 = A[(y + 2) * dl] * piv[p][0];
          const double cx1 = (A[(x + 2) * dl + 1] - cx0 * piv[p][1]) * piv[p][2];
          const double cy1 = (A[(y + 2) * dl + 1] - cy0 * piv[p][1]) * piv[p][2];
          value = value - cx0 * cy0 - cx1 * cy1;
        }
        lev[lc ^ 1][e] = value;
      }
      if (loop)
        for (int e = tid; e < 2 * parents * dn; e += nt) {
          const int child = e / dn, p = child / 2, x = e % dn;
          const double* A = L + static_cast<long long>(p) * dl * dl;
          double value = lw[lc][p * dl + x + 2];
          if (child % 2 && piv[p][3] != 0) {
            const double cx0 = A[(x + 2) * dl] * piv[p][0];
            const double cx1 = (A[(x + 2) * dl + 1] - cx0 * piv[p][1]) * piv[p][2];
            value = value - cx0 * piv[p][4] - cx1 * piv[p][5];
          }
          lw[lc ^ 1][e] = value;
        }
      __syncthreads();
    }
    // (3) Each thread's subtree.
    Sums sums;
    if (tid < (1 << a.middle)) {
      const double* A = lev[lc] + static_cast<long long>(tid) * dl * dl;
      for (int x = 0; x < dl; ++x)
        for (int y = 0; y <= x; ++y) st[tri(x) + y] = A[x * dl + y];
      for (int x = 0; x < dl; ++x) sw[x] = lw[lc][tid * dl + x];
      const double* mt = meta[lc] + 3 * tid;
      if (mt[2] != 0) sums.failed = 1;
      else walk_thread(a, st, sw, mt[0], mt[1], z + __popc(tid), sums);
    }
    red[tid][0] = sums.pos_hi, red[tid][1] = sums.pos_lo, red[tid][2] = sums.neg_hi, red[tid][3] = sums.neg_lo;
    red[tid][4] = sums.abs, red[tid][5] = sums.max_q, red[tid][6] = sums.failed;
    __syncthreads();
    if (tid == 0) {  // in thread order, so a unit's sums do not depend on timing
      Sums s;
      for (int i = 0; i < nt; ++i) {
        dd_add(s.pos_hi, s.pos_lo, red[i][0]), dd_add(s.pos_hi, s.pos_lo, red[i][1]);
        dd_add(s.neg_hi, s.neg_lo, red[i][2]), dd_add(s.neg_hi, s.neg_lo, red[i][3]);
        s.abs += red[i][4], s.max_q = fmax(s.max_q, red[i][5]), s.failed = fmax(s.failed, red[i][6]);
      }
      if (unit_failed) s.failed = 1;
      double* o = a.out + u * kOut;
      o[0] = s.pos_hi, o[1] = s.pos_lo, o[2] = s.neg_hi, o[3] = s.neg_lo, o[4] = s.abs, o[5] = s.max_q, o[6] = s.failed;
    }
    __syncthreads();
  }
}

}  // namespace mcgpu::tor
