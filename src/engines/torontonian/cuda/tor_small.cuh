// One small torontonian, whole, for one GPU thread (tor_batch.cu, the batch of
// matchcount::gpu_dense_torontonians) or one CPU call (matchcount::small_dense_torontonian),
// written for host and device so that the tests check it on the CPU: the torontonian engine's
// steps for a real-basis matrix, with or without gamma (the loop torontonian), from the input
// O to the value and its certified bound (torontonian.cpp), in the same arithmetic:
//   M = I - O in pair order, Hermitian-symmetrized, with the input's rounding e_in;
//   the real basis W M W^* (x and p per mode), whose rounding and dropped imaginary parts join
//   e_in, and v = conj(gamma) in the same basis (W v real, as the engine requires);
//   the certified least eigenvalue by shifted Cholesky (halving the shift from the least
//   diagonal entry);
//   the walk of Schur complements (tor_walk.hpp) depth first, in the engine's order, its terms in
//   double-double;
//   the bound of torontonian.cpp's `attempt` for one unit of 2^n terms.
// Where the engine would refuse, count in complex arithmetic, or retry in long double (a bound
// above 1e-3 of the value), the result says Refer and the engine counts it, with its messages.
// On the host (ISO C++, no contraction) the value is the engine's bit for bit; the device's
// fused multiply-adds round differently, within the same bound.
#pragma once

#include <cmath>

#ifdef __CUDACC__
#define MC_TOR_HD __host__ __device__
#else
#define MC_TOR_HD
#endif

namespace matchcount::gpu::tor_small {

/// The most modes a batch takes (a 32 x 32 M).
constexpr int kMaxModes = 16;

enum Status { kDone = 0, kRefer = 1 };

struct Result {
  double value = 0, error = 0;
  int status = kRefer;
};

constexpr double kU = 0x1p-53;

/// Doubles of the Schur complement levels of an N-mode walk: level t holds (2 (N - t))^2.
MC_TOR_HD constexpr int level_doubles(int n) { return n <= 0 ? 0 : 4 * n * n + level_doubles(n - 1); }
/// Doubles of an N-mode walk's scratch: its levels, then the loop torontonian's residuals
/// (level t's 2 (N - t)).
MC_TOR_HD constexpr int walk_doubles(int n) { return level_doubles(n) + n * (n + 1); }

struct Cx {
  double re, im;
};
MC_TOR_HD inline Cx cmul(Cx a, Cx b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
MC_TOR_HD inline double cnorm(Cx a) { return a.re * a.re + a.im * a.im; }
/// |x| from above, as the engine's mag_up.
MC_TOR_HD inline double mag_up(Cx a) { return sqrt(cnorm(a)) * (1 + 4 * kU); }

/// x finite (isfinite without the host's and device's different spellings).
MC_TOR_HD inline bool finite(double x) { return x - x == 0; }

MC_TOR_HD inline void two_sum(double& hi, double& lo, double x) {
  const double s = hi + x, bp = s - hi;
  lo += (hi - (s - bp)) + (x - bp);
  hi = s;
}

/// The engine's real `eliminate` (tor_walk.hpp): pair j of the 2r x 2r `a` (row stride 2r,
/// lower triangle) into `out` over the pairs after j, and with loops (w non-null) the residual
/// w into w_out and the pair's share of q; false for a pivot not positive.
MC_TOR_HD inline bool eliminate(const double* a, int r, int j, double* out, double& inv, const double* w, double* w_out,
                                double& q) {
  const int d = 2 * r, i0 = 2 * j, i1 = i0 + 1, rest = d - 2 * (j + 1);
  const double p0 = a[i0 * d + i0];
  if (!(p0 > 0)) return false;
  const double d0 = sqrt(p0), inv0 = 1.0 / d0;
  const double l10 = a[i1 * d + i0] * inv0;
  const double p1 = a[i1 * d + i1] - l10 * l10;
  if (!(p1 > 0)) return false;
  const double d1 = sqrt(p1), inv1 = 1.0 / d1;
  inv /= d0 * d1;
  double c0[2 * kMaxModes], c1[2 * kMaxModes];
  for (int x = 0; x < rest; ++x) {
    const int row = 2 * (j + 1) + x;
    c0[x] = a[row * d + i0] * inv0;
    c1[x] = (a[row * d + i1] - c0[x] * l10) * inv1;
  }
  for (int x = 0; x < rest; ++x) {
    const double* src = &a[(2 * (j + 1) + x) * d + 2 * (j + 1)];
    double* dst = &out[x * rest];
    const double x0 = c0[x], x1 = c1[x];
    for (int y = 0; y <= x; ++y) dst[y] = src[y] - x0 * c0[y] - x1 * c1[y];
  }
  if (w) {  // the forward solve's two entries of y, and the residual of the rows after the pair
    const double y0 = w[i0] * inv0;
    const double y1 = (w[i1] - l10 * y0) * inv1;
    q += y0 * y0 + y1 * y1;
    for (int x = 0; x < rest; ++x) w_out[x] = w[2 * (j + 1) + x] - c0[x] * y0 - c1[x] * y1;
  }
  return true;
}

/// The engine's certified_least_eigenvalue for a real d x d `m` (chol: d * d scratch).
MC_TOR_HD inline double certified_least_eigenvalue(const double* m, int d, double g, double* chol) {
  double least_diag = INFINITY;
  for (int i = 0; i < d; ++i) least_diag = fmin(least_diag, m[i * d + i]);
  for (double sigma = least_diag * 0.999; sigma > least_diag * 1e-12; sigma *= 0.5) {
    double trace = 0;
    bool ok = true;
    for (int i = 0; i < d && ok; ++i) {
      for (int j = 0; j <= i; ++j) {
        double a = m[i * d + j] - (i == j ? sigma : 0.0);
        for (int k = 0; k < j; ++k) a -= chol[i * d + k] * chol[j * d + k];
        if (i == j) {
          if (!(a > 0)) {
            ok = false;
            break;
          }
          chol[i * d + i] = sqrt(a);
        } else {
          chol[i * d + j] = a / chol[j * d + j];
        }
      }
      trace += m[i * d + i] - sigma;
    }
    if (ok) {
      const double bound = sigma - (g / (1 - g) + 2 * kU) * fabs(trace) * (1 + 4 * kU);
      return bound > 0 ? bound : 0.0;
    }
  }
  return 0.0;
}

/// v = conj(gamma) in pair order, into the real basis (the engine's, per mode a and b to
/// s (a + b) and -i s a + i s b) at `vr`, and |v|; false where W v is not real (the engine counts
/// it in complex arithmetic).
MC_TOR_HD inline bool loop_vector(const double* gre, const double* gim, int n, double* vr, double& v_norm) {
  const double s = sqrt(0.5);
  const auto v = [&](int p) {
    const int i = p % 2 ? p / 2 + n : p / 2;
    return Cx{gre[i], gim ? -gim[i] : 0.0};
  };
  v_norm = 0;
  for (int p = 0; p < 2 * n; ++p) v_norm += cnorm(v(p));
  v_norm = sqrt(v_norm);
  const double tol = 1e-14 * fmax(v_norm, 1.0);
  for (int i = 0; i < n; ++i) {
    const Cx a = v(2 * i), b = v(2 * i + 1);
    const Cx x{s * (a.re + b.re), s * (a.im + b.im)};
    const Cx y{s * a.im - s * b.im, -(s * a.re) + s * b.re};  // (0, -s) a + (0, s) b
    if (!(fabs(x.im) <= tol && fabs(y.im) <= tol)) return false;
    vr[2 * i] = x.re, vr[2 * i + 1] = y.re;
  }
  return true;
}

/// The torontonian of the 2n x 2n O (ore, oim row-major, oim null for real O), n <= N, or
/// with gamma (gre and gim of 2n values, gim null for real gamma; gre null: none) the loop
/// torontonian (thewalrus's ltor). Scratch: m and chol of (2N)^2 doubles, `levels` of
/// walk_doubles(N).
template <int N>
MC_TOR_HD Result torontonian(const double* ore, const double* oim, int n, double* m, double* chol, double* levels,
                             const double* gre = nullptr, const double* gim = nullptr) {
  Result out;
  const int d = 2 * n;
  if (n < 1 || n > N) return out;
  const auto o = [&](int r, int c) { return Cx{ore[r * d + c], oim ? oim[r * d + c] : 0.0}; };
  for (int e = 0; e < d * d; ++e)  // a non-finite entry: the engine's message
    if (!finite(ore[e]) || (oim && !finite(oim[e]))) return out;
  const bool loop = gre != nullptr;
  for (int e = 0; e < (loop ? d : 0); ++e)
    if (!finite(gre[e]) || (gim && !finite(gim[e]))) return out;
  const auto src = [&](int p) { return p % 2 ? p / 2 + n : p / 2; };
  double largest = 0;
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) largest = fmax(largest, mag_up(o(r, c)));
  // M = I - O in pair order, symmetrized (h), block by block into the real basis: the engine's
  // pair_order and real_basis.
  const double s = sqrt(0.5);
  const Cx w[2][2] = {{{s, 0}, {s, 0}}, {{0, -s}, {0, s}}};
  double asym = 0, asym_frob = 0, frob = 0, trace = 0, imag = 0, scale = 0, rounding = 0, dropped = 0;
  for (int pr = 0; pr < n; ++pr)
    for (int pc = 0; pc < n; ++pc) {
      Cx h[2][2];
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          const int r = 2 * pr + a, c = 2 * pc + b;
          const Cx orc = o(src(r), src(c)), ocr = o(src(c), src(r));
          const double one = r == c ? 1.0 : 0.0;
          const Cx x{one - orc.re, -orc.im}, y{one - ocr.re, -ocr.im};
          const Cx diff{x.re - y.re, x.im + y.im};  // x - conj(y)
          asym = fmax(asym, mag_up(diff));
          asym_frob += cnorm(Cx{0.5 * diff.re, 0.5 * diff.im});
          h[a][b] = Cx{0.5 * (x.re + y.re), 0.5 * (x.im - y.im)};
          const double size = mag_up(orc) + one;
          frob += size * size;
          if (r == c) trace += h[a][b].re;
        }
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          Cx x{0, 0};
          double size = 0;
          for (int e = 0; e < 2; ++e)
            for (int f = 0; f < 2; ++f) {
              const Cx t = cmul(cmul(w[a][e], h[e][f]), Cx{w[b][f].re, -w[b][f].im});
              x = Cx{x.re + t.re, x.im + t.im};
              size += 0.5 * mag_up(h[e][f]);
            }
          imag = fmax(imag, fabs(x.im));
          scale = fmax(scale, mag_up(x));
          rounding += (16 * kU * size) * (16 * kU * size);
          dropped += x.im * x.im;
          m[(2 * pr + a) * d + 2 * pc + b] = x.re;
        }
    }
  if (asym > 1e-12 * fmax(largest, 1.0)) return out;          // the engine refuses it, saying why
  if (!(imag <= 1e-14 * fmax(scale, 1.0))) return out;        // complex arithmetic: the engine's
  const double e_pair = 4 * kU * sqrt(frob) + sqrt(asym_frob);
  const double e_in = e_pair + (sqrt(rounding) + sqrt(dropped));
  const double g = (d + 2.0) * kU / (1 - (d + 2.0) * kU);
  const double lam = certified_least_eigenvalue(m, d, g, chol) - e_in;
  if (!(lam > 0)) return out;
  const double l_frob = trace / (1 - g) * (1 + 4 * kU);
  const double eta = (g * l_frob + e_in) / lam;
  const double eta_q = ((3 * g + g * g) * l_frob + e_in) / lam;
  if (!(eta < 0.5) || !(eta_q < 0.5)) return out;
  // The walk: level t at levels + offset[t], (2 (n - t))^2 doubles; level 0 is M. With loops,
  // level t's residual (2 (n - t) doubles) at res + roff[t]; level 0's is v in the real basis.
  int offset[N + 1], roff[N + 1];
  offset[0] = 0, roff[0] = 0;
  for (int t = 0; t < n; ++t) offset[t + 1] = offset[t] + 4 * (n - t) * (n - t), roff[t + 1] = roff[t] + 2 * (n - t);
  for (int e = 0; e < d * d; ++e) levels[e] = m[e];
  double* res = levels + offset[n];
  double v_norm = 0;
  if (loop && !loop_vector(gre, gim, n, res, v_norm)) return out;  // complex arithmetic: the engine's
  double pos_hi = 0, pos_lo = 0, neg_hi = 0, neg_lo = 0, abs_sum = 0, max_q = 0;
  const auto term = [&](int k, double inv, double q) {
    const double t = loop ? inv * exp(0.5 * q) : inv;
    if ((n - k) % 2) two_sum(neg_hi, neg_lo, t);
    else two_sum(pos_hi, pos_lo, t);
    abs_sum += t;
    max_q = fmax(max_q, q);
  };
  // Depth first as the engine's recursion: a node's term, then its children j = 0 .. r - 1.
  int R[N + 1], K[N + 1], J[N + 1];
  double INV[N + 1], Q[N + 1];
  int t = 0;
  R[0] = n, K[0] = 0, J[0] = 0, INV[0] = 1, Q[0] = 0;
  term(0, 1.0, 0.0);
  while (t >= 0) {
    if (J[t] == R[t]) {
      --t;
      continue;
    }
    const int j = J[t]++;
    double inv = INV[t], q = Q[t];
    if (!eliminate(levels + offset[t], R[t], j, levels + offset[t + 1], inv, loop ? res + roff[t] : nullptr,
                   res + roff[t + 1], q))
      return out;
    if (j + 1 == R[t]) {
      term(K[t] + 1, inv, q);
    } else {
      R[t + 1] = R[t] - 1 - j, K[t + 1] = K[t] + 1, J[t + 1] = 0, INV[t + 1] = inv, Q[t + 1] = q;
      ++t;
      term(K[t], inv, q);
    }
  }
  // The engine's sums: the unit's words merged into zeros, then positive less negative.
  double ph = 0, pl = 0, nh = 0, nl = 0;
  two_sum(ph, pl, pos_hi), two_sum(ph, pl, pos_lo);
  two_sum(nh, nl, neg_hi), two_sum(nh, nl, neg_lo);
  two_sum(ph, pl, -nh), two_sum(ph, pl, -nl);
  const double value = ph + pl;
  const double chain = ldexp(1.0, n), merges = 2.0;
  const double log_det = sqrt(2.0 * n) * eta + eta * eta / (2 * (1 - eta));
  double eps = expm1(0.5 * log_det + (2.0 * n + 4) * kU);
  if (loop) {  // q_Z's own error (torontonian.cpp's header)
    const double dq = max_q * (eta_q + (d + 2) * kU) + 2 * sqrt(max_q) * 2 * kU * v_norm / sqrt(lam) +
                      (2 * kU * v_norm) * (2 * kU * v_norm) / lam;
#ifdef __CUDA_ARCH__
    const double exp_rounding = 3 * kU;  // CUDA's exp is within 1 ulp (2u), the product's u
#else
    const double exp_rounding = 2 * kU;  // the engine's: exp and the product
#endif
    eps = (1 + eps) * (expm1(0.5 * dq) + exp_rounding) + eps;
  }
  const double sum_abs = abs_sum * (1 + (2.0 * n + 6 + chain + merges) * kU);
  const double dd = 0x1p-104 * (chain * chain + merges) * sum_abs;
  const double error = (eps * sum_abs / fmax(1 - eps, 1e-300) + dd + 2 * kU * fabs(value)) * (1 + 1e-12);
  if (!finite(value) || !finite(error) || !(error <= 1e-3 * fabs(value))) return out;  // the engine retries
  out.value = value, out.error = error, out.status = kDone;
  return out;
}

}  // namespace matchcount::gpu::tor_small
