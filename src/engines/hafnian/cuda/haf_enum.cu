// Batches of small float (loop) hafnians on the GPU by expansion along the first vertex
// (haf_enum.cuh), where Björklund's walk (haf_lanes.cu) waits on its frames' memory. A block
// takes 32 matrices into shared memory, value-major (value v of matrix b at v * 32 + b, its W
// doubles together), and its warps take its *jobs* in turn: a job is a walk's vertex order and a task, vertex
// 0's partner q (or its loop), the product of a_{0q} and the hafnian of the rest, for the 32
// matrices at once, lane b matrix b. A warp's lanes take the same path, so each load is one
// conflict-free line. The tasks' values meet in shared memory and are added in task order, as
// haf_enum::task_sum adds them on the host: the bits do not depend on the launch.
#include <chrono>
#include <cstdio>
#include <string>

#include "cuda/launch.hpp"
#include "engines/hafnian/cuda/haf_enum.cuh"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"

namespace mcgpu {
namespace haf_enum_kernel {

namespace he = matchcount::gpu::haf_enum;
// A block: 32 matrices, kWarps warps taking its (walk, task) jobs in turn. Fewer warps than
// jobs keep the registers of several blocks a multiprocessor (a warp a job held one block of
// 13 warps at n = 14, 92 registers a thread: 9% of the FP64 rate against 63% at n = 12).
constexpr int kMatrices = 32, kMaxWalks = 4, kTable = he::kMaxN * he::kMaxN, kWarps = 8, kThreads = 32 * kWarps;

struct EnumArgs {
  const double* roots;  // HafLaneJob's layout
  const int* orders;    // HafLaneJob's, n a walk
  double* out;          // channel (matrix * walks + walk), W doubles each
  long long matrices;
  int n, values, W, walks, spread;
};

/// A warp's view of its 32 matrices in one walk's vertex order: entry (p, q) of lane's matrix
/// lies offset[p * kMaxN + q] bytes past `base` (its loop p at offset[p * (kMaxN + 1)]), the
/// values of a matrix W doubles at a stride of 32 (lane b matrix b), so that a warp's load is
/// one conflict-free line. A walk of |A| (Modulus) reads moduli; Modulus is a type, not a flag,
/// so that no load tests it.
template <class N, bool Modulus>
struct SharedMatrix {
  const char* base;  // the block's values plus the lane's
  const unsigned* offset;
  __device__ typename N::V at(unsigned o) const {
    if constexpr (sizeof(typename N::V) == sizeof(double)) {
      const double x = *reinterpret_cast<const double*>(base + o);
      return Modulus ? fabs(x) : x;
    } else {
      const double2 x = *reinterpret_cast<const double2*>(base + o);
      if constexpr (Modulus) return {sqrt(he::fma_rn(x.x, x.x, he::mul_rn(x.y, x.y))), 0.0};
      else return {x.x, x.y};
    }
  }
  __device__ typename N::V entry(int p, int q) const { return at(offset[p * he::kMaxN + q]); }
  __device__ typename N::V loop(int p) const { return at(offset[p * (he::kMaxN + 1)]); }
};

/// Job (walk, task)'s value for the warp's 32 matrices.
template <class N, int Nv, bool Loops, bool Modulus>
__device__ typename N::V job_value(const double* vals, const unsigned* offset, int lane, int task) {
  constexpr int W = sizeof(typename N::V) / sizeof(double);
  const SharedMatrix<N, Modulus> m{reinterpret_cast<const char*>(vals + lane * W), offset};
  return he::task_value<SharedMatrix<N, Modulus>, N, Nv, Loops>(m, task);
}

__device__ __forceinline__ void put(double* at, double v) { at[0] = v; }
__device__ __forceinline__ void put(double* at, he::Cplx::V v) { at[0] = v.re, at[1] = v.im; }
__device__ __forceinline__ void get(const double* at, double& v) { v = at[0]; }
__device__ __forceinline__ void get(const double* at, he::Cplx::V& v) { v = {at[0], at[1]}; }

template <class N, int Nv, bool Loops>
__global__ void __launch_bounds__(kThreads) haf_enum(EnumArgs a) {
  typedef typename N::V V;
  constexpr int W = sizeof(V) / sizeof(double);
  extern __shared__ __align__(16) double smem[];
  unsigned* offsets = reinterpret_cast<unsigned*>(smem);
  double* vals = smem + kMaxWalks * kTable * sizeof(unsigned) / sizeof(double);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int tasks = he::tasks(Nv, Loops), E = Nv * (Nv - 1) / 2;
  double* parts = vals + a.values * W * kMatrices;  // (walk, task)'s value, job-major, W doubles a lane
  const long long first = static_cast<long long>(blockIdx.x) * kMatrices;
  // Each walk's offsets: entry (p, q) of the walk is value (order[p], order[q]) of the root,
  // whose W doubles for matrix b lie at (value * 32 + b) * W.
  for (int t = tid; t < a.walks * kTable; t += kThreads) {
    const int w = t / kTable, p = t % kTable / he::kMaxN, q = t % he::kMaxN;
    unsigned v = 0;
    if (p < Nv && q < Nv) {
      const int i = a.orders[w * Nv + p], j = a.orders[w * Nv + q];
      v = static_cast<unsigned>(i == j ? E + i : i > j ? i * (i - 1) / 2 + j : j * (j - 1) / 2 + i);
    }
    offsets[t] = v * kMatrices * W * sizeof(double);
  }
  // The block's matrices, value-major (a missing matrix reads zeros).
  const int R = a.values * W;
  for (int k = tid; k < kMatrices * R; k += kThreads) {
    const int b = k / R, off = k % R;
    vals[(off / W * kMatrices + b) * W + off % W] = first + b < a.matrices ? a.roots[(first + b) * R + off] : 0.0;
  }
  __syncthreads();
  // The warps take the (walk, task) jobs in turn.
  for (int job = warp; job < a.walks * tasks; job += kWarps) {
    const int w = job / tasks;
    const unsigned* offset = offsets + w * kTable;
    put(&parts[(job * kMatrices + lane) * W], w < a.spread ? job_value<N, Nv, Loops, false>(vals, offset, lane, job % tasks)
                                                           : job_value<N, Nv, Loops, true>(vals, offset, lane, job % tasks));
  }
  __syncthreads();
  for (int t = tid; t < a.walks * kMatrices; t += kThreads) {
    const int w = t / kMatrices, b = t % kMatrices;
    if (first + b >= a.matrices) continue;
    V acc, x;
    get(&parts[(w * tasks * kMatrices + b) * W], acc);
    for (int k = 1; k < tasks; ++k) get(&parts[((w * tasks + k) * kMatrices + b) * W], x), acc = N::add(acc, x);
    double* out = a.out + ((first + b) * a.walks + w) * W;
    if constexpr (W == 2) out[0] = acc.re, out[1] = acc.im;
    else out[0] = acc;
  }
}

using matchcount::gpu::detail::check;

template <class N, int Nv, bool Loops>
void launch(const EnumArgs& a, unsigned blocks, std::size_t shared) {
  auto kernel = haf_enum<N, Nv, Loops>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
        "cudaFuncSetAttribute");
  kernel<<<blocks, kThreads, shared>>>(a);
}

template <class N, bool Loops>
void launch_n(const EnumArgs& a, unsigned blocks, std::size_t shared) {
  switch (a.n) {
    case 2: return launch<N, 2, Loops>(a, blocks, shared);
    case 4: return launch<N, 4, Loops>(a, blocks, shared);
    case 6: return launch<N, 6, Loops>(a, blocks, shared);
    case 8: return launch<N, 8, Loops>(a, blocks, shared);
    case 10: return launch<N, 10, Loops>(a, blocks, shared);
    case 12: return launch<N, 12, Loops>(a, blocks, shared);
    case 14: return launch<N, 14, Loops>(a, blocks, shared);
    case 16: return launch<N, 16, Loops>(a, blocks, shared);
  }
  throw matchcount::GpuError("GPU hafnian expansion: n = " + std::to_string(a.n));
}

}  // namespace haf_enum_kernel
}  // namespace mcgpu

namespace matchcount::gpu {

std::vector<double> run_hafnian_enum(const HafLaneJob& job) {
  namespace hk = mcgpu::haf_enum_kernel;
  using detail::check;
  using detail::DeviceBuffer;
  if (job.n < 2 || job.n % 2 || job.n > haf_enum::kMaxN)
    throw GpuError("GPU hafnian expansion: an even number of vertices from 2 to " + std::to_string(haf_enum::kMaxN));
  if (job.walks < 1 || job.walks > hk::kMaxWalks || (job.matrices > 0 && !job.roots) ||
      job.orders.size() != static_cast<std::size_t>(job.walks) * static_cast<std::size_t>(job.n))
    throw GpuError("GPU hafnian expansion: roots or orders");
  const int W = job.complex ? 2 : 1;
  std::vector<double> out(job.channels() * static_cast<std::size_t>(W));
  if (job.matrices == 0) return out;
  hk::EnumArgs a{};
  a.n = job.n, a.values = static_cast<int>(HafLaneJob::root_values(job.n, job.loops)), a.W = W;
  a.walks = job.walks, a.spread = job.spread, a.matrices = static_cast<long long>(job.matrices);
  check(cudaSetDevice(0), "cudaSetDevice");
  auto tp = std::chrono::steady_clock::now();
  const auto mark = [&](const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (job.verbose) std::fprintf(stderr, "gpu-hafnian expansion: %s, %.3f ms\n", what, 1e3 * std::chrono::duration<double>(now - tp).count());
    tp = now;
  };
  const std::size_t root_doubles = job.matrices * static_cast<std::size_t>(a.values * W);
  DeviceBuffer<double> roots(root_doubles);
  check(cudaMemcpy(roots.ptr, job.roots, root_doubles * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  DeviceBuffer<int> orders(job.orders);
  DeviceBuffer<double> values(out.size());
  a.roots = roots.ptr, a.orders = orders.ptr, a.out = values.ptr;
  mark("roots in");
  const int tasks = haf_enum::tasks(job.n, job.loops);
  const std::size_t planes = static_cast<std::size_t>(a.values + job.walks * tasks) * W * hk::kMatrices;
  const std::size_t shared = hk::kMaxWalks * hk::kTable * sizeof(unsigned) + planes * sizeof(double);
  const unsigned blocks = static_cast<unsigned>((job.matrices + hk::kMatrices - 1) / hk::kMatrices);
  if (job.complex) {
    if (job.loops) hk::launch_n<haf_enum::Cplx, true>(a, blocks, shared);
    else hk::launch_n<haf_enum::Cplx, false>(a, blocks, shared);
  } else {
    if (job.loops) hk::launch_n<haf_enum::Real, true>(a, blocks, shared);
    else hk::launch_n<haf_enum::Real, false>(a, blocks, shared);
  }
  check(cudaGetLastError(), "haf_enum launch");
  check(cudaDeviceSynchronize(), "haf_enum");
  mark("expansions");
  check(cudaMemcpy(out.data(), values.ptr, out.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
  mark("values out");
  return out;
}

}  // namespace matchcount::gpu
