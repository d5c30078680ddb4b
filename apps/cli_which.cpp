// --marginals and --sample (cli_which.hpp): options, usage errors and output.
#include "cli_which.hpp"

#include <algorithm>
#include <iostream>
#include <map>

#include "matchcount/error.hpp"
#include "matchcount/which.hpp"

namespace matchcount::cli {

void add_which_options(CLI::App& app, WhichFlags& flags) {
  auto* g = app.add_option_group("Which matchings", "edge probabilities and exact random perfect matchings");
  g->add_flag("--marginals", flags.marginals,
              "print, for every edge of the file in file order, 'u v p': the probability that the edge lies in a "
              "random perfect matching (uniform, or proportional to the product of its weights); exact fractions "
              "for integer weights");
  g->add_option("--sample", flags.sample,
                "print N independent exact random perfect matchings, one a line as 'u v, u v, ...' (--seed S "
                "reproduces them)")
      ->type_name("N")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
}

void check_which(const WhichFlags& flags, const OtherQuestions& o) {
  if (!flags.given()) return;
  const char* q = flags.marginals ? "--marginals" : "--sample";
  if (flags.marginals && flags.sample > 0) throw UsageError("--marginals and --sample are different questions: ask one");
  const auto refuse = [&](bool given, const char* option) {
    if (given) throw UsageError(std::string(q) + " does not apply with " + option);
  };
  refuse(o.estimate, "--estimate (it answers exactly)");
  refuse(o.lines_repeated, "--row-mult/--col-mult");
  refuse(o.pattern, "--reps");
  refuse(o.torontonian, "--torontonian");
  refuse(o.matchings, "--matchings (it asks about perfect matchings)");
  refuse(o.stack, "a stack of matrices");
  refuse(o.loops, "--loop-hafnian");
  refuse(o.log, "--log");
  refuse(o.explain, "--explain");
  refuse(o.checkpoint, "--checkpoint");
}

namespace {

/// The report's edges in the order of the file's lines where the reader kept them.
std::vector<std::size_t> file_order(const MarginalsReport& r, const ReadResult& input) {
  std::vector<std::size_t> order(r.edges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (input.entry_lines.empty()) return order;
  std::map<std::pair<int, int>, long> line;
  for (const auto& e : input.entry_lines) line.emplace(std::pair{e.row, e.col}, e.line);
  const auto at = [&](std::size_t i) {
    const auto it = line.find({r.edges[i].u, r.edges[i].v});
    return it == line.end() ? 0L : it->second;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return at(a) < at(b); });
  return order;
}

}  // namespace

int run_which(const WhichFlags& flags, const ReadResult& input, bool symmetric, const CountOptions& count,
              std::uint64_t seed, bool json, const RunInfo& info) {
  MatchingGraph g;
  g.matrix = input.matrix;
  g.symmetric = symmetric;
  if (flags.marginals) {
    const MarginalsReport r = edge_probabilities(g, count);
    const std::vector<std::size_t> order = file_order(r, input);
    if (json) {
      std::cout << marginals_json(r, order, g, input, info) << std::endl;
      return 0;
    }
    double worst = 0;
    for (std::size_t i : order) {
      const EdgeProbability& e = r.edges[i];
      std::cout << row_label(input, e.u) << " " << col_label(input, e.v) << " " << e.p.to_string() << "\n";
      worst = std::max(worst, e.p.abs_error);
    }
    std::cout.flush();
    if (!r.total.exact())
      std::cerr << "matchcount: note: approximate probabilities (double precision), absolute error "
                << (r.total.error_estimated ? "estimate (not a bound) " : "bound ") << worst << " or less\n";
    return 0;
  }
  SampleOptions so;
  so.samples = flags.sample;
  so.seed = seed;
  so.count = count;
  for (const auto& pairs : sample_perfect_matchings(g, so)) {
    if (json) {
      std::cout << sample_json(pairs, input) << "\n";
      continue;
    }
    for (std::size_t k = 0; k < pairs.size(); ++k)
      std::cout << (k ? ", " : "") << row_label(input, pairs[k].first) << " " << col_label(input, pairs[k].second);
    std::cout << "\n";
  }
  std::cout.flush();
  return 0;
}

}  // namespace matchcount::cli
