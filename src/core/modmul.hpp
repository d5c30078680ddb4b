// The exact engines' modular multiplication in FP64 fused multiply-adds, on scalars and on
// 4-wide double vectors alike (internal: not installed).
#pragma once

#include <cmath>

#if defined(__AVX__) || defined(__FMA__)
#include <immintrin.h>
#endif

namespace matchcount {

/// Four doubles in one AVX register (GCC vector extension; lane-wise code without AVX).
typedef double v4d __attribute__((vector_size(32)));

namespace arith {
// The inline namespace differs between AVX/FMA builds and generic ones (tests are compiled
// without -march) so that the two versions of these inline functions never get merged.
#if defined(__AVX__) && defined(__FMA__)
inline namespace avx2_fma {
#else
inline namespace generic {
#endif

inline double fmadd(double a, double b, double c) { return std::fma(a, b, c); }
inline double round_nearest(double x) { return std::nearbyint(x); }
inline double broadcast(double x, double) { return x; }

inline v4d fmadd(v4d a, v4d b, v4d c) {
#if defined(__FMA__)
  return _mm256_fmadd_pd(a, b, c);
#else
  return v4d{std::fma(a[0], b[0], c[0]), std::fma(a[1], b[1], c[1]), std::fma(a[2], b[2], c[2]),
             std::fma(a[3], b[3], c[3])};
#endif
}
inline v4d round_nearest(v4d x) {
#if defined(__AVX__)
  return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
#else
  return v4d{std::nearbyint(x[0]), std::nearbyint(x[1]), std::nearbyint(x[2]),
             std::nearbyint(x[3])};
#endif
}
inline v4d broadcast(double x, v4d) { return v4d{x, x, x, x}; }

/// a*b mod p for exact integers a, b in (-p, p), p a prime in (2^49, 2^50), pinv = 1.0/p.
/// h = RN(ab) and l = ab - h (exact by FMA). q = RN(h/p) is within 0.75 of h/p, so
/// h - q*p is an integer of size < p, exactly computed by one FMA, and adding l (|l| <= 2^46
/// <= p/8) keeps the result exact and in (-p, p): |ab/p - q| <= 1/2 + 1/4 + 1/8.
template <class V>
inline V modmul(V a, V b, V p, V pinv) {
  V h = a * b;
  V l = fmadd(a, b, -h);
  V q = round_nearest(h * pinv);
  return fmadd(-q, p, h) + l;
}

/// x mod p into [-p/2 - 1, p/2 + 1] for an exact integer |x| < 2^52.
template <class V>
inline V modreduce(V x, V p, V pinv) {
  return fmadd(-round_nearest(x * pinv), p, x);
}

}  // inline namespace
}  // namespace arith

}  // namespace matchcount

