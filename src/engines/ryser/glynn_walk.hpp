// Glynn's walk for small dense matrices (private to glynn.cpp, compiled there with -O3 and
// fused multiply-adds): the SIMD lanes and the scalar walk with its bound. glynn.cpp says what
// it computes and how its error is modelled.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "matchcount/small_dense.hpp"

namespace matchcount::engines::glynn {

constexpr int kSmallMax = kSmallDenseMax;
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff

// Vectors of W doubles with GCC's generic operators: the same code is the AVX2 walk (W = 4,
// as the library is compiled) and the AVX-512 walk (W = 8, in a function of that target
// chosen at run time), which has the 32 registers that hold a 10x10 complex walk's state.
// Multiply-adds fuse by -ffp-contract=fast on glynn.cpp (src/CMakeLists.txt).
template <int W>
struct VecTypes;
template <>
struct VecTypes<4> {
  typedef double v __attribute__((vector_size(32)));
  typedef long long vi __attribute__((vector_size(32)));
  [[gnu::always_inline]] static v splat(double x) { return v{x, x, x, x}; }
  [[gnu::always_inline]] static v load_splat(const double* p) {
#ifdef __AVX__
    v r;
    asm("vbroadcastsd %1, %0" : "=x"(r) : "m"(*p));
    return r;
#else
    return splat(*p);
#endif
  }
};
template <>
struct VecTypes<8> {
  typedef double v __attribute__((vector_size(64)));
  typedef long long vi __attribute__((vector_size(64)));
  [[gnu::always_inline]] static v splat(double x) { return v{x, x, x, x, x, x, x, x}; }
#ifdef __x86_64__  // only called from the AVX-512 walk
  [[gnu::always_inline]] static v load_splat(const double* p) {
    v r;
    asm("vbroadcastsd %1, %0" : "=v"(r) : "m"(*p));
    return r;
  }
#endif
};

template <int W>
struct Simd {
  using v = typename VecTypes<W>::v;
  using vi = typename VecTypes<W>::vi;
  // Not v{} + x, which is a scalar addition of +0.0 before the broadcast.
  [[gnu::always_inline]] static v splat(double x) { return VecTypes<W>::splat(x); }
  // A broadcast from memory in the walk: written as asm because GCC's vectorizer otherwise
  // loads a row of the step table into one register and permutes each entry out of it.
  [[gnu::always_inline]] static v load_splat(const double* p) { return VecTypes<W>::load_splat(p); }
  [[gnu::always_inline]] static v abs(v x) {
    return (v)((vi)x & (vi{} + 0x7fffffffffffffffLL));  // all but the sign bit
  }
};

/// The matrix as doubles, row-major, and whether every entry is a real integer.
struct Input {
  int n = 0;
  bool complex = false;   // complex dtype
  bool integral = true;   // every entry a (real) integer
  double re[kSmallMax * kSmallMax], im[kSmallMax * kSmallMax];
};

/// Compensated sum (TwoSum) of doubles; LaneSum is the same per SIMD lane.
struct DD {
  double hi = 0, lo = 0;
  void add(double x) {
    const double s = hi + x, bp = s - hi;
    lo += (hi - (s - bp)) + (x - bp);
    hi = s;
  }
};

template <int W>
struct LaneSum {
  using v = typename Simd<W>::v;
  v hi = Simd<W>::splat(0), lo = Simd<W>::splat(0);
  [[gnu::always_inline]] void add(v x) {
    const v s = hi + x, bp = s - hi;
    lo += (hi - (s - bp)) + (x - bp);
    hi = s;
  }
  /// Lanes in order into `out`, lane l with the sign of its own fixed signs.
  void to(DD& out) const {
    for (int l = 0; l < W; ++l) {
      const double sign = std::popcount(unsigned(l)) & 1 ? -1.0 : 1.0;
      out.add(sign * hi[l]);
      out.add(sign * lo[l]);
    }
  }
};

struct Walked {
  DD re, im;
  double abs = 0;  // sum of |re| + |im| of the terms
  double steps = 1;  // T, the length of a lane's walk
  double bound = -1;  // a bound on the rounding error of the sum (scalar walk), else -1
};

/// Walks all 2^(N-1) terms in W lanes; CX: complex entries (im used). Inlined into the
/// dispatchers below, so that it is compiled for their target.
template <int W, int N, bool CX>
[[gnu::always_inline]] inline Walked glynn_lanes(const Input& a) {
  using S = Simd<W>;
  using v = typename S::v;
  using vi = typename S::vi;
  constexpr int H = std::countr_zero(unsigned(W)), K = N - 1 - H;
  static_assert(K >= 1, "every lane walks at least one flip");
  constexpr int T = 1 << K;
  // Rows 1..K are walked: step[2r + m] adds 2 a_{r+1,j} (m = 0) or -2 a_{r+1,j} (m = 1) to
  // every lane's s_j; indexing by the direction keeps the walk free of branches.
  double step_re[2 * K][N], step_im[2 * K][N];
  for (int r = 0; r < K; ++r)
    for (int j = 0; j < N; ++j) {
      step_re[2 * r][j] = 2 * a.re[(r + 1) * N + j], step_re[2 * r + 1][j] = -step_re[2 * r][j];
      step_im[2 * r][j] = CX ? 2 * a.im[(r + 1) * N + j] : 0.0, step_im[2 * r + 1][j] = -step_im[2 * r][j];
    }
  // Start: every sign +1 but lane l's rows N-H+b where bit b of l is set.
  v sr[N], si[N];
  for (int j = 0; j < N; ++j) {
    double br = 0, bi = 0;
    for (int i = 0; i < N; ++i) br += a.re[i * N + j], bi += CX ? a.im[i * N + j] : 0.0;
    for (int l = 0; l < W; ++l) {
      double r = br, m = bi;
      for (int b = 0; b < H; ++b)
        if (l >> b & 1) r -= 2 * a.re[(N - H + b) * N + j], m -= CX ? 2 * a.im[(N - H + b) * N + j] : 0.0;
      sr[j][l] = r;
      si[j][l] = m;
    }
  }
  LaneSum<W> sum_re, sum_im;
  v abs = S::splat(0);
  for (int t = 0; t < T; ++t) {
    if (t > 0) {  // Gray step t flips row ctz(t) + 1, to -1 when that bit of gray(t) is set
      const int b = std::countr_zero(unsigned(t));
      const double* dr = step_re[2 * b + ((t ^ (t >> 1)) >> b & 1)];
      const double* di = step_im[2 * b + ((t ^ (t >> 1)) >> b & 1)];
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) {
        sr[j] += S::load_splat(dr + j);
        if constexpr (CX) si[j] += S::load_splat(di + j);
      }
    }
    // The term prod_j s_j in two interleaved product chains (even and odd columns: half the
    // multiply latency), added with its sign (-1)^t, the parity of gray(t), by its sign bit.
    const auto sign = vi{} + (static_cast<long long>(t & 1) << 63);
    v pr, pi;
    if constexpr (CX) {
      v er = sr[0], ei = si[0], or_ = sr[1], oi = si[1];
#pragma GCC unroll 16
      for (int j = 2; j < N; ++j) {
        v& xr = j % 2 ? or_ : er;
        v& xi = j % 2 ? oi : ei;
        const v nr = xr * sr[j] - xi * si[j];
        xi = xr * si[j] + xi * sr[j];
        xr = nr;
      }
      pr = (v)((vi)(er * or_ - ei * oi) ^ sign);
      pi = (v)((vi)(er * oi + ei * or_) ^ sign);
      sum_im.add(pi);
      abs += S::abs(pr) + S::abs(pi);
    } else {
      v e = sr[0], o = sr[1];
#pragma GCC unroll 16
      for (int j = 2; j < N; ++j) (j % 2 ? o : e) *= sr[j];
      pr = (v)((vi)(e * o) ^ sign);
      abs += S::abs(pr);
    }
    sum_re.add(pr);
  }
  Walked out;
  sum_re.to(out.re);
  if constexpr (CX) sum_im.to(out.im);
  for (int l = 0; l < W; ++l) out.abs += abs[l];
  out.steps = T;
  return out;
}

/// The same walk without lanes, for n = 2 and 3, with a first-order rounding-error bound.
/// Few terms average out no rounding, and a column sum s_j that cancels (|s_j| << c_j =
/// sum_i |a_ij|) carries an error relative to c_j: the bound takes e_j <= (n + 2) 2u c_j
/// for each computed s_j (n - 1 additions and at most 3 flips, partial sums <= c_j) and
/// |prod s - prod s^| <= sum_j e_j prod_{k != j} (|s^_k| + e_k), plus 4u (n - 1) |term| for
/// the products (a complex product rounds by at most sqrt(5) u) and 4u |term| for the sum.
template <bool CX>
Walked glynn_scalar(const Input& a) {
  const int n = a.n;
  std::complex<double> s[kSmallMax];
  double e[kSmallMax];
  for (int j = 0; j < n; ++j) {
    s[j] = 0;
    double c = 0;
    for (int i = 0; i < n; ++i) {
      const std::complex<double> x(a.re[i * n + j], CX ? a.im[i * n + j] : 0.0);
      s[j] += x, c += std::abs(x);
    }
    e[j] = (n + 2) * 2 * kU * c;
  }
  Walked out;
  out.bound = 0;
  const int terms = 1 << (n - 1);
  for (int t = 0; t < terms; ++t) {
    if (t > 0) {
      const int b = std::countr_zero(unsigned(t));
      const double d = (t ^ (t >> 1)) >> b & 1 ? -2.0 : 2.0;
      for (int j = 0; j < n; ++j)
        s[j] += d * std::complex<double>(a.re[(b + 1) * n + j], CX ? a.im[(b + 1) * n + j] : 0.0);
    }
    std::complex<double> p = s[0];
    for (int j = 1; j < n; ++j) p = CX ? p * s[j] : std::complex<double>(p.real() * s[j].real(), 0.0);
    if (t & 1) p = -p;
    out.re.add(p.real()), out.im.add(p.imag());
    out.abs += std::fabs(p.real()) + std::fabs(p.imag());
    for (int j = 0; j < n; ++j) {
      double others = e[j];
      for (int k = 0; k < n; ++k)
        if (k != j) others *= std::abs(s[k]) + e[k];
      out.bound += others;
    }
    out.bound += 4 * kU * n * std::abs(p);
  }
  out.steps = terms;
  return out;
}

/// The walk for n = 4..16 in W lanes (n >= 5 for W = 8: each lane walks >= 1 flip).
template <int W, bool CX>
[[gnu::always_inline]] inline Walked glynn_simd(const Input& a) {
  switch (a.n) {
    case 4: if constexpr (W == 4) return glynn_lanes<W, 4, CX>(a); break;
    case 5: return glynn_lanes<W, 5, CX>(a);
    case 6: return glynn_lanes<W, 6, CX>(a);
    case 7: return glynn_lanes<W, 7, CX>(a);
    case 8: return glynn_lanes<W, 8, CX>(a);
    case 9: return glynn_lanes<W, 9, CX>(a);
    case 10: return glynn_lanes<W, 10, CX>(a);
    case 11: return glynn_lanes<W, 11, CX>(a);
    case 12: return glynn_lanes<W, 12, CX>(a);
    case 13: return glynn_lanes<W, 13, CX>(a);
    case 14: return glynn_lanes<W, 14, CX>(a);
    case 15: return glynn_lanes<W, 15, CX>(a);
    case 16: return glynn_lanes<W, 16, CX>(a);
    default: break;
  }
  return glynn_scalar<CX>(a);
}

}  // namespace matchcount::engines::glynn
