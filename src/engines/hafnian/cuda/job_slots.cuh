// Jobs of a batch in flight on the device, one after another, each in a slot of its own: a
// stream and buffers that grow to the largest job and are kept from job to job. The expansion's
// queue (haf_enum.cu) and the lanes' (haf_lane_jobs.cu) are rings of such slots: the host writes
// job j's roots while the device runs job j - 1, and takes job j - 1 back while job j's roots
// cross the bus (docs/gpu.md, "Batches of small hafnians").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "cuda/launch.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "matchcount/error.hpp"

namespace matchcount::gpu {

/// Memory that grows to the largest request and is kept: device memory, or page-locked host
/// memory (Pinned), where a job's results come back truly asynchronously. Its contents do not
/// survive a growth.
template <class T, bool Pinned = false>
struct GrowBuffer {
  T* ptr = nullptr;
  std::size_t capacity = 0;
  T* get(std::size_t count) {
    if (count > capacity) {
      release();
      void* p = nullptr;
      detail::check(Pinned ? cudaMallocHost(&p, count * sizeof(T)) : cudaMalloc(&p, count * sizeof(T)),
                    Pinned ? "cudaMallocHost" : "cudaMalloc");
      ptr = static_cast<T*>(p), capacity = count;
    }
    return ptr;
  }
  void release() {
    if (ptr) Pinned ? cudaFreeHost(ptr) : cudaFree(ptr);
    ptr = nullptr, capacity = 0;
  }
  GrowBuffer() = default;
  GrowBuffer(const GrowBuffer&) = delete;
  GrowBuffer& operator=(const GrowBuffer&) = delete;
  ~GrowBuffer() { release(); }
};
template <class T>
using PinnedBuffer = GrowBuffer<T, true>;

/// What every slot holds: its stream, how many results its started job will give (0: none),
/// and when its job last moved (the verbose timings).
struct SlotBase {
  cudaStream_t stream = nullptr;
  std::size_t started = 0;
  std::chrono::steady_clock::time_point at;
  SlotBase() { detail::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"); }
  SlotBase(const SlotBase&) = delete;
  SlotBase& operator=(const SlotBase&) = delete;
  ~SlotBase() {
    if (stream) cudaStreamSynchronize(stream), cudaStreamDestroy(stream);
  }
};

/// N slots taken in turn (Slot derives from SlotBase): jobs start in the next slot and are taken
/// back oldest first.
template <class Slot, int N>
struct SlotRing {
  Slot slots[N];
  int next = 0, in_flight = 0;
  bool verbose = false;
  const char* name = "";
  /// The slot the next job starts in; GpuError while every slot holds a job not taken.
  Slot& free_slot() {
    if (in_flight == N) throw GpuError(std::string(name) + ": every slot holds a job not taken");
    return slots[next];
  }
  /// Marks the free slot's job started, with `results` results to come.
  void started(Slot& slot, std::size_t results) {
    slot.started = results;
    next = (next + 1) % N, ++in_flight;
    mark(slot, "job started (roots in, the kernels, results out)");
  }
  /// The oldest job's slot once its results are in host memory; GpuError with none in flight.
  Slot& take() {
    if (in_flight == 0) throw GpuError(std::string(name) + ": no job to take");
    Slot& slot = slots[(next + N - in_flight) % N];
    --in_flight;
    detail::check(cudaStreamSynchronize(slot.stream), name);
    mark(slot, "job done on the device, since its start");
    return slot;
  }
  /// Waits for the jobs not taken (a stop, an error), leaving none in flight.
  void drain() {
    for (; in_flight > 0; --in_flight) {
      Slot& slot = slots[(next + N - in_flight) % N];
      cudaStreamSynchronize(slot.stream);
      slot.started = 0;
    }
  }
  /// The oldest job's results (Slot::host) once they are in host memory.
  template <class R>
  JobResults<R> take_results() {
    Slot& slot = take();
    const std::size_t count = slot.started;
    slot.started = 0;
    return {slot.host.ptr, count};
  }
  void mark(SlotBase& slot, const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (verbose) std::fprintf(stderr, "%s: %s, %.3f ms\n", name, what, 1e3 * std::chrono::duration<double>(now - slot.at).count());
    slot.at = now;
  }
};

}  // namespace matchcount::gpu
