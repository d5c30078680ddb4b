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
#include <variant>

#include "core/arith.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
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


// ---- --planner-check: every applicable engine on every block of a benchmark set ----

struct CheckCase {
  std::string label;
  AnyMatrix matrix;
};

/// The pattern of `a` with weights in [0.5, 1.5) (a float case whose rows are not integral,
/// so that the pipeline counts it in floating point).
template <class T>
SparseMatrix<double> weighted(const SparseMatrix<T>& a, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  return convert<double>(a, [&](const T&) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return 0.5 + double(x >> 11) * 0x1p-53;
  });
}

/// The *.mtx files of a folder, in name order.
std::vector<std::filesystem::path> mtx_files(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().extension() == ".mtx") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<CheckCase> check_cases(const std::string& set, const std::string& matrices, std::uint64_t seed) {
  std::vector<CheckCase> out;
  auto both = [&](const std::string& label, const SparseMatrix<Integer>& a) {
    out.push_back({label + " exact", a});
    out.push_back({label + " float", weighted(a, seed + out.size())});
  };
  auto want = [&](const char* family) { return set == "all" || set.find(family) != std::string::npos; };
  if (want("grid"))
    for (int m : {8, 12, 16, 20, 24, 32, 100}) both("grid " + std::to_string(m) + "x" + std::to_string(m), biadjacency(grid_graph(m, m)));
  if (want("aztec"))
    for (int k : {6, 10, 16}) both("aztec " + std::to_string(k), biadjacency(aztec_diamond_graph(k)));
  if (want("torus"))
    for (int m : {6, 8, 10, 12}) both("torus " + std::to_string(m) + "x" + std::to_string(m), biadjacency(torus_graph(m, m)));
  if (want("er"))
    for (int n : {20, 30, 40})
      for (double p : {0.1, 0.2, 0.3, 0.5}) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "ER %d p=%.1f", n, p);
        both(buf, erdos_renyi_bipartite(n, p, seed + std::uint64_t(n)));
      }
  if (want("band"))
    for (auto [n, w] : {std::pair{40, 2}, {60, 4}, {100, 3}, {48, 6}})
      both("band " + std::to_string(n) + " w=" + std::to_string(w), band_matrix(n, w));
  if (want("dense")) {
    for (int n : {20, 25, 30}) out.push_back({"ones " + std::to_string(n) + " exact", complete_bipartite(n)});
    for (int n : {20, 24, 27}) {
      both("0-1 " + std::to_string(n) + " p=0.6", erdos_renyi_bipartite(n, 0.6, seed + std::uint64_t(n)));
      out.push_back({"real " + std::to_string(n) + " float", random_real_matrix(n, 1.0, -1.0, 1.0, seed + std::uint64_t(n))});
    }
    out.push_back({"real 32 p=0.2 float", random_real_matrix(32, 0.2, 0.0, 1.0, seed + 32)});
  }
  if (!matrices.empty() && want("mtx")) {
    const std::vector<std::filesystem::path> files = mtx_files(matrices);
    for (const auto& f : files) {
      ReadOptions ro;
      ro.exact = true;
      const AnyMatrix m = read_input(f.string(), ro).matrix;
      const std::string name = f.stem().string();
      out.push_back({name + " exact", m});
      if (const auto* i = std::get_if<SparseMatrix<Integer>>(&m)) out.push_back({name + " float", weighted(*i, seed)});
      else if (!std::holds_alternative<SparseMatrix<Rational>>(m)) out.back().label = name;
      else out.push_back({name + " float", read_input(f.string(), ReadOptions{}).matrix});
    }
  }
  return out;
}

/// Predicted seconds of `engine` on `plan`'s block for the time cap (the planner's own
/// prediction where it made one; Ryser-type engines from the Ryser rate, the scalar sparse
/// walks 30 times slower unless very sparse; negative: unknown, run it and let it refuse).
double cap_prediction(const EnginePlan& plan, const std::string& engine, int n, std::size_t nnz, int threads) {
  for (const auto& [name, s] : plan.candidates)
    if (name == engine) return s;
  const double ryser = std::ldexp(double(n), n - 1) * 2.6e-10 / threads;
  if (engine == "ryser" || engine == "gpu-ryser") return n <= 63 ? ryser : 1e300;
  if (engine == "sparyser" || engine == "skipper") return n > 62 ? 1e300 : double(nnz) < 5.0 * n && engine == "skipper" ? ryser : 30 * ryser;
  if (engine == "brute") return n <= 24 ? ryser * 10 : 1e300;
  return -1;
}

struct Timed {
  double seconds = -1;  // < 0: not run
  std::string value, note;
};

/// Runs `engine` on `leaf` (repeated while short; the least time), or notes why not.
Timed time_engine(const std::string& engine, const AnyMatrix& leaf, int threads, double repeat_below) {
  Timed r;
  const auto e = make_engine(engine);
  EngineOptions eo;
  eo.threads = threads;
  double spent = 0;
  for (int rep = 0; rep < 5 && (rep == 0 || spent < repeat_below); ++rep) {
    const double t0 = now();
    try {
      std::visit(
          [&](const auto& m) {
            using T = std::decay_t<decltype(m.entries[0].value)>;
            if constexpr (std::is_same_v<T, Integer>) r.value = e->permanent(m, eo).get_str();
            else if constexpr (std::is_same_v<T, Rational>) throw RefusedError("rational block");
            else {
              const auto v = e->permanent(m, eo).value;
              char buf[64];
              std::snprintf(buf, sizeof buf, "%.12g %.12g", std::real(Complex(v)), std::imag(Complex(v)));
              r.value = buf;
            }
          },
          leaf);
    } catch (const RefusedError& ex) {
      r.note = "refused";
      return r;
    } catch (const GpuError& ex) {
      r.note = "gpu error";
      return r;
    }
    const double t = now() - t0;
    spent += t;
    r.seconds = rep == 0 ? t : std::min(r.seconds, t);
  }
  return r;
}

bool same_value(const std::string& x, const std::string& y) {
  if (x == y) return true;
  double a = 0, b = 0, c = 0, d = 0;
  if (std::sscanf(x.c_str(), "%lf %lf", &a, &b) != 2 || std::sscanf(y.c_str(), "%lf %lf", &c, &d) != 2) return false;
  return std::abs(a - c) + std::abs(b - d) <= 1e-8 * (std::abs(a) + std::abs(b));
}

std::string fmt_seconds(double s) {
  char buf[32];
  if (s < 0) return "–";
  std::snprintf(buf, sizeof buf, s < 0.01 ? "%.4f" : s < 10 ? "%.3f" : "%.1f", s);
  return buf;
}

/// The --planner-check table: every block (n > 16) of every case, every engine's time.
int planner_check(const std::vector<CheckCase>& cases, const std::vector<std::string>& engines, int threads,
                  double cap, double repeat_below, bool show_predictions) {
  const int used = threads > 0 ? threads : omp_get_max_threads();
  std::printf("# planner check: %d threads; engines run directly on the blocks left after preprocessing (n > 16);\n"
              "# an engine predicted above %.0f s is skipped (–), one that refuses shows 'ref'; times are the least of\n"
              "# up to 5 runs while under %.2f s in all; ratio = pick / best; SLOW: ratio > 2 and > 1 ms lost;\n"
              "# numbers: exact blocks' CRT primes (0-1: all entries 1), or float / complex\n",
              used, cap, repeat_below);
  std::printf("| case | n | nnz | width | planar | numbers | plan ms |");
  for (const auto& e : engines) std::printf(" %s |", e.c_str());
  std::printf(" pick (predicted s) | pick / best |\n|---|---|---|---|---|---|---|");
  for (std::size_t i = 0; i < engines.size(); ++i) std::printf("---|");
  std::printf("---|---|\n");
  int slow = 0, mismatches = 0, blocks = 0;
  double pick_total = 0, best_total = 0;
  for (const auto& c : cases) {
    CountOptions co;
    co.threads = threads;
    co.explain = true;
    std::vector<AnyMatrix> leaves;
    co.leaves = &leaves;
    try {
      count_permanent(c.matrix, co);
    } catch (const std::exception& ex) {
      std::printf("| %s | %s |\n", c.label.c_str(), ex.what());
      continue;
    }
    int small = 0;
    for (const auto& leaf : leaves) {
      const int n = rows_of(leaf);
      const std::size_t nnz = nnz_of(leaf);
      if (n <= 16) {
        ++small;
        continue;
      }
      const double t0 = now();
      const EnginePlan plan = std::visit(
          [&](const auto& m) -> EnginePlan {
            using T = std::decay_t<decltype(m.entries[0].value)>;
            if constexpr (std::is_same_v<T, Rational>) return {};
            else return plan_engine(m, DevicePolicy::Auto, threads);
          },
          leaf);
      const double plan_seconds = now() - t0;
      bool planar = false;
      for (const auto& [name, s] : plan.candidates) planar = planar || name == "kasteleyn";
      std::vector<Timed> times;
      std::string reference;
      bool mismatch = false;
      double best = -1, pick = -1;
      for (const auto& e : engines) {
        const double predicted = cap_prediction(plan, e, n, nnz, used);
        Timed t;
        if (predicted > cap) t.note = "–";
        else t = time_engine(e, leaf, threads, repeat_below);
        if (t.seconds >= 0) {
          if (reference.empty()) reference = t.value;
          else if (!same_value(reference, t.value)) mismatch = true, t.note = "MISMATCH";
          if (best < 0 || t.seconds < best) best = t.seconds;
          if (e == plan.engine) pick = t.seconds;
        }
        times.push_back(t);
      }
      std::string numbers = "float";
      if (const auto* m = std::get_if<SparseMatrix<Integer>>(&leaf)) {
        bool unit = true;
        for (const auto& e : m->entries) unit = unit && e.value == 1;
        numbers = std::to_string(choose_primes(permanent_bound(*m)).size()) + (unit ? " p, 0-1" : " p");
      } else if (std::holds_alternative<SparseMatrix<Complex>>(leaf)) {
        numbers = "complex";
      }
      std::printf("| %s | %d | %zu | %d | %s | %s | %.1f |", c.label.c_str(), n, nnz, plan.frontier_width,
                  planar ? "yes" : "no", numbers.c_str(), 1e3 * plan_seconds);
      for (std::size_t k = 0; k < times.size(); ++k) {
        const Timed& t = times[k];
        std::string cell = t.seconds >= 0 ? fmt_seconds(t.seconds) : t.note == "refused" ? "ref" : t.note;
        if (t.seconds >= 0 && !t.note.empty()) cell += " " + t.note;
        if (show_predictions && t.seconds >= 0)
          for (const auto& [name, ps] : plan.candidates)
            if (name == engines[k]) cell += " (" + fmt_seconds(ps) + ")";
        std::printf(" %s |", cell.c_str());
      }
      const double ratio = pick > 0 && best > 0 ? pick / best : -1;
      const bool is_slow = ratio > 2 && pick - best > 1e-3;
      std::printf(" %s (%s) | %s%s |\n", plan.engine.c_str(), fmt_seconds(plan.predicted_seconds).c_str(),
                  ratio > 0 ? (std::to_string(ratio).substr(0, 4)).c_str() : pick < 0 ? "pick not run" : "–",
                  is_slow ? " **SLOW**" : "");
      std::fflush(stdout);
      ++blocks;
      slow += is_slow;
      mismatches += mismatch;
      if (pick > 0 && best > 0) pick_total += pick, best_total += best;
    }
    if (small > 0 && leaves.size() == std::size_t(small))
      std::printf("| %s | %d block(s) of n <= 16 only (Ryser, microseconds) |\n", c.label.c_str(), small);
  }
  std::printf("\n# %d blocks, %d with the pick more than 2x (and 1 ms) slower than the best, %d value mismatches; "
              "sum of pick times %.3f s, of best times %.3f s\n", blocks, slow, mismatches, pick_total, best_total);
  return slow > 0 || mismatches > 0 ? 1 : 0;
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
  bool check = false;
  std::string check_set = "all", check_engines;
  double check_cap = 20, repeat_below = 0.2;
  bool show_predictions = false;
  app.add_flag("--check-predictions", show_predictions, "--planner-check shows each planned engine's prediction beside its time");
  app.add_flag("--planner-check", check,
               "time every applicable engine on every block of a benchmark set (grids, Aztec diamonds, tori, "
               "Erdos-Renyi, band, dense, real, and --matrices) against the planner's pick");
  app.add_option("--check-set", check_set, "families of --planner-check: all, or a list of grid,aztec,torus,er,band,dense,mtx")
      ->capture_default_str();
  app.add_option("--check-engines", check_engines, "engines of --planner-check (default: all CPU engines but brute, "
                 "and the GPU engines when a GPU is present)");
  app.add_option("--check-cap", check_cap, "--planner-check skips an engine predicted above this many seconds")
      ->capture_default_str();
  app.add_option("--check-repeat", repeat_below, "--planner-check repeats a run while the runs took less than this")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (check) {
    std::string list = check_engines.empty() ? std::string("ryser,sparyser,skipper,frontier,kasteleyn,repeated") +
                                                   (gpu_available() ? ",gpu-ryser,gpu-frontier" : "")
                                             : check_engines;
    std::vector<std::string> names;
    for (std::size_t p = 0; p <= list.size();) {
      const auto q = std::min(list.find(',', p), list.size());
      names.push_back(list.substr(p, q - p));
      p = q + 1;
    }
    return planner_check(check_cases(check_set, matrices, seed), names, threads, check_cap, repeat_below, show_predictions);
  }

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
    const std::vector<std::filesystem::path> files = mtx_files(matrices);
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
