// Device code of the dense Ryser walk on the GPU: row values, column sources, the Gray walk.
// It is compiled twice: by nvcc into generic kernels (row count R a template parameter,
// columns read from shared memory), and by NVRTC at run time with n fixed and the matrix's
// columns baked into the code (see nvrtc_kernels.cu). Under nvcc it includes its pieces: the
// CUDA layer's device arithmetic (src/cuda/device_arith.cuh) and the number policies
// (ryser_policies.cuh). NVRTC gets the three texts concatenated in that order with MCGPU_NVRTC
// defined (src/CMakeLists.txt), so that it needs no headers.
//
// The walk (Nijenhuis-Wilf, doubled values): y_i = x0_i + sum_{j in S} a2[j][i] and
//   sum over S of (-1)^|S| prod_i y_i,  S running over the Gray code of m = n-1 columns.
// Step g of the Gray code flips column ctz(g); the term's sign is (-1)^g.
//
// Work split (CEG in the SUPerman papers): the 2^m steps form chunks of 2^k aligned steps; a
// chunk starts from freshly computed y (so its result does not depend on which thread ran it)
// and flips the same column at the same local step in every thread of a warp: no divergence,
// and shared-memory reads are broadcasts. Thread t takes a contiguous run of chunks, as equal
// as integer division allows, so no remainder launch is needed.
//
// Hybrid kernels (the code-generation paper's register/global variant) keep rows 0..M-1 of y
// in memory (a per-thread slice of global or shared memory) and rows M..R-1 in registers. The
// host orders the rows so that the memory rows are those touched only by rarely flipped
// columns, and the running product over rows 0..M-1 (the number policy's Chain) is kept in
// registers and recomputed only when one of them changes. Products are formed in the same
// row order in every variant, so real results keep the same bits.
#pragma once

#ifndef MCGPU_NVRTC
#include "cuda/device_arith.cuh"
#include "engines/ryser/cuda/ryser_policies.cuh"
#endif

// Tuning knobs (NVRTC sources may define them first; see docs/gpu.md; MCGPU_CHAINS is in
// ryser_policies.cuh).
#ifndef MCGPU_MIN_BLOCKS
#define MCGPU_MIN_BLOCKS 1  // __launch_bounds__ minimum resident blocks of 256 threads
#endif

namespace mcgpu {

// ---------------- row values: registers, and memory for hybrid kernels ----------------

/// Where a hybrid kernel's memory rows live: part w of row i of this thread is at
/// base[(i * W + w) * stride] (threads interleaved: coalesced in global memory, conflict-free
/// in shared memory).
struct RowMemory {
  double* base;
  unsigned stride;
};

/// y of one thread: rows 0..M-1 in memory, rows M..R-1 in registers (reg's entries below M
/// are never touched, so the compiler allocates no registers for them); pre is the chain
/// over the memory rows, refreshed whenever one of them changes.
template <class Num, int R, int M>
struct Rows {
  static constexpr int kR = R, kM = M;
  typename Num::Y reg;
  RowMemory mem;
  typename Num::Chain pre;
  __device__ __forceinline__ double get(int i, int w) const {
    return i < M ? mem.base[(u64)(i * Num::W + w) * mem.stride] : Num::get(reg, i, w);
  }
  __device__ __forceinline__ void put(int i, int w, double v) {
    if (i < M) mem.base[(u64)(i * Num::W + w) * mem.stride] = v;
    else Num::at(reg, i, w) = v;
  }
};

/// y_i += dir * a (one double per part; a1 for complex entries).
template <class Num, class S>
__device__ __forceinline__ void row_update(S& y, int i, double dir, double a0, double a1, const WalkArgs& A) {
  y.put(i, 0, Num::step(y.get(i, 0), dir, a0, A));
  if constexpr (Num::W == 2) y.put(i, 1, Num::step(y.get(i, 1), dir, a1, A));
}
template <class Num, class S>
__device__ __forceinline__ void row_update(S& y, int i, double dir, double a0, const WalkArgs& A) {
  row_update<Num>(y, i, dir, a0, 0.0, A);
}

/// Recomputes the chain over the memory rows (after one of them changed).
template <class Num, class S>
__device__ __forceinline__ void refresh(S& y, const WalkArgs& A) {
  if constexpr (S::kM > 0) {
    typename Num::Chain c = Num::chain_start();
#pragma unroll
    for (int i = 0; i < S::kM; ++i) Num::chain_row(c, i, y.get(i, 0), Num::W == 2 ? y.get(i, Num::W - 1) : 0.0, A);
    Num::template seal<S::kM>(c, A);
    y.pre = c;
  }
}

/// Adds a dense column (col[i * W + w]) to the memory rows and refreshes their chain in the
/// same pass: each row is read and written once.
template <class Num, class S>
__device__ __forceinline__ void update_memory_rows(S& y, double dir, const double* col, const WalkArgs& A) {
  if constexpr (S::kM > 0) {
    typename Num::Chain c = Num::chain_start();
#pragma unroll
    for (int i = 0; i < S::kM; ++i) {
      double v[Num::W];
#pragma unroll
      for (int w = 0; w < Num::W; ++w) {
        v[w] = Num::step(y.get(i, w), dir, col[i * Num::W + w], A);
        y.put(i, w, v[w]);
      }
      Num::chain_row(c, i, v[0], v[Num::W - 1], A);
    }
    Num::template seal<S::kM>(c, A);
    y.pre = c;
  }
}

/// Adds (-1)^neg * prod_i y_i: the cached chain of the memory rows continued over the
/// register rows.
template <class Num, class S>
__device__ __forceinline__ void row_term(const S& y, typename Num::Acc& acc, const WalkArgs& A, bool neg) {
  typename Num::Chain c;
  if constexpr (S::kM > 0) c = y.pre;
  else c = Num::chain_start();
#pragma unroll
  for (int i = S::kM; i < S::kR; ++i) Num::chain_row(c, i, y.get(i, 0), Num::W == 2 ? y.get(i, Num::W - 1) : 0.0, A);
  Num::template finish<S::kM>(c, acc, A, neg);
}

// ---------------- column sources ----------------

/// Generic kernels: the columns sit in shared memory, read with 16-byte broadcasts.
/// Not unrolled: with static columns the compiler keeps the low columns in registers across
/// steps, which slows dense walks through register pressure (docs/gpu.md).
template <int R>
struct SharedColumns {
  static constexpr bool kUnrolled = false;
  template <class Num, class S>
  static __device__ __forceinline__ void add(S& y, int col, double dir, const double* cols, const WalkArgs& A) {
    constexpr int M = S::kM;
    const double* column = cols + (u64)col * R * Num::W;
    update_memory_rows<Num>(y, dir, column, A);  // every column touches every row here
    const double2* c = reinterpret_cast<const double2*>(column);
    if constexpr (Num::W == 1) {
#pragma unroll
      for (int i = M & ~1; i < R; i += 2) {
        double2 v = c[i / 2];
        if (i >= M) row_update<Num>(y, i, dir, v.x, A);
        row_update<Num>(y, i + 1, dir, v.y, A);
      }
    } else {
#pragma unroll
      for (int i = M; i < R; ++i) {
        double2 v = c[i];
        row_update<Num>(y, i, dir, v.x, v.y, A);
      }
    }
  }
};

// ---------------- the walk ----------------

/// y for Gray code g: x0 plus the columns of g's set bits (from `cols`, layout as WalkArgs.a2).
template <class Num, int R>
__device__ __forceinline__ void start_values(typename Num::Y& y, u64 g, const double* cols, const WalkArgs& A) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    if constexpr (Num::W == 1) Num::set(y, i, A.x0[i]);
    else Num::set(y, i, A.x0[2 * i], A.x0[2 * i + 1]);
  }
  while (g) {
    int j = __ffsll((long long)g) - 1;
    g &= g - 1;
    const double* c = cols + (u64)j * R * Num::W;
#pragma unroll
    for (int i = 0; i < R; ++i) Num::add_start(y, i, c + i * Num::W, A);
  }
}

/// The same for the rows of a (possibly hybrid) walk, and the memory rows' chain.
template <class Num, class S>
__device__ __forceinline__ void start_rows(S& y, u64 g, const double* cols, const WalkArgs& A) {
  constexpr int R = S::kR, W = Num::W;
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int w = 0; w < W; ++w) y.put(i, w, A.x0[i * W + w]);
  while (g) {
    int j = __ffsll((long long)g) - 1;
    g &= g - 1;
    const double* c = cols + (u64)j * R * W;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int w = 0; w < W; ++w) y.put(i, w, Num::start_add(y.get(i, w), c[i * W + w], A));
  }
  refresh<Num>(y, A);
}

/// Gray code g flips column `col` (its lowest set bit): add the column with the sign of the
/// flipped bit, then add the term. Inlined with a constant col (unrolled walks), a baked
/// column source's switch folds away.
template <class Num, class Cols, class S>
__device__ __forceinline__ void flip(S& y, typename Num::Acc& acc, int col, u64 g, bool neg, const double* cols,
                                     const WalkArgs& A) {
  double dir = ((g >> (col + 1)) & 1) ? -1.0 : 1.0;  // the flipped bit turns on or off
  Cols::template add<Num>(y, col, dir, cols, A);
  row_term<Num>(y, acc, A, neg);
}

/// One Gray step inside a chunk: local step s (1 <= s < 2^k) of the chunk starting at `base`.
template <class Num, class Cols, class S>
__device__ __forceinline__ void step(S& y, typename Num::Acc& acc, u64 base, u64 s, bool neg, const double* cols,
                                     const WalkArgs& A) {
  flip<Num, Cols>(y, acc, __ffsll((long long)s) - 1, base | s, neg, cols, A);
}

#ifndef MCGPU_UNROLL_LOG2
#define MCGPU_UNROLL_LOG2 4  // steps per unrolled group: 2^4, of which 15 have static columns
#endif
constexpr int kUnroll = 1 << MCGPU_UNROLL_LOG2;
__host__ __device__ constexpr int trailing_zeros(int o) { return (o & 1) ? 0 : 1 + trailing_zeros(o >> 1); }

/// Local steps s+O .. s+kUnroll-1 of an aligned group (s a multiple of kUnroll): step s+O
/// flips column ctz(O), known here at compile time; the group's last step s+kUnroll is the
/// caller's. Odd steps subtract.
template <class Num, class Cols, int O, class S>
__device__ __forceinline__ void static_steps(S& y, typename Num::Acc& acc, u64 g0, const double* cols,
                                             const WalkArgs& A) {
  if constexpr (O < kUnroll) {
    flip<Num, Cols>(y, acc, trailing_zeros(O), g0 | O, O & 1, cols, A);
    static_steps<Num, Cols, O + 1>(y, acc, g0, cols, A);
  }
}

/// Local steps 1 .. 2^k - 1 of the chunk starting at Gray index `base` (its step 0, the
/// term of the start values, is the caller's). Shared by the dense walk and SkipPer's chunks.
template <class Num, class Cols, class S>
__device__ __forceinline__ void chunk_steps(S& y, typename Num::Acc& acc, u64 base, const double* cols,
                                            const WalkArgs& A) {
  const u64 len = 1ULL << A.k;
  if constexpr (Cols::kUnrolled) {
    if (A.k >= MCGPU_UNROLL_LOG2) {
      for (u64 s = 0; s < len; s += kUnroll) {
        static_steps<Num, Cols, 1>(y, acc, base | s, cols, A);
        if (s + kUnroll < len) step<Num, Cols>(y, acc, base, s + kUnroll, false, cols, A);
      }
      return;
    }
  }
  u64 s = 1;
  for (; s + 1 < len; s += 2) {  // odd steps subtract, even steps add
    step<Num, Cols>(y, acc, base, s, true, cols, A);
    step<Num, Cols>(y, acc, base, s + 1, false, cols, A);
  }
  if (s < len) step<Num, Cols>(y, acc, base, s, true, cols, A);
}

/// The walk of one thread over its chunks. Rows 0..M-1 of y live at `mem` (hybrid kernels).
template <class Num, class Cols, int R, int M = 0>
__device__ void walk(const WalkArgs& A, const double* cols, const double* start_cols,
                     RowMemory mem = RowMemory{nullptr, 0}) {
  static_assert(M >= 0 && M < R, "a hybrid kernel keeps at least one row in registers");
  u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= A.threads) return;
  u64 per = A.chunks / A.threads, extra = A.chunks % A.threads;
  u64 first = A.chunk_begin + t * per + (t < extra ? t : extra);
  u64 count = per + (t < extra ? 1 : 0);
  typename Num::Acc acc;
  Num::load(acc, A, t);
  Rows<Num, R, M> y;
  y.mem = mem;
  for (u64 c = first; c < first + count; ++c) {
    const u64 base = c << A.k;
    start_rows<Num>(y, base ^ (base >> 1), start_cols, A);
    Num::start_chunk(acc);
    row_term<Num>(y, acc, A, A.k == 0 && (c & 1));
    chunk_steps<Num, Cols>(y, acc, base, cols, A);
    Num::end_chunk(acc, A);
  }
  Num::store(acc, A, t);
}

}  // namespace mcgpu
