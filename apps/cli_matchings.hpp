// The all-matchings question of the matchcount program (cli_main.cpp): --matchings, with
// --polynomial and --monomer-weight (matchcount/matchings.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::cli {

struct MatchingsFlags {
  bool matchings = false, polynomial = false;
  std::string monomer_weight;  // empty: 1
};
void add_matchings_options(CLI::App& app, MatchingsFlags& flags);

/// UsageError for --polynomial or --monomer-weight without --matchings, for both together, and
/// for --matchings with another question or an option that does not apply to it.
void check_matchings(const MatchingsFlags& flags, const ReadOptions& read, bool estimate, bool lines_repeated, bool pattern,
                     bool torontonian, bool stack);

/// The graph of the input: an edge list read as a general graph is its adjacency matrix; a
/// bipartite graph or a matrix is the bipartite graph of its rows and columns (whose matchings
/// are the partial permutations: rook numbers).
AnyMatrix matchings_graph(const ReadResult& input);

/// count_matchings_report of the input's graph with the flags' monomer weight (read as `read`
/// reads numbers: decimals exactly with --exact).
CountReport count_matchings_of(const MatchingsFlags& flags, const ReadResult& input, const ReadOptions& read,
                               const CountOptions& count);

/// Prints the polynomial's coefficients, one 'k m_k' a line, to `out`; for float coefficients
/// also a note on `err` with the largest bound relative to its coefficient.
void print_polynomial(const CountReport& report, std::ostream& out, std::ostream& err);

}  // namespace matchcount::cli
