// matchcount-coverage: how often each estimator's 95% interval holds the exact count, on the
// standard cases of docs/estimation.md ("Coverage"), over many seeds. A benchmark, not a test
// (tests/coverage_test.cpp runs a small fixed-seed version): it prints a Markdown table.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "coverage.hpp"
#include "matchcount/engine.hpp"

using namespace matchcount;

int main(int argc, char** argv) {
  CLI::App app("matchcount-coverage: coverage of the estimators' 95% intervals (see docs/estimation.md)",
               "matchcount-coverage");
  std::vector<std::string> methods = estimate_method_names();
  std::vector<std::string> only;
  std::string device = "cpu";
  cli::CoverageRun run;
  app.add_option("--methods", methods, "estimators")->delimiter(',');
  app.add_option("--cases", only, "case labels to run (default: all; see the table)")->delimiter(',');
  app.add_option("--seeds", run.seeds, "runs per case and method")->capture_default_str();
  app.add_option("--first-seed", run.first_seed, "seed of the first run")->capture_default_str();
  app.add_option("--samples", run.samples, "samples per run")->capture_default_str();
  app.add_option("--threads", run.threads, "CPU threads (0: all)")->capture_default_str();
  app.add_option("--device", device, "cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  run.device = device == "gpu" ? DevicePolicy::Gpu : DevicePolicy::Cpu;

  std::printf("| case | method | device | runs | covered | flagged | unflagged misses | coverage | honest | "
              "median rel.se | median est/exact | s/run | rel.se^2 x s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  for (const auto& c : cli::standard_coverage_cases()) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.label) == only.end()) continue;
    for (const auto& name : methods) {
      parse_estimate_method(name, run.method);
      const cli::Coverage r = cli::measure_coverage(c, run);
      // rel.se^2 x seconds: the variance per second of work, the lower the better (the time to
      // reach 1% is it times 10^4).
      std::printf("| %s | %s | %s | %d | %d | %d | %d | %.0f%% | %.0f%% | %.3g | %.3f | %.3g | %.3g |\n",
                  c.label.c_str(), name.c_str(), r.device.c_str(), r.runs, r.covered, r.flagged, r.unflagged_misses,
                  100 * r.coverage(), 100 * r.honest(), r.median_rel_error, r.median_ratio, r.seconds_per_run,
                  r.median_rel_error * r.median_rel_error * r.seconds_per_run);
      std::fflush(stdout);
    }
  }
}
