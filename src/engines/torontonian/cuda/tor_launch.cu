// Host side of the GPU torontonian walk: sizes the launch with the occupancy API, runs each run
// of units the device executor hands a device (src/runtime/device_walk.hpp: devices, MPI
// ranks, checkpoints) as launches of one block per unit, and adds the units' sums exactly.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cuda/launch.hpp"
#include "engines/torontonian/cuda/tor_gpu_job.hpp"
#include "engines/torontonian/cuda/tor_kernel.cuh"
#include "runtime/device_walk.hpp"

namespace {

__global__ void __launch_bounds__(mcgpu::tor::kThreads) tor_walk(mcgpu::tor::Args a) { mcgpu::tor::walk_units(a); }

}  // namespace

namespace matchcount::gpu {

namespace {

using detail::check;
using detail::DeviceBuffer;

/// Units one launch takes at most (its output buffer).
constexpr std::uint64_t kLaunchUnits = std::uint64_t{1} << 20;

/// The largest breadth-first level of a block: 2^l Schur complements of 2(unit_modes - l).
long long level_doubles(const TorSplit& s) {
  long long most = 0;
  const int unit_modes = s.middle + s.free;
  for (int l = 0; l <= s.middle; ++l) most = std::max(most, (1LL << l) * 4LL * (unit_modes - l) * (unit_modes - l));
  return std::max(most, 1LL);
}

/// Expected nodes a second of one device (the first run's size; the executor then measures).
constexpr double kNodesPerSecond = 2e10;

class TorWorker final : public runtime::DeviceWorker {
 public:
  TorWorker(int d, const TorJob& job) : job_(job), device_(d) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaSetDevice(d), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    const void* fn = reinterpret_cast<const void*>(tor_walk);
    const int per_sm = detail::blocks_per_sm(fn, mcgpu::tor::kThreads, 0, "GPU torontonian");
    blocks_ = static_cast<std::uint64_t>(per_sm) * prop.multiProcessorCount;
    const TorSplit& s = job.split;
    const long long d_all = 2LL * job.n, unit_modes = s.middle + s.free;
    args_.n = job.n, args_.fixed = s.fixed, args_.middle = s.middle, args_.free = s.free;
    args_.level_doubles = level_doubles(s);
    args_.scratch_per_block = 2 * d_all * d_all + 2 * d_all + 2 * args_.level_doubles +
                              2LL * mcgpu::tor::kThreads * 2 * unit_modes + 6LL * mcgpu::tor::kThreads;
    m_ = std::make_unique<DeviceBuffer<double>>(job.m);
    v_ = std::make_unique<DeviceBuffer<double>>(job.v);
    scratch_ = std::make_unique<DeviceBuffer<double>>(static_cast<std::size_t>(blocks_) *
                                                      static_cast<std::size_t>(args_.scratch_per_block));
    out_ = std::make_unique<DeviceBuffer<double>>(kLaunchUnits * mcgpu::tor::kOut);
    args_.m = m_->ptr;
    args_.v = job.v.empty() ? nullptr : v_->ptr;
    args_.scratch = scratch_->ptr;
    args_.out = out_->ptr;
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (job.verbose)
      std::fprintf(stderr, "gpu-torontonian: device %d ready in %.3f s (%llu blocks, units of %d modes)\n", d,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                   static_cast<unsigned long long>(blocks_), static_cast<int>(unit_modes));
  }

  std::uint64_t first_run_units() const override {
    const double unit_nodes = std::ldexp(1.0, job_.split.middle + job_.split.free);
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.3 * kNodesPerSecond / unit_nodes));
  }

  // A launch fills the device only with a wave of blocks.
  std::uint64_t min_run_units() const override { return blocks_; }

  std::vector<std::uint64_t> run(UnitRange range) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> sum(kTorWords, 0);
    double max_q = 0, failed = 0;
    for (std::uint64_t b = range.begin; b < range.end; b += kLaunchUnits) {
      const std::uint64_t count = std::min(kLaunchUnits, range.end - b);
      args_.unit_begin = b, args_.units = count;
      const std::uint64_t blocks = std::min(blocks_, count);
      void* params[] = {&args_};
      check(cudaLaunchKernel(reinterpret_cast<const void*>(tor_walk), dim3(static_cast<unsigned>(blocks)),
                             dim3(mcgpu::tor::kThreads), params, 0, nullptr),
            "cudaLaunchKernel");
      check(cudaDeviceSynchronize(), "the GPU torontonian kernel");
      raw_.resize(count * mcgpu::tor::kOut);
      check(cudaMemcpy(raw_.data(), out_->ptr, raw_.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
      for (std::uint64_t u = 0; u < count; ++u) {
        const double* o = &raw_[u * mcgpu::tor::kOut];
        exact_add(&sum[kTorSigned], o[0]), exact_add(&sum[kTorSigned], o[1]);
        exact_add(&sum[kTorSigned], -o[2]), exact_add(&sum[kTorSigned], -o[3]);
        exact_add(&sum[kTorAbs], o[4]);
        max_q = std::max(max_q, o[5]), failed = std::max(failed, o[6]);
      }
    }
    std::memcpy(&sum[kTorMaxQ], &max_q, sizeof max_q);
    sum[kTorFailed] = failed > 0 ? 1 : 0;
    if (job_.verbose)
      std::fprintf(stderr, "gpu-torontonian: device %d ran units %llu..%llu in %.3f s\n", device_,
                   static_cast<unsigned long long>(range.begin), static_cast<unsigned long long>(range.end),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return sum;
  }

 private:
  const TorJob& job_;
  int device_ = 0;
  std::uint64_t blocks_ = 1;
  mcgpu::tor::Args args_{};
  std::unique_ptr<DeviceBuffer<double>> m_, v_, scratch_, out_;
  std::vector<double> raw_;
};

}  // namespace

TorResult run_torontonian_walk(const TorJob& job) {
  if (job.n < 1 || job.n > kTorMaxModes || job.split.free > kTorThreadModes || job.split.middle > kTorBlockModes)
    throw GpuError("GPU torontonian: 1..48 modes");
  int visible = 0;
  check(cudaGetDeviceCount(&visible), "cudaGetDeviceCount");
  runtime::DeviceWalk walk;
  walk.tag = job.tag;
  walk.units = std::uint64_t{1} << job.split.fixed;
  walk.words = kTorWords;
  walk.devices = job.gpus > 0 ? std::min(job.gpus, visible) : visible;
  if (job.n < 30) walk.devices = std::min(walk.devices, 1);  // under a second: one device
  walk.journal = job.journal;
  walk.team = job.team;
  walk.progress = job.progress;
  walk.add = [](std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) {
    if (total.empty()) total.assign(kTorWords, 0);
    exact_merge(&total[kTorSigned], &sum[kTorSigned]);
    exact_merge(&total[kTorAbs], &sum[kTorAbs]);
    double a = 0, b = 0;
    std::memcpy(&a, &total[kTorMaxQ], sizeof a), std::memcpy(&b, &sum[kTorMaxQ], sizeof b);
    a = std::max(a, b);
    std::memcpy(&total[kTorMaxQ], &a, sizeof a);
    total[kTorFailed] = std::max(total[kTorFailed], sum[kTorFailed]);
  };
  walk.make_worker = [&](int d) -> std::unique_ptr<runtime::DeviceWorker> { return std::make_unique<TorWorker>(d, job); };
  walk.run_seconds = 1.0;
  const runtime::DeviceWalkResult done = runtime::run_on_devices(walk);
  check(cudaSetDevice(0), "cudaSetDevice");
  TorResult r;
  r.words = done.sum.empty() ? std::vector<std::uint64_t>(kTorWords, 0) : done.sum;
  r.units_per_device = done.units_per_device;
  r.units_by_rank = done.units_by_rank;
  r.note = done.failures;
  r.run_seconds = done.seconds;
  return r;
}

}  // namespace matchcount::gpu
