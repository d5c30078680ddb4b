// The "gpu-hafnian" engine: the CPU engine's recursion tree (haf_walk.hpp) on CUDA devices
// (cuda/haf_kernel.cuh), in the runtime's work units. Exact counts walk once per small prime
// (the CPU engine's primes, so both give the same residues); floats walk the matrix in the CPU
// engine's four vertex orders (their spread is the error estimate) and sum the leaves exactly in
// fixed point, so the value has the same bits on any number of devices or ranks. A CUDA failure is reported in one line and the block is counted on the CPU.
#include <cmath>
#include <cstdio>

#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/gpu_common.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "runtime/team.hpp"

namespace matchcount::engines {
namespace {

using gpu::HafArith;
using gpu::HafGroup;

/// The fixed-point exponent: every partial sum of a float walk is below 2^(q+510). A leaf
/// is at most its walk over |A|, at most C(m + |P| - 1, m) rho^m <= 4^m rho^m, rho the largest row
/// sum of |A| plus the largest loop (each b coefficient counts walks of k edges, at most
/// rho^k), and there are 2^m leaves; the margin covers rounding.
template <class T>
int fixed_exponent(const SparseMatrix<T>& a, bool loops) {
  std::vector<double> row(static_cast<std::size_t>(a.rows));
  double diag = 0;
  for (const auto& e : a.entries) {
    if (e.row == e.col) diag = std::max(diag, std::abs(e.value));
    else row[static_cast<std::size_t>(e.row)] += std::abs(e.value);
  }
  double rho = loops ? diag + 1 : 0;
  for (double r : row) rho = std::max(rho, r);
  const int m = (a.rows + 1) / 2;
  return static_cast<int>(std::ceil(m * (3 + std::log2(rho)))) + 8 - 510;
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

  static gpu::HafJob base_job(int n0, bool loops, const EngineOptions& opt) {
    gpu::HafJob job;
    job.n = n0 + n0 % 2;
    job.loops = loops;
    job.walk_fmas = hafnian_work(n0, loops);
    job.shared_kb = tuning::tuning().haf_shared_kb;
    job.verbose = tuning::tuning().gpu_verbose;
    job.gpus = opt.gpus;
    job.progress = opt.progress;
    job.journal = opt.journal;
    job.team = opt.team;
    return job;
  }

  static gpu::HafResult run(gpu::HafJob& job, const char* kind, int n0, const EngineOptions& opt) {
    job.tag = walk_tag(kind, n0, job.loops, job);
    gpu::HafResult r = gpu::run_hafnian_walk(job);
    if (opt.stats) {
      opt.stats->device = "gpu";
      opt.stats->kernel = "generic";
      std::string note = "frames of up to " + std::to_string(2 * r.shared_levels) + " vertices in shared memory";
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

  static Integer exact(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) {
    const int n0 = a.rows;
    const std::vector<double> primes = haf::primes_for(a, loops);
    const std::vector<Integer> dense = a.dense();
    gpu::HafJob job = base_job(n0, loops, opt);
    HafGroup g;
    g.arith = HafArith::Mod;
    g.channels = primes.size();
    for (double p : primes) {
      gpu::append_haf_root(g.roots, n0, loops, 1, [&](int i, int j, int) {
        const double x = residue_of(dense[static_cast<std::size_t>(i) * n0 + static_cast<std::size_t>(j)], p);
        return x > p / 2 ? x - p : x;
      });
      g.prime.push_back(p), g.pinv.push_back(1.0 / p);
    }
    job.groups.push_back(std::move(g));
    const gpu::HafResult r = run(job, "exact", n0, opt);
    std::vector<std::uint64_t> ps;
    for (double p : primes) ps.push_back(static_cast<std::uint64_t>(p));
    return crt_symmetric(r.words, ps);
  }

  /// Floats: one group of haf::kFloatWalks channels, the matrix in the orders of
  /// haf::float_orders (the CPU engine's), each summed exactly in fixed point.
  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt) {
    constexpr bool cplx = std::is_same_v<T, Complex>;
    const int n0 = a.rows, m = (n0 + 1) / 2;
    const std::vector<T> d = a.dense();
    gpu::HafJob job = base_job(n0, loops, opt);
    job.q = fixed_exponent(a, loops);
    HafGroup g;
    g.arith = cplx ? HafArith::Complex : HafArith::Real;
    const auto orders = haf::float_orders(n0);
    for (int c = 0; c < haf::kFloatWalks; ++c) {
      gpu::append_haf_root(g.roots, n0, loops, cplx ? 2 : 1, [&](int i, int j, int w) {
        const T x = haf::walk_entry(d, n0, orders, c, i, j);
        return w ? std::imag(x) : std::real(x);
      });
      ++g.channels;
    }
    job.groups = {g};
    const gpu::HafResult r = run(job, cplx ? "complex" : "real", n0, opt);
    const long q = job.q;
    const std::size_t words = gpu::haf_channel_words(g.arith);
    std::vector<T> walks;
    for (std::size_t c = 0; c < g.channels; ++c) {
      const std::uint64_t* w = &r.words[c * words];
      if constexpr (cplx) walks.emplace_back(scaled(fixed_at(w), q), scaled(fixed_at(w + kLimbs), q));
      else walks.push_back(scaled(fixed_at(w), q));
    }
    Approx<T> e = haf::float_estimate(walks, haf::hafnian_excess(a, loops, opt));
    // Each leaf pair's value is truncated to a multiple of 2^q (2^(m-1) of them).
    e.abs_error += std::ldexp(1.0, static_cast<int>(m + q));
    return e;
  }
};

}  // namespace

double gpu_hafnian_seconds(int n, double channels, bool loops) {
  constexpr double kFmasPerSecond = 8e11, kStart = 0.15;
  return kStart + hafnian_work(n, loops) * channels / kFmasPerSecond;
}

std::unique_ptr<GraphEngine> make_gpu_hafnian() { return std::make_unique<GpuHafnianEngine>(); }

}  // namespace matchcount::engines
