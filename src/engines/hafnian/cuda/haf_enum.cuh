// The hafnian of a small matrix by expansion along its first vertex, written once for the host
// and the device: haf(S) = sum over j of a_{p j} haf(S - {p, j}) with p the first vertex of S
// (a loop hafnian adds a_{p p} lhaf(S - {p})). It has no frames: the recursion's partial sums
// sit in registers and a warp's 32 lanes, walking 32 matrices in one vertex order, take the
// same path at the same time, so a lane's loads are one line of the warp. For n <= 14 its
// (n - 1)!! products cost less than the memory of Björklund's walk (docs/gpu.md, "Batches of
// small hafnians"). Every product and sum is an explicit IEEE operation (fused multiply-adds
// named as such), so the host and the device give the same bits.
#pragma once

#include <cmath>

#ifdef __CUDACC__
#define MC_ENUM_HD __host__ __device__ __forceinline__
#define MC_ENUM_CALL __host__ __device__ __noinline__
#else
#define MC_ENUM_HD inline
#define MC_ENUM_CALL __attribute__((noinline))
#endif
#ifdef __CUDA_ARCH__
#define MC_ENUM_UNROLL _Pragma("unroll")
#else
#define MC_ENUM_UNROLL
#endif

namespace matchcount::gpu::haf_enum {

/// The most vertices (a mask's bits) and the stride of an index table.
constexpr int kMaxN = 16;

MC_ENUM_HD double fma_rn(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
MC_ENUM_HD double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
MC_ENUM_HD double add_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
MC_ENUM_HD int lowest(unsigned mask) {
#ifdef __CUDA_ARCH__
  return __ffs(static_cast<int>(mask)) - 1;
#else
  return __builtin_ctz(mask);
#endif
}

struct Real {
  typedef double V;
  MC_ENUM_HD static V zero() { return 0.0; }
  MC_ENUM_HD static V one() { return 1.0; }
  MC_ENUM_HD static V mul(V x, V y) { return mul_rn(x, y); }
  MC_ENUM_HD static V madd(V acc, V x, V y) { return fma_rn(x, y, acc); }
  MC_ENUM_HD static V add(V x, V y) { return add_rn(x, y); }
};

struct Cplx {
  struct V {
    double re, im;
  };
  MC_ENUM_HD static V zero() { return {0.0, 0.0}; }
  MC_ENUM_HD static V one() { return {1.0, 0.0}; }
  MC_ENUM_HD static V mul(V x, V y) {
    return {fma_rn(x.re, y.re, -mul_rn(x.im, y.im)), fma_rn(x.re, y.im, mul_rn(x.im, y.re))};
  }
  MC_ENUM_HD static V madd(V acc, V x, V y) {
    return {fma_rn(x.re, y.re, fma_rn(-x.im, y.im, acc.re)), fma_rn(x.re, y.im, fma_rn(x.im, y.re, acc.im))};
  }
  MC_ENUM_HD static V add(V x, V y) { return {add_rn(x.re, y.re), add_rn(x.im, y.im)}; }
};

/// Calls step(q) for each vertex q of `rest` (`Count` of them) in ascending order. The small
/// levels, where most of the products are, are unrolled up to `Unrolled` vertices (their loads
/// then issue ahead of the chain of multiply-adds); the large ones stay loops, so that the code
/// stays small.
template <int Count, int Unrolled, class Step>
MC_ENUM_HD void each_vertex(unsigned rest, Step step) {
  if constexpr (Count <= Unrolled) {
    MC_ENUM_UNROLL
    for (int k = 0; k < Count; ++k) {
      step(lowest(rest));
      rest &= rest - 1;
    }
  } else {
    for (; rest; rest &= rest - 1) step(lowest(rest));
  }
}

/// haf of the vertices of `mask` (S of them, even), with entry(p, q) of the accessor `a`.
template <class A, class N, int S>
MC_ENUM_HD typename N::V haf_of(const A& a, unsigned mask) {
  if constexpr (S == 0) {
    return N::one();
  } else if constexpr (S == 2) {
    const int p = lowest(mask);
    return a.entry(p, lowest(mask & (mask - 1)));
  } else if constexpr (S == 4) {
    // The loop below, written out: each vertex found once (most products are at this level).
    const int p = lowest(mask);
    unsigned r = mask & (mask - 1);
    const int q1 = lowest(r);
    r &= r - 1;
    const int q2 = lowest(r);
    const int q3 = lowest(r & (r - 1));
    typename N::V acc = N::madd(N::zero(), a.entry(p, q1), a.entry(q2, q3));
    acc = N::madd(acc, a.entry(p, q2), a.entry(q1, q3));
    return N::madd(acc, a.entry(p, q3), a.entry(q1, q2));
  } else {
    const int p = lowest(mask);
    const unsigned rest = mask & (mask - 1);
    typename N::V acc = N::zero();
    each_vertex<S - 1, 5>(rest, [&](int q) { acc = N::madd(acc, a.entry(p, q), haf_of<A, N, S - 2>(a, rest & ~(1u << q))); });
    return acc;
  }
}

template <class A, class N, int S>
MC_ENUM_HD typename N::V lhaf_of(const A& a, unsigned mask);

/// lhaf_of through a call, not inlined, from 6 vertices up: each size is then one copy of its
/// code, where inlining both branches (S - 1 and S - 2) would copy the small ones Fibonacci-many
/// times.
template <class A, class N, int S>
MC_ENUM_CALL typename N::V lhaf_called(const A& a, unsigned mask) {
  return lhaf_of<A, N, S>(a, mask);
}
template <class A, class N, int S>
MC_ENUM_HD typename N::V lhaf_next(const A& a, unsigned mask) {
  if constexpr (S >= 6) return lhaf_called<A, N, S>(a, mask);
  else return lhaf_of<A, N, S>(a, mask);
}

/// The loop hafnian of the vertices of `mask` (S of them), loop(p) the loop weights.
template <class A, class N, int S>
MC_ENUM_HD typename N::V lhaf_of(const A& a, unsigned mask) {
  if constexpr (S == 0) {
    return N::one();
  } else if constexpr (S == 1) {
    return a.loop(lowest(mask));
  } else {
    const int p = lowest(mask);
    const unsigned rest = mask & (mask - 1);
    typename N::V acc = N::mul(a.loop(p), lhaf_next<A, N, S - 1>(a, rest));
    each_vertex<S - 1, 3>(rest, [&](int q) { acc = N::madd(acc, a.entry(p, q), lhaf_next<A, N, S - 2>(a, rest & ~(1u << q))); });
    return acc;
  }
}

/// The tasks of an n-vertex (loop) hafnian: vertex 0's partner q = 1 .. n - 1 (task q - 1),
/// and for a loop hafnian its loop (task n - 1). A task's value is its product, and the
/// hafnian is the tasks' sum in task order (task_sum), so that the tasks can run apart.
MC_ENUM_HD int tasks(int n, bool loops) { return loops ? n : n - 1; }

template <class A, class N, int Nv, bool Loops>
MC_ENUM_HD typename N::V task_value(const A& a, int task) {
  constexpr unsigned all = Nv >= 32 ? ~0u : (1u << Nv) - 1;
  if (task == Nv - 1) {  // the loop of vertex 0 (Loops only)
    if constexpr (Loops) return N::mul(a.loop(0), lhaf_next<A, N, Nv - 1>(a, all & ~1u));
    return N::zero();
  }
  const int q = task + 1;
  const unsigned rest = all & ~1u & ~(1u << q);
  if constexpr (Loops) return N::mul(a.entry(0, q), lhaf_next<A, N, Nv - 2>(a, rest));
  else return N::mul(a.entry(0, q), haf_of<A, N, Nv - 2>(a, rest));
}

/// The hafnian from its tasks' values, added in task order.
template <class N>
MC_ENUM_HD typename N::V task_sum(const typename N::V* values, int count) {
  typename N::V acc = values[0];
  for (int t = 1; t < count; ++t) acc = N::add(acc, values[t]);
  return acc;
}

}  // namespace matchcount::gpu::haf_enum
