// The GPU graph frontier engine: the CPU engine's vertex order and steps (graph_frontier_order.cpp)
// run on CUDA devices over the same dense tables (cuda/graph_frontier_launch.cu), exact modulo
// the same primes with CRT on the host, so the count is the CPU engine's integer; several
// devices share the primes. Real and
// complex blocks, small blocks and any block whose GPU run fails are counted by the CPU engine.
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/arith.hpp"
#include "cuda/prime_passes.hpp"
#include "engines/common.hpp"
#include "engines/gpu_common.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::engines {
namespace {

// The time model (docs/engines.md): every vertex writes its table and gathers its sources,
// 8 bytes a prime, at an effective bandwidth (the bipartite GPU frontier's, measured in
// docs/benchmarks.md, "GPU frontier DP on one H100"); plus a launch per vertex and pass, and the
// CUDA context and allocations.
constexpr double kBandwidth = 1.0e12, kLaunch = 2e-5, kOverhead = 0.3;

class GpuGraphFrontierEngine final : public GraphEngine {
 public:
  std::string name() const override { return "gpu-graph-frontier"; }
  int max_n() const override { return 1 << 20; }
  bool loops() const override { return true; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const override {
    auto cpu = [&] { return cpu_->hafnian(a, loops, opt); };
    if (a.rows < kGpuMinN) return cpu();  // not worth a context
    return gpu_else_cpu(opt, [&] { return gpu_graph_frontier_hafnian(a, loops, opt, 0); }, cpu);
  }
  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    return cpu_->hafnian(a, loops, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const override {
    return cpu_->hafnian(a, loops, opt);
  }

 private:
  std::unique_ptr<GraphEngine> cpu_ = make_graph_frontier();
};

/// The job on the first `gpus` devices (0: all): the primes are independent, so each device
/// takes an equal share of them in passes of its own, in a thread of its own; the values come
/// back in the primes' order. Progress is the devices' mean fraction.
gpu::GraphFrontierResult run_on_devices(const gpu::GraphFrontierJob& job, int gpus) {
  const int visible = static_cast<int>(gpu_devices().size());
  const std::size_t K = job.primes.size();
  const int D = static_cast<int>(std::min<std::size_t>(K, std::size_t(std::max(1, gpus > 0 ? std::min(gpus, visible) : visible))));
  if (D <= 1) return gpu::run_graph_frontier(job);
  const std::size_t E = job.residues.size() / K;
  std::vector<gpu::GraphFrontierResult> parts(static_cast<std::size_t>(D));
  std::vector<std::exception_ptr> failed(static_cast<std::size_t>(D));
  std::vector<double> fraction(static_cast<std::size_t>(D), 0.0);
  std::mutex progress_mutex;
  std::vector<std::thread> threads;
  for (int d = 0; d < D; ++d)
    threads.emplace_back([&, d] {
      const std::size_t k0 = K * std::size_t(d) / std::size_t(D), k1 = K * std::size_t(d + 1) / std::size_t(D);
      gpu::GraphFrontierJob mine;
      mine.steps = job.steps, mine.loops = job.loops, mine.unit = job.unit;
      mine.max_primes_per_pass = job.max_primes_per_pass;
      mine.device = d;
      mine.primes.assign(job.primes.begin() + std::ptrdiff_t(k0), job.primes.begin() + std::ptrdiff_t(k1));
      for (std::size_t e = 0; e < E && !job.residues.empty(); ++e)
        for (std::size_t k = k0; k < k1; ++k) mine.residues.push_back(job.residues[e * K + k]);
      if (job.progress)
        mine.progress = [&, d](double f) {
          std::lock_guard<std::mutex> lock(progress_mutex);
          fraction[static_cast<std::size_t>(d)] = f;
          double sum = 0;
          for (double x : fraction) sum += x;
          job.progress(sum / double(D));
        };
      try {
        parts[static_cast<std::size_t>(d)] = gpu::run_graph_frontier(mine);
      } catch (...) {
        failed[static_cast<std::size_t>(d)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  gpu::GraphFrontierResult out;
  for (const auto& p : parts) {
    out.values.insert(out.values.end(), p.values.begin(), p.values.end());
    out.passes = std::max(out.passes, p.passes), out.primes_per_pass = std::max(out.primes_per_pass, p.primes_per_pass);
    out.table_gib = std::max(out.table_gib, p.table_gib), out.run_seconds = std::max(out.run_seconds, p.run_seconds);
  }
  return out;
}

}  // namespace

Integer gpu_graph_frontier_hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt,
                                   std::size_t max_primes_per_pass) {
  if (a.rows == 0) return 1;
  std::vector<std::pair<int, int>> pattern;
  pattern.reserve(a.entries.size());
  for (const auto& e : a.entries)
    if (e.row != e.col) pattern.emplace_back(e.row, e.col);
  const GraphFrontierPlan plan = plan_graph_frontier(pattern, a.rows);
  if (plan.width > kGraphFrontierMaxWidth)
    throw RefusedError("gpu-graph-frontier: the best vertex order found has frontier width " + std::to_string(plan.width) +
                       ", more than the " + std::to_string(kGraphFrontierMaxWidth) + " vertices a state holds");
  gpu::GraphFrontierJob job;
  job.steps = graph_frontier_steps(a, loops, plan);
  if (graph_frontier_detail::graph_steps_dead(job.steps, loops)) return 0;
  job.loops = loops;
  job.unit = std::all_of(a.entries.begin(), a.entries.end(),
                         [&](const auto& e) { return (!loops && e.row == e.col) || e.value == 1; });
  job.primes = choose_primes(hafnian_bound(a, loops));
  if (!job.unit)  // 0-1 blocks only add: no residues to read
    for (const auto& e : a.entries)
      for (double p : job.primes) job.residues.push_back(residue_of(e.value, p));
  job.max_primes_per_pass = max_primes_per_pass;
  job.progress = opt.progress;
  const gpu::GraphFrontierResult r = run_on_devices(job, opt.gpus);
  return frontier_dp_result(opt, r.passes, r.primes_per_pass, r.table_gib, plan.width, r.run_seconds, job.primes, r.values);
}

double gpu_graph_frontier_seconds(const GraphFrontierPlan& plan, int n, double primes, bool loops, double device_gib) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (plan.width > kGraphFrontierMaxWidth || !std::isfinite(plan.cost) || primes < 1) return inf;
  const double scale = loops ? 2 : 1;  // with loops every table doubles
  const double per_prime = 8 * plan.peak_states * scale;
  const double fit = std::min(double(gpu::kMaxPrimesPerPass), std::floor((device_gib * 0.95 - 0.5) * double(1u << 30) / per_prime));
  if (!(fit >= 1)) return inf;
  const double passes = std::ceil(primes / fit), G = std::ceil(primes / passes);
  const double stride = double(gpu::prime_stride(std::size_t(G)));
  // Writes: every state of every table, stride words; gathers: at most (1 + back) sources a
  // state (plan.cost), G words each.
  const double bytes = 8 * scale * (plan.states * stride + plan.cost * G);
  return passes * (bytes / kBandwidth + double(n) * kLaunch) + kOverhead;
}

std::unique_ptr<GraphEngine> make_gpu_graph_frontier() { return std::make_unique<GpuGraphFrontierEngine>(); }

}  // namespace matchcount::engines
