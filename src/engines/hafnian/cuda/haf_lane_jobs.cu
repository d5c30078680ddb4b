// Batches of small float hafnians walked one a thread (haf_lanes.cu's kernels): the host side.
// The page-locked root buffer the process keeps, the launch plan (lanes a channel, channels a
// launch, frames within a share of the free memory), the synchronous call and the queue that
// keeps two jobs in flight (job_slots.cuh).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/launch.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/cuda/haf_lane_args.cuh"
#include "engines/hafnian/cuda/job_slots.cuh"

namespace matchcount::gpu {

using detail::check;
using detail::DeviceBuffer;
using mcgpu::haf_lanes::LaneArgs;
namespace hl = mcgpu::haf_lanes;

namespace {

/// The page-locked block a LaneRootBuffer gave back, for the next one.
struct SpareRoots {
  std::mutex lock;
  double* data = nullptr;
  std::size_t capacity = 0;
};
SpareRoots& spare_roots() {
  static SpareRoots* spare = new SpareRoots;  // never destroyed: the runtime may be gone at exit
  return *spare;
}

}  // namespace

LaneRootBuffer::LaneRootBuffer(std::size_t doubles) {
  const std::size_t want = std::max<std::size_t>(doubles, 1);
  {
    SpareRoots& s = spare_roots();
    const std::lock_guard<std::mutex> hold(s.lock);
    if (s.data && s.capacity >= want) {
      data_ = s.data, capacity_ = s.capacity, pinned_ = true;
      s.data = nullptr, s.capacity = 0;
      return;
    }
  }
  void* p = nullptr;
  if (cudaMallocHost(&p, want * sizeof(double)) == cudaSuccess) {
    data_ = static_cast<double*>(p), capacity_ = want, pinned_ = true;
    return;
  }
  cudaGetLastError();  // no device, or no page-locked memory: ordinary memory, a slower copy
  data_ = new double[want], capacity_ = want;
}

LaneRootBuffer::~LaneRootBuffer() {
  if (!pinned_) {
    delete[] data_;
    return;
  }
  // The process keeps the largest block up to 64 MiB (gpu_dense_hafnians' jobs of 4096
  // matrices need at most 35 MB); a larger one goes back at once.
  constexpr std::size_t kKeepDoubles = (std::size_t(64) << 20) / sizeof(double);
  SpareRoots& s = spare_roots();
  const std::lock_guard<std::mutex> hold(s.lock);
  if (s.capacity < capacity_ && capacity_ <= kKeepDoubles) std::swap(s.data, data_), std::swap(s.capacity, capacity_);
  if (data_) cudaFreeHost(data_);
}

namespace {

/// A lanes job's launch plan: the kernels' arguments but for a launch's lanes, the lanes a
/// channel (2^k) and how many channels a launch takes, its frames within `memory_share` of
/// the device's free memory.
struct LanePlan {
  LaneArgs a{};
  int W = 1, words = 0, k = 0;
  std::size_t channels = 0;
  long long per_launch_channels = 0;
};

LanePlan plan_lanes(const HafLaneJob& job, double memory_share) {
  if (job.n > kHafLaneMaxN || job.n < 2 || job.n % 2)
    throw GpuError("GPU hafnian lanes: an even number of vertices from 2 to " + std::to_string(kHafLaneMaxN));
  if (job.walks < 1 || (job.matrices > 0 && !job.roots) ||
      job.orders.size() != static_cast<std::size_t>(job.walks) * static_cast<std::size_t>(job.n))
    throw GpuError("GPU hafnian lanes: roots or orders");
  LanePlan p;
  LaneArgs& a = p.a;
  p.W = job.complex ? 2 : 1;
  p.words = static_cast<int>(haf_channel_words(job.complex ? HafArith::Complex : HafArith::Real));
  a.n = job.n, a.m = job.n / 2, a.loops = job.loops ? 1 : 0, a.q = job.q;
  long long off = 0;
  for (int l = 0; l < a.m; ++l) {
    const long long s = a.n - 2 * l;
    a.D[l] = std::min(a.m, l + 1), a.off[l] = off;
    off += (s * (s - 1) / 2 + (job.loops ? s : 0) + 1) * (a.D[l] + 1);
  }
  a.off[a.m] = off, a.D[a.m] = a.m;
  a.per_lane = off + a.m + 1;
  p.channels = job.channels();
  a.root_doubles = static_cast<long long>(HafLaneJob::root_values(job.n, job.loops)) * p.W;
  a.walks = job.walks, a.spread = job.spread;
  check(cudaSetDevice(0), "cudaSetDevice");
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  // Lanes: about 2^17 (several waves of 16 warps a multiprocessor), each channel's leaf pairs
  // split into 2^k equal ranges.
  const double lane_bytes = double(a.per_lane) * 8.0 * p.W;
  const long long fit =
      std::max<long long>(32, static_cast<long long>(memory_share * double(free_bytes) / lane_bytes) / 32 * 32);
  int k = 0;
  while (k < a.m - 1 && (double(p.channels) * double(1LL << (k + 1))) <= double(1 << 17)) ++k;
  while (k > 0 && (std::min<long long>(static_cast<long long>(p.channels), fit) << k) > fit) --k;  // a small device
  p.k = a.splits_log2 = k;
  p.per_launch_channels = std::max<long long>(1, fit >> k);
  return p;
}

}  // namespace

std::vector<std::uint64_t> run_hafnian_lanes(const HafLaneJob& job) {
  LanePlan p = plan_lanes(job, 0.5);  // frames within half the free memory
  LaneArgs& a = p.a;
  const int k = p.k, W = p.W, words = p.words;
  std::vector<std::uint64_t> sums(p.channels * static_cast<std::size_t>(words), 0);
  auto tp = std::chrono::steady_clock::now();
  const auto mark = [&](const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (job.verbose) std::fprintf(stderr, "gpu-hafnian lanes: %s, %.3f ms\n", what, 1e3 * std::chrono::duration<double>(now - tp).count());
    tp = now;
  };
  DeviceBuffer<double> roots(job.matrices * static_cast<std::size_t>(a.root_doubles));
  check(cudaMemcpy(roots.ptr, job.roots, job.matrices * static_cast<std::size_t>(a.root_doubles) * sizeof(double),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy");
  DeviceBuffer<int> orders(job.orders);
  a.roots = roots.ptr, a.orders = orders.ptr;
  mark("roots in");
  for (std::size_t first = 0; first < p.channels; first += static_cast<std::size_t>(p.per_launch_channels)) {
    const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(p.per_launch_channels), p.channels - first);
    a.lanes = static_cast<long long>(count) << k;
    a.first_channel = static_cast<long long>(first);
    const long long warps = (a.lanes + 31) / 32;
    DeviceBuffer<double> scratch(static_cast<std::size_t>(warps * a.per_lane * 32 * W));
    check(cudaMemset(scratch.ptr, 0, static_cast<std::size_t>(warps * a.per_lane * 32 * W) * sizeof(double)), "cudaMemset");
    DeviceBuffer<std::uint64_t> out(static_cast<std::size_t>(a.lanes) * static_cast<std::size_t>(words));
    check(cudaMemset(out.ptr, 0, static_cast<std::size_t>(a.lanes) * static_cast<std::size_t>(words) * sizeof(std::uint64_t)), "cudaMemset");
    DeviceBuffer<std::uint64_t> channel_sums(count * static_cast<std::size_t>(words));
    a.scratch = scratch.ptr, a.out = reinterpret_cast<mcgpu::u64*>(out.ptr);
    mark("frames and sums allocated");
    hl::launch_walks(a, job.complex, nullptr);
    check(cudaGetLastError(), "haf_lanes launch");
    check(cudaDeviceSynchronize(), "haf_lanes");
    if (job.verbose)
      std::fprintf(stderr, "gpu-hafnian lanes: %zu channels of n = %d, %d lanes a channel\n", count, job.n, 1 << k);
    mark("walks");
    hl::launch_sums(a.out, a.lanes, k, words, reinterpret_cast<mcgpu::u64*>(channel_sums.ptr), static_cast<long long>(count),
                    nullptr);
    check(cudaGetLastError(), "sum_lanes launch");
    check(cudaMemcpy(&sums[first * static_cast<std::size_t>(words)], channel_sums.ptr,
                     count * static_cast<std::size_t>(words) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    mark("lanes summed and out");
  }
  return sums;
}

/// One of the lanes queue's slots: device buffers for a job's roots, orders, frames, lane sums
/// and channel sums, and the page-locked block its channel sums come back to.
struct LaneSlot : SlotBase {
  GrowBuffer<double> roots, scratch;
  GrowBuffer<int> orders;
  GrowBuffer<std::uint64_t> out, sums;
  PinnedBuffer<std::uint64_t> host;  // the channel sums, back from the device
};

struct LaneQueue::State {
  SlotRing<LaneSlot, kInFlight> ring;
  State() { ring.name = "gpu-hafnian lanes"; }
};

LaneQueue::LaneQueue() {
  detail::check(cudaSetDevice(0), "cudaSetDevice");
  state_ = std::make_unique<State>();
}

// The slots' buffers go back with the queue: a job's frames can take gigabytes.
LaneQueue::~LaneQueue() {
  if (state_) state_->ring.drain();
}

int LaneQueue::in_flight() const { return state_->ring.in_flight; }

bool LaneQueue::start(const HafLaneJob& job) {
  SlotRing<LaneSlot, kInFlight>& ring = state_->ring;
  LaneSlot& slot = ring.free_slot();
  if (job.matrices == 0) throw GpuError("GPU hafnian lanes: an empty job");
  LanePlan p = plan_lanes(job, 0.5 / kInFlight);  // every slot's frames within half the free memory
  if (static_cast<long long>(p.channels) > p.per_launch_channels) return false;
  LaneArgs& a = p.a;
  const int words = p.words;
  ring.verbose = job.verbose, slot.at = std::chrono::steady_clock::now();
  a.lanes = static_cast<long long>(p.channels) << p.k;
  a.first_channel = 0;
  const std::size_t root_doubles = job.matrices * static_cast<std::size_t>(a.root_doubles);
  const std::size_t scratch_doubles = static_cast<std::size_t>((a.lanes + 31) / 32 * a.per_lane * 32 * p.W);
  const std::size_t lane_words = static_cast<std::size_t>(a.lanes) * static_cast<std::size_t>(words);
  const std::size_t sum_words = p.channels * static_cast<std::size_t>(words);
  double* roots = slot.roots.get(root_doubles);
  int* orders = slot.orders.get(job.orders.size());
  std::uint64_t* host = slot.host.get(sum_words);
  std::uint64_t* sums = slot.sums.get(sum_words);
  a.roots = roots, a.orders = orders;
  a.scratch = slot.scratch.get(scratch_doubles);
  a.out = reinterpret_cast<mcgpu::u64*>(slot.out.get(lane_words));
  // The orders first (pageable; see EnumQueue::start), then the page-locked roots.
  check(cudaMemcpyAsync(orders, job.orders.data(), job.orders.size() * sizeof(int), cudaMemcpyHostToDevice, slot.stream),
        "cudaMemcpyAsync");
  check(cudaMemcpyAsync(roots, job.roots, root_doubles * sizeof(double), cudaMemcpyHostToDevice, slot.stream),
        "cudaMemcpyAsync");
  check(cudaMemsetAsync(a.scratch, 0, scratch_doubles * sizeof(double), slot.stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(a.out, 0, lane_words * sizeof(std::uint64_t), slot.stream), "cudaMemsetAsync");
  hl::launch_walks(a, job.complex, slot.stream);
  check(cudaGetLastError(), "haf_lanes launch");
  hl::launch_sums(a.out, a.lanes, p.k, words, reinterpret_cast<mcgpu::u64*>(sums), static_cast<long long>(p.channels),
                  slot.stream);
  check(cudaGetLastError(), "sum_lanes launch");
  check(cudaMemcpyAsync(host, sums, sum_words * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, slot.stream),
        "cudaMemcpyAsync");
  ring.started(slot, sum_words);
  return true;
}

LaneSums LaneQueue::take() { return state_->ring.take_results<std::uint64_t>(); }

}  // namespace matchcount::gpu
