// Option groups of the matchcount program (cli_main.cpp) that belong to one question each:
// estimation, and photon-number patterns (repeated-row hafnians).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "matchcount/estimate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::cli {

/// Range checks whose messages read like the rest ("--threads: must be a whole number >= 0,
/// not '-1'"); CLI11's own print the largest double in full.
CLI::Validator whole_at_least(long long lo);
CLI::Validator number_at_least(double lo, bool strictly);

/// What the estimation group sets. `max_seconds` is returned: it also caps exact counts.
struct EstimateFlags {
  bool estimate = false;
  std::string method = "scaling+";
  EstimateOptions options;
  CLI::Option* max_seconds = nullptr;
};
void add_estimate_options(CLI::App& app, EstimateFlags& flags);

/// Photon-number patterns: --reps (thewalrus's rpt) and --mu (loop weights).
struct PatternFlags {
  std::string reps, mu_file;
  bool given() const { return !reps.empty() || !mu_file.empty(); }
};
void add_pattern_options(CLI::App& app, PatternFlags& flags);
/// Torontonians: --torontonian and --gamma (the loop torontonian's displacement).
struct TorontonianFlags {
  bool torontonian = false;
  std::string gamma_file;
};
void add_torontonian_options(CLI::App& app, TorontonianFlags& flags);
/// UsageError for --gamma without --torontonian, and for --torontonian with a hafnian flag,
/// --estimate, --reps, --row-mult/--col-mult or --no-preprocess.
void check_torontonian(const TorontonianFlags& flags, const ReadOptions& read, bool estimate, bool lines_repeated,
                       bool pattern, bool no_preprocess);
/// count_torontonian of the matrix read, --gamma read as `read` reads numbers.
CountReport count_torontonian_of(const TorontonianFlags& flags, const ReadResult& input, const ReadOptions& read,
                                 const CountOptions& count);

/// UsageError for a pattern where it does not apply: without --hafnian or --loop-hafnian, with
/// --estimate or --row-mult/--col-mult, --mu without --reps or without --loop-hafnian.
void check_pattern(const PatternFlags& flags, const ReadOptions& read, bool estimate, bool multiplicities);
/// The repeated-row hafnian of the matrix read (count_hafnian_repeated), --mu read as `read`
/// reads numbers.
CountReport count_pattern(const PatternFlags& flags, const ReadResult& input, const ReadOptions& read,
                          const CountOptions& count);

}  // namespace matchcount::cli
