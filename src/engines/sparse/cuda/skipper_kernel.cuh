// Device code of the GPU SkipPer walk (docs/gpu.md, "SkipPer"). Like ryser_kernel.cuh it is
// compiled by nvcc into generic kernels (slot count R a template parameter, local columns in
// shared memory) and by NVRTC with the local columns baked in; it reuses the Ryser walk's
// number policies (ryser_policies.cuh), column sources and Gray steps (ryser_kernel.cuh).
//
// Work: a task fixes some Gray bits just above the local ones; each thread takes tasks from
// a global counter and runs over the remaining high bits in binary order, jumping over
// subsets where a row is structurally zero (skip_cursor.hpp). For a live chunk it computes
// the slots' start values; a zero constant slot (a row summing to 0, or a zero product)
// skips the chunk too. Threads find their next live chunk independently (cheap, divergent),
// then the whole warp walks its chunks together: every lane flips the same local column at
// the same step, as in the dense kernel, so the expensive part never diverges. Chunk sums
// go into the policies' per-thread accumulators (exact fixed point for floats), so results
// do not depend on which thread ran which task.
#pragma once

#ifndef MCGPU_NVRTC
#include "cuda/device_arith.cuh"
#include "engines/ryser/cuda/ryser_policies.cuh"
#include "engines/ryser/cuda/ryser_kernel.cuh"
#include "engines/sparse/cuda/skip_cursor.hpp"
#endif

namespace mcgpu {

/// Everything a SkipPer launch needs; passed by value. `walk` carries what the number
/// policies read (k, q, primes, out); the arrays are those of gpu::SkipJob.
struct SkipArgs {
  WalkArgs walk;
  int bits, task_bits, slots, dead_rows, sign_slot;
  u64 const_mask;
  u64 task_begin, task_end;  // tasks of this launch
  u64* next_task;            // counter from 0, one per launch
  const int* slot_sum;
  const double* sum_base;
  const int* sum_entry;
  const int* entry_bit;
  const double* entry_val;
  const u64* dead_mask;
};

/// Arithmetic on one slot value (W doubles) while start values are formed: plain doubles
/// (real values, exact small integers), complex pairs, or residues modulo one prime.
template <class Num>
struct SlotMath {
  static constexpr int W = Num::W;
  static __device__ __forceinline__ void add(double* v, const double* a, const WalkArgs&) {
#pragma unroll
    for (int w = 0; w < W; ++w) v[w] += a[w];
  }
  static __device__ __forceinline__ void mul(double* v, const double* b, const WalkArgs&) {
    if constexpr (W == 1) {
      v[0] *= b[0];
    } else {
      const double r = __fma_rn(v[0], b[0], -v[1] * b[1]);
      v[1] = __fma_rn(v[0], b[1], v[1] * b[0]);
      v[0] = r;
    }
  }
  static __device__ __forceinline__ void negate(double* v, const WalkArgs&) {
#pragma unroll
    for (int w = 0; w < W; ++w) v[w] = -v[w];
  }
};

template <int R>
struct SlotMath<ModPrimeNum<R>> {
  static constexpr int W = 1;
  static __device__ __forceinline__ void add(double* v, const double* a, const WalkArgs& A) {
    v[0] = ModPrimeNum<R>::wrap(v[0] + a[0], A.prime[0]);
  }
  static __device__ __forceinline__ void mul(double* v, const double* b, const WalkArgs& A) {
    v[0] = ModPrimeNum<R>::wrap(modmul(v[0], b[0], A.prime[0], A.pinv[0]), A.prime[0]);
  }
  static __device__ __forceinline__ void negate(double* v, const WalkArgs& A) {
    v[0] = v[0] == 0.0 ? 0.0 : A.prime[0] - v[0];
  }
};

/// Sets y to the slots' start values for the chunk `high`; false when a constant slot is 0
/// (every term of the chunk is then 0). Slots >= S.slots are 1.
template <class Num, class Y>
__device__ __forceinline__ bool start_slots(Y& y, u64 high, const SkipArgs& S) {
  constexpr int R = Y::kR;
  constexpr int W = Num::W;
  using M = SlotMath<Num>;
  bool live = true;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    double v[W];
    v[0] = 1.0;
    if constexpr (W == 2) v[1] = 0.0;
    if (i < S.slots) {
      const int s0 = __ldg(S.slot_sum + i), s1 = __ldg(S.slot_sum + i + 1);
      for (int s = s0; s < s1; ++s) {
        double t[W];
#pragma unroll
        for (int w = 0; w < W; ++w) t[w] = __ldg(S.sum_base + s * W + w);
        const int e1 = __ldg(S.sum_entry + s + 1);
        for (int e = __ldg(S.sum_entry + s); e < e1; ++e)
          if ((high >> __ldg(S.entry_bit + e)) & 1) {
            double a[W];
#pragma unroll
            for (int w = 0; w < W; ++w) a[w] = __ldg(S.entry_val + e * W + w);
            M::add(t, a, S.walk);
          }
        if (s == s0) {
#pragma unroll
          for (int w = 0; w < W; ++w) v[w] = t[w];
        } else {
          M::mul(v, t, S.walk);
        }
      }
      if (i == S.sign_slot && (__popcll(high) & 1)) M::negate(v, S.walk);
      if ((S.const_mask >> i) & 1) {
        bool zero = true;
#pragma unroll
        for (int w = 0; w < W; ++w) zero &= v[w] == 0.0;
        live &= !zero;
      }
    }
#pragma unroll
    for (int w = 0; w < W; ++w) y.put(i, w, v[w]);
  }
  return live;
}

/// Start values read from the job's arrays (generic kernels). NVRTC kernels bake the
/// entries into a switch over the set bits of `high` instead (skipper_launch.cu): about half
/// the entries as immediate additions, no loads and no tests per entry.
struct DataStart {
  template <class Num, class Y>
  static __device__ __forceinline__ bool start(Y& y, u64 high, const SkipArgs& S) {
    return start_slots<Num>(y, high, S);
  }
};

/// A thread's place in its task: `high` is the next subset to try.
struct SkipCursor {
  u64 fixed = 0, high = 0;
  bool have = false;
};

/// Moves the cursor to the next live chunk (taking new tasks as needed) and sets y for it;
/// false when no task is left.
template <class Num, class Start, class Y>
__device__ __forceinline__ bool next_chunk(Y& y, SkipCursor& c, const SkipArgs& S, const u64* dead) {
  const u64 qlow = 1ULL << (S.walk.k + S.task_bits);
  const u64 limit = 1ULL << S.bits;
  for (;;) {
    if (!c.have) {
      const u64 task = atomicAdd(reinterpret_cast<unsigned long long*>(S.next_task), 1ULL) + S.task_begin;
      if (task >= S.task_end) return false;
      c.fixed = c.high = task << S.walk.k;
      c.have = true;
    }
    const u64 to = skip_target(c.high, c.fixed, qlow, limit, dead, S.dead_rows);
    if (to) {
      if (to >= limit) c.have = false;
      else c.high = to;
      continue;
    }
    const u64 here = c.high;
    c.high += qlow;
    if (c.high >= limit) c.have = false;
    if (Start::template start<Num>(y, here, S)) return true;
  }
}

/// The kernel body: every thread of the grid takes part (warp votes need whole warps);
/// thread t's accumulators are out[t * words ...], kept across launches.
template <class Num, class Cols, class Start, int R>
__device__ void skip_walk(const SkipArgs& S, const double* cols, const u64* dead) {
  const u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  typename Num::Acc acc;
  Num::load(acc, S.walk, t);
  SkipCursor cur;
  bool done = false;
  for (;;) {
    Rows<Num, R, 0> y;  // all slots in registers
    const bool have = !done && next_chunk<Num, Start>(y, cur, S, dead);
    done = !have;
    __syncwarp();
    if (!__any_sync(0xffffffffu, have)) break;
    if (have) {
      Num::start_chunk(acc);
      row_term<Num>(y, acc, S.walk, false);
      chunk_steps<Num, Cols>(y, acc, 0, cols, S.walk);
      Num::end_chunk(acc, S.walk);
    }
  }
  Num::store(acc, S.walk, t);
}

}  // namespace mcgpu
