// The matching polynomial's frontier DP on the device (graph_frontier_job.hpp,
// GraphPolynomialJob): per vertex one launch that fills the new table by pulling from the old
// one (graph_pull.hpp), as the graph frontier DP does, but a state holds the polynomial in the
// number of edges. A warp computes one state, lane x the coefficients x, x + 32, ...; a
// source taken by an edge lands one degree up, by the open case or a loop at the same degree.
// Only degrees up to floor(k/2) are read and floor((k+1)/2) written at vertex k.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "cuda/device_arith.cuh"
#include "cuda/launch.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/cuda/step_pass.cuh"
#include "matchcount/error.hpp"

namespace matchcount::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
using u64 = unsigned long long;

constexpr int kWarpsPerBlock = 8;

struct PolyArgs {
  const double* old_tab;
  double* new_tab;
  PullStep step;
  const SlotPair* moved;
  const SlotPair* back;
  int S, read_top, write_top;  // doubles a state; the degrees read and written
  const double* res;            // per entry, this pass's prime
  const signed char* is_loop;   // per entry
  double p, pinv;
};

template <int J, bool Unit>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) graph_poly_step(PolyArgs A) {
  __shared__ SlotPair moved[kMaxPairs], back[kMaxPairs];
  const int tid = threadIdx.y * 32 + threadIdx.x;
  for (int i = tid; i < A.step.n_moved; i += 32 * kWarpsPerBlock) moved[i] = A.moved[i];
  for (int i = tid; i < A.step.n_back; i += 32 * kWarpsPerBlock) back[i] = A.back[i];
  __syncthreads();
  const int lane = threadIdx.x;
  const u64 groups = u64(gridDim.x) * kWarpsPerBlock;
  for (u64 i = u64(blockIdx.x) * kWarpsPerBlock + threadIdx.y; i < A.step.states; i += groups) {
    double acc[J];
#pragma unroll
    for (int j = 0; j < J; ++j) acc[j] = 0.0;
    int terms = 0;
    graph_pull(A.step, moved, back, i, [&](u64 old, int entry) {
      const double* src = A.old_tab + old * A.S;
      if (entry < 0 || A.is_loop[entry]) {  // open, or a monomer: the same degree
#pragma unroll
        for (int j = 0; j < J; ++j) {
          const int c = lane + 32 * j;
          if (c <= A.read_top) acc[j] += src[c];
        }
      } else {  // an edge: one degree up (a term beyond write_top is zero)
        const double w = Unit ? 1.0 : __ldg(A.res + entry);
#pragma unroll
        for (int j = 0; j < J; ++j) {
          const int c = lane + 32 * j;
          if (c >= 1 && c - 1 <= A.read_top && c <= A.write_top)
            acc[j] += Unit ? src[c - 1] : mcgpu::modmul(src[c - 1], w, A.p, A.pinv);
        }
      }
      // Terms are below p in absolute value: reduced every four, |acc| < 4.5 p < 2^53.
      if (++terms == 4) {
        terms = 0;
#pragma unroll
        for (int j = 0; j < J; ++j) acc[j] = mcgpu::modreduce(acc[j], A.p, A.pinv);
      }
    });
    double* dst = A.new_tab + i * A.S;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int c = lane + 32 * j;
      if (c <= A.write_top) dst[c] = mcgpu::modreduce(acc[j], A.p, A.pinv);
    }
  }
}

using KernelFn = void (*)(PolyArgs);
template <bool Unit>
KernelFn kernel_for(std::size_t words) {
  return words <= 32 ? graph_poly_step<1, Unit> : words <= 64 ? graph_poly_step<2, Unit>
         : words <= 128 ? graph_poly_step<4, Unit> : words <= 256 ? graph_poly_step<8, Unit> : graph_poly_step<16, Unit>;
}

}  // namespace

GraphPolynomialResult run_graph_polynomial(const GraphPolynomialJob& job) {
  using Clock = std::chrono::steady_clock;
  const std::size_t K = job.primes.size(), E = job.is_loop.size(), S = job.words;
  if (K == 0) throw GpuError("GPU graph polynomial: no primes");
  if (S > kGraphPolynomialMaxWords)
    throw RefusedError("gpu-graph-frontier: the matching polynomial has " + std::to_string(S) + " coefficients, more than the " +
                       std::to_string(kGraphPolynomialMaxWords) + " a state holds on the GPU");
  check(cudaSetDevice(job.device), "cudaSetDevice");
  const DeviceStepPairs pairs(job.steps);  // refuses a frontier beyond the state bits
  // The old and new tables share one arena: vertex k writes at the end opposite its source.
  const auto arena_states = std::size_t(graph_frontier_bytes_per_prime(job.steps, true) / 8);
  const double arena_bytes = double(arena_states) * double(S) * 8;
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (arena_bytes > 0.9 * double(free_bytes))
    throw RefusedError("gpu-graph-frontier: the matching polynomial's tables need " + std::to_string(arena_bytes / double(1u << 30)) +
                       " GiB, more than the device's free memory");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, job.device), "cudaGetDeviceProperties");
  const KernelFn kernel = job.unit ? kernel_for<true>(S) : kernel_for<false>(S);
  DeviceBuffer<signed char> d_loop(job.is_loop);
  DeviceBuffer<double> d_arena(arena_states * S), d_res(std::max<std::size_t>(E, 1));
  const int per_sm = detail::blocks_per_sm(reinterpret_cast<const void*>(kernel), 32 * kWarpsPerBlock, 0, "GPU graph polynomial");
  const u64 max_blocks = u64(per_sm) * u64(prop.multiProcessorCount);
  double total_work = 0, done = 0;
  for (const auto& st : job.steps) total_work += graph_table_states(st.new_w, true) + 1;
  total_work *= double(K);
  GraphPolynomialResult out;
  out.table_gib = arena_bytes / double(1u << 30);
  const auto t0 = Clock::now();
  for (std::size_t pass = 0; pass < K; ++pass) {
    std::vector<double> res(E);
    for (std::size_t e = 0; e < E; ++e) res[e] = job.residues[e * K + pass];
    if (E) check(cudaMemcpy(d_res.ptr, res.data(), E * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const double one = 1.0;  // the first table: the empty frontier, the polynomial 1
    check(cudaMemcpy(d_arena.ptr, &one, sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const std::size_t last_at = run_step_pass(
        job.steps, true, arena_states, job.progress, done, total_work, "the GPU graph polynomial kernel",
        [&](std::size_t k, const PullStep& step, std::size_t old_at, std::size_t new_at) {
          PolyArgs a{};
          a.step = step;
          a.old_tab = d_arena.ptr + old_at * S;
          a.new_tab = d_arena.ptr + new_at * S;
          a.moved = pairs.moved(k), a.back = pairs.back(k);
          a.S = int(S);
          a.read_top = int(std::min(S - 1, k / 2)), a.write_top = int(std::min(S - 1, (k + 1) / 2));
          a.res = d_res.ptr, a.is_loop = d_loop.ptr;
          a.p = job.primes[pass], a.pinv = 1.0 / job.primes[pass];
          const u64 blocks = std::min<u64>((step.states + kWarpsPerBlock - 1) / kWarpsPerBlock, max_blocks);
          void* params[] = {&a};
          check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(unsigned(std::max<u64>(blocks, 1))),
                                 dim3(32, kWarpsPerBlock), params, 0, nullptr),
                "cudaLaunchKernel");
        });
    std::vector<double> last(S, 0.0);
    check(cudaMemcpy(last.data(), d_arena.ptr + last_at * S, S * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    out.values.insert(out.values.end(), last.begin(), last.end());
  }
  out.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace matchcount::gpu
