// --marginals and --sample (cli_which.hpp): options, usage errors and output.
#include "cli_which.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "matchcount/error.hpp"
#include "matchcount/which.hpp"
#include "matchcount/svg.hpp"

namespace matchcount::cli {
namespace {

/// UsageError unless `path` can be written: a regular file we may write, or a new name in a
/// folder we may write (checked before any work, so that a run that cannot save its picture
/// prints nothing).
void check_writable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) throw UsageError("--svg " + path + ": not a regular file");
    if (::access(path.c_str(), W_OK) != 0) throw UsageError("--svg " + path + ": cannot write the file");
    return;
  }
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) throw UsageError("--svg " + path + ": cannot write in its folder");
}

/// The graph as the picture takes it: every vertex's name (a matrix's rows then columns) and
/// every edge once, (u, v) in one numbering.
DrawnGraph drawn_graph(const ReadResult& input, bool symmetric) {
  DrawnGraph g;
  const int rows = rows_of(input.matrix), cols = cols_of(input.matrix);
  for (int r = 0; r < rows; ++r) g.names.push_back(row_label(input, r));
  if (!symmetric)
    for (int c = 0; c < cols; ++c) g.names.push_back(col_label(input, c));
  std::visit(
      [&](const auto& m) {
        for (const auto& e : m.entries) {
          if (symmetric && e.row >= e.col) continue;
          g.edges.emplace_back(e.row, symmetric ? e.col : rows + e.col);
        }
      },
      input.matrix);
  return g;
}

void write_svg(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw UsageError("--svg " + path + ": cannot write the file");
}

}  // namespace

void add_which_options(CLI::App& app, WhichFlags& flags) {
  auto* g = app.add_option_group("Which matchings", "edge probabilities and exact random perfect matchings");
  g->add_flag("--marginals", flags.marginals,
              "print, for every edge of the file in file order, 'u v p': the probability that the edge lies in a "
              "random perfect matching (uniform, or proportional to the product of its weights); exact fractions "
              "for integer weights; with --log (counts too large to print) floats with estimated errors from the "
              "inverse Kasteleyn matrix of a planar graph, all edges in one factorisation");
  g->add_option("--sample", flags.sample,
                "print N independent exact random perfect matchings, one a line as 'u v, u v, ...' (--seed S "
                "reproduces them)")
      ->type_name("N")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  g->add_option("--svg", flags.svg,
                "with --sample 1 or --marginals: also draw the matching, or the edges shaded by probability, as an SVG "
                "picture in FILE (lattices named by cells 'r,c' as dominoes or lozenges, planar graphs by Tutte's "
                "embedding, others by a force layout)")
      ->type_name("FILE");
}

void check_which(const WhichFlags& flags, const OtherQuestions& o) {
  if (!flags.svg.empty() && !flags.given()) throw UsageError("--svg draws the answer of --sample 1 or --marginals: ask one");
  if (!flags.given()) return;
  if (flags.sample > 1 && !flags.svg.empty())
    throw UsageError("--svg draws one matching: use --sample 1 (or --marginals for every edge's probability)");
  if (!flags.svg.empty()) check_writable(flags.svg);
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
  if (flags.sample > 0) refuse(o.log, "--log");  // --marginals --log: floats from the inverse Kasteleyn matrix
  refuse(o.explain, "--explain");
  refuse(o.checkpoint, "--checkpoint");
}

namespace {

/// The report's edges in the order of the file's lines, each the way round its line names it,
/// where the reader kept them.
std::vector<ListedEdge> file_order(const MarginalsReport& r, const ReadResult& input) {
  std::vector<ListedEdge> order(r.edges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i].index = i;
  if (input.entry_lines.empty()) return order;
  std::map<std::pair<int, int>, const EntryLine*> line;
  for (const auto& e : input.entry_lines) line.emplace(std::pair{e.row, e.col}, &e);
  const auto at = [&](std::size_t i) {
    const auto it = line.find({r.edges[i].u, r.edges[i].v});
    return it == line.end() ? 0L : it->second->line;
  };
  for (ListedEdge& l : order) {
    const auto it = line.find({r.edges[l.index].u, r.edges[l.index].v});
    l.reversed = it != line.end() && it->second->reversed;
  }
  std::stable_sort(order.begin(), order.end(), [&](const ListedEdge& a, const ListedEdge& b) { return at(a.index) < at(b.index); });
  return order;
}

/// The vertices' lattice cells where every name is one (`r,c` or `(r, c)`), else none: vertices
/// of a symmetric graph, or rows then columns.
std::vector<std::pair<int, int>> cells_of(const ReadResult& input, bool symmetric) {
  std::vector<std::pair<int, int>> cells;
  const auto add = [&](const std::vector<std::string>& names) {
    for (const auto& name : names) {
      const auto cell = lattice_cell_of_name(name);
      if (!cell) return false;
      cells.push_back(*cell);
    }
    return true;
  };
  if (input.row_names.empty() || !add(input.row_names) || (!symmetric && !add(input.col_names))) return {};
  return cells;
}

}  // namespace

int run_which(const WhichFlags& flags, const ReadResult& input, bool symmetric, const CountOptions& count,
              std::uint64_t seed, bool json, const RunInfo& info) {
  MatchingGraph g;
  g.matrix = input.matrix;
  g.symmetric = symmetric;
  g.cells = cells_of(input, symmetric);
  if (flags.marginals) {
    const MarginalsReport r = edge_probabilities(g, count);
    const std::vector<ListedEdge> order = file_order(r, input);
    if (json) {
      std::cout << marginals_json(r, order, g, input, info) << std::endl;
      return 0;
    }
    double worst = 0;
    for (const ListedEdge& listed : order) {
      const EdgeProbability& e = r.edges[listed.index];
      const auto [u, v] = edge_labels(input, e.u, e.v, listed.reversed);
      std::cout << u << " " << v << " " << e.p.to_string() << "\n";
      worst = std::max(worst, e.p.abs_error);
    }
    std::cout.flush();
    if (!flags.svg.empty()) {
      const DrawnGraph d = drawn_graph(input, symmetric);
      const int rows = rows_of(input.matrix);
      std::map<std::pair<int, int>, double> p;
      for (const EdgeProbability& e : r.edges)
        p[{e.u, symmetric ? e.v : rows + e.v}] = std::visit(
            [](const auto& x) {
              using T = std::decay_t<decltype(x)>;
              if constexpr (std::is_same_v<T, double>) return x;
              else if constexpr (std::is_same_v<T, Complex>) return x.real();
              else return x.get_d();
            },
            e.p.value);
      std::vector<double> shade;
      for (const auto& [u, v] : d.edges) shade.push_back(p.count({u, v}) ? p[{u, v}] : 0.0);
      write_svg(flags.svg, marginals_svg(d, shade));
    }
    bool estimated = false;
    for (const EdgeProbability& e : r.edges) estimated = estimated || e.p.error_estimated;
    if (!r.total.exact())
      std::cerr << "matchcount: note: approximate probabilities (double precision), absolute error "
                << (estimated ? "estimate (not a bound) " : "bound ") << worst << " or less\n";
    return 0;
  }
  SampleOptions so;
  so.samples = flags.sample;
  so.seed = seed;
  so.count = count;
  const auto drawn = sample_perfect_matchings(g, so);
  if (!flags.svg.empty() && !drawn.empty()) {
    const DrawnGraph d = drawn_graph(input, symmetric);
    const int rows = rows_of(input.matrix);
    std::vector<std::pair<int, int>> chosen;
    for (const auto& [u, v] : drawn.front()) chosen.emplace_back(u, symmetric ? v : rows + v);
    std::sort(chosen.begin(), chosen.end());
    std::vector<char> matched;
    for (const auto& [u, v] : d.edges)
      matched.push_back(std::binary_search(chosen.begin(), chosen.end(), std::pair{std::min(u, v), std::max(u, v)}));
    write_svg(flags.svg, matching_svg(d, matched));
  }
  for (const auto& pairs : drawn) {
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
