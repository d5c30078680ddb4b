// matchcount: prints the number of perfect matchings (the permanent) of the graph or matrix
// in FILE. Exit codes: 0 ok, 1 internal error, 2 bad input or usage, 3 refused (a limit),
// 128 + signal when SIGINT/SIGTERM stopped a count that saved a --checkpoint.
#include <unistd.h>

#include <csignal>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <omp.h>

#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"

using namespace matchcount;

namespace {

constexpr const char* kDescription = R"(matchcount - exact counts of perfect matchings and matrix permanents.

FILE is read as (see --as):
  bipartite  (default for text files) one edge "u v [weight]" per line; u is a left
             vertex (row), v a right vertex (column). Prints the number of perfect
             matchings, e.g. dimer coverings, = the permanent of the biadjacency matrix.
  graph      undirected edges "u v" in one name space; the graph must be bipartite
             (e.g. a grid). Non-bipartite graphs need a hafnian, which is not counted.
  digraph    arcs "u v" (self-loops allowed); prints the number of cycle covers.
  matrix     Matrix Market (detected by its %%MatrixMarket banner) or SUPerman's
             banner-less "n n nnz" + "i j v" files (detected for *.mtx names).
Lines starting with # or % are comments. "-" reads standard input.

0-1 and integer matrices give exact integers (however large); decimal values give a
double-precision result with an error estimate, or an exact fraction with --exact.
)";

constexpr const char* kFooter = R"(
Examples:
  matchcount --as graph datasets/grid8x8.edges     # 12988816 dimer coverings
  matchcount --as digraph datasets/derangements8.arcs
  matchcount --json matrix.mtx                      # value, blocks, engines, timings
  matchcount --checkpoint run.ckpt big.mtx          # resumable: run it again after a stop
  mpirun -np 4 matchcount big.mtx                   # Ryser walks and estimates over MPI ranks
Exit codes: 0 ok, 1 internal error, 2 bad input or usage, 3 refused (a limit),
130/143 stopped by SIGINT/SIGTERM with the progress saved (--checkpoint).)";

// Progress on stderr: shown once a run has taken 2 seconds, at most twice a second. The rate
// counts only the work of this run (a resumed run starts from the checkpoint's fraction); the
// fraction comes from all threads and devices at once.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  void update(double fraction) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (first_ < 0) first_ = fraction;
    const double elapsed = seconds(start_);
    if (elapsed < 2.0 || seconds(last_) < 0.5 || fraction <= first_) return;
    last_ = Clock::now();
    const double rate = (fraction - first_) / elapsed;  // fraction per second
    const double eta = (1.0 - fraction) / rate;
    std::fprintf(stderr, "\rmatchcount: %5.1f%% done, %s, %s elapsed, about %s left   ", 100.0 * fraction,
                 rate_text(rate).c_str(), duration(elapsed).c_str(), duration(eta).c_str());
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r%78s\r", "");
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  static std::string duration(double s) {
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
    else if (s < 86400 * 3) std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
    else std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
    return buf;
  }
  static std::string rate_text(double per_second) {
    char buf[32];
    if (per_second >= 0.01) std::snprintf(buf, sizeof buf, "%.1f%%/s", 100 * per_second);
    else if (per_second * 60 >= 0.01) std::snprintf(buf, sizeof buf, "%.1f%%/min", 6000 * per_second);
    else std::snprintf(buf, sizeof buf, "%.2f%%/h", 360000 * per_second);
    return buf;
  }
  bool enabled_;
  bool shown_ = false;
  double first_ = -1;
  Clock::time_point start_, last_{};
  std::mutex mutex_;
};

// SIGINT/SIGTERM with --checkpoint: the first asks the count to save and stop (within a unit
// of work, about a second); a second one exits at once (the last periodic save stands).
Checkpoint* g_checkpoint = nullptr;
std::atomic<int> g_signals{0};  // lock-free, so safe in a handler

extern "C" void on_stop_signal(int sig) {
  if (g_signals.fetch_add(1) > 0) {
    const char msg[] = "\nmatchcount: second signal: exiting without a final checkpoint\n";
    if (::write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {}
    _exit(128 + sig);
  }
  if (g_checkpoint) g_checkpoint->request_stop(sig);
}

/// "all" or a positive count of GPUs; 0 stands for all.
int parse_gpus(const std::string& s) {
  if (s == "all") return 0;
  try {
    std::size_t used = 0;
    const int n = std::stoi(s, &used);
    if (used == s.size() && n > 0) return n;
  } catch (const std::exception&) {
  }
  throw UsageError("--gpus takes a positive number or 'all', not '" + s + "'");
}

int fail(int code, const std::string& message) {
  std::cerr << "matchcount: error: " << message << "\n";
  return code;
}

std::string version_text() {
  std::string v = std::string("matchcount ") + MATCHCOUNT_VERSION + " (engines:";
  for (const auto& e : engine_names()) v += " " + e;
  v += built_with_cuda() ? "; built with CUDA" : "; built without CUDA";
  const auto gpus = gpu_devices();
  v += ", " + std::to_string(gpus.size()) + " GPU(s) visible)";
  return v;
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
  // Under mpirun/srun, ranks other than 0 serve rank 0 (docs/usage.md, "Several hosts").
  try {
    cluster::init(&argc, &argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matchcount: error: %s\n", e.what());
    return 1;
  }
  if (!cluster::leader()) return cluster::serve();
  return cluster::finish(run(argc, argv));
}

int run(int argc, char** argv) {
  CLI::App app(kDescription, "matchcount");
  app.footer(kFooter);
  app.get_formatter()->column_width(34);

  std::string file;
  std::string as = "auto";
  std::string engine = "auto";
  std::string device = "auto";
  bool no_jit = false;
  int threads = 0;
  bool no_preprocess = false, exact = false, sum_duplicates = false, verbose = false, json = false,
       progress = false, explain = false;
  CountOptions count;

  app.add_option("FILE", file, "graph or matrix file, - for standard input")->required();
  app.add_option("--as", as, "how to read FILE")
      ->check(CLI::IsMember({"auto", "bipartite", "graph", "digraph", "matrix"}))
      ->capture_default_str();
  std::vector<std::string> engines = engine_names();
  engines.insert(engines.begin(), "auto");
  app.add_option("--engine", engine, "counting engine for every block (auto: chosen per block by size and density)")
      ->check(CLI::IsMember(engines))
      ->capture_default_str();
  app.add_option("--threads", threads, "worker threads (0: all cores)")->check(CLI::NonNegativeNumber);
  app.add_option("--device", device, "where to count: cpu, gpu, or auto (a GPU when one is present and a block is large enough)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  app.add_flag("--no-jit", no_jit, "GPU: use only the kernels built into the program (no run-time compilation)");
  std::string gpus = "all";
  app.add_option("--gpus", gpus, "GPU: how many of the visible devices to use (N or all; CUDA_VISIBLE_DEVICES picks which)")
      ->capture_default_str();
  std::string checkpoint_file;
  double checkpoint_every = 60;
  app.add_option("--checkpoint", checkpoint_file,
                 "save progress to FILE now and then and on SIGINT/SIGTERM; resume from it if it exists");
  app.add_option("--checkpoint-every", checkpoint_every, "seconds between checkpoint saves")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--exact", exact, "read decimal values as exact fractions and print an exact fraction");
  app.add_flag("--sum-duplicates", sum_duplicates, "add the weights of repeated edges instead of rejecting them");
  app.add_flag("--no-preprocess", no_preprocess,
               "skip matching check, Dulmage-Mendelsohn and Forbert-Marx; one engine counts the whole matrix");
  app.add_option("--branch-degree", count.reduce.branch_max_degree,
                 "Forbert-Marx: branch on rows/columns with at most this many entries (2 = never)")
      ->check(CLI::Range(2, 8))
      ->capture_default_str();
  app.add_option("--branch-min", count.reduce.branch_min_size, "Forbert-Marx: do not branch on blocks smaller than this")
      ->capture_default_str();
  app.add_option("--max-leaves", count.reduce.max_leaves, "Forbert-Marx: at most this many blocks from branching")
      ->capture_default_str();
  app.add_flag("-v,--verbose", verbose, "describe the input, each stage and the engines on stderr");
  app.add_flag("--json", json, "print one JSON object (value, exactness, blocks, engines, times) instead of the value");
  app.add_flag("--explain", explain, "print the plan (blocks, widths, engines, predicted times) and count nothing");
  app.add_flag("--progress", progress, "show progress on stderr even when it is not a terminal");
  bool estimate = false;
  std::string method = "scaling+";
  EstimateOptions est;
  auto* g = app.add_option_group("Estimation", "an unbiased random estimate with error bars, for nonnegative matrices");
  g->add_flag("--estimate", estimate, "estimate instead of counting exactly (blocks beyond exact reach)");
  g->add_option("--method", method, "estimator: rasmussen, rasmussen+, scaling, scaling+")
      ->check(CLI::IsMember(estimate_method_names()))
      ->capture_default_str();
  auto* samples = g->add_option("--samples", est.samples, "samples per estimated block (default: until --rel-error)")
                      ->check(CLI::PositiveNumber);
  auto* rel = g->add_option("--rel-error", est.rel_error, "stop when the relative standard error falls below this")
                  ->check(CLI::PositiveNumber)
                  ->capture_default_str();
  g->add_option("--max-seconds", est.max_seconds, "time cap of a --rel-error run (0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  g->add_option("--max-samples", est.max_samples, "sample cap per block of a --rel-error run")->capture_default_str();
  g->add_option("--seed", est.seed, "random seed (the same seed, options and device give the same result)")->capture_default_str();
  g->add_option("--scale-interval", est.scale_interval, "scaling methods: rescale every this many rows (SInterval; 0: max(1, n/256))")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  g->add_option("--scale-sweeps", est.scale_iterations, "scaling methods: Sinkhorn sweeps per rescale")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  g->add_option("--exact-up-to", est.exact_up_to, "count blocks up to this size exactly (0: estimate every block)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  samples->excludes(rel);
  app.set_version_flag("--version", version_text());

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, std::string(e.what()) + " (see matchcount --help)");
  }

  Progress bar(progress || isatty(STDERR_FILENO));
  try {
    ReadOptions read;
    read.as = as == "bipartite" ? InputFormat::Bipartite
              : as == "graph"   ? InputFormat::Graph
              : as == "digraph" ? InputFormat::Digraph
              : as == "matrix"  ? InputFormat::Matrix
                                : InputFormat::Auto;
    read.exact = exact;
    read.sum_duplicates = sum_duplicates;
    const auto t0 = std::chrono::steady_clock::now();
    const ReadResult input = read_input(file, read);
    RunInfo info;
    info.file = file;
    info.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.threads = threads > 0 ? threads : omp_get_max_threads();

    count.engine = engine == "auto" ? "" : engine;
    count.preprocess = !no_preprocess;
    count.threads = threads;
    count.device = device == "cpu" ? DevicePolicy::Cpu : device == "gpu" ? DevicePolicy::Gpu : DevicePolicy::Auto;
    count.specialise = no_jit ? Specialise::Never : Specialise::Auto;
    if (count.device == DevicePolicy::Gpu && !gpu_available())
      throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible"
                                           : "--device gpu: matchcount was built without CUDA");
    count.gpus = parse_gpus(gpus);
    if (count.gpus > 0 && count.device != DevicePolicy::Cpu && gpu_available() &&
        count.gpus > static_cast<int>(gpu_devices().size()))
      throw UsageError("--gpus " + gpus + ": only " + std::to_string(gpu_devices().size()) + " GPU(s) are visible");
    std::unique_ptr<Checkpoint> checkpoint;
    if (!checkpoint_file.empty()) {
      if (estimate || explain) throw UsageError("--checkpoint applies to exact counts, not --estimate or --explain");
      checkpoint = std::make_unique<Checkpoint>(checkpoint_file, checkpoint_every);
      count.checkpoint = g_checkpoint = checkpoint.get();
      std::signal(SIGINT, on_stop_signal);
      std::signal(SIGTERM, on_stop_signal);
    }
    if (estimate) {
      if (explain || engine != "auto") throw UsageError("--estimate does not take --explain or --engine");
      parse_estimate_method(method, est.method);
      est.threads = threads;
      est.device = count.device;
      est.progress = [&bar](double f) { bar.update(f); };
      const EstimateReport report = estimate_permanent(input.matrix, est);
      bar.finish();
      if (json) {
        std::cout << estimate_json(report, input, info) << std::endl;
      } else {
        std::cout << report.estimate.to_string(report.significant_digits()) << std::endl;
        std::cerr << estimate_text(report, input, info, verbose);
      }
      return 0;
    }
    count.progress = [&bar](double f) { bar.update(f); };
    count.explain = explain;
    const CountReport report = count_permanent(input.matrix, count);
    bar.finish();
    if (report.explained) {
      if (json) std::cout << report_json(report, input, info) << std::endl;
      else std::cout << report_plan(report, input, info);
      return 0;
    }

    if (verbose) std::cerr << report_text(report, input, info);
    if (json) std::cout << report_json(report, input, info) << std::endl;
    else std::cout << report.value.to_string() << std::endl;
    if (!report.value.exact() && !json && !verbose)
      std::cerr << "matchcount: note: approximate value (double precision), estimated relative error "
                << report.value.rel_error()
                << (exact ? " (--exact covers integer and decimal real values, not complex ones)\n"
                          : "; --exact gives the exact fraction\n");
    return 0;
  } catch (const Interrupted& e) {
    bar.finish();
    std::cerr << "matchcount: " << e.what() << "\n";
    return 128 + e.signal();
  } catch (const InputError& e) {
    return fail(2, e.what());
  } catch (const UsageError& e) {
    return fail(2, e.what());
  } catch (const RefusedError& e) {
    return fail(3, e.what());
  } catch (const std::bad_alloc&) {
    return fail(1, "out of memory");
  } catch (const std::exception& e) {
    return fail(1, std::string("internal error: ") + e.what());
  }
}
