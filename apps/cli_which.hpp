// The which-matchings questions of the matchcount program (cli_main.cpp): --marginals (edge
// probabilities) and --sample N (exact random perfect matchings), matchcount/which.hpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"

namespace matchcount::cli {

struct WhichFlags {
  bool marginals = false;
  std::uint64_t sample = 0;  // samples asked for (0: none)
  std::string svg;           // --svg FILE: the picture of the sample or the marginals
  bool given() const { return marginals || sample > 0; }
};
void add_which_options(CLI::App& app, WhichFlags& flags);

/// What else the command line asked for, for the usage errors of options that do not apply.
struct OtherQuestions {
  bool estimate = false, lines_repeated = false, pattern = false, torontonian = false, matchings = false, stack = false,
       loops = false, log = false, explain = false, checkpoint = false;
};
/// UsageError for both questions at once and for any option that does not apply to them.
void check_which(const WhichFlags& flags, const OtherQuestions& other);

/// Answers the question for the input read (a graph, or a matrix's bipartite graph; symmetric
/// with --hafnian), printing to stdout; returns the exit status.
int run_which(const WhichFlags& flags, const ReadResult& input, bool symmetric, const CountOptions& count,
              std::uint64_t seed, bool json, const RunInfo& info);

}  // namespace matchcount::cli
