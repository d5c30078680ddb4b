// Permanents of small dense square matrices (n <= 16) without the pipeline: the "glynn"
// engine's walk (Glynn's formula in Gray-code order in SIMD lanes, src/engines/ryser/glynn.cpp)
// on a strided array as NumPy holds it. For batches of small matrices and one-matrix quick
// paths, where planning, preprocessing and allocation would cost several times the count
// itself; `matchcount --engine glynn` and make_engine("glynn") run the same walk on a block, and
// gpu_dense_permanents runs it on a CUDA device for whole batches.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "matchcount/value.hpp"

namespace matchcount {

/// The largest n: 2^15 Glynn terms, about 0.1 ms (short enough not to need an interruption).
constexpr int kSmallDenseMax = 16;

/// Element types of a dense array (NumPy's dtypes that the readers take).
enum class DenseElement { Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float32, Float64, Complex64, Complex128 };

/// What a float array stands for: the NumPy reader's choice (integral floats count exactly,
/// others as doubles), exact (fractions, which this kernel leaves to the pipeline) or floats.
enum class DenseMode { Auto, Exact, Float };

/// A result of the small kernel, plain data so that a batch stores it without allocation.
struct SmallDenseValue {
  enum Kind : std::uint8_t { None, Exact, Real, Cplx } kind = None;  // None: not counted here
  double re = 0, im = 0;   // Exact: an integer of at most 2^53 held exactly
  double abs_error = 0;    // the error the ryser engine would give (0 when exact)
  bool estimated = false;  // abs_error is a model of the walk's drift, not a bound
  PermanentValue value() const;
};

/// The permanent of the rows x cols matrix at `data` (strides in elements). Returns a value of
/// kind None, without counting, where the pipeline must count: a rectangular matrix,
/// n > kSmallDenseMax, an exact fraction, a non-finite entry (whose message the pipeline
/// gives), an integer beyond 2^53, or an integer matrix whose permanent may not fit the exact
/// 53-bit walk.
SmallDenseValue small_dense_permanent(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                      std::int64_t row_stride, std::int64_t col_stride, DenseMode mode = DenseMode::Auto);

/// The largest n of small_dense_hafnian: 2^12 leaves, short enough for a call that is not
/// interrupted.
constexpr int kSmallHafnianMax = 24;

/// The hafnian (the loop hafnian where `loops`: the diagonal holds loop weights) of the n x n
/// matrix at `data`, laid out as for small_dense_permanent: the "hafnian" engine's float walks
/// (four vertex orders, whose spread is the estimate) without the pipeline; up to 3 vertices
/// the closed forms, with a bound on their roundings (not an estimate). Kind None, without
/// counting, where the pipeline must count: a matrix not square and exactly symmetric,
/// n > kSmallHafnianMax, a non-finite entry, and integers or exact fractions (the number kinds of
/// small_dense_permanent), which the pipeline counts exactly. A vertex that no edge (or loop)
/// covers, or an odd n without loops, gives 0 with no error. Entries are taken as exact.
SmallDenseValue small_dense_hafnian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                    std::int64_t row_stride, std::int64_t col_stride, bool loops,
                                    DenseMode mode = DenseMode::Auto);

/// The most leaves (prod of (m + 1) over the pattern's pair types) of
/// small_dense_hafnian_repeated: as small_dense_hafnian's 2^12, a call short enough not to be
/// interrupted.
constexpr double kSmallRepeatedLeaves = 4096;

/// thewalrus's hafnian_repeated(A, rpt, mu, loops) of the n x n matrix at `data` (laid out as for
/// small_dense_permanent; n <= kSmallHafnianMax, rpt of n counts): the repeated-pair engine's
/// value and estimate (or Kan's sum and bound, where the engine takes it) on one thread without
/// the pipeline. `mu`, where not null, holds n loop weights of the matrix's element type at
/// stride `mu_stride` (loops only; null: the diagonal). Kind None, without counting, where the
/// pipeline must count: integers and exact fractions (which it counts exactly), a matrix not
/// square and exactly symmetric, a non-finite entry or value, a pattern of more than
/// kSmallRepeatedLeaves leaves.
SmallDenseValue small_dense_hafnian_repeated(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                             std::int64_t row_stride, std::int64_t col_stride,
                                             const std::vector<std::uint64_t>& rpt, const void* mu,
                                             std::int64_t mu_stride, bool loops);

/// The most modes of small_dense_torontonian and gpu_dense_torontonians.
constexpr int kSmallTorontonianMaxModes = 16;

/// The torontonian (thewalrus's tor) of the 2n x 2n matrix O at `data`, n <= 16, laid out as
/// for small_dense_permanent: the torontonian engine's count (real basis, certified least
/// eigenvalue, Schur-complement walk) and its certified bound, without the pipeline; the
/// engine's value bit for bit. Kind Real, or None where the engine must count (a matrix it would
/// refuse, one whose real basis is not real, a bound above 1e-3 of the value, which it retries
/// in long double, a non-finite entry).
SmallDenseValue small_dense_torontonian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                        std::int64_t row_stride, std::int64_t col_stride);

/// thewalrus's ltor(O, gamma) of the 2n x 2n matrix O at `data` (n <= 16, laid out as for
/// small_dense_permanent) and the 2n values of gamma at `gamma` (stride `gamma_stride`): the
/// torontonian engine's count and certified bound on one thread without the pipeline, in the
/// pipeline's number kinds; the engine's value bit for bit. Kind Real, or None where the
/// pipeline must count or refuse (a non-finite value, a matrix the engine refuses, a bound that
/// does not determine the value).
SmallDenseValue small_dense_loop_torontonian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                             std::int64_t row_stride, std::int64_t col_stride, const void* gamma,
                                             DenseElement gamma_type, std::int64_t gamma_stride);

/// The torontonians of `count` 2n x 2n matrices O (n = modes, 1..16) laid out as for
/// gpu_dense_permanents, on the first CUDA device: one thread a matrix, each the whole count of
/// small_dense_torontonian (its value within the same certified bound; the GPU's fused
/// multiply-adds round differently). Kind None where the engine must count. `stop` as for
/// gpu_dense_permanents. GpuError without CUDA or a device.
std::vector<SmallDenseValue> gpu_dense_torontonians(const double* re, const double* im, int modes, std::int64_t count,
                                                    const std::function<bool()>& stop = {});

/// The loop torontonians (thewalrus's ltor) of `count` matrices O laid out as for
/// gpu_dense_torontonians, with their gammas at `gamma_re` (and `gamma_im` for complex ones;
/// null for real ones), 2n values each and 2n after the one before: as gpu_dense_torontonians,
/// each value small_dense_loop_torontonian's within its certified bound.
std::vector<SmallDenseValue> gpu_dense_loop_torontonians(const double* re, const double* im, const double* gamma_re,
                                                         const double* gamma_im, int modes, std::int64_t count,
                                                         const std::function<bool()>& stop = {});

/// The sizes the GPU batch takes.
constexpr int kGpuDenseMin = 4, kGpuDenseMax = 20;

/// The permanents of `count` n x n matrices of doubles at `re` (and `im` for complex values;
/// null for real ones), each row-major and n * n after the one before, on the first CUDA device:
/// one block of 64 threads per matrix, each thread a share of the same Glynn walk, in launches
/// of about a tenth of a second; values of kind Real or Cplx with the glynn engine's error
/// estimate. `stop` is asked between launches (Interrupted, matchcount/checkpoint.hpp, when it
/// says so). GpuError without
/// CUDA or a device, or for n outside kGpuDenseMin..kGpuDenseMax.
std::vector<SmallDenseValue> gpu_dense_permanents(const double* re, const double* im, int n, std::int64_t count,
                                                  const std::function<bool()>& stop = {});

/// The hafnians (loop hafnians where `loops`) of `count` symmetric n x n matrices laid out as
/// for gpu_dense_permanents, on a CUDA device: every matrix's three vertex orders expanded
/// along the first vertex, 32 matrices a warp, from 8 to 14 vertices (12 with loops),
/// walked one a thread otherwise up to 32 vertices (each matrix sent once), its four float
/// walks as channels of the gpu-hafnian walk beyond (docs/gpu.md, "Batches of small
/// hafnians"), in jobs of 4096 matrices (expansions: up to 65536, 32 MiB) with `stop` asked
/// between them; values of kind Real or Cplx with the hafnian engine's estimate (the spread of
/// the three orders). Only the lower triangle is read. GpuError
/// without CUDA or a device, or for n outside 2..64.
std::vector<SmallDenseValue> gpu_dense_hafnians(const double* re, const double* im, int n, std::int64_t count, bool loops,
                                                const std::function<bool()>& stop = {});

/// A stack of dense square matrices in the caller's memory, as NumPy holds a 3-D array: entry
/// (r, c) of the stack's matrix m at element m * matrix_stride + r * row_stride + c *
/// col_stride of `data` (strides in elements). `which`, where not null, lists the stack's
/// matrices that a call counts, in order (its matrix b is the stack's which[b]).
struct DenseStack {
  const void* data = nullptr;
  DenseElement type = DenseElement::Float64;
  std::int64_t matrix_stride = 0, row_stride = 0, col_stride = 0;
  const std::int64_t* which = nullptr;
};

/// gpu_dense_hafnians of `count` matrices of `stack` read where they are, without copying
/// them into split arrays first: the same values. Float and complex elements (Float32,
/// Float64, Complex64, Complex128); std::invalid_argument for others.
std::vector<SmallDenseValue> gpu_dense_hafnians(const DenseStack& stack, int n, std::int64_t count, bool loops,
                                                const std::function<bool()>& stop = {});

/// Stacks and batches of 256 or more float (loop) hafnians of kGpuHafnianBatchMin to
/// kGpuHafnianBatchMax vertices go to a CUDA device unless the CPU is asked for: there the GPU
/// (its expansions from 8 vertices, its walks beyond) beat small_dense_hafnian on a 16-core
/// host (docs/benchmarks.md, "Batches of small hafnians by expansion"); below 8 the CPU's walks
/// are the faster.
constexpr int kGpuHafnianBatchMin = 8, kGpuHafnianBatchMax = 32;
inline bool gpu_hafnians_by_default(std::int64_t n) { return n >= kGpuHafnianBatchMin && n <= kGpuHafnianBatchMax; }

/// Stacks and batches of 256 or more float permanents go to a CUDA device by default from 12
/// rows, and torontonians from 8 modes: below, the CPU's small kernels on a 16-core host were as
/// fast or faster (torontonians from Python, whose GPU call copies the stack first;
/// docs/benchmarks.md, "Which batches go to the GPU by default").
constexpr int kGpuPermanentBatchMin = 12, kGpuTorontonianBatchMinModes = 8;
inline bool gpu_permanents_by_default(std::int64_t n) { return n >= kGpuPermanentBatchMin && n <= kGpuDenseMax; }
inline bool gpu_torontonians_by_default(std::int64_t modes) {
  return modes >= kGpuTorontonianBatchMinModes && modes <= kSmallTorontonianMaxModes;
}

/// What each matrix of a stack is asked, for the cost model below.
enum class DenseQuestion { Permanent, Hafnian, Torontonian };

/// Seconds the CPU's small kernels would take for `count` float matrices of n rows on `threads`
/// threads: a model of each kernel's core-seconds a matrix (Glynn's n 2^n steps, the hafnian
/// walk's n^2 2^(n/2), the torontonian's set-up (2 modes)^3 and walk 12 2^modes), fitted to a
/// 16-core host's stacks of 8 to 24 rows (docs/benchmarks.md, "Which stacks the command line
/// sends to the GPU").
double small_dense_cpu_seconds(DenseQuestion question, int n, std::int64_t count, int threads);

/// Whether a process that must first start a CUDA context, which costs far more than the GPU's
/// call on such a stack, gains by sending the stack to the GPU: where the CPU would take at
/// least MATCHCOUNT_GPU_STACK_SECONDS (default 1; docs/usage.md, "Tuning knobs").
bool gpu_stack_pays_for_its_context(DenseQuestion question, int n, std::int64_t count, int threads);

}  // namespace matchcount
