// The "gpu-hafnian" engine: the CPU engine's recursion tree (haf_walk.hpp) on CUDA devices
// (cuda/haf_kernel.cuh), in the runtime's work units. Exact counts walk once per small prime
// (the CPU engine's primes, so both give the same residues); floats walk the matrix in the CPU
// engine's four vertex orders (their spread is the error estimate) and sum the leaves exactly in
// fixed point, so the value has the same bits on any number of devices or ranks. A CUDA failure is reported in one line and the block is counted on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/arith.hpp"
#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/gpu_common.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "runtime/team.hpp"

namespace matchcount::engines {
namespace {

using gpu::HafArith;
using gpu::HafGroup;
using gpu_haf::base_job;
using gpu_haf::channel_value;

/// The fixed-point exponent of a block (gpu_haf_common.hpp's fixed_exponent and walk_rho).
template <class T>
int fixed_exponent(const SparseMatrix<T>& a, bool loops) {
  std::vector<double> row(static_cast<std::size_t>(a.rows));
  double diag = 0;
  for (const auto& e : a.entries) {
    if (e.row == e.col) diag = std::max(diag, std::abs(e.value));
    else row[static_cast<std::size_t>(e.row)] += std::abs(e.value);
  }
  const double max_row = row.empty() ? 0.0 : *std::max_element(row.begin(), row.end());
  return gpu_haf::fixed_exponent((a.rows + 1) / 2, gpu_haf::walk_rho(max_row, diag, loops));
}

std::string walk_tag(const char* kind, int n, bool loops, const gpu::HafJob& job) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const HafGroup& g : job.groups) {
    h = fnv1a64(g.roots.data(), g.roots.size() * sizeof(double), h);
    h = fnv1a64(g.prime.data(), g.prime.size() * sizeof(double), h);
  }
  h = fnv1a64(&job.q, sizeof job.q, h);
  char buf[200];
  std::snprintf(buf, sizeof buf, "gpu-hafnian/%s/n=%d/loops=%d/depth=%d/input=%016llx", kind, n, loops ? 1 : 0,
                gpu::haf_unit_depth((n + 1) / 2), static_cast<unsigned long long>(h));
  return buf;
}

/// The float walks first .. last - 1 of a block (dense d, n0 x n0) in the walk orders
/// `orders`, as channels of g (W doubles an entry: 2 for complex values).
template <class T>
void append_float_channels(gpu::HafGroup& g, const std::vector<T>& d, int n0, bool loops,
                           const std::vector<std::vector<int>>& orders, int first, int last, int W) {
  for (int c = first; c < last; ++c) {
    gpu::append_haf_root(g.roots, n0, loops, W, [&](int i, int j, int w) {
      const T x = haf::walk_entry(d, n0, orders, c, i, j);
      return w ? std::imag(x) : std::real(x);
    });
    ++g.channels;
  }
}

class GpuHafnianEngine final : public GraphEngine {
 public:
  std::string name() const override { return "gpu-hafnian"; }
  int max_n() const override { return kHafnianMaxN; }
  bool loops() const override { return true; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const override {
    return guarded(a, loops, opt, [&] { return exact(a, loops, opt); });
  }
  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    return guarded(a, loops, opt, [&] { return floating(a, loops, opt); });
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const override {
    return guarded(a, loops, opt, [&] { return floating(a, loops, opt); });
  }

 private:
  std::unique_ptr<GraphEngine> cpu_ = make_hafnian();

  /// The GPU run, or the CPU engine when it fails (a real failure is reported in one line).
  template <class T, class Run>
  auto guarded(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt, Run run_gpu) const
      -> decltype(run_gpu()) {
    return gpu_else_cpu(opt, run_gpu, [&] { return cpu_->hafnian(a, loops, opt); });
  }

  static gpu::HafResult run(gpu::HafJob& job, const char* kind, int n0, const EngineOptions& opt,
                            const std::string& what = "") {
    job.tag = walk_tag(kind, n0, job.loops, job);
    return gpu_haf::run_noted(job, opt, what);
  }

  /// Exact counts: one channel in the integers modulo 2^64, walked beside the first prime,
  /// and primes for the rest of the bound (MATCHCOUNT_HAF_RING=primes: primes alone). The
  /// channel modulo 2^64 holds the bits of two or three primes, on the integer units the
  /// prime's walk leaves idle (docs/benchmarks.md, "One walk modulo 2^64"). Where one prime of
  /// about 47 bits covers what the ring leaves, it replaces the small primes (gpu_haf::big_prime):
  /// one walk instead of two.
  static Integer exact(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) {
    const int n0 = a.rows;
    const bool ring = gpu_haf::exact_ring();
    const int m = (n0 + 1) / 2;
    const Integer bound = hafnian_bound(a, loops);
    const double big = gpu_haf::big_prime(m, bound);
    const std::vector<double> primes = big > 0 ? std::vector<double>{big} : gpu_haf::exact_primes(m, bound, ring);
    const std::vector<Integer> dense = a.dense();
    const auto entry = dense_entry(dense, n0);
    gpu::HafJob job = base_job(n0, loops, opt);
    if (ring) job.groups.push_back(gpu_haf::z64_group(n0, loops, entry));
    if (!primes.empty()) job.groups.push_back(gpu_haf::prime_group(n0, loops, primes, entry));
    gpu_haf::ring_beside_first_prime(job);
    const std::string what = !ring     ? ""
                             : big > 0 ? "modulo 2^64 and one prime of " + std::to_string(std::ilogb(big) + 1) + " bits"
                                       : "modulo 2^64 and " + std::to_string(primes.size()) + " primes";
    return gpu_haf::exact_count(run(job, ring ? "exact64" : "exact", n0, opt, what).words, primes, ring);
  }

  /// Entry (i, j) of a dense n0 x n0 block.
  static std::function<Integer(int, int)> dense_entry(const std::vector<Integer>& dense, int n0) {
    return [&dense, n0](int i, int j) { return dense[static_cast<std::size_t>(i) * n0 + static_cast<std::size_t>(j)]; };
  }

 public:
  /// The walk modulo each of `primes` (residues in [0, p)), one channel a prime.
  static std::vector<std::uint64_t> residues(const SparseMatrix<Integer>& a, bool loops, const std::vector<double>& primes,
                                             const EngineOptions& opt) {
    const int n0 = a.rows;
    const std::vector<Integer> dense = a.dense();
    gpu::HafJob job = base_job(n0, loops, opt);
    job.groups.push_back(gpu_haf::prime_group(n0, loops, primes, dense_entry(dense, n0)));
    return run(job, "exact", n0, opt).words;
  }

 private:
  /// Floats: the spread walks and, where the entries carry errors, the walk of |A|
  /// (gpu_haf::float_groups: complex spread walks and a real walk of |A| for complex blocks),
  /// the matrix in the orders of haf::float_orders (the CPU engine's), each summed exactly in
  /// fixed point.
  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt) {
    constexpr bool cplx = std::is_same_v<T, Complex>;
    const int n0 = a.rows, m = (n0 + 1) / 2;
    const std::vector<T> d = a.dense();
    const double excess = haf::hafnian_excess(a, loops, opt);
    const int walks = gpu_haf::float_walks_for(excess);
    gpu::HafJob job = base_job(n0, loops, opt);
    job.q = fixed_exponent(a, loops);
    job.groups = gpu_haf::float_groups<T>(
        [&](HafGroup& g, int first, int last, int W) {
          append_float_channels(g, d, n0, loops, haf::float_orders(n0), first, last, W);
        },
        walks);
    const gpu::HafResult r = run(job, cplx ? "complex" : "real", n0, opt);
    return gpu_haf::float_block_value(gpu_haf::float_walk_values<T>(r, job.q, walks), excess, m, job.q);
  }
};

}  // namespace

namespace gpu_haf {

bool exact_ring() { return tuning::tuning().haf_ring != 2; }

bool ring_beside_prime() { return tuning::tuning().haf_pairs != 2 && tuning::tuning().haf_ring != 3; }

double big_prime(int m, const Integer& bound) {
  if (!exact_ring() || !ring_beside_prime() || tuning::tuning().haf_ring == 4) return 0;
  if (exact_primes(m, bound, true).size() < 2) return 0;
  auto c = static_cast<std::uint64_t>(gpu::haf_big_prime_limit(m));
  c -= c % 2 == 0 ? 1 : 2;  // odd and strictly below the limit
  while (!is_prime(c)) c -= 2;
  const Integer rest = 2 * ((abs(bound) >> 64) + 1) + 1;
  return Integer(static_cast<unsigned long>(c)) > rest ? static_cast<double>(c) : 0;
}

gpu::HafGroup z64_group(int n, bool loops, const std::function<Integer(int, int)>& entry) {
  gpu::HafGroup g;
  g.arith = HafArith::Z64;
  g.channels = 1;
  gpu::append_haf_root(g.roots, n, loops, 1, [&](int i, int j, int) { return z64_bits(entry(i, j)); }, z64_bits(1));
  return g;
}

gpu::HafGroup prime_group(int n, bool loops, const std::vector<double>& primes,
                          const std::function<Integer(int, int)>& entry) {
  gpu::HafGroup g;
  g.arith = HafArith::Mod;
  g.channels = primes.size();
  for (double p : primes) {
    gpu::append_haf_root(g.roots, n, loops, 1, [&](int i, int j, int) { return symmetric_residue(entry(i, j), p); });
    g.prime.push_back(p), g.pinv.push_back(1.0 / p);
  }
  return g;
}

void ring_beside_first_prime(gpu::HafJob& job) {
  auto& gs = job.groups;
  if (gs.size() != 2 || gs[0].arith != HafArith::Z64 || gs[1].arith != HafArith::Mod) return;
  if (!ring_beside_prime()) return;
  gpu::HafGroup joined = std::move(gs[0]);
  const gpu::HafGroup& p = gs[1];
  // A lone prime above 2^32 is big_prime's (small primes lie below 2^30, haf::prime_bits; large
  // ones above 2^46): its products are reduced one by one.
  joined.arith = p.channels == 1 && p.prime[0] > 0x1p32 ? HafArith::Z64Big : HafArith::Z64Mod;
  joined.channels += p.channels;
  const auto append = [](std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(joined.roots, p.roots);
  append(joined.rpt_weights, p.rpt_weights);
  joined.prime.assign(1, 0.0), joined.pinv.assign(1, 0.0);
  append(joined.prime, p.prime);
  append(joined.pinv, p.pinv);
  gs.assign(1, std::move(joined));
}

Integer exact_count(const std::vector<std::uint64_t>& words, const std::vector<double>& primes, bool ring) {
  const std::vector<std::uint64_t> ps(primes.begin(), primes.end());
  if (!ring) return crt_symmetric(words, ps);
  return crt_symmetric_2_64(words.at(0), std::vector<std::uint64_t>(words.begin() + 1, words.end()), ps);
}

gpu::HafJob base_job(int n0, bool loops, const EngineOptions& opt) {
  gpu::HafJob job;
  job.n = n0 + n0 % 2;
  job.loops = loops;
  job.walk_fmas = hafnian_work(n0, loops);
  job.shared_kb = tuning::tuning().haf_shared_kb;
  job.task_block = tuning::tuning().haf_task_block;
  job.pair_channels = tuning::tuning().haf_pairs != 2;
  job.verbose = tuning::tuning().gpu_verbose;
  job.gpus = opt.gpus;
  job.progress = opt.progress;
  job.journal = opt.journal;
  job.team = opt.team;
  return job;
}

gpu::HafResult run_noted(const gpu::HafJob& job, const EngineOptions& opt, const std::string& what) {
  gpu::HafResult r = gpu::run_hafnian_walk(job);
  if (opt.stats) {
    opt.stats->device = "gpu";
    opt.stats->kernel = "generic";
    std::string note = what + (what.empty() ? "" : "; ") + "frames of up to " + std::to_string(2 * r.shared_levels) +
                       " vertices in shared memory";
    if (r.units_per_device.size() > 1) {
      note += "; " + std::to_string(r.units_per_device.size()) + " GPUs took";
      for (std::size_t d = 0; d < r.units_per_device.size(); ++d)
        note += (d ? " + " : " ") + std::to_string(r.units_per_device[d]);
      note += " units";
    }
    if (!r.units_by_rank.empty()) note += "; " + cluster::ranks_note(r.units_by_rank);
    if (!r.note.empty()) note += "; " + r.note;
    opt.stats->note = note;
  }
  return r;
}

}  // namespace gpu_haf

double gpu_hafnian_seconds(int n, double channels, bool loops) {
  // The rate of one prime's walk on one H200, fitted to the exact walks of primes alone at
  // n = 50-64 (docs/benchmarks.md, "The GPU hafnian's cost model").
  constexpr double kFmasPerSecond = 2.0e12, kStart = 0.15;
  return kStart + hafnian_work(n, loops) * channels / kFmasPerSecond;
}

double gpu_hafnian_exact_channels(const SparseMatrix<Integer>& a, bool loops) {
  return gpu_hafnian_exact_channels(a.rows, hafnian_bound(a, loops));
}

double gpu_hafnian_exact_channels(int n, const Integer& bound) {
  // The walk modulo 2^64 takes the time of 1.7 primes' walks (wrapping 64-bit products are
  // several integer instructions each), and with the first prime beside it 2.15 (the same
  // section of docs/benchmarks.md); beside a prime of 47 bits 2.7 ("A prime of 47 bits beside
  // the channel modulo 2^64").
  constexpr double kRingPrimes = 1.7, kRingBesidePrime = 2.15, kRingBesideBigPrime = 2.7;
  const bool ring = gpu_haf::exact_ring();
  if (gpu_haf::big_prime((n + 1) / 2, bound) > 0) return kRingBesideBigPrime;
  const double primes = double(gpu_haf::exact_primes((n + 1) / 2, bound, ring).size());
  if (!ring) return primes;
  if (primes > 0 && gpu_haf::ring_beside_prime()) return kRingBesidePrime + primes - 1;
  return kRingPrimes + primes;
}

std::unique_ptr<GraphEngine> make_gpu_hafnian() { return std::make_unique<GpuHafnianEngine>(); }

std::vector<std::uint64_t> gpu_hafnian_residues(const SparseMatrix<Integer>& a, bool loops, const std::vector<double>& primes,
                                                const EngineOptions& opt) {
  const int bits = haf::prime_bits((a.rows + 1) / 2);
  for (double p : primes)
    if (p < 3 || p >= std::ldexp(1.0, bits) || !is_prime(static_cast<std::uint64_t>(p)))
      throw UsageError("GPU hafnian residues: " + std::to_string(static_cast<std::uint64_t>(p)) +
                       " is not a prime below 2^" + std::to_string(bits));
  if (a.rows != a.cols || a.rows < 1 || a.rows > kHafnianMaxN)
    throw UsageError("GPU hafnian residues: need a square block of 1.." + std::to_string(kHafnianMaxN) + " rows");
  return GpuHafnianEngine::residues(a, loops, primes, opt);
}

template <class T>
std::vector<Approx<T>> gpu_hafnian_batch(const std::vector<SparseMatrix<T>>& blocks, bool loops, const EngineOptions& opt) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  std::vector<Approx<T>> out;
  if (blocks.empty()) return out;
  const int n0 = blocks[0].rows, m = (n0 + 1) / 2, n = n0 + n0 % 2, W = cplx ? 2 : 1;
  for (const auto& b : blocks)
    if (b.rows != n0) throw std::invalid_argument("gpu_hafnian_batch: blocks of one size");
  std::vector<double> excess(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) excess[b] = haf::hafnian_excess(blocks[b], loops, opt);
  // Small matrices walk one (matrix, order) channel a thread, or expand along the first vertex
  // (gpu_hafnian_lanes.cpp): a warp's walk of one small hafnian idles most of its lanes
  // (docs/gpu.md, "Batches of small hafnians").
  if (n <= gpu::kHafLaneMaxN && tuning::tuning().haf_batch != 2) {
    const std::size_t per = gpu::HafLaneJob::root_values(n, loops) * static_cast<std::size_t>(W);
    gpu::LaneRootBuffer roots(blocks.size() * per);
    const int q = gpu_haf::write_lane_roots(blocks.size(), n0, loops, W, per, roots.data(), [&](std::size_t b, double* root) {
      const std::vector<T> d = blocks[b].dense();
      gpu::write_lane_root(root, n0, loops, W, [&](int r, int c, int w) {
        const T x = d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n0) + static_cast<std::size_t>(c)];
        return w ? std::imag(x) : std::real(x);
      });
    }, !gpu_haf::expansion_takes(n, loops));
    return gpu_haf::lane_hafnians<T>(n0, loops, blocks.size(), roots.data(), q, excess);
  }
  const auto orders = haf::float_orders(n0);
  // Every matrix's kFloatWalks orders are channels of one walk (at most 65535 channels a
  // launch's grid holds); the fixed point covers the largest of the batch.
  constexpr std::size_t kPerJob = 65535 / haf::kFloatWalks;
  for (std::size_t first = 0; first < blocks.size(); first += kPerJob) {
    const std::size_t count = std::min(kPerJob, blocks.size() - first);
    int q = std::numeric_limits<int>::min();
    for (std::size_t b = first; b < first + count; ++b) q = std::max(q, fixed_exponent(blocks[b], loops));
    EngineOptions o = opt;
    o.journal = nullptr, o.team = nullptr;
    gpu::HafJob job = base_job(n0, loops, o);
    job.q = q;
    gpu::HafGroup g;
    g.arith = cplx ? gpu::HafArith::Complex : gpu::HafArith::Real;
    for (std::size_t b = first; b < first + count; ++b)
      append_float_channels(g, blocks[b].dense(), n0, loops, orders, 0, haf::kFloatWalks, W);
    job.groups = {g};
    job.tag = "gpu-hafnian-batch";
    const gpu::HafResult r = gpu::run_hafnian_walk(job);
    const std::size_t words = gpu::haf_channel_words(g.arith);
    out.resize(first + count);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < static_cast<long long>(count); ++i) {
      const std::size_t b = static_cast<std::size_t>(i);
      std::vector<T> walks;
      for (int c = 0; c < haf::kFloatWalks; ++c)
        walks.push_back(channel_value<T>(r, b * haf::kFloatWalks + static_cast<std::size_t>(c), words, q));
      out[first + b] = gpu_haf::float_block_value(walks, excess[first + b], m, q);
    }
  }
  return out;
}
template std::vector<Approx<double>> gpu_hafnian_batch(const std::vector<SparseMatrix<double>>&, bool, const EngineOptions&);
template std::vector<Approx<Complex>> gpu_hafnian_batch(const std::vector<SparseMatrix<Complex>>&, bool, const EngineOptions&);

}  // namespace matchcount::engines
