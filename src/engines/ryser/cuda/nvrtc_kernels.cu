// Kernels specialised to one matrix, compiled at run time by NVRTC: n is a constant, so the
// row values live in registers, and every column's entries are baked into the code as
// constants (zero entries produce no instruction at all), which removes the shared-memory
// reads of the generic kernel. Compilation, the disk cache and loading are nvrtc_loader.cu's
// (NVRTC opened with dlopen; cubins keyed by a hash of the source, the entry point, the
// NVRTC version and the device's architecture). Each kernel comes as the register-only variant or
// the hybrid one (rows 0..M-1 of y in shared or global memory; docs/gpu.md). A kernel not in
// the cache yet may be compiled beside the walk (compile_in_background; docs/gpu.md, "Kernels:
// generic and specialised").

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

#include "engines/ryser/cuda/ryser_kernels.hpp"
#include "cuda/nvrtc_loader.hpp"
#include "ryser_kernel_source.hpp"
#include "core/tuning.hpp"

namespace matchcount::gpu::detail {
namespace {

std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// How the specialised kernel reads its columns: baked into the code (constants become
/// immediates, zero entries vanish: the code-generation papers' approach for sparse 0-1
/// matrices) or from shared memory. On dense matrices baking saves no instructions, so the
/// shared-memory kernel runs faster and compiles far sooner (docs/benchmarks.md, "GPU: dense
/// Ryser on one H100"); only sparse non-complex matrices are baked.
/// MATCHCOUNT_NVRTC_COLUMNS=baked|shared overrides the choice (for comparisons).
bool bake_columns(const WalkJob& job) {
  if (const auto baked = tuning::tuning().nvrtc_bake_columns) return *baked;
  std::size_t nonzero = 0;
  for (double v : job.a2) nonzero += v != 0.0;
  return job.kind != WalkKind::Complex && double(nonzero) <= 0.4 * double(job.a2.size());
}

/// Warp fraction with a nonzero term below which exact kernels skip zero terms.
constexpr double kSkipZeroBelow = 0.3;

/// Local memory per thread beyond which a register-only kernel counts as spilling y itself.
/// Complex kernels spill from n = 24 (the accumulators) and still beat the hybrid, whose
/// memory rows cost more than those spills (docs/gpu.md, "Hybrid kernels"), so only far
/// larger spills switch.
constexpr std::size_t kSpillBytes = 2048;

/// Hybrid memory rows go to shared memory when a block's share (with the columns) fits the
/// device's opt-in limit (227 KiB on Hopper; kernels of ~255 registers run one block of 256
/// threads per SM anyway), else to global memory, which is slower (docs/gpu.md, "Hybrid kernels").
std::size_t shared_rows_max() {
  int device = 0, bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    cudaGetLastError();
    return 48 * 1024;
  }
  return static_cast<std::size_t>(bytes);
}

/// Threads per block of the specialised kernels: kWalkBlock, or the tuning knob
/// MATCHCOUNT_NVRTC_BLOCK (32..1024, a multiple of 32; with MCGPU_MIN_BLOCKS it sets the
/// register budget, 65536 / (block * min blocks) per thread).
int walk_block() {
  const int b = tuning::tuning().nvrtc_block;  // 0 unless valid
  return b ? b : kWalkBlock;
}

/// Which variant to build: y all in registers (memory_rows = 0) or the hybrid split.
struct Variant {
  int memory_rows = 0;
  bool memory_shared = false;
  bool forced = false;  // by MATCHCOUNT_NVRTC_VARIANT / _MEMORY_ROWS: no spill check
};

/// Shared memory for the memory rows when it fits beside the columns, else global memory.
void place_memory_rows(Variant& v, const WalkJob& job, int rows, bool shared_cols) {
  const int W = job.kind == WalkKind::Complex ? 2 : 1;
  const std::size_t cols = shared_cols ? static_cast<std::size_t>(job.n - 1) * rows * W * sizeof(double) : 0;
  v.memory_shared = cols + std::size_t(walk_block()) * v.memory_rows * W * sizeof(double) <= shared_rows_max();
  if (const auto shared = tuning::tuning().nvrtc_memory_shared) v.memory_shared = *shared;
}

/// The variant from the row split and the knobs (for measurements and tests):
/// MATCHCOUNT_NVRTC_VARIANT=register|hybrid, MATCHCOUNT_NVRTC_MEMORY_ROWS=k (a hybrid with k
/// memory rows), MATCHCOUNT_NVRTC_HYBRID_MEMORY=shared|global.
Variant choose_variant(const WalkJob& job, int rows, bool shared_cols) {
  const RowSplit split = plan_row_split(job, rows, !shared_cols);
  Variant v;
  v.memory_rows = split.memory_rows;
  const tuning::Tuning& t = tuning::tuning();
  if (t.nvrtc_variant == 1) v.memory_rows = 0, v.forced = true;
  if (t.nvrtc_variant == 2) v.memory_rows = split.hybrid_rows, v.forced = true;
  if (t.nvrtc_memory_rows && t.nvrtc_variant != 1)
    v.memory_rows = std::clamp(*t.nvrtc_memory_rows, 1, job.n - 1), v.forced = true;
  place_memory_rows(v, job, rows, shared_cols);
  return v;
}

/// The low columns an exact walk takes together (ryser_low_columns.cuh): K of them, and where the
/// classes of rows start (K = 1: start[1] is column 0's first row; K = 2: start[1..3] begin
/// column 1's only, column 0's only and both's). K = 0 where the walk cannot: not exact with
/// shared primes, memory rows, chunks shorter than 2^K steps, rows not sorted by class (the
/// permanent ordering sorts them), a low column touching no row, or the knob. Kernels with
/// baked columns take one low column at most: with two, a sparse 0-1 block ran no faster than
/// with none (docs/benchmarks.md, "gpu-ryser: exact walks over low columns").
struct LowColumns {
  int K = 0;
  int start[4] = {0, 0, 0, 0};
};
LowColumns low_columns(const WalkJob& job, bool shared_cols, const Variant& v) {
  const int n = job.n;
  const int most = job.kind == WalkKind::ModShared && v.memory_rows == 0 && n >= 4
                       ? std::min({tuning::tuning().ryser_low_columns, job.k, shared_cols ? 2 : 1})
                       : 0;
  for (int K = most; K >= 1; --K) {
    std::vector<int> cls(static_cast<std::size_t>(n));  // bit K-1-j: column j touches row i
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < K; ++j) cls[static_cast<std::size_t>(i)] = 2 * cls[static_cast<std::size_t>(i)] + (job.a2[static_cast<std::size_t>(j) * n + i] != 0.0);
    int touched = 0;
    for (int c : cls) touched |= c;
    if (!std::is_sorted(cls.begin(), cls.end()) || touched != (1 << K) - 1) continue;
    LowColumns low;
    low.K = K;
    for (int c = 1; c < (1 << K); ++c) low.start[c] = static_cast<int>(std::lower_bound(cls.begin(), cls.end(), c) - cls.begin());
    return low;
  }
  return {};
}

struct Source {
  std::string text;
  int n = 0, width = 1;  // block size; doubles per entry
  int rows = 0;
  bool shared = false;
  int low_columns = 0;
  Variant variant;
};

constexpr const char* kEntry = "mc_ryser_specialised";

/// The specialised kernel's source: the kernel header, n fixed, the columns baked or read
/// from shared memory, and rows 0..M-1 in memory for the hybrid variant; one entry point,
/// mc_ryser_specialised.
Source source_for(const WalkJob& job, bool shared_cols, int rows, const Variant& variant) {
  const int n = job.n, m = n - 1, W = job.kind == WalkKind::Complex ? 2 : 1, M = variant.memory_rows;
  Source out;
  out.shared = shared_cols;
  out.rows = rows;
  out.variant = variant;
  out.n = n;
  out.width = W;
  const int R = out.rows;
  const LowColumns low = low_columns(job, shared_cols, variant);
  const int first_col = low.K;  // the Gray walk's first column
  out.low_columns = low.K;
  std::ostringstream s;
  s << nvrtc_defines_from_env();  // experiments with the tuning knobs of ryser_policies.cuh and ryser_kernel.cuh
  s << kRyserKernelSource << "\n";
  std::string cols = "mcgpu::SharedColumns<" + std::to_string(R) + ">";
  if (!out.shared) {
    // A column holding a memory row marks the memory rows' cached product for a refresh, done
    // once after the switch (a refresh per case would multiply the code, and NVRTC's time).
    cols = "BakedColumns";
    s << "struct BakedColumns {\n  static constexpr bool kUnrolled = true;\n  template <class Num, class S>\n"
      << "  static __device__ __forceinline__ void add(S& y, int col, double dir, const double*,"
      << " const mcgpu::WalkArgs& A) {\n    bool memory = false;\n    switch (col) {\n";
    for (int j = first_col; j < m; ++j) {
      s << "      case " << j - first_col << ":";
      bool touches_memory = false;
      for (int i = 0; i < n; ++i) {
        const double* v = &job.a2[(static_cast<std::size_t>(j) * n + i) * W];
        if (v[0] == 0.0 && (W == 1 || v[1] == 0.0)) continue;
        s << " mcgpu::row_update<Num>(y, " << i << ", dir, " << literal(v[0]);
        if (W == 2) s << ", " << literal(v[1]);
        s << ", A);";
        touches_memory |= i < M;
      }
      if (touches_memory) s << " memory = true;";
      s << " break;\n";
    }
    s << "      default: break;\n    }\n    if (memory) mcgpu::refresh<Num>(y, A);\n  }\n};\n";
  }
  const std::string r = std::to_string(R);
  std::string num;
  switch (job.kind) {
    case WalkKind::Real: num = "mcgpu::RealNum<" + r + ">"; break;
    case WalkKind::Complex: num = "mcgpu::ComplexNum<" + r + ">"; break;
    case WalkKind::ModPrime: num = "mcgpu::ModPrimeNum<" + r + ">"; break;
    case WalkKind::ModShared: {
      const unsigned long long mask = job.fold_mask | (1ULL << (R - 1));
      // Skipping zero terms pays when few warps have a nonzero one (see ModSharedNum).
      const bool skip = warp_nonzero_fraction(job) < kSkipZeroBelow;
      if (low.K > 0) {  // the low columns' entries as constants
        s << "struct LowColumnEntries {\n  static __device__ __forceinline__ double get(int j, int i) {\n    switch (j * 64 + i) {\n";
        for (int j = 0; j < low.K; ++j)
          for (int i = 0; i < n; ++i)
            if (const double v = job.a2[static_cast<std::size_t>(j) * n + i]; v != 0.0)
              s << "      case " << j * 64 + i << ": return " << literal(v) << ";\n";
        s << "      default: return 0.0;\n    }\n  }\n};\n";
        num = "mcgpu::ModLowNum<" + r + ", " + std::to_string(n) + ", " + std::to_string(job.primes.size()) + ", " +
              std::to_string(job.fold_mask) + "ULL, " + std::to_string(low.K);
        for (int c = 1; c < 4; ++c) num += ", " + std::to_string(c < (1 << low.K) ? low.start[c] : 0);
        num += std::string(", LowColumnEntries, ") + (skip ? "true" : "false") + ">";
        break;
      }
      num = "mcgpu::ModSharedNum<" + r + ", " + std::to_string(job.primes.size()) + ", " + std::to_string(mask) +
            "ULL, " + (skip ? "true" : "false") + ">";
      break;
    }
  }
  const std::string col_doubles = std::to_string(static_cast<std::size_t>(m) * R * W);
  s << "extern \"C\" __global__ void __launch_bounds__(" << walk_block()
    << ", MCGPU_MIN_BLOCKS) mc_ryser_specialised(mcgpu::WalkArgs A) {\n"
    << "  extern __shared__ double2 shared_dynamic[];\n"
    << "  double* cols = reinterpret_cast<double*>(shared_dynamic);\n";
  if (out.shared)
    s << "  for (int i = threadIdx.x; i < " << col_doubles << "; i += blockDim.x) cols[i] = A.a2[i];\n"
      << "  __syncthreads();\n";
  std::string mem = "mcgpu::RowMemory{nullptr, 0}";
  if (M > 0 && variant.memory_shared)
    mem = "mcgpu::RowMemory{cols + " + (out.shared ? col_doubles : std::string("0")) + " + threadIdx.x, blockDim.x}";
  else if (M > 0)
    mem = "mcgpu::RowMemory{A.scratch + (blockIdx.x * blockDim.x + threadIdx.x), (unsigned)A.threads}";
  if (low.K > 0)
    s << "  mcgpu::walk_low<" << num << ", " << cols << ", " << R << ">(A, " << (out.shared ? "cols" : "A.a2") << ");\n}\n";
  else
    s << "  mcgpu::walk<" << num << ", " << cols << ", " << R << ", " << M << ">(A, cols, "
      << (out.shared ? "cols" : "A.a2") << ", " << mem << ");\n}\n";
  out.text = s.str();
  return out;
}

/// A loaded kernel's launch facts, from its source.
void describe(Kernel& k, const Source& s) {
  k.rows = s.rows;
  k.uses_shared = s.shared;
  k.memory_rows = s.variant.memory_rows;
  k.memory_doubles = s.variant.memory_rows * s.width;
  k.memory_shared = s.variant.memory_shared;
  k.low_columns = s.low_columns;
  k.block = walk_block();
}

/// Compiles (or finds) and loads one variant's kernel; fn stays null when there is none.
/// The source holds n, the number kind, the columns (if baked) and the variant's split, so
/// it alone keys the caches (nvrtc_loader.cu).
Kernel load_variant(const Source& source, int cc_major, int cc_minor, bool compile_now) {
  Kernel k = nvrtc_kernel(source.text, kEntry, cc_major, cc_minor, compile_now);
  describe(k, source);
  return k;
}

/// Registers and local (spill) bytes per thread of a loaded kernel, as ptxas left them.
cudaFuncAttributes attributes(const Kernel& k) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, k.fn) != cudaSuccess) cudaGetLastError();
  return a;
}

/// The planned variant's source: columns baked or shared, the row split of the planner or the
/// knobs.
Source first_source(const WalkJob& job) {
  const bool shared_cols = !bake_columns(job);
  const int rows = shared_cols ? (job.n + 1) / 2 * 2 : job.n;  // shared reads take rows in pairs
  return source_for(job, shared_cols, rows, choose_variant(job, rows, shared_cols));
}

/// The register estimate can be wrong: a register-only kernel of the planner's that spilled y
/// to local memory is replaced by the hybrid.
bool spill_check(const Source& s) { return !s.variant.forced && s.variant.memory_rows == 0; }
bool spilled(const cudaFuncAttributes& attr) { return attr.localSizeBytes > kSpillBytes; }
Source hybrid_source(const WalkJob& job, const Source& first) {
  Variant hybrid = first.variant;
  hybrid.memory_rows = plan_row_split(job, first.rows, !first.shared).hybrid_rows;
  place_memory_rows(hybrid, job, first.rows, first.shared);
  return source_for(job, first.shared, first.rows, hybrid);
}

/// MATCHCOUNT_GPU_VERBOSE: the kernel's shape and resources on stderr.
void report(const Source& s, const Kernel& k, const cudaFuncAttributes& attr) {
  if (tuning::tuning().gpu_verbose)
    std::fprintf(stderr, "matchcount: gpu-ryser kernel n=%d rows=%d columns=%s memory_rows=%d (%s)%s: %d registers, %zu bytes local, compile %.2f s\n",
                 s.n, s.rows, s.shared ? "shared" : "baked", k.memory_rows,
                 k.memory_rows == 0 ? "-" : k.memory_shared ? "shared" : "global", s.low_columns == 1 ? " pairs" : s.low_columns == 2 ? " fours" : "", attr.numRegs,
                 static_cast<std::size_t>(attr.localSizeBytes), k.compile_seconds);
}

/// A cubin as the kernel switch takes a build.
runtime::Built built(NvrtcCubin c) { return {std::move(c.cubin), c.seconds, c.compiled, std::move(c.why)}; }

}  // namespace

Kernel specialised_kernel(const WalkJob& job, int cc_major, int cc_minor, bool compile_now) {
  const Source first = first_source(job);
  Kernel k = load_variant(first, cc_major, cc_minor, compile_now);
  if (!k.fn) return k;
  cudaFuncAttributes attr = attributes(k);
  if (spill_check(first) && spilled(attr)) {  // the hybrid, compiled now too if the first one was
    const Source hybrid = hybrid_source(job, first);
    Kernel h = load_variant(hybrid, cc_major, cc_minor, compile_now || k.source == KernelSource::Compiled);
    if (h.fn) {
      h.compile_seconds += k.compile_seconds;
      if (k.source == KernelSource::Compiled) h.source = KernelSource::Compiled;
      k = h;
      attr = attributes(k);
    }
  }
  report(first, k, attr);
  return k;
}

std::unique_ptr<BackgroundKernel> compile_in_background(const WalkJob& job, int cc_major, int cc_minor) {
  auto first = std::make_shared<const Source>(first_source(job));
  const NvrtcEntry first_entry = nvrtc_entry(first->text, kEntry, cc_major, cc_minor);
  if (nvrtc_available(first_entry)) return nullptr;
  std::shared_ptr<const Source> hybrid;
  NvrtcEntry hybrid_entry;
  if (spill_check(*first)) {
    hybrid = std::make_shared<const Source>(hybrid_source(job, *first));
    hybrid_entry = nvrtc_entry(hybrid->text, kEntry, cc_major, cc_minor);
  }
  // The builds copy what they read (sources, cache paths): nothing of the job or the knobs,
  // which may be gone or changed while they run. `kept` is the register-only kernel that
  // spilled, run should the hybrid fail (as specialised_kernel does); adopt runs under the
  // switch's lock, one call at a time.
  auto kept = std::make_shared<std::optional<Kernel>>();
  auto adopt = [first, hybrid, first_entry, hybrid_entry, kept](const runtime::Built& b) {
    const bool second = kept->has_value();
    const Source& s = second ? *hybrid : *first;
    Kernel k;
    if (!b.binary.empty()) k = nvrtc_load(second ? hybrid_entry : first_entry, b.binary, b.built_now);
    if (!k.fn) {
      if (second) return BackgroundKernel::Step{*kept, nullptr, {}};
      return BackgroundKernel::Step{std::nullopt, nullptr, b.binary.empty() ? b.why : k.note};
    }
    describe(k, s);
    k.compile_seconds = b.seconds;
    const cudaFuncAttributes attr = attributes(k);
    if (!second && hybrid && spilled(attr)) {
      *kept = k;
      return BackgroundKernel::Step{std::nullopt, [hybrid, hybrid_entry] { return built(nvrtc_build(hybrid->text, hybrid_entry)); }, {}};
    }
    report(s, k, attr);
    return BackgroundKernel::Step{k, nullptr, {}};
  };
  return std::make_unique<BackgroundKernel>([first, first_entry] { return built(nvrtc_build(first->text, first_entry)); },
                                            adopt);
}

}  // namespace matchcount::gpu::detail
