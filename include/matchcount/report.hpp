// Human-readable (-v) and JSON (--json) renderings of a count.
#pragma once

#include <string>

#include "matchcount/estimate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/which.hpp"

namespace matchcount {

/// Context printed with the report.
struct RunInfo {
  std::string file;
  double read_seconds = 0.0;
  int threads = 0;
};

/// One JSON object (single line, no trailing newline) of schema 1 (docs/usage.md, "JSON";
/// docs/matchcount.schema.json): mode "count", or "explain" for a CountOptions::explain run.
std::string report_json(const CountReport& report, const ReadResult& input, const RunInfo& info);
/// Several "matchcount: ..." lines for stderr.
std::string report_text(const CountReport& report, const ReadResult& input, const RunInfo& info);
/// The plan of a CountOptions::explain run: blocks per engine, sizes, widths, predicted times.
std::string report_plan(const CountReport& report, const ReadResult& input, const RunInfo& info);

/// A string as a quoted JSON string; bytes that are not UTF-8 become U+FFFD.
std::string json_quote(const std::string& s);
/// A double with 6 significant digits, as the text reports print times ("null" when not
/// finite).
std::string json_number(double x);

/// An estimate (--estimate) as one JSON object of the same schema (mode "estimate"), and as
/// "matchcount: ..." lines for stderr (the summary with error bars always; blocks and
/// diagnostics with `verbose`).
std::string estimate_json(const EstimateReport& report, const ReadResult& input, const RunInfo& info);
std::string estimate_text(const EstimateReport& report, const ReadResult& input, const RunInfo& info, bool verbose);

/// The input's name of row (or vertex) r and column c, for answers that list edges: a graph's
/// vertex names (a symmetric graph's columns are its vertices too), else the 1-based index.
std::string row_label(const ReadResult& input, int r);
std::string col_label(const ReadResult& input, int c);

/// An edge of a report as a listing shows it: its index in the report, and whether its file line
/// names it column (second vertex) first, so that it is shown the same way round.
struct ListedEdge {
  std::size_t index = 0;
  bool reversed = false;
};
/// The names of edge (u, v) of a report (u a row or vertex, v a column or vertex) in the order
/// `reversed` says.
std::pair<std::string, std::string> edge_labels(const ReadResult& input, int u, int v, bool reversed);

/// Edge probabilities (--marginals --json) as one object of the same schema (mode
/// "marginals"): the total, and per edge in `order` its names, p (a string when exact, else a
/// number with abs_error).
std::string marginals_json(const MarginalsReport& report, const std::vector<ListedEdge>& order, const MatchingGraph& g,
                           const ReadResult& input, const RunInfo& info);
/// One sample (--sample --json): {"edges": [["u", "v"], ...]} on one line.
std::string sample_json(const std::vector<std::pair<int, int>>& pairs, const ReadResult& input);

}  // namespace matchcount
