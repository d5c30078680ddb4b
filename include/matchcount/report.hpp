// Human-readable (-v) and JSON (--json) renderings of a count.
#pragma once

#include <string>

#include "matchcount/estimate.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

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

}  // namespace matchcount
