// Batches of small float (loop) hafnians on the GPU by expansion along the first vertex
// (haf_enum.cuh), where Björklund's walk (haf_lanes.cu) waits on its frames' memory. A block
// takes 32 matrices and walks them in each vertex order in turn: it lays the matrices out in
// shared memory in the walk's order (entry (p, q), p < q, of the walk at value q(q - 1)/2 + p,
// value v of matrix b at v * 32 + b, a complex value's two doubles together), so a walk finds
// an entry by arithmetic on its positions. The walk's jobs (the first two vertices' choices)
// go to the block's 8 warps, warp g taking group g of haf_enum::group_value, lane b matrix b:
// the lanes take the same path, so each load is one conflict-free line. The groups' sums meet
// in shared memory and are added in group order, as haf_enum::group_sum adds them on the host:
// the bits do not depend on the launch.
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "cuda/launch.hpp"
#include "engines/hafnian/cuda/haf_enum.cuh"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/cuda/job_slots.cuh"

namespace mcgpu {
namespace haf_enum_kernel {

namespace he = matchcount::gpu::haf_enum;
constexpr int kMatrices = 32, kMaxWalks = 4, kWarps = he::kGroups, kThreads = 32 * kWarps;
// The block's order tables: each vertex's position, then each root value's place in the walk.
constexpr int kMaxValues = he::kMaxN * (he::kMaxN + 1) / 2, kTableDoubles = (he::kMaxN + kMaxValues + 7) / 8 * 2;

struct EnumArgs {
  const double* roots;  // HafLaneJob's layout
  const int* orders;    // HafLaneJob's, n a walk
  double* out;          // channel (matrix * walks + walk), W doubles each
  long long matrices;
  int n, values, walks, spread;
};

/// A warp's view of its 32 matrices in the walk's order (the kernel's layout): entry (p, q),
/// p < q, is value q(q - 1)/2 + p, loop p value E + p. A walk of |A| (Modulus) reads moduli;
/// Modulus is a type, not a flag, so that no load tests it.
template <class N, bool Modulus>
struct WalkMatrix {
  static constexpr int W = sizeof(typename N::V) / sizeof(double);
  const double* base;  // the block's values plus the lane's
  int E;
  __device__ typename N::V at(int v) const {
    const double* x = base + v * (kMatrices * W);
    if constexpr (W == 1) {
      return Modulus ? fabs(x[0]) : x[0];
    } else {
      const double2 y = *reinterpret_cast<const double2*>(x);
      if constexpr (Modulus) return {sqrt(he::fma_rn(y.x, y.x, he::mul_rn(y.y, y.y))), 0.0};
      else return {y.x, y.y};
    }
  }
  // p < q always (haf_enum's callers), so no packed_edge and its test: this is the hot path.
  __device__ typename N::V entry(int p, int q) const { return at(q * (q - 1) / 2 + p); }
  __device__ typename N::V loop(int p) const { return at(E + p); }
};

template <class N, int Nv, bool Loops, bool Modulus>
__device__ typename N::V warp_group(const double* vals, int lane, int group) {
  constexpr int W = sizeof(typename N::V) / sizeof(double);
  const WalkMatrix<N, Modulus> m{vals + lane * W, Nv * (Nv - 1) / 2};
  return he::group_value<WalkMatrix<N, Modulus>, N, Nv, Loops>(m, group);
}

__device__ __forceinline__ void put(double* at, double v) { at[0] = v; }
__device__ __forceinline__ void put(double* at, he::Cplx::V v) { at[0] = v.re, at[1] = v.im; }
__device__ __forceinline__ void get(const double* at, double& v) { v = at[0]; }
__device__ __forceinline__ void get(const double* at, he::Cplx::V& v) { v = {at[0], at[1]}; }

template <class N, int Nv, bool Loops>
__global__ void __launch_bounds__(kThreads) haf_enum(EnumArgs a) {
  typedef typename N::V V;
  constexpr int W = sizeof(V) / sizeof(double), E = Nv * (Nv - 1) / 2;
  extern __shared__ __align__(16) double smem[];
  unsigned short* position = reinterpret_cast<unsigned short*>(smem);  // of each vertex in the walk
  unsigned short* place = position + he::kMaxN;                        // of each root value in the walk
  double* vals = smem + kTableDoubles;
  double* groups = vals + a.values * W * kMatrices;  // walk w's group g at (w * kGroups + g) * 32 + lane
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, R = a.values * W;
  const long long first = static_cast<long long>(blockIdx.x) * kMatrices;
  for (int w = 0; w < a.walks; ++w) {
    if (w > 0) __syncthreads();  // the walk before has read its values
    if (tid < Nv) position[a.orders[w * Nv + tid]] = static_cast<unsigned short>(tid);
    __syncthreads();
    for (int v = tid; v < a.values; v += kThreads) {
      int at;
      if (v >= E) {
        at = E + position[v - E];
      } else {  // root value v is entry (i, j), i > j: i(i - 1)/2 <= v
        int i = 1;
        while ((i + 1) * i / 2 <= v) ++i;
        at = matchcount::gpu::packed_edge(position[i], position[v - i * (i - 1) / 2]);
      }
      place[v] = static_cast<unsigned short>(at);
    }
    __syncthreads();
    for (int k = tid; k < kMatrices * R; k += kThreads) {  // consecutive threads, consecutive doubles of a root
      const int b = k / R, off = k % R;
      vals[(place[off / W] * kMatrices + b) * W + off % W] = first + b < a.matrices ? a.roots[(first + b) * R + off] : 0.0;
    }
    __syncthreads();
    const V g = w < a.spread ? warp_group<N, Nv, Loops, false>(vals, lane, warp) : warp_group<N, Nv, Loops, true>(vals, lane, warp);
    put(&groups[((w * kWarps + warp) * kMatrices + lane) * W], g);
  }
  __syncthreads();
  for (int t = tid; t < a.walks * kMatrices; t += kThreads) {
    const int w = t / kMatrices, b = t % kMatrices;
    if (first + b >= a.matrices) continue;
    V sums[he::kGroups];
    for (int g = 0; g < he::kGroups; ++g) get(&groups[((w * kWarps + g) * kMatrices + b) * W], sums[g]);
    const V acc = he::group_sum<N>(sums);
    double* out = a.out + ((first + b) * a.walks + w) * W;
    if constexpr (W == 2) out[0] = acc.re, out[1] = acc.im;
    else out[0] = acc;
  }
}

using matchcount::gpu::detail::check;

template <class N, int Nv, bool Loops>
void launch(const EnumArgs& a, unsigned blocks, std::size_t shared, cudaStream_t stream) {
  auto kernel = haf_enum<N, Nv, Loops>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
        "cudaFuncSetAttribute");
  kernel<<<blocks, kThreads, shared, stream>>>(a);
}

template <class N, bool Loops>
void launch_n(const EnumArgs& a, unsigned blocks, std::size_t shared, cudaStream_t stream) {
  if (!he::with_size(a.n, [&](auto size) { launch<N, decltype(size)::value, Loops>(a, blocks, shared, stream); }))
    throw matchcount::GpuError("GPU hafnian expansion: n = " + std::to_string(a.n));
}

}  // namespace haf_enum_kernel
}  // namespace mcgpu

namespace matchcount::gpu {

/// One of the queue's slots: device buffers for a job's roots, orders and values, and the
/// page-locked block its values come back to.
struct EnumSlot : SlotBase {
  GrowBuffer<double> roots, values;
  GrowBuffer<int> orders;
  PinnedBuffer<double> host;  // the values, back from the device
};

/// The queue's device side: kInFlight slots, jobs taking them in turn.
struct EnumQueue::State {
  SlotRing<EnumSlot, kInFlight> ring;
  State() { ring.name = "gpu-hafnian expansion"; }
};

namespace {

/// The device side a queue gave back, for the next one: its streams and buffers, which a
/// batch's every call would otherwise create and free again.
struct SpareQueue {
  std::mutex lock;
  std::unique_ptr<EnumQueue::State> state;
};
SpareQueue& spare_queue() {
  static SpareQueue* spare = new SpareQueue;  // never destroyed: the runtime may be gone at exit
  return *spare;
}

}  // namespace

EnumQueue::EnumQueue() {
  detail::check(cudaSetDevice(0), "cudaSetDevice");
  {
    SpareQueue& spare = spare_queue();
    const std::lock_guard<std::mutex> hold(spare.lock);
    state_ = std::move(spare.state);
  }
  if (!state_) state_ = std::make_unique<State>();
}

EnumQueue::~EnumQueue() {
  if (!state_) return;
  state_->ring.drain();  // jobs left on the device (a stop, an error) end before the queue does
  SpareQueue& spare = spare_queue();
  const std::lock_guard<std::mutex> hold(spare.lock);
  if (!spare.state) spare.state = std::move(state_);
}

int EnumQueue::in_flight() const { return state_->ring.in_flight; }

bool EnumQueue::start(const HafLaneJob& job) {
  namespace hk = mcgpu::haf_enum_kernel;
  using detail::check;
  SlotRing<EnumSlot, kInFlight>& ring = state_->ring;
  EnumSlot& slot = ring.free_slot();
  if (job.n < 2 || job.n % 2 || job.n > haf_enum::kMaxN)
    throw GpuError("GPU hafnian expansion: an even number of vertices from 2 to " + std::to_string(haf_enum::kMaxN));
  if (job.walks < 1 || job.walks > hk::kMaxWalks || job.matrices == 0 || !job.roots ||
      job.orders.size() != static_cast<std::size_t>(job.walks) * static_cast<std::size_t>(job.n))
    throw GpuError("GPU hafnian expansion: roots or orders");
  const int W = job.complex ? 2 : 1;
  hk::EnumArgs a{};
  a.n = job.n, a.values = static_cast<int>(HafLaneJob::root_values(job.n, job.loops));
  a.walks = job.walks, a.spread = job.spread, a.matrices = static_cast<long long>(job.matrices);
  ring.verbose = job.verbose, slot.at = std::chrono::steady_clock::now();
  const std::size_t root_doubles = job.matrices * static_cast<std::size_t>(a.values * W);
  const std::size_t value_doubles = job.channels() * static_cast<std::size_t>(W);
  double* roots = slot.roots.get(root_doubles);
  int* orders = slot.orders.get(job.orders.size());
  double* host = slot.host.get(value_doubles);
  a.roots = roots, a.orders = orders, a.out = slot.values.get(value_doubles);
  // The orders first: a copy from pageable memory may wait for the stream's work before it, and
  // the roots' copy (page-locked, truly asynchronous) must not be that work.
  check(cudaMemcpyAsync(orders, job.orders.data(), job.orders.size() * sizeof(int), cudaMemcpyHostToDevice, slot.stream),
        "cudaMemcpyAsync");
  check(cudaMemcpyAsync(roots, job.roots, root_doubles * sizeof(double), cudaMemcpyHostToDevice, slot.stream),
        "cudaMemcpyAsync");
  const std::size_t planes = static_cast<std::size_t>(a.values + job.walks * hk::kWarps) * W * hk::kMatrices;
  const std::size_t shared = (hk::kTableDoubles + planes) * sizeof(double);
  const unsigned blocks = static_cast<unsigned>((job.matrices + hk::kMatrices - 1) / hk::kMatrices);
  if (job.complex) {
    if (job.loops) hk::launch_n<haf_enum::Cplx, true>(a, blocks, shared, slot.stream);
    else hk::launch_n<haf_enum::Cplx, false>(a, blocks, shared, slot.stream);
  } else {
    if (job.loops) hk::launch_n<haf_enum::Real, true>(a, blocks, shared, slot.stream);
    else hk::launch_n<haf_enum::Real, false>(a, blocks, shared, slot.stream);
  }
  check(cudaGetLastError(), "haf_enum launch");
  check(cudaMemcpyAsync(host, a.out, value_doubles * sizeof(double), cudaMemcpyDeviceToHost, slot.stream), "cudaMemcpyAsync");
  ring.started(slot, value_doubles);
  return true;
}

EnumValues EnumQueue::take() { return state_->ring.take_results<double>(); }

std::vector<double> run_hafnian_enum(const HafLaneJob& job) {
  if (job.matrices == 0) {
    if (job.n < 2 || job.n % 2 || job.n > haf_enum::kMaxN)
      throw GpuError("GPU hafnian expansion: an even number of vertices from 2 to " + std::to_string(haf_enum::kMaxN));
    return {};
  }
  EnumQueue queue;
  queue.start(job);
  const EnumValues values = queue.take();
  return {values.begin(), values.end()};
}

}  // namespace matchcount::gpu
