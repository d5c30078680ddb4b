// Host side of the GPU Ryser walk: picks a kernel, pads the input to its row count, sizes the
// launch with the occupancy API, and runs each run of units the device executor hands a device
// (src/runtime/device_walk.hpp: devices, MPI ranks, checkpoints) as one launch; run sums are
// added exactly on the host. A specialised kernel not in the cache is compiled beside the walk
// while the generic kernel runs, and each device switches to it between two runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

#include "core/tuning.hpp"
#include "runtime/device_walk.hpp"
#include "engines/ryser/cuda/ryser_kernel.cuh"
#include "engines/ryser/cuda/ryser_kernels.hpp"

namespace matchcount::gpu {

namespace {

using Clock = std::chrono::steady_clock;
using detail::check;
using detail::DeviceBuffer;

constexpr double kLaunchSeconds = 1.0;  // long enough to hide the launch and copy, short enough to balance


int width(WalkKind kind) { return kind == WalkKind::Complex ? 2 : 1; }

/// The job's columns and start values with rows padded to R (padded rows have y = 1).
void pad(const WalkJob& job, int R, std::vector<double>& a2, std::vector<double>& x0) {
  const int n = job.n, m = n - 1, W = width(job.kind);
  a2.assign(static_cast<std::size_t>(m) * R * W, 0.0);
  x0.assign(static_cast<std::size_t>(R) * W, 0.0);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < W; ++w)
        a2[(static_cast<std::size_t>(j) * R + i) * W + w] = job.a2[(static_cast<std::size_t>(j) * n + i) * W + w];
  for (int i = 0; i < R; ++i) x0[static_cast<std::size_t>(i) * W] = 1.0;
  for (int i = 0; i < n * W; ++i) x0[static_cast<std::size_t>(i)] = job.x0[static_cast<std::size_t>(i)];
}

/// The kernel for device d: the one chosen on device 0, loaded for this device (NVRTC
/// libraries are loaded into every context; the call finds it in the process's table).
detail::Kernel kernel_for(int d, const cudaDeviceProp& prop, const WalkJob& job, const detail::Kernel& first,
                          bool needs_specialised) {
  if (d == 0 || first.source == KernelSource::Generic) return first;
  detail::Kernel k = detail::specialised_kernel(job, prop.major, prop.minor, true);
  if (!k.fn && !needs_specialised) k = detail::generic_kernel(job.kind, static_cast<int>(job.primes.size()), job.n);
  return k;
}

/// A specialised kernel compiled beside the walk, and what each kernel ran, for the report.
struct Beside {
  std::unique_ptr<detail::BackgroundKernel> kernel;
  int cc_major = 0, cc_minor = 0;  // the architecture it is compiled for (the first device's)
  std::mutex mutex;
  std::uint64_t runs[2] = {0, 0}, units[2] = {0, 0};  // generic, specialised
  std::string note;  // a device that could not take the kernel up
  void ran(bool specialised, std::uint64_t n) {
    std::lock_guard<std::mutex> lock(mutex);
    ++runs[specialised];
    units[specialised] += n;
  }
};

/// Device d's share of the walk: its kernel, the padded input in device memory, and one
/// launch per run of units (the device executor, src/runtime/device_walk.hpp, schedules).
class RyserWorker final : public runtime::DeviceWorker {
 public:
  RyserWorker(int d, const WalkJob& job, int unit_log2, const detail::Kernel& first, bool needs_specialised,
              Beside* beside)
      : job_(job), unit_log2_(unit_log2), beside_(beside) {
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaGetDeviceProperties(&prop_, d), "cudaGetDeviceProperties");
    const detail::Kernel k = kernel_for(d, prop_, job, first, needs_specialised);
    if (!k.fn) throw GpuError("no specialised kernel could be loaded on this device");
    use(k);
    // A kernel compiled for another architecture does not run here: this device keeps the
    // generic kernel.
    may_switch_ = beside_ && prop_.major == beside_->cc_major && prop_.minor == beside_->cc_minor;
  }

  // The first run is sized from about 6e12 useful FP64 operations a second, for 0.3 s.
  std::uint64_t first_run_units() const override {
    const double unit_ops = std::ldexp(2.0 * job_.n * width(job_.kind) * width(job_.kind), unit_log2_ + job_.k);
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.3 * 6e12 / unit_ops));
  }

  std::vector<std::uint64_t> run(UnitRange r) override {
    if (may_switch_) switch_when_ready();
    const std::uint64_t unit_chunks = std::uint64_t{1} << unit_log2_;
    args_.chunk_begin = r.begin * unit_chunks;
    args_.chunks = r.size() * unit_chunks;
    args_.threads = std::min<std::uint64_t>(threads_, args_.chunks);
    const unsigned grid = static_cast<unsigned>((args_.threads + kernel_.block - 1) / kernel_.block);
    void* params[] = {&args_};
    check(cudaMemset(out_->ptr, 0, args_.threads * words_ * sizeof(std::uint64_t)), "cudaMemset");
    check(cudaLaunchKernel(kernel_.fn, dim3(grid), dim3(kernel_.block), params, shared_, nullptr), "cudaLaunchKernel");
    check(cudaDeviceSynchronize(), "the GPU Ryser kernel");
    raw_.resize(args_.threads * words_);
    check(cudaMemcpy(raw_.data(), out_->ptr, raw_.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    std::vector<std::uint64_t> sums;
    add_thread_sums(job_.kind, job_.primes, raw_.data(), args_.threads, sums);
    if (beside_) beside_->ran(kernel_.source != KernelSource::Generic, r.size());
    return sums;
  }

 private:
  /// Launches kernel k from now on: the input padded to its rows, the launch sized by its
  /// occupancy, the buffers for that size (each run clears its accumulators, so nothing
  /// carries over from the kernel before).
  void use(const detail::Kernel& k) {
    a2_.reset(), x0_.reset(), out_.reset(), scratch_.reset();
    kernel_ = k;
    const int m = job_.n - 1, np = static_cast<int>(job_.primes.size());
    std::vector<double> a2, x0;
    pad(job_, kernel_.rows, a2, x0);
    shared_ = (kernel_.uses_shared ? a2.size() * sizeof(double) : 0) + detail::row_memory_shared_bytes(kernel_);
    const int per_sm = detail::blocks_per_sm(kernel_.fn, kernel_.block, shared_, "GPU Ryser");
    const std::uint64_t max_threads = static_cast<std::uint64_t>(per_sm) * prop_.multiProcessorCount * kernel_.block;
    words_ = sum_words(job_.kind, job_.primes.size());
    threads_ = std::min(max_threads, (std::uint64_t{1} << (m - job_.k)));

    args_ = mcgpu::WalkArgs{};
    args_.n = job_.n;
    args_.m = m;
    args_.k = job_.k;
    args_.q = job_.q;
    args_.fold_mask = job_.fold_mask;
    for (int i = 0; i < np; ++i) args_.prime[i] = job_.primes[i], args_.pinv[i] = job_.pinv[i];
    a2_ = std::make_unique<DeviceBuffer<double>>(a2.size());
    x0_ = std::make_unique<DeviceBuffer<double>>(x0.size());
    out_ = std::make_unique<DeviceBuffer<std::uint64_t>>(threads_ * words_);
    scratch_ = std::make_unique<DeviceBuffer<double>>(detail::row_memory_global_doubles(kernel_, threads_));  // hybrid kernels
    args_.scratch = scratch_->ptr;
    check(cudaMemcpy(a2_->ptr, a2.data(), a2.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(x0_->ptr, x0.data(), x0.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    args_.a2 = a2_->ptr;
    args_.x0 = x0_->ptr;
    args_.out = reinterpret_cast<mcgpu::u64*>(out_->ptr);
  }

  /// Between two runs: the specialised kernel once it is compiled (this thread loads it, on
  /// this device). A kernel this device cannot launch leaves it on the generic one.
  void switch_when_ready() {
    const std::optional<detail::Kernel> k = beside_->kernel->poll();
    if (!k) {
      may_switch_ = beside_->kernel->state() == detail::BackgroundKernel::State::Building;
      return;
    }
    may_switch_ = false;
    const detail::Kernel generic = kernel_;
    try {
      use(*k);
    } catch (const GpuError& e) {
      use(generic);
      std::lock_guard<std::mutex> lock(beside_->mutex);
      beside_->note = std::string("a device kept the generic kernel: ") + e.what();
    }
  }

  const WalkJob& job_;
  int unit_log2_;
  Beside* beside_;
  bool may_switch_ = false;
  cudaDeviceProp prop_{};
  detail::Kernel kernel_;
  std::size_t shared_ = 0, words_ = 0;
  std::uint64_t threads_ = 0;
  mcgpu::WalkArgs args_{};
  std::unique_ptr<DeviceBuffer<double>> a2_, x0_, scratch_;
  std::unique_ptr<DeviceBuffer<std::uint64_t>> out_;
  std::vector<std::uint64_t> raw_;
};

/// Whether a specialised kernel that is not in the cache is compiled beside the walk (the
/// generic kernel runs meanwhile) rather than before it.
///
/// Switching kernels between runs leaves the sums as they would be with either kernel alone:
/// each run's sums are exact (residues; for real and complex walks the chunks' TwoSum pairs
/// added in fixed point), and the terms have the same bits in every kernel, since every
/// kernel multiplies the rows in the job's order through the same product chains (padding
/// rows are exact 1s), restarts each chunk from freshly computed start values and steps in the
/// same Gray order (ryser_kernel.cuh). MATCHCOUNT_NVRTC_DEFINES may change the NVRTC kernels'
/// chains (MCGPU_CHAINS) and with them the rounding of real and complex terms: such walks
/// compile first, so that their value does not depend on when the switch came. (A mixed walk
/// would still be within its error bound, which bounds each term's rounding by its |term|,
/// whichever kernel formed it.)
///
/// A specialised kernel the caller asked for (specialise = 2: benchmarks, tests of the
/// variants) is compiled first, so that it runs the whole walk; MATCHCOUNT_NVRTC_COMPILE
/// overrides either choice.
bool compile_beside(const WalkJob& job) {
  const tuning::Tuning& t = tuning::tuning();
  if (t.nvrtc_compile == 2 || (t.nvrtc_compile == 0 && job.specialise == 2)) return false;
  const bool exact = job.kind == WalkKind::ModShared || job.kind == WalkKind::ModPrime;
  return exact || t.nvrtc_defines.empty();
}

/// The report of a walk that compiled its kernel beside: the kernel that ran most units, the
/// compilation's time, and how the kernels shared the walk.
void report_beside(Beside& b, WalkResult& result) {
  b.kernel->finish();  // a compilation that outlasted the walk: its cache file is complete
  result.compile_seconds = b.kernel->seconds();
  result.units_generic = b.units[0];
  result.units_specialised = b.units[1];
  const KernelSource source = b.kernel->built_now() ? KernelSource::Compiled : KernelSource::Cached;
  std::string note;
  if (b.units[1] > 0) {
    note = "generic kernel for " + std::to_string(b.runs[0]) + " runs (" + std::to_string(b.units[0]) +
           " units) while NVRTC compiled, then " + to_string(source) + " for " + std::to_string(b.runs[1]) + " runs (" +
           std::to_string(b.units[1]) + " units)";
    if (b.units[1] >= b.units[0]) {
      result.source = source;
      if (const std::optional<detail::Kernel> k = b.kernel->poll()) result.memory_rows = k->memory_rows, result.low_columns = k->low_columns;
    }
  } else if (b.kernel->state() == detail::BackgroundKernel::State::Failed) {
    note = b.kernel->why();
  } else if (b.kernel->state() == detail::BackgroundKernel::State::Unused) {
    note = "the walk ended before NVRTC did: the generic kernel ran it all";
  }
  if (!b.note.empty()) note += (note.empty() ? "" : "; ") + b.note;
  if (!note.empty()) result.kernel_note += (result.kernel_note.empty() ? "" : "; ") + note;
}

}  // namespace

WalkResult run_walk(const WalkJob& job) {
  if (job.n < 2 || job.n > 63) throw GpuError("GPU Ryser: block size must be 2..63");
  const int np = static_cast<int>(job.primes.size());
  if ((job.kind == WalkKind::ModShared && (np < 1 || np > 4)) || (job.kind == WalkKind::ModPrime && np != 1))
    throw GpuError("GPU Ryser: wrong number of primes for this walk");
  int visible = 0;
  check(cudaGetDeviceCount(&visible), "cudaGetDeviceCount");
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

  WalkResult result;
  // A compilation takes up to a few seconds: worth it when the generic kernel would run longer than
  // about 3 s (at roughly 5e12 useful FP64 operations per second), or when it is cached. It
  // runs beside the walk where it may (compile_beside), so the walk does not wait for it.
  const double generic_seconds = std::ldexp(2.0 * job.n, job.n - 1) * (job.kind == WalkKind::Complex ? 3 : 1) / 5e12;
  const bool needs_specialised = job.kind == WalkKind::ModShared && !job.every8_ok;
  const bool wanted = job.specialise > 0 || needs_specialised;
  const bool compile = job.specialise == 2 || generic_seconds > 3.0 || needs_specialised;
  detail::Kernel kernel;
  Beside beside;
  beside.cc_major = prop.major, beside.cc_minor = prop.minor;
  // Only a walk the generic kernel can run may start with it (null: the kernel is cached).
  if (wanted && compile && !needs_specialised && compile_beside(job)) {
    try {
      beside.kernel = detail::compile_in_background(job, prop.major, prop.minor);
    } catch (const std::system_error&) {
      // no thread to compile on: compiled first, as without the option
    }
  }
  if (wanted && !beside.kernel) kernel = detail::specialised_kernel(job, prop.major, prop.minor, compile);
  result.kernel_note = kernel.note;
  if (!kernel.fn && needs_specialised) return result;
  if (!kernel.fn) kernel = detail::generic_kernel(job.kind, np, job.n);
  result.source = kernel.source;
  result.compile_seconds = kernel.compile_seconds;
  result.memory_rows = kernel.memory_rows;
  result.low_columns = kernel.low_columns;

  const int m = job.n - 1;
  const int unit_log2 = gpu::unit_log2(m, job.k);
  runtime::DeviceWalk walk;
  walk.tag = job.tag;
  walk.units = std::uint64_t{1} << (m - job.k - unit_log2);
  walk.words = sum_words(job.kind, job.primes.size());
  // A second device costs a context and a module load (a few tenths of a second): short walks
  // stay on one.
  walk.devices = job.gpus > 0 ? std::min(job.gpus, visible) : visible;
  if (generic_seconds < 1.0) walk.devices = 1;
  walk.journal = job.journal;
  walk.team = job.team;
  walk.progress = job.progress;
  walk.add = [&job](std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) {
    add_sums(job.kind, job.primes, total, sum);
  };
  walk.make_worker = [&](int d) -> std::unique_ptr<runtime::DeviceWorker> {
    return std::make_unique<RyserWorker>(d, job, unit_log2, kernel, needs_specialised, beside.kernel ? &beside : nullptr);
  };
  walk.run_seconds = kLaunchSeconds;
  runtime::DeviceWalkResult done;
  try {
    done = runtime::run_on_devices(walk);
  } catch (const GpuError& e) {
    throw GpuError(result.kernel_note + (result.kernel_note.empty() ? "" : "; ") + e.what());
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  result.words = std::move(done.sum);
  result.run_seconds = done.seconds;
  if (beside.kernel) report_beside(beside, result);
  if (!done.failures.empty()) result.kernel_note += (result.kernel_note.empty() ? "" : "; ") + done.failures;
  result.units_per_device = std::move(done.units_per_device);
  result.units_by_rank = std::move(done.units_by_rank);
  return result;
}

}  // namespace matchcount::gpu
