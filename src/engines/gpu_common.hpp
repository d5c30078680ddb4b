// Host helpers shared by the GPU engines (gpu-ryser, gpu-skipper, gpu-graph-frontier): the CPU
// fallback around a GPU run, and reading the kernels' exact fixed-point sums.
#pragma once

#include <gmpxx.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "engines/common.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::engines {

constexpr int kGpuMinN = 8;  // smaller blocks are not worth a launch: the CPU engine counts them
constexpr int kLimbs = 8;    // as mcgpu::kLimbs in src/cuda/device_arith.cuh

/// Runs `run_gpu`, or `run_cpu` when the GPU run fails. A real failure is reported on stderr
/// in one line; with no device at all the block quietly goes to the CPU (the stats say so), as
/// on every machine without a GPU.
template <class Run, class Cpu>
auto gpu_else_cpu(const EngineOptions& opt, Run run_gpu, Cpu run_cpu) -> decltype(run_gpu()) {
  try {
    return run_gpu();
  } catch (const GpuError& e) {
    if (opt.stats) opt.stats->note = std::string("GPU failed, counted on the CPU: ") + e.what();
    if (gpu_available()) std::fprintf(stderr, "matchcount: warning: GPU failed (%s); counting on the CPU\n", e.what());
    return run_cpu();
  }
}

/// Runs `run_gpu` for block `a`, or counts the block with the CPU engine `cpu`: small blocks
/// and any block whose GPU run fails (gpu_else_cpu).
template <class T, class Run>
auto gpu_or_cpu(const Engine& cpu, const SparseMatrix<T>& a, const EngineOptions& opt, Run run_gpu)
    -> decltype(run_gpu()) {
  if (a.rows < kGpuMinN) return cpu.permanent(a, opt);
  return gpu_else_cpu(opt, run_gpu, [&] { return cpu.permanent(a, opt); });
}

/// The end of a frontier DP on the device (gpu-frontier, gpu-graph-frontier): the stats note
/// and the integer whose residues (doubles in (-p, p)) the DP left, by CRT.
inline Integer frontier_dp_result(const EngineOptions& opt, std::size_t passes, std::size_t primes_per_pass,
                                  double table_gib, int width, double run_seconds, const std::vector<double>& primes,
                                  const std::vector<double>& values) {
  if (opt.stats) {
    opt.stats->device = "gpu";
    opt.stats->kernel = "generic";
    opt.stats->note = std::to_string(passes) + " pass(es) of " + std::to_string(primes_per_pass) + " primes, " +
                      three_digits(table_gib) + " GiB of tables, width " + std::to_string(width) + ", kernels " +
                      three_digits(run_seconds) + " s";
  }
  std::vector<std::uint64_t> residues, ps;
  for (std::size_t k = 0; k < primes.size(); ++k) {
    ps.push_back(std::uint64_t(primes[k]));
    residues.push_back(to_residue(values[k], ps.back()));
  }
  return crt_symmetric(residues, ps);
}

/// The 512-bit two's-complement integer at `w` (kLimbs words, least significant first).
inline Integer fixed_at(const std::uint64_t* w) {
  Integer v;
  mpz_import(v.get_mpz_t(), kLimbs, -1, sizeof(std::uint64_t), 0, 0, w);
  if (w[kLimbs - 1] >> 63) v -= Integer(1) << (64 * kLimbs);
  return v;
}

/// The double stored in the word at `w` (sums of |terms|, for error bounds).
inline double double_at(const std::uint64_t* w) {
  double v;
  std::memcpy(&v, w, sizeof v);
  return v;
}

/// x * 2^e as a double, rounded once.
inline double scaled(const Integer& x, long e) {
  long ex = 0;
  const double d = mpz_get_d_2exp(&ex, x.get_mpz_t());
  return std::ldexp(d, static_cast<int>(ex + e));
}

}  // namespace matchcount::engines
