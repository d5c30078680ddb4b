// The graph frontier DP on the device (docs/engines.md): per vertex one launch that fills the
// dense table of the new frontier's states (indexed by their bits, as on the CPU) by pulling
// from the old table (graph_pull.hpp). Each destination state is computed by a group of lanes, one prime (or a
// few) a lane (src/cuda/lane_sums.cuh), so the group's loads of a source are one contiguous run
// of memory and the index work (the old state) is shared by all primes of the pass.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "cuda/lane_sums.cuh"
#include "cuda/launch.hpp"
#include "cuda/prime_passes.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/cuda/step_pass.cuh"
#include "matchcount/error.hpp"

namespace matchcount::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
using u64 = unsigned long long;

struct StepArgs {
  const double* old_tab;
  double* new_tab;
  PullStep step;
  const SlotPair* moved;  // (new slot, old slot)
  const SlotPair* back;   // (old slot, entry)
  int G, stride;          // primes of the pass; doubles per state
  const double* res;      // res[entry * stride + j]
  const double* prime;
  const double* pinv;
};

/// blockDim = (lanes, groups): lane x handles primes x, x + lanes, ... (J of them); the groups
/// stride over the destination states, each summing its sources (graph_pull.hpp).
template <int J, bool Unit>
__global__ void __launch_bounds__(256) graph_frontier_step(StepArgs A) {
  __shared__ SlotPair moved[kMaxPairs], back[kMaxPairs];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < A.step.n_moved; i += nthreads) moved[i] = A.moved[i];
  for (int i = tid; i < A.step.n_back; i += nthreads) back[i] = A.back[i];
  __syncthreads();

  const mcgpu::LanePrimes<J> P(A.prime, A.pinv, A.G);
  const u64 groups = u64(gridDim.x) * blockDim.y;
  for (u64 i = u64(blockIdx.x) * blockDim.y + threadIdx.y; i < A.step.states; i += groups) {
    mcgpu::LaneSums<J> acc;
    graph_pull(A.step, moved, back, i, [&](u64 old, int entry) {
      const double* src = A.old_tab + old * A.stride;
      if (Unit || entry < 0) acc.add(P, src);
      else acc.mul_add(P, src, A.res + std::size_t(entry) * A.stride);
    });
    acc.store(P, A.new_tab + i * A.stride);
  }
}

using KernelFn = void (*)(StepArgs);
template <bool Unit>
KernelFn kernel_for(int J) {
  return J == 1 ? graph_frontier_step<1, Unit> : J == 2 ? graph_frontier_step<2, Unit> : graph_frontier_step<4, Unit>;
}

}  // namespace

GraphFrontierResult run_graph_frontier(const GraphFrontierJob& job) {
  using Clock = std::chrono::steady_clock;
  const std::size_t K = job.primes.size(), E = K ? job.residues.size() / K : 0;
  if (K == 0) throw GpuError("GPU graph frontier: no primes");
  check(cudaSetDevice(job.device), "cudaSetDevice");
  const DeviceStepPairs pairs(job.steps);  // refuses a frontier beyond the state bits
  // The old and new tables share one arena: vertex k writes at the end opposite its source.
  const double per_prime = graph_frontier_bytes_per_prime(job.steps, job.loops);
  const auto arena_states = std::size_t(per_prime / 8);
  const PrimePasses pp = detail::plan_device_passes("gpu-graph-frontier", job.device, K, per_prime, job.max_primes_per_pass);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, job.device), "cudaGetDeviceProperties");
  const std::size_t G = pp.G, stride = pp.stride;
  const KernelFn kernel = job.unit ? kernel_for<true>(pp.J) : kernel_for<false>(pp.J);

  DeviceBuffer<double> d_arena(arena_states * stride), d_res(E * stride), d_prime(stride), d_pinv(stride);

  const int per_sm = detail::blocks_per_sm(reinterpret_cast<const void*>(kernel), 256, 0, "GPU graph frontier");
  const int groups_per_block = 256 / pp.lanes;
  const u64 max_blocks = u64(per_sm) * u64(prop.multiProcessorCount);

  double total_work = 0, done = 0;
  for (const auto& st : job.steps) total_work += graph_table_states(st.new_w, job.loops) + 1;
  total_work *= double(pp.passes);

  GraphFrontierResult out;
  out.passes = pp.passes, out.primes_per_pass = G, out.table_gib = per_prime * double(stride) / double(1u << 30);
  const auto t0 = Clock::now();
  for (std::size_t pass = 0; pass < pp.passes; ++pass) {
    const std::size_t k0 = pass * G, g = std::min(G, K - k0);
    const PassInputs in = pass_inputs(job.primes, job.residues, k0, g, stride);
    const std::vector<double> ones(stride, 1.0);  // the first table: the empty frontier, value 1
    if (!in.res.empty())  // 0-1 blocks carry no residues
      check(cudaMemcpy(d_res.ptr, in.res.data(), in.res.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_prime.ptr, in.prime.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_pinv.ptr, in.pinv.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_arena.ptr, ones.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    const std::size_t last_at = run_step_pass(
        job.steps, job.loops, arena_states, job.progress, done, total_work, "the GPU graph frontier kernel",
        [&](std::size_t k, const PullStep& step, std::size_t old_at, std::size_t new_at) {
          StepArgs a{};
          a.step = step;
          a.old_tab = d_arena.ptr + old_at * stride;
          a.new_tab = d_arena.ptr + new_at * stride;
          a.moved = pairs.moved(k), a.back = pairs.back(k);
          a.G = int(g), a.stride = int(stride);
          a.res = d_res.ptr, a.prime = d_prime.ptr, a.pinv = d_pinv.ptr;
          const u64 blocks = std::min<u64>((step.states + u64(groups_per_block) - 1) / u64(groups_per_block), max_blocks);
          void* params[] = {&a};
          check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(unsigned(std::max<u64>(blocks, 1))),
                                 dim3(unsigned(pp.lanes), unsigned(groups_per_block)), params, 0, nullptr),
                "cudaLaunchKernel");
        });
    std::vector<double> last(stride, 0.0);
    check(cudaMemcpy(last.data(), d_arena.ptr + last_at * stride, stride * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    out.values.insert(out.values.end(), last.begin(), last.begin() + std::ptrdiff_t(g));
  }
  out.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace matchcount::gpu
