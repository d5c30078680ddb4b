// The frontier DP on the GPU (docs/engines.md): per row one launch that fills the dense table of
// all p-subsets of the new open columns, in colex order (subset_rank.hpp), by pulling from the
// old table. Each destination state is computed by a group of lanes, one prime (or a few) a
// lane, so the group's loads of a source's residues are one contiguous run of memory and the
// index work (unranking, source ranks) is shared by all primes of the pass.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cuda/launch.hpp"
#include "engines/frontier/cuda/frontier_job.hpp"
#include "matchcount/error.hpp"
#include "cuda/lane_sums.cuh"
#include "cuda/prime_passes.hpp"
#include "cuda/subset_rank.hpp"

namespace matchcount::gpu {
namespace {

using detail::check;
using detail::DeviceBuffer;
using subset_rank::u32;
using subset_rank::u64;


struct Move {
  u64 need, drop;
  int entry, pad;
};

struct RowArgs {
  const double* old_tab;
  double* new_tab;
  u64 states;   // C(w_new, p_new)
  u64 low;      // new bits kept from the old layout
  u64 closing;  // old bits of the closing columns
  int n_close, n_moves, p_new, w_new, nibbles, wmax, run;
  int G, stride;  // primes of the pass; doubles per state (G padded)
  const Move* moves;
  const int* close_asc;
  const double* res;  // res[entry * stride + j]
  const double* prime;
  const double* pinv;
  const u32* rank_tab;
  const u64* binom;
  int table_words;
};

/// blockDim = (lanes, groups): lane x handles primes x, x + lanes, ... (J of them); each group
/// takes runs of `run` consecutive states (one unranking, then Gosper steps).
template <int J>
__global__ void __launch_bounds__(256) frontier_row(RowArgs A) {
  extern __shared__ u64 smem[];
  Move* moves = reinterpret_cast<Move*>(smem);
  u32* table = reinterpret_cast<u32*>(moves + A.n_moves);
  int* close_asc = reinterpret_cast<int*>(table + A.table_words);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
  for (int i = tid; i < A.n_moves; i += nthreads) moves[i] = A.moves[i];
  for (int i = tid; i < A.table_words; i += nthreads) table[i] = A.rank_tab[i];
  for (int i = tid; i < A.n_close; i += nthreads) close_asc[i] = A.close_asc[i];
  __syncthreads();

  const mcgpu::LanePrimes<J> P(A.prime, A.pinv, A.G);
  const u64 groups = u64(gridDim.x) * blockDim.y;
  for (u64 run = u64(blockIdx.x) * blockDim.y + threadIdx.y; run * A.run < A.states; run += groups) {
    u64 r = run * A.run;
    const u64 end = min(A.states, r + A.run);
    u64 t = subset_rank::unrank(r, A.p_new, A.w_new, A.binom);
    for (;;) {
      u64 x = t & A.low;  // expand: zeros at the closing positions, then the closing bits set
      for (int i = 0; i < A.n_close; ++i) {
        const int b = close_asc[i];
        x = (x & ((u64{1} << b) - 1)) | ((x >> b) << (b + 1));
      }
      const u64 full = x | A.closing, fresh = t & ~A.low;
      mcgpu::LaneSums<J> acc;
      for (int m = 0; m < A.n_moves; ++m) {
        const Move mv = moves[m];
        if (fresh != (mv.need & ~A.low) || (t & mv.need) != mv.need) continue;
        const u32 rk = subset_rank::rank(full & ~mv.drop, table, A.nibbles, A.wmax);
        acc.mul_add(P, A.old_tab + u64(rk) * A.stride, A.res + std::size_t(mv.entry) * A.stride);
      }
      acc.store(P, A.new_tab + r * A.stride);
      if (++r == end) break;
      t = subset_rank::next_subset(t);
    }
  }
}

using KernelFn = void (*)(RowArgs);
KernelFn kernel_for(int J) { return J == 1 ? frontier_row<1> : J == 2 ? frontier_row<2> : frontier_row<4>; }

}  // namespace

FrontierResult run_frontier(const FrontierJob& job) {
  using Clock = std::chrono::steady_clock;
  const std::size_t K = job.primes.size(), E = K ? job.residues.size() / K : 0;
  if (K == 0) throw GpuError("GPU frontier: no primes");
  const auto binom = subset_rank::binomials();
  auto states_of = [&](int w, int p) { return p < 0 || p > w ? u64{0} : binom[std::size_t(w) * 65 + std::size_t(p)]; };
  int wmax = 1;
  std::size_t max_moves = 0, max_close = 0;
  for (const auto& r : job.rows) {
    wmax = std::max({wmax, r.w_old, r.w_new});
    max_moves = std::max(max_moves, r.moves.size()), max_close = std::max(max_close, r.close_asc.size());
    if (states_of(r.w_new, r.p_new) > (u64{1} << 32))
      throw RefusedError("gpu-frontier: a row has C(" + std::to_string(r.w_new) + ", " + std::to_string(r.p_new) +
                         ") states, more than the 2^32 its 32-bit ranks index");
  }
  if (wmax > 63) throw RefusedError("gpu-frontier: frontier width " + std::to_string(wmax) + " > 63");
  check(cudaSetDevice(job.device), "cudaSetDevice");
  // The old and new tables share one arena: row k writes at the end opposite its source.
  const double per_prime = frontier_bytes_per_prime(job.rows);
  const auto arena_states = std::size_t(per_prime / 8);
  const PrimePasses pp = detail::plan_device_passes("gpu-frontier", job.device, K, per_prime, job.max_primes_per_pass);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, job.device), "cudaGetDeviceProperties");
  const std::size_t passes = pp.passes, G = pp.G, stride = pp.stride;
  const int lanes = pp.lanes, J = pp.J;
  const KernelFn kernel = kernel_for(J);

  // Moves and closing positions of all rows, uploaded once.
  std::vector<Move> moves;
  std::vector<int> closes;
  std::vector<std::size_t> move_at, close_at;
  for (const auto& r : job.rows) {
    move_at.push_back(moves.size()), close_at.push_back(closes.size());
    for (const auto& m : r.moves) moves.push_back({m.need, m.drop, m.entry, 0});
    closes.insert(closes.end(), r.close_asc.begin(), r.close_asc.end());
  }
  const auto table = subset_rank::rank_table(wmax);
  DeviceBuffer<Move> d_moves(moves);
  DeviceBuffer<int> d_close(closes);
  DeviceBuffer<u32> d_table(table);
  DeviceBuffer<u64> d_binom(binom);
  DeviceBuffer<double> d_arena(arena_states * stride), d_res(E * stride), d_prime(stride), d_pinv(stride);

  const std::size_t smem = max_moves * sizeof(Move) + table.size() * sizeof(u32) + max_close * sizeof(int);
  if (smem > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), "cudaFuncSetAttribute");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, smem), "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw GpuError("GPU frontier: the kernel does not fit on a multiprocessor");
  const int groups_per_block = 256 / lanes;
  const u64 max_groups = u64(per_sm) * u64(prop.multiProcessorCount) * u64(groups_per_block);

  double total_work = 0, done = 0;
  for (const auto& r : job.rows) total_work += double(states_of(r.w_new, r.p_new)) + 1;
  total_work *= double(passes);

  FrontierResult out;
  out.passes = passes, out.primes_per_pass = G, out.table_gib = per_prime * double(stride) / double(1u << 30);
  const auto t0 = Clock::now();
  for (std::size_t pass = 0; pass < passes; ++pass) {
    const std::size_t k0 = pass * G, g = std::min(G, K - k0);
    const PassInputs in = pass_inputs(job.primes, job.residues, k0, g, stride);
    const std::vector<double> ones(stride, 1.0);
    check(cudaMemcpy(d_res.ptr, in.res.data(), in.res.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_prime.ptr, in.prime.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_pinv.ptr, in.pinv.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(d_arena.ptr, ones.data(), stride * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    std::size_t old_at = 0;  // in states; the first table is the empty set with value 1
    bool alive = !job.rows.empty();
    for (std::size_t k = 0; k < job.rows.size(); ++k) {
      const auto& r = job.rows[k];
      const u64 states = states_of(r.w_new, r.p_new);
      const std::size_t new_at = k % 2 == 0 ? arena_states - std::size_t(states) : 0;
      RowArgs a{};
      a.old_tab = d_arena.ptr + old_at * stride;
      a.new_tab = d_arena.ptr + new_at * stride;
      a.states = states, a.low = r.low, a.closing = 0;
      for (int b : r.close_asc) a.closing |= u64{1} << b;
      a.n_close = int(r.close_asc.size()), a.n_moves = int(r.moves.size());
      a.p_new = r.p_new, a.w_new = r.w_new, a.nibbles = (r.w_old + 3) / 4, a.wmax = wmax;
      a.G = int(g), a.stride = int(stride);
      a.moves = d_moves.ptr + move_at[k], a.close_asc = d_close.ptr + close_at[k];
      a.res = d_res.ptr, a.prime = d_prime.ptr, a.pinv = d_pinv.ptr;
      a.rank_tab = d_table.ptr, a.binom = d_binom.ptr, a.table_words = int(table.size());
      // Runs of up to 32 states, short enough that every group has a couple of them.
      a.run = int(std::clamp<u64>(states / (2 * max_groups), 1, 32));
      const u64 runs = (states + u64(a.run) - 1) / u64(a.run);
      const auto blocks = unsigned(std::min<u64>((runs + groups_per_block - 1) / groups_per_block, u64(per_sm) * prop.multiProcessorCount));
      void* params[] = {&a};
      if (states > 0) {
        check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(std::max(blocks, 1u)), dim3(unsigned(lanes), unsigned(groups_per_block)),
                               params, smem, nullptr),
              "cudaLaunchKernel");
        check(cudaDeviceSynchronize(), "the GPU frontier kernel");
      }
      old_at = new_at;
      done += double(states) + 1;
      if (job.progress) job.progress(done / total_work);
      if (states == 0) {  // no state survives: the permanent is 0
        alive = false;
        break;
      }
    }
    std::vector<double> last(stride, 0.0);
    if (alive) check(cudaMemcpy(last.data(), d_arena.ptr + old_at * stride, stride * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    out.values.insert(out.values.end(), last.begin(), last.begin() + std::ptrdiff_t(g));
  }
  out.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace matchcount::gpu
