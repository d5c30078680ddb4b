// Host side of the GPU hafnian walk: lays out each warp's frames (small levels in shared
// memory, large ones in a global slice), sizes the launch with the occupancy API, and runs each
// run of units the device executor hands a device (src/runtime/device_walk.hpp: devices, MPI
// ranks, checkpoints) as one launch per group of channels (a group walked two channels a warp:
// its pairs, and its odd last channel in a second launch on a second stream); warp sums are
// added exactly here.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "cuda/launch.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/cuda/haf_kernel.cuh"
#include "runtime/device_walk.hpp"

namespace {

using mcgpu::haf::Args;
using mcgpu::haf::kWarps;

using mcgpu::haf::ComplexAr;
using mcgpu::haf::Mod2Ar;
using mcgpu::haf::ModAr;
using mcgpu::haf::Real2Ar;
using mcgpu::haf::RealAr;
using mcgpu::haf::BigModAr;
using mcgpu::haf::Z64Ar;
using mcgpu::haf::Z64BigAr;
using mcgpu::haf::Z64ModAr;

/// The number system of a launch's channel c, or of its pair of channels c (2c and 2c + 1).
template <class Ar>
__device__ Ar channel_ar(const Args&, int) {
  return Ar{};
}
template <>
__device__ ModAr channel_ar<ModAr>(const Args& a, int c) {
  return ModAr{a.prime[c], a.pinv[c]};
}
// Two primes a walk take more registers than one and less time a prime (docs/benchmarks.md,
// "The GPU hafnian: a breadth-first bottom and more warps by fewer registers", paragraph "Two
// primes a walk").
template <>
__device__ Mod2Ar channel_ar<Mod2Ar>(const Args& a, int c) {
  return Mod2Ar{channel_ar<ModAr>(a, 2 * c), channel_ar<ModAr>(a, 2 * c + 1)};
}

// Pair c of a Z64Mod run: channel 2c modulo 2^64 (run 0 holds only channels 0 and 1), 2c + 1
// modulo its prime.
template <>
__device__ Z64ModAr channel_ar<Z64ModAr>(const Args& a, int c) {
  return Z64ModAr{channel_ar<ModAr>(a, 2 * c + 1)};
}
template <>
__device__ Z64BigAr channel_ar<Z64BigAr>(const Args& a, int c) {
  return Z64BigAr{BigModAr{a.prime[2 * c + 1], a.pinv[2 * c + 1]}};
}

/// The walk of grid row c in one number system: a kernel for each, and for the binary and the
/// repeated walk (Args::rpt) apart, so that each keeps only the registers it needs.
template <class Ar, bool kRepeated>
__global__ void __launch_bounds__(kWarps * 32) haf_walk(Args a) {
  const int c = blockIdx.y;
  if constexpr (kRepeated) mcgpu::haf::walk_rpt_range(a, channel_ar<Ar>(a, c), c);
  else mcgpu::haf::walk_range(a, channel_ar<Ar>(a, c), c);
}

template <class Ar>
const void* walk_kernel(bool repeated) {
  return repeated ? reinterpret_cast<const void*>(haf_walk<Ar, true>) : reinterpret_cast<const void*>(haf_walk<Ar, false>);
}

/// The binary walk's kernel alone, for a number system the repeated walk does not take.
template <class Ar>
const void* binary_walk_kernel() {
  return reinterpret_cast<const void*>(haf_walk<Ar, false>);
}

}  // namespace

namespace matchcount::gpu {

namespace {

using detail::check;
using detail::DeviceBuffer;
using detail::DeviceStream;

std::size_t value_doubles(HafArith k) { return k == HafArith::Complex ? 2 : 1; }

/// Per-warp frame layout of a walk of n vertices: levels from `shared_from` on in shared
/// memory (as many as `shared_values` holds), the others in global memory.
struct Layout {
  int shared_from = 0;
  long long frame_off[mcgpu::haf::kMaxM + 1] = {};
  long long leaf_off = 0, shared_values = 0, global_values = 0;
};

Layout plan_layout(int n, bool loops, long long budget_values) {
  const int m = n / 2, S = haf_stride(m);
  auto size = [&](int l) {
    const long long s = n - 2 * l;
    return (s * (s - 1) / 2 + (loops ? s : 0) + 2) * S;
  };
  Layout L;
  long long used = S;  // the leaf's closing polynomial
  L.shared_from = m;   // no level in shared memory
  for (int l = m - 1; l >= 1 && used + size(l) <= budget_values; --l) used += size(l), L.shared_from = l;
  for (int l = 1; l < L.shared_from; ++l) L.frame_off[l] = L.global_values, L.global_values += size(l);
  for (int l = std::max(L.shared_from, 1); l < m; ++l) L.frame_off[l] = L.shared_values, L.shared_values += size(l);
  L.leaf_off = L.shared_values;
  L.shared_values += S;
  L.global_values = std::max<long long>(L.global_values, 1);
  return L;
}

/// The task size of one kind of convolution: B in {1, 2, 4} (up to `most`) whose busiest
/// lane does the least work when `count` convolutions of coefficients lo..hi are cut into
/// tasks of B coefficients dealt block-major over 32 lanes (Walk::tasks). A task of highest
/// coefficient k costs ceil(k / B) steps of B^2 multiply-adds and 3B - 1 loads, per product.
int task_block(int count, int lo, int hi, bool two, int most) {
  int best = 1;
  double best_cost = HUGE_VAL;
  for (int B = 1; B <= most; B *= 2) {
    const int nb = (hi - lo + 1 + B - 1) / B, total = count * nb;
    double lanes[32] = {};
    for (int t = 0; t < total; ++t) {
      const int k_hi = hi - (t / count) * B;
      lanes[t % 32] += double((k_hi + B - 1) / B) * (B * B + 3 * B - 1) * (two ? 2 : 1);
    }
    const double cost = *std::max_element(lanes, lanes + 32);
    if (cost <= best_cost) best = B, best_cost = cost;  // ties: the larger B (fewer tasks)
  }
  return best;
}

/// The largest task size: 4, or the job's 1 or 2 (MATCHCOUNT_HAF_TASK_BLOCK). Tasks of 8
/// coefficients need so many registers for their window that fewer blocks fit on a
/// multiprocessor, and the walk, bound by latency, ran slower (docs/benchmarks.md, "The GPU
/// hafnian: frames coefficient-major").
int largest_task_block(int job_block) { return job_block == 1 || job_block == 2 ? job_block : 4; }

/// Args::truncate and Args::block for a walk of n vertices (task sizes up to `most`).
void set_task_blocks(Args& a, int n, bool loops, bool truncate, int most) {
  const int m = n / 2;
  a.truncate = truncate ? 1 : 0;
  for (int l = 0; l <= mcgpu::haf::kMaxM; ++l) {
    const int s2 = std::max(n - 2 * l - 2, 0);
    const int top = truncate ? std::min(m, l + 2) : m, top_d = truncate ? std::min(m, l + 1) : m;
    const bool leaf = l >= m - 1;  // the leaf's closing polynomial: every degree
    a.block[l][mcgpu::haf::kConvB] = static_cast<signed char>(task_block(std::max(s2 * (s2 - 1) / 2, 1), 1, top, true, most));
    a.block[l][mcgpu::haf::kConvD] = static_cast<signed char>(loops ? task_block(std::max(s2, 1), 0, top_d, true, most) : 1);
    a.block[l][mcgpu::haf::kConvG] = static_cast<signed char>(task_block(1, 1, leaf ? m : top_d, false, most));
  }
}

/// Shared memory per block: the job's (MATCHCOUNT_HAF_SHARED_KB), else 48 KiB, which leaves
/// room for four blocks of four warps on a multiprocessor of 228 KiB.
std::size_t shared_budget_bytes(int kb) { return static_cast<std::size_t>(std::clamp(kb > 0 ? kb : 48, 4, 220)) * 1024; }

/// The launch state of channels first .. first + count - 1 of one group on one device, with a
/// stream of its own so that the launches of a run overlap.
struct GroupRun {
  const HafGroup* group = nullptr;
  std::size_t first = 0, count = 0;
  const void* fn = nullptr;
  bool paired = false;  // two channels a walk (haf_mod2, haf_real2)
  Layout layout;
  std::size_t shared_bytes = 0, words = 0;
  std::uint64_t max_blocks = 1;  // blocks along x per walk
  std::unique_ptr<DeviceBuffer<double>> roots, prime, pinv, weights, scratch;
  std::unique_ptr<DeviceBuffer<std::uint64_t>> out;
  std::unique_ptr<DeviceStream> stream;
  Args args{};
  /// grid.y: the channels, or their pairs.
  std::size_t walks() const { return paired ? count / 2 : count; }
};

class HafWorker final : public runtime::DeviceWorker {
 public:
  HafWorker(int d, const HafJob& job, std::uint64_t unit_leaves, double unit_fmas)
      : job_(job), unit_leaves_(unit_leaves), unit_fmas_(unit_fmas), device_(d) {
    const auto t0 = std::chrono::steady_clock::now();
    check(cudaSetDevice(d), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const bool rpt = !job.rpt_mult.empty();
    for (const HafGroup& g : job.groups) {
      // Exact and real walks take their channels (primes, vertex orders) two at a time; an odd
      // last channel walks alone in a launch of its own beside the pairs', since one kernel
      // holding both walks would take the registers of both.
      // A Z64Mod group walks its channel modulo 2^64 beside its first prime, and the other
      // primes as a Mod group does.
      std::size_t first = 0;
      if (g.arith == HafArith::Z64Mod || g.arith == HafArith::Z64Big) {
        if (g.arith == HafArith::Z64Big && (g.channels != 2 || rpt))
          throw std::logic_error("gpu-hafnian: a Z64Big group is one binary walk of two channels");
        runs_.push_back(make_run(g, g.arith, 0, std::min<std::size_t>(g.channels, 2), true, prop, free_bytes));
        first = 2;
      }
      const HafArith as = g.arith == HafArith::Z64Mod ? HafArith::Mod : g.arith;
      const std::size_t rest = g.channels > first ? g.channels - first : 0;
      const bool pairs = (as == HafArith::Mod || as == HafArith::Real) && job.pair_channels;
      const std::size_t paired = pairs ? rest / 2 * 2 : 0;
      if (paired > 0) runs_.push_back(make_run(g, as, first, paired, true, prop, free_bytes));
      if (paired < rest) runs_.push_back(make_run(g, as, first + paired, rest - paired, false, prop, free_bytes));
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (job.verbose)
      std::fprintf(stderr, "gpu-hafnian: device %d ready in %.3f s (%.2f GiB of frames)\n", d,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), scratch_gib_);
  }

  // The first run is sized for 0.3 s at the rate of the cost model (gpu_hafnian_seconds).
  std::uint64_t first_run_units() const override {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.3 * 8e11 / std::max(unit_fmas_, 1.0)));
  }

  // Every warp of a run first walks its path from the root: about n^3/12 entries of two
  // truncated products (m^2 multiply-adds), at a warp's share of the device's rate
  // (docs/benchmarks.md, "Two GPUs"). With several devices the queue shrinks the runs towards the end of
  // the walk; they stay at least four times that.
  std::uint64_t min_run_units() const override {
    const double m = job_.n / 2.0, path_fmas = std::pow(job_.n, 3) / 12 * m * m * 2;
    const double warps = double(runs_.front().max_blocks * kWarps * runs_.front().walks());
    const double fixed_seconds = path_fmas / (8e11 / warps);
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(4 * fixed_seconds * 8e11 / std::max(unit_fmas_, 1.0)));
  }

  std::vector<std::uint64_t> run(UnitRange range) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> sums;
    // Every run's launch first, each on its stream, so that one launch's blocks fill the
    // multiprocessors that another's last blocks leave idle.
    for (GroupRun& r : runs_) {
      Args& a = r.args;
      a.lp_begin = range.begin * unit_leaves_;
      a.lp_count = range.size() * unit_leaves_;
      void* params[] = {&a};
      check(cudaLaunchKernel(r.fn, dim3(static_cast<unsigned>(launch_blocks(r)), static_cast<unsigned>(r.walks())),
                             dim3(kWarps * 32), params, r.shared_bytes, r.stream->s),
            "cudaLaunchKernel");
    }
    for (GroupRun& r : runs_) {
      check(cudaStreamSynchronize(r.stream->s), "the GPU hafnian kernel");
      const std::size_t warps = static_cast<std::size_t>(launch_blocks(r)) * kWarps;
      raw_.resize(warps * r.walks() * r.words);
      check(cudaMemcpy(raw_.data(), r.out->ptr, raw_.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
      const HafArith arith = r.group->arith;
      const std::size_t cw = haf_channel_words(arith);
      for (std::size_t c = 0; c < r.count; ++c) {
        const std::size_t lane = r.paired ? c / 2 : c, half = r.paired ? c % 2 : 0;
        const HafArith ca = haf_channel_arith(arith, r.first + c);
        const double p = ca == HafArith::Mod ? r.group->prime[r.first + c] : 0;
        std::vector<std::uint64_t> total(cw, 0);
        for (std::size_t w = 0; w < warps; ++w) {
          const std::uint64_t* x = &raw_[(lane * warps + w) * r.words + half * cw];
          std::uint64_t residue;  // a Mod warp's sum: a double in (-p, p), as a residue in [0, p)
          if (ca == HafArith::Mod) {
            double v;
            std::memcpy(&v, x, sizeof v);
            residue = static_cast<std::uint64_t>(std::fmod(std::fmod(v, p) + p, p));
            x = &residue;
          }
          add_channel(ca, p, total.data(), x);
        }
        sums.insert(sums.end(), total.begin(), total.end());
      }
    }
    if (job_.verbose)
      std::fprintf(stderr, "gpu-hafnian: device %d ran units %llu..%llu in %.3f s\n", device_,
                   static_cast<unsigned long long>(range.begin), static_cast<unsigned long long>(range.end),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return sums;
  }

  int shared_levels() const { return shared_levels_; }

  /// Blocks along x of run r's launch over the current range: no more than its warps have leaf pairs.
  std::uint64_t launch_blocks(const GroupRun& r) const {
    return std::min<std::uint64_t>(r.max_blocks, (r.args.lp_count + kWarps - 1) / kWarps);
  }

 private:
  /// The run of channels first .. first + count - 1 of group g (`paired`: two channels a walk).
  GroupRun make_run(const HafGroup& g, HafArith as, std::size_t first, std::size_t count, bool paired,
                    const cudaDeviceProp& prop, std::size_t free_bytes) {
    const int m = job_.n / 2;
    const bool rpt = !job_.rpt_mult.empty();
    GroupRun r;
    r.group = &g, r.first = first, r.count = count, r.paired = paired;
    r.fn = as == HafArith::Z64      ? walk_kernel<Z64Ar>(rpt)
           : as == HafArith::Z64Mod ? walk_kernel<Z64ModAr>(rpt)
           : as == HafArith::Z64Big ? binary_walk_kernel<Z64BigAr>()
           : as == HafArith::Mod    ? (paired ? walk_kernel<Mod2Ar>(rpt) : walk_kernel<ModAr>(rpt))
           : as == HafArith::Real   ? (paired ? walk_kernel<Real2Ar>(rpt) : walk_kernel<RealAr>(rpt))
                                    : walk_kernel<ComplexAr>(rpt);
    const std::size_t vdoubles = r.paired ? 2 : value_doubles(g.arith), vbytes = 8 * vdoubles;
    r.layout = plan_layout(job_.n, job_.loops, static_cast<long long>(shared_budget_bytes(job_.shared_kb) / (kWarps * vbytes)));
    r.shared_bytes = static_cast<std::size_t>(r.layout.shared_values) * kWarps * vbytes;
    r.words = haf_channel_words(g.arith) * (r.paired ? 2 : 1);
    const int per_sm = detail::blocks_per_sm(r.fn, kWarps * 32, r.shared_bytes, "GPU hafnian");
    const std::uint64_t resident = static_cast<std::uint64_t>(per_sm) * prop.multiProcessorCount;
    // One wave over the run's walks (another run's launch fills its tail); the global slices
    // may take a third of the free memory.
    std::uint64_t blocks = std::max<std::uint64_t>(1, resident / r.walks());
    const double slice = double(r.layout.global_values) * vbytes * kWarps * r.walks();
    blocks = std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(std::max(1.0, free_bytes / 3.0 / slice)));
    r.max_blocks = blocks;
    const std::size_t warps = static_cast<std::size_t>(blocks) * kWarps;
    const std::size_t root_values = g.roots.size() / value_doubles(g.arith) / g.channels;
    const std::size_t root_doubles = root_values * value_doubles(g.arith);
    std::vector<double> roots(g.roots.begin() + static_cast<std::ptrdiff_t>(first * root_doubles),
                              g.roots.begin() + static_cast<std::ptrdiff_t>((first + count) * root_doubles));
    if (r.paired) {  // pair c: channels 2c and 2c + 1, their roots interleaved (Mod2Ar, Real2Ar)
      std::vector<double> pairs(roots.size());
      for (std::size_t k = 0; k < count; ++k)
        for (std::size_t i = 0; i < root_values; ++i) pairs[((k / 2) * root_values + i) * 2 + k % 2] = roots[k * root_values + i];
      roots.swap(pairs);
    }
    const auto channel_slice = [&](const std::vector<double>& v) {
      return v.empty() ? v : std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(first),
                                                 v.begin() + static_cast<std::ptrdiff_t>(first + count));
    };
    r.roots = std::make_unique<DeviceBuffer<double>>(roots);
    r.prime = std::make_unique<DeviceBuffer<double>>(channel_slice(g.prime));
    r.pinv = std::make_unique<DeviceBuffer<double>>(channel_slice(g.pinv));
    r.scratch = std::make_unique<DeviceBuffer<double>>(static_cast<std::size_t>(r.layout.global_values) * vdoubles *
                                                       warps * r.walks());
    check(cudaMemset(r.scratch->ptr, 0, static_cast<std::size_t>(r.layout.global_values) * vbytes * warps * r.walks()),
          "cudaMemset");
    r.out = std::make_unique<DeviceBuffer<std::uint64_t>>(warps * r.walks() * r.words);
    r.stream = std::make_unique<DeviceStream>();
    Args& a = r.args;
    a.n = job_.n, a.m = m, a.S = haf_stride(m), a.loops = job_.loops ? 1 : 0;
    a.shared_from = r.layout.shared_from;
    for (int l = 0; l <= mcgpu::haf::kMaxM; ++l) a.frame_off[l] = r.layout.frame_off[l];
    a.leaf_off = r.layout.leaf_off;
    a.root = r.roots->ptr;
    a.root_stride = static_cast<long long>(root_values);
    a.scratch = r.scratch->ptr;
    a.scratch_per_warp = r.layout.global_values;
    a.shared_per_warp = r.layout.shared_values;
    a.prime = r.prime->ptr, a.pinv = r.pinv->ptr;
    a.out = reinterpret_cast<mcgpu::u64*>(r.out->ptr);
    a.words = static_cast<int>(r.words);
    a.q = job_.q;
    if (rpt) set_repeats(a, r, g);
    set_task_blocks(a, job_.n, job_.loops, !rpt, largest_task_block(job_.task_block));
    if (r.shared_bytes > 48 * 1024)
      check(cudaFuncSetAttribute(r.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(r.shared_bytes)),
            "cudaFuncSetAttribute");
    shared_levels_ = m - r.layout.shared_from;
    scratch_gib_ += double(r.layout.global_values) * vbytes * double(warps * r.walks()) / (1 << 30);
    return r;
  }

  /// The repeated walk's types and the group's weights in the launch arguments.
  void set_repeats(Args& a, GroupRun& r, const HafGroup& g) const {
    mcgpu::haf::Rpt& p = a.rpt;
    p.types = static_cast<int>(job_.rpt_mult.size());
    int level = 0, woff = 0;
    for (int t = 0; t < p.types; ++t) {
      p.mult[t] = job_.rpt_mult[static_cast<std::size_t>(t)], p.first[t] = level, p.woff[t] = woff;
      for (int j = 0; j < p.mult[t]; ++j) p.ltype[level++] = t;
      woff += p.mult[t] + 1;
    }
    if (level != job_.n / 2 || g.rpt_weights.size() != static_cast<std::size_t>(woff) * g.channels)
      throw GpuError("GPU hafnian: the repeated walk's types do not fit its block");
    p.wstride = woff;
    const auto per = static_cast<std::ptrdiff_t>(woff);  // the run's channels' weights
    r.weights = std::make_unique<DeviceBuffer<double>>(
        std::vector<double>(g.rpt_weights.begin() + static_cast<std::ptrdiff_t>(r.first) * per,
                            g.rpt_weights.begin() + static_cast<std::ptrdiff_t>(r.first + r.count) * per));
    p.weight = r.weights->ptr;
  }

  const HafJob& job_;
  std::uint64_t unit_leaves_;
  double unit_fmas_;
  std::vector<GroupRun> runs_;
  std::vector<std::uint64_t> raw_;
  int shared_levels_ = 0;
  int device_ = 0;
  double scratch_gib_ = 0;
};

}  // namespace

HafResult run_hafnian_walk(const HafJob& job) {
  const int m = job.n / 2;
  if (job.n < 2 || job.n % 2 || m > kHafMaxM) throw GpuError("GPU hafnian: block size must be even, 2.." + std::to_string(2 * kHafMaxM));
  int visible = 0;
  check(cudaGetDeviceCount(&visible), "cudaGetDeviceCount");
  // Binary walks: 2^depth units of leaf pairs; repeated walks: ranges of leaves.
  std::uint64_t units = 0, unit_leaves = 0;
  if (job.rpt_mult.empty()) {
    const int depth = haf_unit_depth(m);
    units = std::uint64_t{1} << depth, unit_leaves = std::uint64_t{1} << ((m - 1) - depth);
  } else {
    if (static_cast<int>(job.rpt_mult.size()) > mcgpu::haf::kMaxM) throw GpuError("GPU hafnian: too many pair types");
    double leaves = 1;
    for (int r : job.rpt_mult) leaves *= r + 1.0;
    if (leaves > 0x1p62) throw GpuError("GPU hafnian: more than 2^62 leaves");
    units = haf_rpt_units(job.rpt_mult);
    unit_leaves = static_cast<std::uint64_t>(leaves) / units;
  }
  std::vector<std::size_t> offsets;  // first word of each group
  std::size_t words = 0, channels = 0;
  for (const HafGroup& g : job.groups) {
    offsets.push_back(words);
    words += g.channels * haf_channel_words(g.arith);
    channels += g.channels * (g.arith == HafArith::Complex ? 4 : 1);
  }
  const double unit_fmas = job.walk_fmas / double(units) * double(channels);
  runtime::DeviceWalk walk;
  walk.tag = job.tag;
  walk.units = units;
  walk.words = words;
  walk.devices = job.gpus > 0 ? std::min(job.gpus, visible) : visible;
  if (job.walk_fmas * double(channels) < 1e11) walk.devices = 1;  // under a tenth of a second: one device
  walk.journal = job.journal;
  walk.team = job.team;
  walk.progress = job.progress;
  walk.add = [&](std::vector<std::uint64_t>& total, const std::vector<std::uint64_t>& sum) {
    if (total.empty()) total.assign(words, 0);
    for (std::size_t gi = 0; gi < job.groups.size(); ++gi) {
      const HafGroup& g = job.groups[gi];
      const std::size_t cw = haf_channel_words(g.arith);
      for (std::size_t c = 0; c < g.channels; ++c) {
        const std::size_t at = offsets[gi] + c * cw;
        const HafArith ca = haf_channel_arith(g.arith, c);
        add_channel(ca, ca == HafArith::Mod ? g.prime[c] : 0, &total[at], &sum[at]);
      }
    }
  };
  int shared_levels = 0;
  walk.make_worker = [&](int d) -> std::unique_ptr<runtime::DeviceWorker> {
    auto w = std::make_unique<HafWorker>(d, job, unit_leaves, unit_fmas);
    if (d == 0) shared_levels = w->shared_levels();
    return w;
  };
  walk.run_seconds = 2.0;  // each run pays for its warps' paths from the root
  const runtime::DeviceWalkResult done = runtime::run_on_devices(walk);
  check(cudaSetDevice(0), "cudaSetDevice");
  HafResult r;
  r.words = done.sum.empty() ? std::vector<std::uint64_t>(words, 0) : done.sum;
  r.units_per_device = done.units_per_device;
  r.units_by_rank = done.units_by_rank;
  r.note = done.failures;
  r.run_seconds = done.seconds;
  r.shared_levels = shared_levels;
  return r;
}

}  // namespace matchcount::gpu
