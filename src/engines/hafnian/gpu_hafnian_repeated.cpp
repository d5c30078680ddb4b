// Repeated-row hafnians on CUDA devices: the walk over repeated pair types of haf_rpt_walk.hpp
// as the GPU hafnian walk runs it (cuda/haf_kernel.cuh, walk_rpt_range), from the same
// expanded root as the CPU walk (haf_rpt_layout.hpp). Exact counts walk modulo the CPU walk's
// primes; floats walk its four lanes as channels and sum the leaves exactly in fixed point.
// The work units are ranges of leaves, so --gpus, checkpoints and MPI ranks share them.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/hashing.hpp"
#include "engines/common.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/haf_rpt_layout.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"

namespace matchcount::engines {
namespace {

using gpu::HafArith;
using gpu::HafGroup;
using haf::RptLayout;

RptLayout checked_layout(const std::vector<std::uint64_t>& rpt, bool loops) {
  RptLayout L = haf::layout_of(rpt, loops);
  if (L.vertices > kRepeatedGpuMaxVertices)
    throw GpuError("the GPU walk takes patterns of up to " + std::to_string(kRepeatedGpuMaxVertices) + " photons");
  return L;
}

/// One channel's lane factors (-1)^(r - k) C(r, k) for every type and k, through `reduce`.
template <class Reduce>
void append_weights(std::vector<double>& out, const PairTypes& types, Reduce reduce) {
  for (int r : types.mult)
    for (int k = 0; k <= r; ++k) {
      Integer binom;
      mpz_bin_uiui(binom.get_mpz_t(), static_cast<unsigned long>(r), static_cast<unsigned long>(k));
      out.push_back(reduce((r - k) % 2 ? Integer(-binom) : binom));
    }
}

gpu::HafJob rpt_job(const RptLayout& L, bool loops, const EngineOptions& opt) {
  gpu::HafJob job = gpu_haf::base_job(L.vertices, loops, opt);
  job.walk_fmas = haf::rpt_walk_work(L.types, L.vertices);
  job.rpt_mult = L.types.mult;
  return job;
}

/// The walk's name in a checkpoint's journal and among MPI ranks: the pattern, the roots and
/// the weights.
std::string rpt_tag(const char* kind, const RptLayout& L, const gpu::HafJob& job) {
  std::uint64_t h = fnv1a64(job.rpt_mult.data(), job.rpt_mult.size() * sizeof(int), 0xcbf29ce484222325ULL);
  for (const HafGroup& g : job.groups) {
    h = fnv1a64(g.roots.data(), g.roots.size() * sizeof(double), h);
    h = fnv1a64(g.prime.data(), g.prime.size() * sizeof(double), h);
    h = fnv1a64(g.rpt_weights.data(), g.rpt_weights.size() * sizeof(double), h);
  }
  h = fnv1a64(&job.q, sizeof job.q, h);
  char buf[200];
  std::snprintf(buf, sizeof buf, "gpu-hafnian-rpt/%s/N=%d/types=%zu/units=%llu/input=%016llx", kind, L.vertices,
                L.types.mult.size(), static_cast<unsigned long long>(gpu::haf_rpt_units(job.rpt_mult)),
                static_cast<unsigned long long>(h));
  return buf;
}

std::string what(const RptLayout& L) {
  char buf[120];
  std::snprintf(buf, sizeof buf, "the walk over repeated pair types, %.4g leaves", L.types.leaves());
  return buf;
}

template <class T>
Approx<T> floating(const RepeatedHafnian<T>& in, const EngineOptions& opt) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  const RptLayout L = checked_layout(in.rpt, in.loops);
  gpu::HafJob job = rpt_job(L, in.loops, opt);
  job.groups = gpu_haf::float_groups<T>([&](HafGroup& g, int first, int last, int W) {
    for (int lane = first; lane < last; ++lane) {
      gpu::append_haf_root(g.roots, L.vertices, in.loops, W, [&](int i, int j, int w) {
        const T x = haf::rpt_lane_entry(in, L, lane, i, j);
        return w ? std::imag(x) : std::real(x);
      });
      append_weights(g.rpt_weights, L.types, [](const Integer& w) { return w.get_d(); });
      ++g.channels;
    }
  });
  double max_row = 0, max_loop = 0;  // over every lane's expanded matrix
  for (int lane = 0; lane < haf::kFloatWalks; ++lane) {
    for (int i = 0; i < L.vertices; ++i) {
      double row = 0;
      for (int j = 0; j < L.vertices; ++j)
        if (j != i) row += std::abs(haf::rpt_lane_entry(in, L, lane, i, j));
      max_row = std::max(max_row, row);
      if (in.loops) max_loop = std::max(max_loop, std::abs(haf::rpt_lane_entry(in, L, lane, i, i)));
    }
  }
  job.q = gpu_haf::fixed_exponent(L.vertices / 2, gpu_haf::walk_rho(max_row, max_loop, in.loops));
  job.tag = rpt_tag(cplx ? "complex" : "real", L, job);
  const gpu::HafResult r = gpu_haf::run_noted(job, opt, what(L));
  std::vector<T> walks = gpu_haf::float_walk_values<T>(r, job.q);
  double widest = 1;  // the largest 1 / lane factor, by which a lane's truncations grow
  for (int lane = 0; lane < haf::kFloatWalks; ++lane) {
    const double f = haf::rpt_lane_factor(in, lane);
    walks[static_cast<std::size_t>(lane)] /= f;
    widest = std::max(widest, 1 / f);
  }
  Approx<T> e = haf::float_estimate(walks, haf::rpt_excess(L));
  // Each leaf's value is truncated to a multiple of 2^q.
  e.abs_error += L.types.leaves() * std::ldexp(widest, job.q);
  return e;
}

}  // namespace

Integer gpu_hafnian_rpt_walk(const RepeatedHafnian<Integer>& in, const EngineOptions& opt) {
  const RptLayout L = checked_layout(in.rpt, in.loops);
  // As gpu-hafnian's exact walks: one channel modulo 2^64 and primes for the rest of the bound
  // (MATCHCOUNT_HAF_RING=primes: primes alone). The channel modulo 2^64 walks alone here: beside
  // the first prime (gpu_haf::ring_beside_first_prime) it gained nothing on this walk
  // (docs/benchmarks.md, "The channel modulo 2^64 beside a prime").
  const bool ring = gpu_haf::exact_ring();
  const std::vector<double> primes = gpu_haf::exact_primes(L.vertices / 2, haf::bound_of(in), ring);
  const auto entry = [&](int i, int j) {
    const int mi = L.mode[static_cast<std::size_t>(i)], mj = L.mode[static_cast<std::size_t>(j)];
    return i == j ? haf::rpt_loop_weight(in, mi) : haf::rpt_entry(in, mi, mj);
  };
  gpu::HafJob job = rpt_job(L, in.loops, opt);
  if (ring) {
    HafGroup z = gpu_haf::z64_group(L.vertices, in.loops, entry);
    append_weights(z.rpt_weights, L.types, [](const Integer& w) { return gpu_haf::z64_bits(w); });
    job.groups.push_back(std::move(z));
  }
  if (!primes.empty()) {
    HafGroup g = gpu_haf::prime_group(L.vertices, in.loops, primes, entry);
    for (double p : primes)
      append_weights(g.rpt_weights, L.types, [p](const Integer& w) { return gpu_haf::symmetric_residue(w, p); });
    job.groups.push_back(std::move(g));
  }
  job.tag = rpt_tag(ring ? "exact64" : "exact", L, job);
  const gpu::HafResult r = gpu_haf::run_noted(job, opt, what(L));
  return gpu_haf::exact_count(r.words, primes, ring);
}

Approx<double> gpu_hafnian_rpt_walk(const RepeatedHafnian<double>& in, const EngineOptions& opt) { return floating(in, opt); }
Approx<Complex> gpu_hafnian_rpt_walk(const RepeatedHafnian<Complex>& in, const EngineOptions& opt) { return floating(in, opt); }

double hafnian_repeated_gpu_seconds(const PairTypes& p, double channels) {
  // The repeated walk's own rate (docs/benchmarks.md, "Repeated-row hafnians on the GPU"): it
  // keeps every degree, so gpu_hafnian_seconds' rate does not carry over.
  constexpr double kFmasPerSecond = 8e11, kStart = 0.15;
  double vertices = 0;
  for (int m : p.mult) vertices += 2.0 * m;
  return kStart + haf::rpt_walk_work(p, vertices) * std::max(channels, 1.0) / kFmasPerSecond;
}

}  // namespace matchcount::engines
