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
#include <type_traits>

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

/// The hafnian of four vertices a < b < c < d from their entries, as the loop of haf_of adds
/// it: a_ab a_cd, then a_ac a_bd, then a_ad a_bc.
template <class N>
MC_ENUM_HD typename N::V haf4(typename N::V ab, typename N::V ac, typename N::V ad, typename N::V bc, typename N::V bd,
                              typename N::V cd) {
  return N::madd(N::madd(N::madd(N::zero(), ab, cd), ac, bd), ad, bc);
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
    const int p = lowest(mask);
    unsigned r = mask & (mask - 1);
    const int q1 = lowest(r);
    r &= r - 1;
    const int q2 = lowest(r), q3 = lowest(r & (r - 1));
    return haf4<N>(a.entry(p, q1), a.entry(p, q2), a.entry(p, q3), a.entry(q1, q2), a.entry(q1, q3), a.entry(q2, q3));
  } else if constexpr (S == 6) {
    // The loop below over its five 4-vertex hafnians, written out: the ten entries among the
    // five vertices are loaded once for all of them, where each 4-vertex hafnian loaded its
    // six (the loads, not the multiply-adds, bound these levels).
    const int p = lowest(mask);
    unsigned r = mask & (mask - 1);
    int v[5];
    for (int k = 0; k < 5; ++k) v[k] = lowest(r), r &= r - 1;
    const typename N::V e01 = a.entry(v[0], v[1]), e02 = a.entry(v[0], v[2]), e03 = a.entry(v[0], v[3]),
                        e04 = a.entry(v[0], v[4]), e12 = a.entry(v[1], v[2]), e13 = a.entry(v[1], v[3]),
                        e14 = a.entry(v[1], v[4]), e23 = a.entry(v[2], v[3]), e24 = a.entry(v[2], v[4]),
                        e34 = a.entry(v[3], v[4]);
    typename N::V acc = N::madd(N::zero(), a.entry(p, v[0]), haf4<N>(e12, e13, e14, e23, e24, e34));
    acc = N::madd(acc, a.entry(p, v[1]), haf4<N>(e02, e03, e04, e23, e24, e34));
    acc = N::madd(acc, a.entry(p, v[2]), haf4<N>(e01, e03, e04, e13, e14, e34));
    acc = N::madd(acc, a.entry(p, v[3]), haf4<N>(e01, e02, e04, e12, e14, e24));
    return N::madd(acc, a.entry(p, v[4]), haf4<N>(e01, e02, e03, e12, e13, e23));
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

/// Vertex k (from 0) of `mask`, ascending.
MC_ENUM_HD int nth(unsigned mask, int k) {
  for (; k > 0; --k) mask &= mask - 1;
  return lowest(mask);
}

/// The jobs of an n-vertex (loop) hafnian: the choices of its first two vertices. The first
/// vertex has first_choices: a partner q = 1 .. n - 1 (choice q - 1) and, with loops, its loop
/// (choice n - 1); the first vertex left then has at most second_choices (its partners in
/// ascending order, then its loop). Job t is (t / second_choices, t % second_choices); a pair
/// of choices that does not exist has no value.
MC_ENUM_HD int first_choices(int n, bool loops) { return loops ? n : n - 1; }
MC_ENUM_HD int second_choices(int n, bool loops) { return loops ? n - 1 : n > 2 ? n - 3 : 1; }
MC_ENUM_HD int jobs(int n, bool loops) { return first_choices(n, loops) * second_choices(n, loops); }

/// The second choice of a loop hafnian job: x1 (the first choice's factor) times the choice t2
/// of the first of the R vertices of `rest` and the loop hafnian of what it leaves.
template <class A, class N, int R>
MC_ENUM_HD bool second_choice(const A& a, typename N::V x1, unsigned rest, int t2, typename N::V& out) {
  if constexpr (R == 0) {
    if (t2 != 0) return false;
    out = N::mul(x1, N::one());
    return true;
  } else {
    if (t2 >= R) return false;
    const int p = lowest(rest);
    const unsigned others = rest & (rest - 1);
    if constexpr (R >= 2) {
      if (t2 < R - 1) {
        const int q = nth(others, t2);
        out = N::mul(x1, N::mul(a.entry(p, q), lhaf_next<A, N, R - 2>(a, others & ~(1u << q))));
        return true;
      }
    }
    out = N::mul(x1, N::mul(a.loop(p), lhaf_next<A, N, R - 1>(a, others)));
    return true;
  }
}

/// Job t's value (a product of the two choices' factors and the hafnian of the rest) in `out`;
/// false where the job does not exist. Every call of entry(p, q) has p < q.
template <class A, class N, int Nv, bool Loops>
MC_ENUM_HD bool job_value(const A& a, int t, typename N::V& out) {
  constexpr unsigned all = (1u << Nv) - 1;
  const int T2 = second_choices(Nv, Loops), t1 = t / T2, t2 = t % T2;
  if constexpr (Loops) {
    if (t1 < Nv - 1) return second_choice<A, N, Nv - 2>(a, a.entry(0, t1 + 1), all & ~1u & ~(1u << (t1 + 1)), t2, out);
    return second_choice<A, N, Nv - 1>(a, a.loop(0), all & ~1u, t2, out);
  } else if constexpr (Nv == 2) {
    out = N::mul(a.entry(0, 1), N::one());
    return true;
  } else {
    const unsigned rest = all & ~1u & ~(1u << (t1 + 1));
    const int p = lowest(rest);
    const unsigned others = rest & (rest - 1);
    const int q = nth(others, t2);
    out = N::mul(a.entry(0, t1 + 1), N::mul(a.entry(p, q), haf_of<A, N, Nv - 4>(a, others & ~(1u << q))));
    return true;
  }
}

/// The jobs' groups: group g holds jobs g, g + kGroups, ..., added in that order; the hafnian
/// is the groups' sums added in group order. On the device a warp is a group.
constexpr int kGroups = 8;

template <class A, class N, int Nv, bool Loops>
MC_ENUM_HD typename N::V group_value(const A& a, int g) {
  typename N::V acc = N::zero(), x;
  for (int t = g; t < jobs(Nv, Loops); t += kGroups)
    if (job_value<A, N, Nv, Loops>(a, t, x)) acc = N::add(acc, x);
  return acc;
}

/// The hafnian from its groups' sums.
template <class N>
MC_ENUM_HD typename N::V group_sum(const typename N::V* groups) {
  typename N::V acc = N::zero();
  for (int g = 0; g < kGroups; ++g) acc = N::add(acc, groups[g]);
  return acc;
}

/// f(std::integral_constant<int, n>()) for an even n of 2 .. kMaxN, the sizes the templates
/// are made for (the kernels' launch and the host's tests); false for any other n.
template <class F>
bool with_size(int n, F&& f) {
  switch (n) {
    case 2: return f(std::integral_constant<int, 2>()), true;
    case 4: return f(std::integral_constant<int, 4>()), true;
    case 6: return f(std::integral_constant<int, 6>()), true;
    case 8: return f(std::integral_constant<int, 8>()), true;
    case 10: return f(std::integral_constant<int, 10>()), true;
    case 12: return f(std::integral_constant<int, 12>()), true;
    case 14: return f(std::integral_constant<int, 14>()), true;
    case 16: return f(std::integral_constant<int, 16>()), true;
  }
  return false;
}

}  // namespace matchcount::gpu::haf_enum
