// Option groups of the matchcount program (cli_options.hpp) and the range checks every option
// uses.
#include "cli_options.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "matchcount/error.hpp"
#include "matchcount/multiplicity.hpp"

namespace matchcount::cli {

/// Range checks whose messages read like the rest ("--threads: must be a whole number >= 0,
/// not '-1'"); CLI11's own print the largest double in full.
CLI::Validator whole_at_least(long long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const long long v = std::stoll(text, &used);
          if (used == text.size() && v >= lo) return "";
        } catch (const std::exception&) {
        }
        return "must be a whole number >= " + std::to_string(lo) + ", not '" + text + "'";
      },
      "INT>=" + std::to_string(lo));
}
CLI::Validator number_at_least(double lo, bool strictly) {
  char bound[32];
  std::snprintf(bound, sizeof bound, "%g", lo);
  const std::string relation = std::string(strictly ? "> " : ">= ") + bound;
  return CLI::Validator(
      [lo, strictly, relation](std::string& text) -> std::string {
        try {
          std::size_t used = 0;
          const double v = std::stod(text, &used);
          if (used == text.size() && std::isfinite(v) && (strictly ? v > lo : v >= lo)) return "";
        } catch (const std::exception&) {
        }
        return "must be a number " + relation + ", not '" + text + "'";
      },
      "NUMBER" + std::string(strictly ? ">" : ">=") + bound);
}

void add_estimate_options(CLI::App& app, EstimateFlags& flags) {
  auto* g = app.add_option_group("Estimation", "an unbiased random estimate with error bars, for nonnegative matrices");
  g->add_flag("--estimate", flags.estimate,
              "estimate instead of counting exactly (blocks beyond exact reach; blocks predicted cheaper to count "
              "exactly are counted exactly)");
  g->add_option("--method", flags.method, "estimator: rasmussen, rasmussen+, scaling, scaling+; for hafnians also "
                "godsil-gutman, godsil-gutman-complex, barvinok")
      ->check(CLI::IsMember(estimate_method_names()))
      ->capture_default_str();
  auto* samples = g->add_option("--samples", flags.options.samples, "samples per estimated block (default: until --rel-error)")
                      ->check(whole_at_least(1));
  auto* rel = g->add_option("--rel-error", flags.options.rel_error, "stop when the relative standard error falls below this")
                  ->check(number_at_least(0, true))
                  ->capture_default_str();
  flags.max_seconds = g->add_option("--max-seconds", flags.options.max_seconds,
                                    "time cap of a --rel-error run (0: none); an exact count given it is refused when "
                                    "predicted longer and stopped when it is reached (exit code 3)")
      ->check(number_at_least(0, false))
      ->capture_default_str();
  g->add_option("--max-samples", flags.options.max_samples, "sample cap per block of a --rel-error run")
      ->check(whole_at_least(1))
      ->capture_default_str();
  g->add_option("--seed", flags.options.seed, "random seed (the same seed, options and device give the same result)")->capture_default_str();
  g->add_option("--scale-interval", flags.options.scale_interval, "scaling methods: rescale every this many rows (SInterval; 0: max(1, n/256))")
      ->check(whole_at_least(0))
      ->capture_default_str();
  g->add_option("--scale-sweeps", flags.options.scale_iterations, "scaling methods: Sinkhorn sweeps per rescale")
      ->check(whole_at_least(0))
      ->capture_default_str();
  g->add_option("--scale-radius", flags.options.scale_radius,
                "general graphs, scaling methods: rescale the vertices within this many edges of each pair covered (0: none; -1: 2 on lattice-like graphs)")
      ->check(whole_at_least(-1))
      ->capture_default_str();
  g->add_option("--particles", flags.options.particles,
                "general graphs: each sample a population of this many resampled paths (0: independent paths; "
                "-1: 50 on lattice-like graphs of 512 vertices or more)")
      ->check(whole_at_least(-1))
      ->capture_default_str();
  g->add_option("--bethe", flags.options.bethe,
                "general graphs, scaling methods: weight the draws by belief propagation (1) or the Sinkhorn scaling (0) "
                "(-1: belief propagation on sparse graphs of 512 vertices or more, on the CPU)")
      ->check(whole_at_least(-1))
      ->capture_default_str();
  g->add_option("--exact-up-to", flags.options.exact_up_to, "count blocks up to this size exactly (0: estimate every block)")
      ->check(whole_at_least(0))
      ->capture_default_str();
  samples->excludes(rel);
}

void add_pattern_options(CLI::App& app, PatternFlags& flags) {
  auto* g = app.add_option_group("Photon-number patterns",
                                 "hafnians of a matrix with repeated rows and columns (with --hafnian or --loop-hafnian)");
  g->add_option("--reps", flags.reps,
                "repeat row and column i of the symmetric matrix r_i times, e.g. 2,0,3,1 (0 drops it), as "
                "thewalrus's hafnian_repeated; copies of i are joined by the diagonal entry a_ii");
  g->add_option("--mu", flags.mu_file,
                "with --loop-hafnian --reps: the loop weights, a file of n values (Matrix Market or NumPy, n x 1 "
                "or 1 x n; default: the diagonal)");
}

void check_pattern(const PatternFlags& flags, const ReadOptions& read, bool estimate, bool multiplicities) {
  if (!flags.given()) return;
  if (flags.reps.empty()) throw UsageError("--mu gives the loop weights of --reps: it needs --reps");
  if (!read.hafnian) throw UsageError("--reps repeats the rows and columns of a hafnian: it needs --hafnian or --loop-hafnian");
  if (!flags.mu_file.empty() && !read.loops) throw UsageError("--mu gives loop weights: it needs --loop-hafnian");
  if (estimate) throw UsageError("--reps counts exactly or in double precision; --estimate does not apply");
  if (multiplicities) throw UsageError("--row-mult/--col-mult repeat a permanent's lines; a hafnian's take --reps");
}

CountReport count_pattern(const PatternFlags& flags, const ReadResult& input, const ReadOptions& read,
                          const CountOptions& count) {
  const std::vector<std::uint64_t> rpt = parse_multiplicities(flags.reps, "--reps");
  std::optional<ReadResult> mu;
  if (!flags.mu_file.empty()) {
    ReadOptions as_numbers;
    as_numbers.exact = read.exact;
    as_numbers.max_memory = read.max_memory;
    as_numbers.max_seconds = read.max_seconds;
    as_numbers.vectors = true;
    mu = read_input(flags.mu_file, as_numbers);
  }
  return count_hafnian_repeated(input.matrix, rpt, mu ? &mu->matrix : nullptr, read.loops, count);
}

void add_torontonian_options(CLI::App& app, TorontonianFlags& flags) {
  auto* g = app.add_option_group("Torontonians", "threshold-detector click probabilities of Gaussian states");
  g->add_flag("--torontonian", flags.torontonian,
              "print the torontonian of the 2n x 2n matrix O (thewalrus's tor, (a, a^dagger) order): "
              "sum over mode subsets Z of (-1)^(n-|Z|) / sqrt(det(I - O_Z)), with an error bound");
  g->add_option("--gamma", flags.gamma_file,
                "with --torontonian: the loop torontonian's 2n displacements (thewalrus's ltor), a file "
                "of 2n values (Matrix Market or NumPy); with a stack of k matrices, k x 2n values (one row a "
                "matrix) or 2n (the same for each)");
}

void check_torontonian(const TorontonianFlags& flags, const ReadOptions& read, bool estimate, bool lines_repeated,
                       bool pattern, bool no_preprocess) {
  if (!flags.gamma_file.empty() && !flags.torontonian) throw UsageError("--gamma gives the loop torontonian's displacements: it needs --torontonian");
  if (!flags.torontonian) return;
  if (read.hafnian) throw UsageError("--torontonian is a question of its own: --hafnian/--loop-hafnian do not apply");
  if (estimate) throw UsageError("--torontonian counts every term; --estimate does not apply");
  if (lines_repeated || pattern) throw UsageError("--torontonian takes O as it is; --reps/--row-mult/--col-mult do not apply");
  if (no_preprocess) throw UsageError("--no-preprocess does not apply to --torontonian (nothing is preprocessed)");
  if (read.exact) throw UsageError("--torontonian is a double with an error bound (its terms are square roots); --exact does not apply");
}

CountReport count_torontonian_of(const TorontonianFlags& flags, const ReadResult& input, const ReadOptions& read,
                                 const CountOptions& count) {
  std::optional<ReadResult> gamma;
  if (!flags.gamma_file.empty()) {
    ReadOptions as_numbers;
    as_numbers.max_memory = read.max_memory;
    as_numbers.max_seconds = read.max_seconds;
    as_numbers.vectors = true;
    gamma = read_input(flags.gamma_file, as_numbers);
  }
  return count_torontonian(input.matrix, gamma ? &gamma->matrix : nullptr, count);
}

}  // namespace matchcount::cli
