// matchcount-bench: times every CPU engine on dense and sparse random matrices, in exact
// (0-1 integer) and floating (uniform real) mode, and optionally the whole pipeline on a
// folder of Matrix Market files. A benchmark, not a test: it prints a table and checks only
// that the engines agree with each other.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

using namespace matchcount;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Case {
  std::string label;
  int n;
  double density;
};

std::vector<int> parse_range(const std::string& s) {
  const auto colon = s.find(':');
  const int lo = std::stoi(s.substr(0, colon));
  const int hi = colon == std::string::npos ? lo : std::stoi(s.substr(colon + 1));
  std::vector<int> out;
  for (int n = lo; n <= hi; ++n) out.push_back(n);
  return out;
}

/// Entries per column.
template <class T>
std::vector<int> col_counts(const SparseMatrix<T>& a) {
  std::vector<int> c(static_cast<std::size_t>(a.cols));
  for (const auto& e : a.entries) ++c[static_cast<std::size_t>(e.col)];
  return c;
}

/// FP64 floor of a Ryser walk over 2^(n-1) Gray steps: n multiplications per term, plus one
/// addition per entry of the flipped column, with the sparsest columns flipped most often
/// (column j of the sorted order in 2^-(j+1) of the steps, the densest never). Dense: 2n.
double fp64_floor_ops(std::vector<int> counts) {
  std::sort(counts.begin(), counts.end());
  const int n = static_cast<int>(counts.size());
  double per_step = n;
  for (int j = 0; j + 1 < n; ++j) per_step += counts[static_cast<std::size_t>(j)] * std::ldexp(1.0, -(j + 1));
  return per_step * std::ldexp(1.0, n - 1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("matchcount-bench: engine timings (see docs/benchmarks.md)", "matchcount-bench");
  std::string dense = "24:32", sparse = "30:40", engines_opt = "ryser,sparyser,skipper", matrices;
  std::vector<double> densities = {0.1, 0.2, 0.3, 0.4, 0.5};
  std::vector<std::string> modes = {"exact", "float"};
  int threads = 0;
  double max_seconds = 60, dense_density = 1.0, gpu_rate = 17e12;
  bool no_jit = false;
  std::uint64_t seed = 1;
  app.add_option("--dense", dense, "dense sizes lo:hi (empty: none)")->capture_default_str();
  app.add_option("--sparse", sparse, "sparse sizes lo:hi (empty: none)")->capture_default_str();
  app.add_option("--densities", densities, "densities of the sparse cases")->delimiter(',');
  app.add_option("--modes", modes, "exact and/or float")->delimiter(',');
  app.add_option("--engines", engines_opt, "comma-separated engine names")->capture_default_str();
  app.add_option("--threads", threads, "threads (0: all)");
  app.add_option("--dense-density", dense_density, "density of the dense cases' 0-1 matrices (1: all ones)")
      ->capture_default_str();
  app.add_option("--gpu-rate", gpu_rate, "FP64 operations per second of the GPU, for the floor column")
      ->capture_default_str();
  app.add_flag("--no-jit", no_jit, "GPU engines use only their built-in generic kernels");
  app.add_option("--max-seconds", max_seconds, "skip a run predicted to take longer")->capture_default_str();
  app.add_option("--seed", seed, "random seed")->capture_default_str();
  app.add_option("--matrices", matrices, "also time the whole pipeline on every *.mtx in this folder");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::string> engines;
  for (std::size_t p = 0; p <= engines_opt.size();) {
    const auto q = std::min(engines_opt.find(',', p), engines_opt.size());
    engines.push_back(engines_opt.substr(p, q - p));
    p = q + 1;
  }
  const int used_threads = threads > 0 ? threads : omp_get_max_threads();

  std::vector<Case> cases;
  if (!dense.empty())
    for (int n : parse_range(dense)) cases.push_back({"dense", n, dense_density});
  if (!sparse.empty())
    for (double d : densities)
      for (int n : parse_range(sparse)) cases.push_back({"sparse", n, d});

  std::printf("# threads %d; core-s/step = seconds * threads / (n * 2^n)\n", used_threads);
  std::printf("%-7s %4s %5s %5s %-6s %-9s %10s %12s %s\n", "case", "n", "dens", "nnz", "mode", "engine", "seconds",
              "core-s/step", "value");
  // Predicted seconds per (engine, mode, case kind, density) from the last run: t(n+1) ~ 2 t(n).
  std::map<std::string, std::pair<int, double>> last;
  for (const auto& c : cases) {
    for (const auto& mode : modes) {
      const auto a = erdos_renyi_bipartite(c.n, c.density, seed + static_cast<std::uint64_t>(c.n));
      const double real_density = c.label == "dense" ? 1.0 : c.density;
      const auto r = random_real_matrix(c.n, real_density, 0.0, 1.0, seed + static_cast<std::uint64_t>(c.n));
      std::string reference;
      for (const auto& name : engines) {
        const std::string key = name + mode + c.label + std::to_string(c.density);
        if (auto it = last.find(key); it != last.end()) {
          const double predicted = it->second.second * std::ldexp(1.0, c.n - it->second.first);
          if (predicted > max_seconds) {
            std::printf("%-7s %4d %5.2f %5s %-6s %-9s %10s (predicted %.0f s, skipped)\n", c.label.c_str(), c.n,
                        c.density, "", mode.c_str(), name.c_str(), "-", predicted);
            continue;
          }
        }
        const auto engine = make_engine(name);
        EngineOptions eo;
        eo.threads = threads;
        eo.specialise = no_jit ? Specialise::Never : Specialise::Always;
        EngineStats stats;
        eo.stats = &stats;
        std::string value;
        std::size_t nnz = 0;
        const double t0 = now();
        try {
          if (mode == "exact") {
            value = engine->permanent(a, eo).get_str();
            nnz = a.nnz();
          } else {
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.15g", engine->permanent(r, eo).value);
            value = buf;
            nnz = r.nnz();
          }
        } catch (const RefusedError& e) {
          std::printf("%-7s %4d %5.2f %5s %-6s %-9s refused: %s\n", c.label.c_str(), c.n, c.density, "", mode.c_str(),
                      name.c_str(), e.what());
          continue;
        }
        const double t = now() - t0;
        last[key] = {c.n, t};
        const double per_step = t * used_threads / std::ldexp(static_cast<double>(c.n), c.n);
        const bool agrees = reference.empty() || reference == value ||
                            (mode == "float" && std::abs(std::stod(reference) - std::stod(value)) <=
                                                    1e-10 * std::abs(std::stod(reference)));
        if (reference.empty()) reference = value;
        std::string gpu_info;
        if (stats.device == "gpu") {
          const double floor = fp64_floor_ops(mode == "exact" ? col_counts(a) : col_counts(r)) / gpu_rate;
          char buf[120];
          std::snprintf(buf, sizeof buf, "  [gpu %s kernel, compile %.2f s, floor %.3g s, %.0f%% of it]",
                        stats.kernel.c_str(), stats.compile_seconds, floor, 100 * floor / (t - stats.compile_seconds));
          gpu_info = buf;
        }
        std::printf("%-7s %4d %5.2f %5zu %-6s %-9s %10.4f %12.3e %s%s%s\n", c.label.c_str(), c.n, c.density, nnz,
                    mode.c_str(), name.c_str(), t, per_step, value.c_str(), agrees ? "" : "  MISMATCH", gpu_info.c_str());
        std::fflush(stdout);
      }
    }
  }

  if (!matrices.empty()) {
    std::printf("\n%-28s %4s %6s %-8s %10s %s\n", "matrix", "n", "nnz", "engines", "seconds", "value");
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(matrices))
      if (f.path().extension() == ".mtx") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      ReadOptions ro;
      ro.exact = true;
      CountOptions co;
      co.threads = threads;
      co.max_work = max_seconds * 2e9 * used_threads;  // ~1e-9 s per Ryser step per core, generous
      try {
        const ReadResult in = read_input(f.string(), ro);
        const double t0 = now();
        const CountReport rep = count_permanent(in.matrix, co);
        std::string v = rep.value.to_string();
        if (v.size() > 40) v = v.substr(0, 37) + "...";
        std::printf("%-28s %4d %6zu %-8zu %10.3f %s\n", f.filename().c_str(), rep.rows, rep.nnz,
                    rep.engine_runs.size(), now() - t0, v.c_str());
      } catch (const std::exception& e) {
        std::printf("%-28s %s\n", f.filename().c_str(), e.what());
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
