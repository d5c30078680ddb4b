// The GPU frontier engine: the CPU engine's row order and steps (frontier_order.cpp), run on a
// CUDA device over dense tables of all p-subsets of the open columns (src/engines/frontier/cuda/frontier_launch.cu),
// exact modulo primes with CRT on the host. Real and complex blocks, and any block whose GPU run
// fails, are counted by the CPU frontier engine.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "engines/common.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/frontier/cuda/frontier_job.hpp"
#include "engines/gpu_common.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::engines {
namespace {

// The time model (docs/engines.md): every row writes its table and gathers one source per
// valid (state, move) pair, 8 bytes a prime, at an effective bandwidth (calibrated in
// docs/benchmarks.md, "GPU frontier DP on one H100"); plus a launch per row and pass, and the
// CUDA context and allocations.
constexpr double kGpuFrontierBandwidth = 1.0e12, kGpuFrontierLaunch = 2e-5, kGpuFrontierOverhead = 0.3;

FrontierPlan checked_plan(const SparseMatrix<Integer>& a) {
  FrontierPlan plan = plan_frontier(pattern_of(a), a.rows);
  if (plan.width > kFrontierMaxWidth)
    throw RefusedError("gpu-frontier: the best row order found has frontier width " + std::to_string(plan.width) +
                       ", more than the " + std::to_string(kFrontierMaxWidth) + " columns a state key holds");
  return plan;
}

class GpuFrontierEngine final : public Engine {
 public:
  std::string name() const override { return "gpu-frontier"; }
  int max_n() const override { return 1 << 20; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    try {
      return gpu_frontier_permanent(a, opt, 0);
    } catch (const GpuError& e) {
      if (opt.stats) opt.stats->note = std::string("GPU failed, counted on the CPU: ") + e.what();
      if (gpu_available()) std::fprintf(stderr, "matchcount: warning: GPU failed (%s); counting on the CPU\n", e.what());
      return cpu_->permanent(a, opt);
    }
  }
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return cpu_->permanent(a, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return cpu_->permanent(a, opt);
  }

 private:
  std::unique_ptr<Engine> cpu_ = make_frontier();
};

}  // namespace

std::vector<gpu::FrontierRowDesc> gpu_frontier_rows(const std::vector<FrontierStep>& steps) {
  std::vector<gpu::FrontierRowDesc> rows;
  int w = 0, p = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const FrontierStep& st = steps[k];
    gpu::FrontierRowDesc r;
    r.w_old = w, r.p_old = p;
    // The new layout is the next row's old one: its kept plus its closing columns.
    r.w_new = k + 1 < steps.size() ? steps[k + 1].kept + int(steps[k + 1].close_asc.size()) : 0;
    bool open_close = false;  // a column opening and closing at this row (then its move is the only one)
    for (const auto& m : st.moves) {
      open_close = open_close || (m.cbit == 0 && m.add == 0);
      r.moves.push_back({m.add, m.cbit, m.entry});
    }
    r.p_new = p + 1 - int(st.close_asc.size()) - (open_close ? 1 : 0);
    if (st.moves.empty() || r.p_new < 0 || r.p_new > r.w_new) return {};
    r.low = (FrontierKey{1} << st.kept) - 1;
    r.close_asc = st.close_asc;
    w = r.w_new, p = r.p_new;
    rows.push_back(std::move(r));
  }
  return rows;
}

Integer gpu_frontier_permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt, std::size_t max_primes_per_pass) {
  check_block(a, "gpu-frontier", 1 << 20);
  if (a.rows == 0) return 1;
  if (has_empty_line(a)) return 0;
  const FrontierPlan plan = checked_plan(a);
  gpu::FrontierJob job;
  job.rows = gpu_frontier_rows(frontier_steps(a, plan));
  if (job.rows.empty()) return 0;
  job.primes = choose_primes(permanent_bound(a));
  for (const auto& e : a.entries)
    for (double p : job.primes) job.residues.push_back(residue_of(e.value, p));
  job.max_primes_per_pass = max_primes_per_pass;
  job.progress = opt.progress;
  const gpu::FrontierResult r = gpu::run_frontier(job);
  return frontier_dp_result(opt, r.passes, r.primes_per_pass, r.table_gib, plan.width, r.run_seconds, job.primes, r.values);
}

double gpu_frontier_seconds(const SparseMatrix<Integer>& a, const FrontierPlan& plan, double primes, double device_gib) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (plan.width > kFrontierMaxWidth || primes < 1) return inf;
  const auto rows = gpu_frontier_rows(frontier_steps(a, plan));
  if (rows.empty()) return kGpuFrontierOverhead;
  const double per_prime = gpu::frontier_bytes_per_prime(rows);
  const double fit = std::min(128.0, std::floor((device_gib * 0.95 - 0.5) * double(1u << 30) / per_prime));
  if (fit < 1) return inf;
  const double passes = std::ceil(primes / fit), G = std::ceil(primes / passes);
  const double stride = G <= 2 ? G : G <= 4 ? 4 : std::ceil(G / 4) * 4;
  double bytes = 0;
  for (const auto& r : rows) {
    const int kept = std::popcount(r.low);
    double pairs = 0;  // valid (destination, move) pairs: one gather each
    for (const auto& m : r.moves)
      pairs += m.need == 0 ? binomial(kept, r.p_new) : (m.need & r.low) ? binomial(kept - 1, r.p_new - 1) : binomial(kept, r.p_new - 1);
    if (binomial(r.w_new, r.p_new) > 0x1p32) return inf;
    bytes += 8 * (binomial(r.w_new, r.p_new) * stride + pairs * G);
  }
  return passes * (bytes / kGpuFrontierBandwidth + double(rows.size()) * kGpuFrontierLaunch) + kGpuFrontierOverhead;
}

std::unique_ptr<Engine> make_gpu_frontier() { return std::make_unique<GpuFrontierEngine>(); }

}  // namespace matchcount::engines
