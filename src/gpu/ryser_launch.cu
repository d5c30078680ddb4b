// Host side of the GPU Ryser walk: picks a kernel, pads the input to its row count, sizes the
// launch with the occupancy API, and shares the walk's units out over the devices. One host
// thread per device takes runs of units from a shared queue, each run one launch of about a
// second, so faster devices do more; run sums are added exactly on the host and reported to
// the walk's ledger (progress, checkpoints).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "kernels.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"
#include "ryser_kernel.cuh"

namespace matchcount::gpu {
namespace detail {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw GpuError(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

int blocks_per_sm(const void* fn, int block, std::size_t shared, const char* what) {
  if (shared > 48 * 1024)
    check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
          "cudaFuncSetAttribute");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw GpuError(std::string(what) + ": the kernel does not fit on a multiprocessor");
  return per_sm;
}

}  // namespace detail

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

/// What the device threads of one walk share.
struct SharedWalk {
  SharedWalk(const WalkJob& j, WalkLedger& l, UnitQueue& q, int ul, detail::Kernel k, bool ns)
      : job(j), ledger(l), queue(q), unit_log2(ul), first(std::move(k)), needs_specialised(ns) {}
  const WalkJob& job;
  WalkLedger& ledger;
  UnitQueue& queue;
  int unit_log2 = 0;
  int devices = 1;       // taking units now
  detail::Kernel first;  // the kernel chosen on device 0 (specialised or generic)
  bool needs_specialised = false;
  std::mutex mutex;
  std::vector<std::uint64_t> total, units_per_device;
  std::vector<std::string> failures;  // per device, empty while healthy
  std::exception_ptr fatal;           // anything but a CUDA failure (a bug): rethrown

  /// MPI: this rank serves rank 0 (takes its units from it, gives it the sums).
  bool remote() const { return job.team && !job.team->leader(); }
  /// The next run of at most `want` units for a device of this rank.
  std::optional<UnitRange> take(std::uint64_t want) {
    if (remote()) return job.team->take(want);
    return queue.take(want, devices + cluster::size() - 1);
  }
  /// A run of units is done on device d (-1: on another rank) with these sums.
  void record(int d, UnitRange r, const std::vector<std::uint64_t>& run) {
    if (remote()) return job.team->give(r, run);
    std::lock_guard<std::mutex> lock(mutex);
    add_sums(job.kind, job.primes, total, run);
    if (d >= 0) units_per_device[static_cast<std::size_t>(d)] += r.size();
    ledger.done(r, [&] { return total; });
  }
};

/// The kernel for device d: the one chosen on device 0, loaded for this device (NVRTC
/// libraries are loaded into every context; the call finds it in the process's table).
detail::Kernel kernel_for(int d, const cudaDeviceProp& prop, SharedWalk& sh) {
  if (d == 0 || sh.first.source == KernelSource::Generic) return sh.first;
  detail::Kernel k = detail::specialised_kernel(sh.job, prop.major, prop.minor, true);
  if (!k.fn && !sh.needs_specialised) k = detail::generic_kernel(sh.job.kind, static_cast<int>(sh.job.primes.size()), sh.job.n);
  return k;
}

/// Device d's share of the walk: takes runs of units until none are left or a stop is
/// requested. On a CUDA failure the run in hand goes back to the queue and the device leaves.
void walk_on_device(int d, SharedWalk& sh) {
  const WalkJob& job = sh.job;
  std::optional<UnitRange> run;
  try {
    check(cudaSetDevice(d), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    const detail::Kernel kernel = kernel_for(d, prop, sh);
    if (!kernel.fn) throw GpuError("no specialised kernel could be loaded on this device");
    const int m = job.n - 1, np = static_cast<int>(job.primes.size());
    std::vector<double> a2, x0;
    pad(job, kernel.rows, a2, x0);
    const std::size_t shared =
        (kernel.uses_shared ? a2.size() * sizeof(double) : 0) + detail::row_memory_shared_bytes(kernel);
    const int block = kernel.block;
    const int per_sm = detail::blocks_per_sm(kernel.fn, block, shared, "GPU Ryser");
    const std::uint64_t max_threads = static_cast<std::uint64_t>(per_sm) * prop.multiProcessorCount * block;
    const std::size_t words = sum_words(job.kind, job.primes.size());
    const std::uint64_t unit_chunks = std::uint64_t{1} << sh.unit_log2;
    const std::uint64_t threads = std::min(max_threads, (std::uint64_t{1} << (m - job.k)));

    mcgpu::WalkArgs args{};
    args.n = job.n;
    args.m = m;
    args.k = job.k;
    args.q = job.q;
    args.fold_mask = job.fold_mask;
    for (int i = 0; i < np; ++i) args.prime[i] = job.primes[i], args.pinv[i] = job.pinv[i];
    DeviceBuffer<double> d_a2(a2.size()), d_x0(x0.size());
    DeviceBuffer<std::uint64_t> d_out(threads * words);
    DeviceBuffer<double> d_scratch(detail::row_memory_global_doubles(kernel, threads));  // hybrid kernels
    args.scratch = d_scratch.ptr;
    check(cudaMemcpy(d_a2.ptr, a2.data(), a2.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_x0.ptr, x0.data(), x0.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    args.a2 = d_a2.ptr;
    args.x0 = d_x0.ptr;
    args.out = reinterpret_cast<mcgpu::u64*>(d_out.ptr);

    // The first run is sized from about 6e12 useful FP64 operations a second, later runs from
    // the rate this device showed.
    const double unit_ops = std::ldexp(2.0 * job.n * width(job.kind) * width(job.kind), sh.unit_log2 + job.k);
    std::uint64_t want = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.3 * 6e12 / unit_ops));
    std::vector<std::uint64_t> raw;
    while (!sh.ledger.stopping() && (run = sh.take(want))) {
      args.chunk_begin = run->begin * unit_chunks;
      args.chunks = run->size() * unit_chunks;
      args.threads = std::min<std::uint64_t>(threads, args.chunks);
      const unsigned grid = static_cast<unsigned>((args.threads + block - 1) / block);
      void* params[] = {&args};
      const auto t0 = Clock::now();
      check(cudaMemset(d_out.ptr, 0, args.threads * words * sizeof(std::uint64_t)), "cudaMemset");
      check(cudaLaunchKernel(kernel.fn, dim3(grid), dim3(block), params, shared, nullptr), "cudaLaunchKernel");
      check(cudaDeviceSynchronize(), "the GPU Ryser kernel");
      raw.resize(args.threads * words);
      check(cudaMemcpy(raw.data(), d_out.ptr, raw.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
      const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      std::vector<std::uint64_t> sums;
      add_thread_sums(job.kind, job.primes, raw.data(), args.threads, sums);
      sh.record(d, *run, sums);
      run.reset();
      want = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kLaunchSeconds * double(args.chunks / unit_chunks) /
                                                                    std::max(seconds, 1e-3)));
    }
  } catch (const GpuError& e) {
    // Units another rank handed out cannot go back to a local queue: the job ends.
    if (sh.remote()) cluster::abort_run(std::string("GPU ") + std::to_string(d) + ": " + e.what());
    if (run) sh.queue.give_back(*run);
    std::lock_guard<std::mutex> lock(sh.mutex);
    sh.failures[static_cast<std::size_t>(d)] = "GPU " + std::to_string(d) + ": " + e.what();
  } catch (...) {
    std::lock_guard<std::mutex> lock(sh.mutex);
    sh.failures[static_cast<std::size_t>(d)] = "failed";
    if (!sh.fatal) sh.fatal = std::current_exception();
  }
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
  // about 3 s (at roughly 5e12 useful FP64 operations per second), or when it is cached.
  const double generic_seconds = std::ldexp(2.0 * job.n, job.n - 1) * (job.kind == WalkKind::Complex ? 3 : 1) / 5e12;
  const bool needs_specialised = job.kind == WalkKind::ModShared && !job.every8_ok;
  detail::Kernel kernel;
  if (job.specialise > 0 || needs_specialised)
    kernel = detail::specialised_kernel(job, prop.major, prop.minor,
                                        job.specialise == 2 || generic_seconds > 3.0 || needs_specialised);
  result.kernel_note = kernel.note;
  if (!kernel.fn && needs_specialised) return result;
  if (!kernel.fn) kernel = detail::generic_kernel(job.kind, np, job.n);
  result.source = kernel.source;
  result.compile_seconds = kernel.compile_seconds;
  result.memory_rows = kernel.memory_rows;

  const int m = job.n - 1;
  const int unit_log2 = gpu::unit_log2(m, job.k);
  const std::uint64_t units = std::uint64_t{1} << (m - job.k - unit_log2);
  WalkLedger ledger(job.journal, job.tag, units, sum_words(job.kind, job.primes.size()), job.progress);
  UnitQueue queue(ledger.state().remaining());
  // A second device costs a context and a module load (a few tenths of a second): short walks
  // stay on one.
  int devices = job.gpus > 0 ? std::min(job.gpus, visible) : visible;
  if (generic_seconds < 1.0) devices = 1;
  SharedWalk sh(job, ledger, queue, unit_log2, kernel, needs_specialised);
  sh.total = ledger.state().sum;
  sh.total.resize(sum_words(job.kind, job.primes.size()), 0);
  sh.units_per_device.assign(static_cast<std::size_t>(devices), 0);
  sh.failures.assign(static_cast<std::size_t>(devices), "");

  const auto t0 = Clock::now();
  if (sh.remote()) {  // MPI: this rank's devices take units from rank 0 until it has none
    job.team->join(job.tag, units);
    std::vector<std::thread> threads;
    for (int d = 1; d < devices; ++d) threads.emplace_back(walk_on_device, d, std::ref(sh));
    walk_on_device(0, sh);
    for (auto& t : threads) t.join();
    if (sh.fatal) std::rethrow_exception(sh.fatal);
    result.words.assign(sum_words(job.kind, job.primes.size()), 0);  // rank 0 has the sums
    return result;
  }
  // MPI: rank 0 hands units to the other ranks beside its own devices.
  std::thread server;
  if (job.team)
    server = std::thread([&] {
      job.team->serve(
          job.tag, units,
          [&](std::uint64_t want) { return sh.take(want); },
          [&](UnitRange r, const std::vector<std::uint64_t>& words) { sh.record(-1, r, words); },
          [&] { return ledger.stopping(); });
    });
  struct Join {  // the server ends once every rank has returned its runs
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join_server{server};
  // Rounds: a device that fails gives its run back and leaves; the healthy ones take up what
  // is left (normally within the same round).
  for (;;) {
    std::vector<int> healthy;
    for (int d = 0; d < devices; ++d)
      if (sh.failures[static_cast<std::size_t>(d)].empty()) healthy.push_back(d);
    if (healthy.empty() || queue.left() == 0 || ledger.stopping()) break;
    sh.devices = static_cast<int>(healthy.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < healthy.size(); ++i) threads.emplace_back(walk_on_device, healthy[i], std::ref(sh));
    walk_on_device(healthy[0], sh);
    for (auto& t : threads) t.join();
    if (sh.fatal) std::rethrow_exception(sh.fatal);
  }
  if (server.joinable()) server.join();
  check(cudaSetDevice(0), "cudaSetDevice");
  result.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (const auto& f : sh.failures)
    if (!f.empty()) result.kernel_note += (result.kernel_note.empty() ? "" : "; ") + f;
  if (!ledger.state().complete()) {
    if (ledger.stopping()) ledger.interrupted(sh.total);
    throw GpuError(result.kernel_note);  // every device failed
  }
  ledger.finished(sh.total);
  result.words = sh.total;
  result.units_per_device = sh.units_per_device;
  if (job.team) result.units_by_rank = job.team->units_by_rank();
  return result;
}

}  // namespace matchcount::gpu
