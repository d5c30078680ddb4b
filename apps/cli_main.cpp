// The matchcount program (apps/matchcount.cpp is its main): prints the number of perfect
// matchings (the permanent) of the graph or matrix in FILE. Exit codes: 0 ok, 1 internal error,
// 2 bad input or usage, 3 refused (a limit), 4 an MPI rank lost, 128 + signal when SIGINT/SIGTERM
// stopped a count that saved a --checkpoint. A function of its own so that other executables
// (a test build that slows walks down) run the very same program.
#include <unistd.h>

#include <csignal>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <omp.h>

#include "matchcount/checkpoint.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/io.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"
#include "cli_limits.hpp"
#include "cli_main.hpp"
#include "cli_batch.hpp"
#include "cli_stop.hpp"
#include "cli_matchings.hpp"
#include "cli_which.hpp"
#include "cli_options.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/tuning.hpp"
#include "progress.hpp"

using namespace matchcount;

namespace {

constexpr const char* kDescription = R"(matchcount - exact counts of perfect matchings and matrix permanents.

FILE is read as (see --as; auto detects Matrix Market, NumPy, DIMACS and KONECT headers):
  bipartite  (default for text files) one edge "u v [weight]" per line; u is a left
             vertex (row), v a right vertex (column). Prints the number of perfect
             matchings, e.g. dimer coverings, = the permanent of the biadjacency matrix.
  graph      undirected edges "u v [weight]" in one name space. A bipartite graph (e.g. a
             grid) gives the permanent of its biadjacency matrix; any other graph the
             hafnian of its adjacency matrix. Self-loops count only with --loop-hafnian.
  digraph    arcs "u v" (self-loops allowed); prints the number of cycle covers.
  matrix     Matrix Market (its %%MatrixMarket banner) or SUPerman's banner-less
             "n n nnz" + "i j v" files. A rectangular m x n matrix gives its permanent:
             the sum over injective maps from the shorter side into the longer one.
  dimacs     DIMACS graphs ("p edge N M", "e u v"), read as --as graph.
  npy        NumPy .npy arrays (2-D; integer, bool, float or complex).
Lines starting with # or % are comments. "-" reads standard input.

--hafnian reads a symmetric matrix (or a graph) and prints its hafnian, the weighted count
of the perfect matchings of its graph (the diagonal is ignored); --loop-hafnian counts the
diagonal as loop weights.

0-1 and integer matrices give exact integers (however large); decimal values give a
double-precision result with an error estimate, or an exact fraction with --exact.
)";

constexpr const char* kFooter = R"(
Examples (from the source tree):
  matchcount --as graph datasets/grid8x8.edges        # 12988816 dimer coverings
  matchcount --as digraph datasets/derangements8.arcs # 14833 cycle covers
  matchcount --as graph datasets/petersen.edges       # 6 perfect matchings (a hafnian)
  matchcount --json datasets/random_int10.mtx          # value, blocks, engines, timings
  matchcount --row-mult 2,0,1,1,1,1,1,1,1,1 datasets/random_int10.mtx
  matchcount --checkpoint run.ckpt datasets/band12.mtx # resumable: run it again after a stop
  mpirun -np 4 matchcount datasets/band12.mtx          # Ryser walks and estimates over MPI ranks
Exit codes: 0 ok, 1 internal error, 2 bad input or usage, 3 refused (a limit),
4 an MPI rank lost, 130/143 stopped by SIGINT/SIGTERM with the progress saved (--checkpoint).)";

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
  std::cerr << "matchcount: error: " << cli::one_line(message) << "\n";
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

/// The engine catalog as --list-engines prints it.
std::string engine_table() {
  char line[256];
  std::snprintf(line, sizeof line, "%-13s %-6s %-22s %-9s %-6s %s\n", "engine", "device", "numbers", "largest n",
                "units", "what it does");
  std::string out = line;
  for (const EngineInfo& e : engine_catalog()) {
    if (e.question != "count") continue;
    std::string kinds;
    for (const auto& [on, name] : {std::pair{e.integer, "integer"}, {e.real, "real"}, {e.complex, "complex"}})
      if (on) kinds += (kinds.empty() ? "" : ",") + std::string(name);
    const std::string n = e.max_n >= (1 << 20) ? "any" : std::to_string(e.max_n);
    std::snprintf(line, sizeof line, "%-13s %-6s %-22s %-9s %-6s %s\n", e.name.c_str(), e.gpu ? "gpu" : "cpu",
                  kinds.c_str(), n.c_str(), e.shares_units ? "yes" : "no", e.summary.c_str());
    out += line;
  }
  out += "\nThe other questions' engines (run by their mode, which chooses among them; not --engine):\n";
  for (const EngineInfo& e : engine_catalog())
    if (e.question != "count") out += "  " + e.question + ": " + e.name + ", " + e.summary + "\n";
  return out + "units: the walk runs in work units (checkpoints inside a block, shared over MPI ranks).\n"
               "Rectangular engines (rect-*) take m x n matrices with m < n; square blocks are planned as usual.\n";
}

}  // namespace

static int run(int argc, char** argv);

int cli_main(int argc, char** argv) {
  // Before any GMP number exists: allocation failures end with exit code 1, never an abort.
  install_allocation_failure_handlers("matchcount: error: out of memory");
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

static int run(int argc, char** argv) {
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
       progress = false, explain = false, verify_resume = false;
  double progress_every = 30;
  std::string row_mult, col_mult;
  CountOptions count;

  app.add_option("FILE", file, "graph or matrix file, - for standard input")->required();
  std::vector<std::string> formats = input_format_names();
  app.add_option("--as", as, "how to read FILE")->check(CLI::IsMember(formats))->capture_default_str();
  std::vector<std::string> engines = engine_names();
  engines.insert(engines.begin(), "auto");
  app.add_option("--engine", engine, "counting engine for every block (auto: chosen per block by predicted time; --list-engines)")
      ->check(CLI::IsMember(engines))
      ->capture_default_str();
  app.add_option("--threads", threads, "worker threads (0: all cores)")->check(cli::whole_at_least(0));
  std::string max_memory;
  app.add_option("--max-memory", max_memory,
                 "memory budget, e.g. 200M, 8G, 1.5GiB (none: no budget; default: 3/4 of the memory available); "
                 "planning and engines predicted to need more are refused (exit code 3)")
      ->check(cli::memory_size());
  app.add_option("--device", device, "where to count: cpu, gpu, or auto (a GPU when one is present and a block is large enough)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}))
      ->capture_default_str();
  app.add_flag("--no-jit", no_jit, "GPU: use only the kernels built into the program (no run-time compilation)");
  std::string gpus = "all";
  app.add_option("--gpus", gpus, "GPU: how many of the visible devices to use (N or all; CUDA_VISIBLE_DEVICES picks which)")
      ->capture_default_str();
  std::string checkpoint_file;
  double checkpoint_every = 60;
  auto* checkpoint_opt = app.add_option("--checkpoint", checkpoint_file,
                 "save progress to FILE now and then and on SIGINT/SIGTERM; resume from it if it exists");
  app.add_option("--checkpoint-every", checkpoint_every, "seconds between checkpoint saves")
      ->check(cli::number_at_least(0, false))
      ->capture_default_str();
  app.add_flag("--verify-resume", verify_resume, "on resuming, recompute a random sample (about 1/16) of the saved "
               "work and refuse a checkpoint that does not match it")->needs(checkpoint_opt);
  bool hafnian = false, loop_hafnian = false;
  auto* haf_flag = app.add_flag("--hafnian", hafnian,
                                "print the hafnian of a symmetric matrix or graph (perfect matchings of a general graph)");
  app.add_flag("--loop-hafnian", loop_hafnian, "the loop hafnian: the diagonal (self-loops) as loop weights")
      ->excludes(haf_flag);
  app.add_flag("--exact", exact, "read decimal values as exact fractions and print an exact fraction");
  app.add_flag("--log", count.log,
               "print the natural logarithm of the count (its sign and error on stderr); planar blocks (lattices) "
               "by a sparse LU log-determinant in polynomial time, others by the usual engines");
  app.add_flag("--sum-duplicates", sum_duplicates, "add the weights of repeated edges instead of rejecting them");
  app.add_option("--row-mult", row_mult,
                 "repeat row i of the matrix m_i times, e.g. 1,0,2 (0 drops it), as thewalrus's permanent_repeated");
  app.add_option("--col-mult", col_mult, "repeat column j m_j times (the same form as --row-mult)");
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
  app.add_flag("--progress", progress,
               "show progress on stderr even when it is not a terminal (then as a line every --progress-every seconds)");
  app.add_option("--progress-every", progress_every, "seconds between progress lines when stderr is not a terminal")
      ->check(cli::number_at_least(0, true))
      ->capture_default_str();
  cli::EstimateFlags estimate_flags;
  cli::add_estimate_options(app, estimate_flags);
  bool& estimate = estimate_flags.estimate;
  const std::string& method = estimate_flags.method;
  EstimateOptions& est = estimate_flags.options;
  CLI::Option* max_seconds = estimate_flags.max_seconds;
  cli::PatternFlags pattern;
  cli::add_pattern_options(app, pattern);
  cli::TorontonianFlags tor;
  cli::add_torontonian_options(app, tor);
  cli::MatchingsFlags all;
  cli::add_matchings_options(app, all);
  cli::WhichFlags which;
  cli::add_which_options(app, which);
  cli::BatchFlags batch;
  cli::add_batch_options(app, batch);
  // Computed only when asked for: it counts the visible GPUs, which starts CUDA (0.1-0.2 s).
  app.set_version_flag("--version", version_text);
  app.add_flag_callback(
      "--list-engines", [] {
        std::fputs(engine_table().c_str(), stdout);
        throw CLI::Success();
      },
      "print the engines (device, number kinds, limits) and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version, --list-engines
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, std::string(e.what()) + " (see matchcount --help)");
  }

  const bool terminal = isatty(STDERR_FILENO);
  cli::ProgressDisplay bar(terminal ? cli::ProgressDisplay::Mode::Terminal
                           : progress ? cli::ProgressDisplay::Mode::Lines
                                      : cli::ProgressDisplay::Mode::Off,
                           progress_every);
  try {
    ReadOptions read;
    read.as = parse_input_format(as);
    read.exact = exact;
    read.sum_duplicates = sum_duplicates;
    read.hafnian = hafnian || loop_hafnian;
    read.loops = loop_hafnian;
    read.keep_lines = which.marginals;  // edges are listed in file order
    read.dense_stacks = true;  // a float stack is read in place by the batch kernels (cli_batch.cpp)
    if (!max_memory.empty()) read.max_memory = cli::memory_budget_of(max_memory);
    // A cap the user gave covers reading too: a huge file is refused at the cap, not read whole.
    const bool capped = max_seconds->count() > 0 && est.max_seconds > 0;
    if (capped) read.max_seconds = est.max_seconds;
    if (read.hafnian && (read.as == InputFormat::Bipartite || read.as == InputFormat::Digraph))
      throw UsageError(std::string("--") + (loop_hafnian ? "loop-" : "") + "hafnian counts general graphs and symmetric "
                       "matrices; --as " + as + " reads a permanent");
    std::unique_ptr<Checkpoint> checkpoint;  // checked and locked before the input is read, not at the first save
    if (!checkpoint_file.empty()) checkpoint = std::make_unique<Checkpoint>(checkpoint_file, checkpoint_every, verify_resume);
    const auto t0 = std::chrono::steady_clock::now();
    ReadResult input = read_input(file, read);
    if (read.hafnian && !input.symmetric_graph && !input.row_names.empty())
      throw UsageError(file + ": " + input.format + " gives a permanent, not a hafnian (--as graph reads an edge "
                       "list as one undirected graph)");
    // Graphs that are not bipartite, and matrices read with --hafnian, count hafnians.
    const bool count_hafnian_of = read.hafnian || input.symmetric_graph;
    cli::check_pattern(pattern, read, estimate, !row_mult.empty() || !col_mult.empty());
    cli::check_torontonian(tor, read, estimate, !row_mult.empty() || !col_mult.empty(), pattern.given(), no_preprocess);
    cli::check_matchings(all, read, estimate, !row_mult.empty() || !col_mult.empty(), pattern.given(), tor.torontonian,
                         input.is_stack);
    cli::check_which(which, {estimate, !row_mult.empty() || !col_mult.empty(), pattern.given(), tor.torontonian, all.matchings,
                             input.is_stack, loop_hafnian, count.log, explain, !checkpoint_file.empty()});
    if (all.matchings)  // the reader's remarks on perfect matchings do not concern all matchings
      std::erase_if(input.notes, [](const std::string& n) { return n.find("perfect matching") != std::string::npos; });
    cli::check_batch(batch, input, estimate ? "--estimate" : explain ? "--explain" : count.log ? "--log"
                                 : json ? "--json" : !checkpoint_file.empty() ? "--checkpoint"
                                 : pattern.given() ? "--reps" : !row_mult.empty() || !col_mult.empty() ? "--row-mult" : "");
    if (count_hafnian_of && (!row_mult.empty() || !col_mult.empty()))
      throw UsageError("--row-mult/--col-mult repeat the lines of a permanent's matrix, not of a hafnian's");
    if (!row_mult.empty() || !col_mult.empty()) {
      const auto list = [](const std::string& text, const char* option) {
        return text.empty() ? std::vector<std::uint64_t>{} : parse_multiplicities(text, option);
      };
      input.matrix = repeat_lines(input.matrix, list(row_mult, "--row-mult"), list(col_mult, "--col-mult"));
      input.zero_hint.clear();  // it described the matrix before the repetition
      input.notes.push_back("lines repeated by --row-mult/--col-mult: " + std::to_string(rows_of(input.matrix)) + "x" +
                            std::to_string(cols_of(input.matrix)));
    }
    RunInfo info;
    info.file = file;
    info.read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    info.threads = threads > 0 ? threads : omp_get_max_threads();
    // A count of 0 that another reading of the input would not give is explained on stderr,
    // whatever else is printed (docs/usage.md, "Counts of 0").
    const auto explain_zero = [&input] {
      if (!input.zero_hint.empty())
        std::cerr << "matchcount: note: the count is 0: " << cli::one_line(input.zero_hint) << "\n";
    };

    // Graph inputs count perfect matchings; a rectangular matrix has a permanent.
    count.perfect_matchings = !input.row_names.empty();
    count.engine = engine == "auto" ? "" : engine;
    count.preprocess = !no_preprocess;
    count.threads = threads;
    if (!max_memory.empty()) count.max_memory = cli::memory_budget_of(max_memory);
    count.device = device == "cpu" ? DevicePolicy::Cpu : device == "gpu" ? DevicePolicy::Gpu : DevicePolicy::Auto;
    count.specialise = no_jit ? Specialise::Never : Specialise::Auto;
    if (count.device == DevicePolicy::Gpu && !gpu_available())
      throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible"
                                           : "--device gpu: matchcount was built without CUDA");
    count.gpus = parse_gpus(gpus);
    if (count.gpus > 0 && count.device != DevicePolicy::Cpu && gpu_available() &&
        count.gpus > static_cast<int>(gpu_devices().size()))
      throw UsageError("--gpus " + gpus + ": only " + std::to_string(gpu_devices().size()) + " GPU(s) are visible");
    if (checkpoint) {
      if (estimate || explain) throw UsageError("--checkpoint applies to exact counts, not --estimate or --explain");
      count.checkpoint = cli::stop_when_a_rank_is_lost(checkpoint.get());
      cli::stop_on_signals(count.checkpoint);
    }
    if (input.is_stack) {
      using Q = cli::StackQuestion;
      std::optional<cli::StackGammas> gammas;
      if (!tor.gamma_file.empty())
        gammas = cli::read_stack_gammas(tor.gamma_file, read, static_cast<std::int64_t>(cli::stack_size(input)), rows_of(input.matrix));
      cli::run_stack(input, file, tor.torontonian ? Q::Torontonian : loop_hafnian ? Q::LoopHafnian : hafnian ? Q::Hafnian : Q::Permanent,
                     batch, count, threads, gammas ? &*gammas : nullptr);
      return 0;
    }
    if (estimate) {
      if (explain || engine != "auto" || count.log)
        throw UsageError("--estimate does not take --explain, --engine or --log");
      parse_estimate_method(method, est.method);
      est.threads = threads;
      if (capped) est.max_seconds = std::max(est.max_seconds - info.read_seconds, 1e-3);  // the cap includes reading
      est.device = count.device;
      est.max_memory = count.max_memory;  // blocks counted exactly keep to the budget
      est.perfect_matchings = count.perfect_matchings;
      est.progress = [&bar](const EstimateProgress& p) { bar.estimate(p); };
      const EstimateReport report = count_hafnian_of ? estimate_hafnian(input.matrix, loop_hafnian, est)
                                                     : estimate_permanent(input.matrix, est);
      bar.finish();
      if (json) {
        std::cout << estimate_json(report, input, info) << std::endl;
      } else {
        // Counted exactly after all: the value as a count prints it.
        std::cout << (report.exact_value ? report.exact_value->to_string()
                                         : report.estimate.to_string(report.significant_digits()))
                  << std::endl;
        std::cerr << estimate_text(report, input, info, verbose);
      }
      if (report.exact && report.estimate.zero()) explain_zero();
      return 0;
    }
    count.progress = [&bar](double f) { bar.count(f); };
    count.explain = explain;
    // --max-seconds caps exact counts too (docs/usage.md, "Time caps, memory and large inputs"): a predicted
    // overrun is refused at once; without a cap a count predicted to take more than a day says
    // so before it starts.
    count.max_seconds = max_seconds->count() > 0 ? est.max_seconds : 0.0;
    count.on_prediction = [&](double predicted) {
      if (count.max_seconds == 0 && predicted > 86400)
        std::cerr << "matchcount: note: the count is predicted to take about " << duration_text(predicted)
                  << "; --max-seconds S refuses counts predicted to take longer than S seconds\n";
    };
    std::unique_ptr<cli::DeadlineTimer> deadline;
    if (count.max_seconds > 0 && !explain) {
      const double left = count.max_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      deadline = std::make_unique<cli::DeadlineTimer>(std::max(left, 0.0), checkpoint.get(),
                                                       max_seconds->as<std::string>());
    }
    if (which.given()) {  // under the same time cap (no checkpoint: the cap ends the run with exit 3)
      const int status = cli::run_which(which, input, count_hafnian_of, count, est.seed, json, info);
      if (deadline) deadline->cancel();
      return status;
    }
    if (input.symmetric_graph) count.vertex_names = input.row_names;
    const CountReport report = all.matchings   ? cli::count_matchings_of(all, input, read, count)
                               : tor.torontonian ? cli::count_torontonian_of(tor, input, read, count)
                               : pattern.given() ? cli::count_pattern(pattern, input, read, count)
                               : count_hafnian_of ? count_hafnian(input.matrix, loop_hafnian, count)
                                                  : count_permanent(input.matrix, count);
    if (deadline) deadline->cancel();
    bar.finish();
    if (report.explained) {
      if (json) std::cout << report_json(report, input, info) << std::endl;
      else std::cout << report_plan(report, input, info);
      if (verbose) std::cerr << tuning_text();
      return 0;
    }

    if (verbose) std::cerr << report_text(report, input, info);
    if (json) std::cout << report_json(report, input, info) << std::endl;
    else if (!report.polynomial.empty())  // --matchings --polynomial: 'k m_k' a line
      cli::print_polynomial(report, std::cout, std::cerr);
    else std::cout << report.value.to_string() << std::endl;
    if (report.value.is_zero()) explain_zero();
    if (report.value.log && !json && !verbose) {
      const LogValue& l = *report.value.log;  // --log: what the logarithm stands for
      char line[160];
      std::snprintf(line, sizeof line, " (log10 %.15g); %s the logarithm's error %.3g", l.log10_abs(),
                    l.estimated ? "estimate (not a bound) of" : "bound on", l.error);
      std::cerr << "matchcount: note: the natural logarithm of the count " << l.scientific(l.digits())
                << (l.sign == 0 ? "" : line) << "\n";
    } else if (!report.value.exact() && !json && !verbose) {
      std::cerr << "matchcount: note: approximate value (double precision), relative error "
                << (report.value.error_estimated ? "estimate (not a bound) " : "bound ") << report.value.rel_error();
      // --exact makes decimal reals exact; complex values have no exact mode, so it is never
      // suggested for them, and a user who gave it is told why the value is still a float.
      if (kind_of(input.matrix) == NumberKind::Real && !exact && !tor.torontonian) std::cerr << "; --exact gives the exact fraction";
      if (kind_of(input.matrix) == NumberKind::Complex && exact)
        std::cerr << " (complex values are always counted in double precision)";
      std::cerr << "\n";
    }
    return 0;
  } catch (const Interrupted& e) {
    bar.finish();
    if (e.signal() == cli::kDeadlineSignal)
      return fail(3, "the time cap --max-seconds " + max_seconds->as<std::string>() +
                         " was reached; progress is saved in " + checkpoint_file +
                         ": run the same command again (with a larger cap) to resume");
    return cli::report_interrupted(e, checkpoint_file);
  } catch (const InputError& e) {
    bar.finish();
    return fail(2, e.what());
  } catch (const UsageError& e) {
    bar.finish();
    return fail(2, e.what());
  } catch (const RefusedError& e) {
    bar.finish();
    return fail(3, e.what());
  } catch (const std::bad_alloc&) {
    bar.finish();
    return fail(1, "out of memory");
  } catch (const std::exception& e) {
    bar.finish();
    return fail(1, std::string("internal error: ") + e.what());
  }
}
