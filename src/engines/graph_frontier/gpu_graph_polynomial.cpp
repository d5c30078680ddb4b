// The matching polynomial's frontier DP on a CUDA device (graph_frontier.hpp,
// gpu_graph_frontier_matching_polynomial): the CPU run's setup (polynomial_setup: the graph with
// unit loops, its steps and primes) handed to cuda/graph_polynomial_launch.cu, one prime a pass,
// and the coefficients by CRT. The pipeline falls back to the CPU run where this throws GpuError.
#include <cstdint>
#include <vector>

#include "engines/gpu_common.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"

namespace matchcount::engines {

std::vector<Integer> gpu_graph_frontier_matching_polynomial(const SparseMatrix<Integer>& a, const EngineOptions& opt) {
  if (a.rows == 0) return {Integer(1)};
  const PolynomialSetup s = polynomial_setup(a, opt, true);  // the tables live on the device
  gpu::GraphPolynomialJob job;
  job.steps = s.steps;
  job.words = s.words;
  job.unit = s.unit;
  for (std::uint64_t p : s.primes) job.primes.push_back(double(p));
  for (std::size_t e = 0; e < s.g.entries.size(); ++e) {
    const Integer& v = s.distinct.values[s.distinct.index_of[e]];
    for (std::uint64_t p : s.primes) job.residues.push_back(double(mpz_fdiv_ui(v.get_mpz_t(), p)));
    job.is_loop.push_back(static_cast<signed char>(s.is_loop[e]));
  }
  job.progress = opt.progress;
  const gpu::GraphPolynomialResult r = gpu::run_graph_polynomial(job);
  if (opt.stats) {
    opt.stats->device = "gpu";
    opt.stats->note = std::to_string(s.primes.size()) + " primes, " + std::to_string(s.words) + " coefficients a state, " +
                      three_digits(r.table_gib) + " GiB of tables, kernels " + three_digits(r.run_seconds) + " s";
  }
  std::vector<Integer> m;
  for (std::size_t k = 0; k < s.words; ++k) {
    std::vector<std::uint64_t> residues;
    for (std::size_t q = 0; q < s.primes.size(); ++q) residues.push_back(to_residue(r.values[q * s.words + k], s.primes[q]));
    m.push_back(crt_symmetric(residues, s.primes));
  }
  return m;
}

double gpu_graph_polynomial_seconds(const GraphFrontierPlan& plan, int n, double primes) {
  // Each vertex's table is written once and its sources read about twice, n / 4 coefficients on
  // average, at 1e12 B/s; a launch of about 10 us per vertex and prime; 0.3 s of context.
  constexpr double kBytesPerSecond = 1e12, kLaunch = 1e-5, kContext = 0.3;
  return kContext + primes * (plan.states * 2 * 3 * 8.0 * std::max(1.0, n / 4.0) / kBytesPerSecond + kLaunch * n);
}

}  // namespace matchcount::engines
