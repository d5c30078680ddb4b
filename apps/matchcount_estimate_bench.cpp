// matchcount-estimate-bench: samples per second and accuracy of the estimators on the cases
// of docs/estimation.md (dense and Erdos-Renyi n = 40, grids, a random 3-regular bipartite
// graph). A benchmark, not a test: it prints a table.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "matchcount/engine.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"

using namespace matchcount;

namespace {

struct Case {
  std::string label;
  SparseMatrix<Integer> matrix;
  double exact = 0;  // log10 of the exact count (0: unknown)
};

double exact_log10(const SparseMatrix<Integer>& a) {
  CountOptions o;
  o.device = DevicePolicy::Auto;  // as the planner predicted it
  const Integer v = std::get<Integer>(count_permanent(AnyMatrix(a), o).value.value);
  const std::size_t digits = mpz_sizeinbase(v.get_mpz_t(), 10);
  if (digits < 300) return std::log10(v.get_d());
  long e;
  const double m = mpz_get_d_2exp(&e, v.get_mpz_t());
  return std::log10(m) + static_cast<double>(e) * std::log10(2.0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("matchcount-estimate-bench: estimator speed and accuracy (see docs/estimation.md)",
               "matchcount-estimate-bench");
  std::vector<std::string> methods = estimate_method_names();
  // Lists as text: CLI11 turns an empty argument ("--er \"\"", no cases) into one zero.
  std::vector<std::string> grid_list = {"16", "24", "32", "48", "64", "100"}, er_list = {"0.1", "0.2", "0.3", "0.4"};
  std::string device = "auto";
  std::uint64_t samples = 1'000'000;
  double max_seconds = 30, max_exact_seconds = 5;
  int regular_n = 100000, sweeps = 5, interval = 0;
  bool dense = true;
  app.add_option("--methods", methods, "estimators")->delimiter(',');
  app.add_option("--grids", grid_list, "grid sides (k x k grids; \"\" for none)")->delimiter(',');
  app.add_option("--er", er_list, "densities of the Erdos-Renyi n = 40 cases (\"\" for none)")->delimiter(',');
  app.add_option("--regular", regular_n, "n of the random 3-regular case (0: none)")->capture_default_str();
  app.add_option("--dense", dense, "the dense 40 x 40 case (density 0.8)")->capture_default_str();
  app.add_option("--samples", samples, "samples per case (fewer when --max-seconds runs out first)")->capture_default_str();
  app.add_option("--max-seconds", max_seconds, "time cap per case and method")->capture_default_str();
  app.add_option("--max-exact-seconds", max_exact_seconds, "count a case exactly (est/exact column) when predicted below this")
      ->capture_default_str();
  app.add_option("--device", device, "cpu, gpu or auto")->capture_default_str();
  app.add_option("--scale-sweeps", sweeps, "Sinkhorn sweeps per rescale")->capture_default_str();
  app.add_option("--scale-interval", interval, "rows between rescales")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<int> grids;
  std::vector<double> er;
  try {
    for (const auto& g : grid_list)
      if (!g.empty()) grids.push_back(std::stoi(g));
    for (const auto& p : er_list)
      if (!p.empty()) er.push_back(std::stod(p));
  } catch (const std::exception&) {
    std::fprintf(stderr, "matchcount-estimate-bench: --grids and --er take comma-separated numbers\n");
    return 2;
  }

  std::vector<Case> cases;
  if (dense) cases.push_back({"dense40 p=0.8", erdos_renyi_bipartite(40, 0.8, 1)});
  for (double p : er) {
    char label[32];
    std::snprintf(label, sizeof label, "er40 p=%.1f", p);
    cases.push_back({label, erdos_renyi_bipartite(40, p, 7)});
  }
  for (int k : grids) cases.push_back({"grid" + std::to_string(k) + "x" + std::to_string(k), biadjacency(grid_graph(k, k))});
  if (regular_n > 0) cases.push_back({"3-regular n=" + std::to_string(regular_n), random_regular_bipartite(regular_n, 3, 1)});
  for (auto& c : cases)  // exact counts where the planner predicts they are cheap
    if (c.matrix.rows <= 10000 && plan_engine(c.matrix, DevicePolicy::Auto, 0).predicted_seconds < max_exact_seconds)
      c.exact = exact_log10(c.matrix);

  std::fflush(stdout);
  std::printf("%-18s %6s %7s %-10s %-22s %9s %8s %12s %-12s %9s %8s %6s %s\n", "case", "n", "nnz", "method", "device",
              "samples", "seconds", "samples/s", "estimate", "rel.se", "est/exact", "zero%", "heavy");
  for (const auto& c : cases) {
    for (const auto& name : methods) {
      EstimateOptions o;
      parse_estimate_method(name, o.method);
      o.device = device == "cpu" ? DevicePolicy::Cpu : device == "gpu" ? DevicePolicy::Gpu : DevicePolicy::Auto;
      o.exact_up_to = 0;
      o.scale_iterations = sweeps;
      o.scale_interval = interval;
      // Up to --samples, stopped by the time cap (a target that is never met).
      o.rel_error = 1e-12;
      o.max_samples = samples;
      o.max_seconds = max_seconds;
      const auto t0 = std::chrono::steady_clock::now();
      const EstimateReport r = estimate_permanent(AnyMatrix(c.matrix), o);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double sampling = 0;
      std::string dev;
      for (const auto& b : r.blocks) sampling += b.seconds, dev = b.device;
      const double ratio = c.exact != 0 && !r.estimate.zero() ? std::pow(10.0, r.estimate.log10() - c.exact) : NAN;
      std::printf("%-18s %6d %7zu %-10s %-22.22s %9llu %8.2f %12.4g %-12s %9.2e %8.4f %6.1f %s\n", c.label.c_str(),
                  c.matrix.rows, c.matrix.nnz(), name.c_str(), dev.c_str(), static_cast<unsigned long long>(r.samples),
                  seconds, static_cast<double>(r.samples) / std::max(sampling, 1e-9), r.estimate.to_string(4).c_str(),
                  r.rel_std_error, ratio, 100.0 * static_cast<double>(r.zero_samples) / std::max<double>(1, r.samples),
                  r.heavy_tail ? "yes" : "");
      std::fflush(stdout);
    }
  }
}
