// Host side of the GPU SkipPer walk: the NVRTC source of a kernel specialised to one job,
// the choice between it and a generic kernel, and the launches (tasks handed out by a
// counter on the device, in launches of about 1e13 FP64 operations for progress reports).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cuda/nvrtc_loader.hpp"
#include "ryser_kernel_source.hpp"
#include "engines/sparse/cuda/skipper_kernel.cuh"
#include "skipper_kernel_source.hpp"
#include "engines/sparse/cuda/skipper_kernels.hpp"
#include "core/tuning.hpp"

namespace matchcount::gpu {
namespace detail {
namespace {

std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// The number policy of a job with `rows` slots, as C++ source.
std::string policy(const SkipJob& job, int rows) {
  const std::string r = std::to_string(rows);
  switch (job.kind) {
    case WalkKind::Real: return "mcgpu::RealNum<" + r + ">";
    case WalkKind::Complex: return "mcgpu::ComplexNum<" + r + ">";
    case WalkKind::ModPrime: return "mcgpu::ModPrimeNum<" + r + ">";
    case WalkKind::ModShared: {
      const unsigned long long mask = job.fold_mask | (1ULL << (rows - 1));
      return "mcgpu::ModSharedNum<" + r + ", " + std::to_string(job.primes.size()) + ", " + std::to_string(mask) +
             "ULL, false>";
    }
  }
  return {};
}

/// The start values baked in: every sum (a row) in a variable, the entries of each high
/// Gray bit added in one case of a switch over the set bits of `high`, then each slot the
/// product of its sums. The same values and operations as DataStart (mcgpu::start_slots).
std::string baked_start(const SkipJob& job) {
  const int W = job.width(), sums = static_cast<int>(job.sum_entry.size()) - 1;
  std::ostringstream s;
  auto value = [&](const std::vector<double>& v, int at) {
    std::string out = "{" + literal(v[static_cast<std::size_t>(at) * W]);
    if (W == 2) out += ", " + literal(v[static_cast<std::size_t>(at) * W + 1]);
    return out + "}";
  };
  s << "struct BakedStart {\n  template <class Num, class Y>\n"
    << "  static __device__ __forceinline__ bool start(Y& y, mcgpu::u64 high, const mcgpu::SkipArgs& S) {\n"
    << "    using M = mcgpu::SlotMath<Num>;\n    const mcgpu::WalkArgs& A = S.walk;\n";
  for (int i = 0; i < sums; ++i) s << "    double s" << i << "[" << W << "] = " << value(job.sum_base, i) << ";\n";
  std::vector<std::vector<std::pair<int, int>>> by_bit(static_cast<std::size_t>(job.bits));  // (sum, entry)
  for (int i = 0; i < sums; ++i)
    for (int e = job.sum_entry[static_cast<std::size_t>(i)]; e < job.sum_entry[static_cast<std::size_t>(i) + 1]; ++e)
      by_bit[static_cast<std::size_t>(job.entry_bit[static_cast<std::size_t>(e)])].emplace_back(i, e);
  s << "    for (mcgpu::u64 m = high; m; m &= m - 1) {\n      switch (__ffsll((long long)m) - 1) {\n";
  for (int b = 0; b < job.bits; ++b) {
    if (by_bit[static_cast<std::size_t>(b)].empty()) continue;
    s << "        case " << b << ":";
    for (const auto& [i, e] : by_bit[static_cast<std::size_t>(b)])
      s << " { const double a[" << W << "] = " << value(job.entry_val, e) << "; M::add(s" << i << ", a, A); }";
    s << " break;\n";
  }
  s << "        default: break;\n      }\n    }\n    bool live = true;\n";
  for (int slot = 0; slot < job.slots(); ++slot) {
    const int s0 = job.slot_sum[static_cast<std::size_t>(slot)], s1 = job.slot_sum[static_cast<std::size_t>(slot) + 1];
    s << "    {\n      double v[" << W << "] = {1.0" << (W == 2 ? ", 0.0" : "") << "};\n";
    for (int i = s0; i < s1; ++i) {
      if (i == s0) s << "      for (int w = 0; w < " << W << "; ++w) v[w] = s" << i << "[w];\n";
      else s << "      M::mul(v, s" << i << ", A);\n";
    }
    if (slot == job.sign_slot) s << "      if (__popcll(high) & 1) M::negate(v, A);\n";
    if ((job.const_mask >> slot) & 1) s << "      live &= !(v[0] == 0.0" << (W == 2 ? " && v[1] == 0.0" : "") << ");\n";
    s << "      for (int w = 0; w < " << W << "; ++w) y.put(" << slot << ", w, v[w]);\n    }\n";
  }
  s << "    return live;\n  }\n};\n";
  return s.str();
}

}  // namespace

std::string skipper_source(const SkipJob& job) {
  const int W = job.width(), R = job.slots();
  std::ostringstream s;
  s << "#define MCGPU_NVRTC 1\n";
  s << nvrtc_defines_from_env();  // tuning knobs of ryser_policies.cuh and ryser_kernel.cuh, as for gpu-ryser
  s << kRyserKernelSource << "\n" << kSkipCursorSource << "\n" << kSkipperKernelSource << "\n";
  // The local columns baked in: zero entries produce no instruction, and the unrolled walk
  // inlines 15 of every 16 steps with their column known at compile time.
  s << "struct BakedColumns {\n  static constexpr bool kUnrolled = true;\n  template <class Num, class S>\n"
    << "  static __device__ __forceinline__ void add(S& y, int col, double dir, const double*,"
    << " const mcgpu::WalkArgs& A) {\n    switch (col) {\n";
  for (int j = 0; j < job.k; ++j) {
    s << "      case " << j << ":";
    for (int i = 0; i < job.rows_l; ++i) {
      const double* v = &job.local[(static_cast<std::size_t>(j) * job.rows_l + i) * W];
      if (v[0] == 0.0 && (W == 1 || v[1] == 0.0)) continue;
      s << " mcgpu::row_update<Num>(y, " << i << ", dir, " << literal(v[0]);
      if (W == 2) s << ", " << literal(v[1]);
      s << ", A);";
    }
    s << " break;\n";
  }
  s << "      default: break;\n    }\n  }\n};\n";
  // MATCHCOUNT_SKIPPER_START=data reads the start values from the job's arrays instead
  // (for measurements).
  const bool data_start = tuning::tuning().skipper_start_data;
  if (!data_start) s << baked_start(job);
  s << "extern \"C\" __global__ void __launch_bounds__(256, MCGPU_MIN_BLOCKS) mc_skipper_specialised(mcgpu::SkipArgs S) {\n"
    << "  __shared__ mcgpu::u64 dead[64];\n"
    << "  for (int i = threadIdx.x; i < S.dead_rows; i += blockDim.x) dead[i] = S.dead_mask[i];\n"
    << "  __syncthreads();\n"
    << "  mcgpu::skip_walk<" << policy(job, R) << ", BakedColumns, " << (data_start ? "mcgpu::DataStart" : "BakedStart")
    << ", " << R << ">(S, nullptr, dead);\n}\n";
  return s.str();
}

Kernel skipper_specialised_kernel(const SkipJob& job, int cc_major, int cc_minor, bool compile) {
  Kernel k = nvrtc_kernel(skipper_source(job), "mc_skipper_specialised", cc_major, cc_minor, compile);
  k.rows = job.slots();
  k.uses_shared = false;
  return k;
}

}  // namespace detail

namespace {

using detail::check;
using detail::DeviceBuffer;


int words_of(WalkKind kind, int primes) {
  switch (kind) {
    case WalkKind::Real: return mcgpu::kLimbs + 1;
    case WalkKind::Complex: return 2 * mcgpu::kLimbs + 1;
    case WalkKind::ModShared: return primes;
    case WalkKind::ModPrime: return 1;
  }
  return 1;
}

void validate(const SkipJob& job) {
  const int np = static_cast<int>(job.primes.size());
  if (job.bits < 1 || job.bits > 63 || job.k < 0 || job.k > job.bits || job.task_bits < 0 ||
      job.k + job.task_bits > job.bits)
    throw GpuError("GPU SkipPer: bad bit split");
  if (job.slots() < 1 || job.slots() > 64 || job.rows_l > job.slots() || job.dead_mask.size() > 64 ||
      job.sign_slot < job.rows_l || job.sign_slot >= job.slots())
    throw GpuError("GPU SkipPer: bad slots");
  if ((job.kind == WalkKind::ModShared && (np < 1 || np > 4)) || (job.kind == WalkKind::ModPrime && np != 1))
    throw GpuError("GPU SkipPer: wrong number of primes for this walk");
}

}  // namespace

SkipResult run_skip(const SkipJob& input) {
  using Clock = std::chrono::steady_clock;
  validate(input);
  const int np = static_cast<int>(input.primes.size()), W = input.width();
  check(cudaSetDevice(input.device), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, input.device), "cudaGetDeviceProperties");

  SkipResult result;
  detail::Kernel kernel;
  // A compilation takes up to a few seconds: worth it when the walk runs longer than about a second
  // at roughly 5e12 useful FP64 operations per second, or when it is cached.
  if (input.specialise > 0)
    kernel = detail::skipper_specialised_kernel(input, prop.major, prop.minor,
                                                input.specialise == 2 || input.predicted_ops > 5e12);
  result.kernel_note = kernel.note;
  SkipJob job = input;
  if (!kernel.fn) {
    if (job.kind == WalkKind::ModShared) {
      job = padded_for_every8(input, 64);
      if (!input.every8_ok || job.slot_sum.empty()) {
        result.kernel_note += (result.kernel_note.empty() ? "" : "; ") +
                              std::string("no generic kernel folds these products exactly");
        return result;
      }
    }
    kernel = detail::skipper_generic_kernel(job.kind, np, job.slots());
  }
  result.source = kernel.source;
  result.compile_seconds = kernel.compile_seconds;
  const int R = kernel.rows;

  // Local columns dense over the R slots (generic kernels read them from shared memory).
  std::vector<double> cols;
  if (kernel.uses_shared) {
    cols.assign(static_cast<std::size_t>(job.k) * R * W, 0.0);
    for (int j = 0; j < job.k; ++j)
      for (int i = 0; i < job.rows_l; ++i)
        for (int w = 0; w < W; ++w)
          cols[(static_cast<std::size_t>(j) * R + i) * W + w] =
              job.local[(static_cast<std::size_t>(j) * job.rows_l + i) * W + w];
  }
  const std::size_t shared = cols.size() * sizeof(double);
  const int block = 256;
  const int per_sm = detail::blocks_per_sm(kernel.fn, block, shared, "GPU SkipPer");
  const unsigned grid = static_cast<unsigned>(per_sm) * static_cast<unsigned>(prop.multiProcessorCount);
  const std::uint64_t threads = std::uint64_t{grid} * block;
  const int words = words_of(job.kind, np);

  DeviceBuffer<double> d_cols(cols), d_base(job.sum_base), d_val(job.entry_val);
  DeviceBuffer<int> d_slot(job.slot_sum), d_sum(job.sum_entry), d_bit(job.entry_bit);
  DeviceBuffer<std::uint64_t> d_dead(job.dead_mask), d_out(threads * words), d_next(1);
  check(cudaMemset(d_out.ptr, 0, threads * words * sizeof(std::uint64_t)), "cudaMemset");

  mcgpu::SkipArgs args{};
  args.walk.n = job.n;
  args.walk.m = job.bits;
  args.walk.k = job.k;
  args.walk.q = job.q;
  args.walk.threads = threads;
  args.walk.a2 = d_cols.ptr;
  args.walk.out = reinterpret_cast<mcgpu::u64*>(d_out.ptr);
  for (int i = 0; i < np; ++i) args.walk.prime[i] = job.primes[i], args.walk.pinv[i] = job.pinv[i];
  args.bits = job.bits;
  args.task_bits = job.task_bits;
  args.slots = job.slots();
  args.dead_rows = static_cast<int>(job.dead_mask.size());
  args.sign_slot = job.sign_slot;
  args.const_mask = job.const_mask;
  args.next_task = reinterpret_cast<mcgpu::u64*>(d_next.ptr);
  args.slot_sum = d_slot.ptr;
  args.sum_base = d_base.ptr;
  args.sum_entry = d_sum.ptr;
  args.entry_bit = d_bit.ptr;
  args.entry_val = d_val.ptr;
  args.dead_mask = reinterpret_cast<const mcgpu::u64*>(d_dead.ptr);

  // About 1e13 FP64 operations per launch (under a second on a Hopper card), so that
  // progress can be shown; tasks are statistically alike, so launches split them evenly.
  const std::uint64_t tasks = std::uint64_t{1} << job.task_bits;
  const std::uint64_t launches =
      std::clamp<std::uint64_t>(static_cast<std::uint64_t>(job.predicted_ops / 1e13), 1, std::max<std::uint64_t>(1, tasks / threads));
  const std::uint64_t per_launch = (tasks + launches - 1) / launches;
  const auto t0 = Clock::now();
  for (std::uint64_t begin = 0; begin < tasks; begin += per_launch) {
    args.task_begin = begin;
    args.task_end = std::min(tasks, begin + per_launch);
    check(cudaMemset(d_next.ptr, 0, sizeof(std::uint64_t)), "cudaMemset");
    void* params[] = {&args};
    check(cudaLaunchKernel(kernel.fn, dim3(grid), dim3(block), params, shared, nullptr), "cudaLaunchKernel");
    check(cudaDeviceSynchronize(), "the GPU SkipPer kernel");
    ++result.launches;
    if (job.progress) job.progress(double(args.task_end) / double(tasks));
  }
  result.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  result.threads = threads;
  result.words.resize(threads * words);
  result.words_per_thread = words;
  check(cudaMemcpy(result.words.data(), d_out.ptr, result.words.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  if (tuning::tuning().gpu_verbose) {
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, kernel.fn) != cudaSuccess) cudaGetLastError();
    std::fprintf(stderr,
                 "matchcount: gpu-skipper n=%d bits=%d k=%d task_bits=%d slots=%d (L %d) dead=%zu kernel=%s rows=%d: "
                 "%d registers, %zu bytes local, %d blocks/SM, %llu launches, compile %.2f s, run %.3f s\n",
                 job.n, job.bits, job.k, job.task_bits, job.slots(), job.rows_l, job.dead_mask.size(),
                 to_string(result.source).c_str(), R, attr.numRegs, static_cast<std::size_t>(attr.localSizeBytes),
                 per_sm, static_cast<unsigned long long>(result.launches), result.compile_seconds, result.run_seconds);
  }
  return result;
}

}  // namespace matchcount::gpu
