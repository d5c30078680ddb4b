#include "matchcount/report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

namespace matchcount {

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

namespace {

std::string number(double x) { return json_number(x); }

// Engine runs grouped by (engine, n): thousands of Forbert-Marx leaves stay readable.
struct RunGroup {
  int count = 0;
  std::size_t nnz = 0;
  double seconds = 0.0;
  double predicted_seconds = 0.0;
  double compile_seconds = 0.0;
  int width = -1;
  std::string device, kernel;
};
std::map<std::tuple<std::string, int>, RunGroup> group_runs(const CountReport& r) {
  std::map<std::tuple<std::string, int>, RunGroup> groups;
  for (const auto& run : r.engine_runs) {
    auto& g = groups[{run.engine, run.n}];
    ++g.count;
    g.nnz += run.nnz;
    g.seconds += run.seconds;
    g.predicted_seconds += run.predicted_seconds;
    g.width = std::max(g.width, run.frontier_width);
    g.compile_seconds += run.stats.compile_seconds;
    g.device = run.stats.device;
    if (!run.stats.kernel.empty()) g.kernel = run.stats.kernel;
  }
  return groups;
}

}  // namespace

std::string report_json(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  o << "{\"file\":" << json_quote(info.file) << ",\"format\":" << json_quote(in.format)
    << ",\"number_kind\":" << json_quote(to_string(kind_of(in.matrix))) << ",\"rows\":" << r.rows
    << ",\"cols\":" << r.cols << ",\"nnz\":" << r.nnz << ",\"value\":" << (r.explained ? std::string("null") : json_quote(r.value.to_string()))
    << ",\"explained\":" << (r.explained ? "true" : "false")
    << ",\"exact\":" << (r.value.exact() ? "true" : "false");
  if (!r.value.exact())
    o << ",\"abs_error\":" << number(r.value.abs_error) << ",\"rel_error\":" << number(r.value.rel_error());
  o << ",\"matching_size\":" << r.matching_size << ",\"dulmage_mendelsohn\":{\"blocks\":" << r.dm_blocks
    << ",\"deleted_entries\":" << r.dm_deleted_entries << ",\"block_sizes\":[";
  for (std::size_t i = 0; i < r.dm_block_sizes.size(); ++i) o << (i ? "," : "") << r.dm_block_sizes[i];
  o << "]},\"forbert_marx\":{\"multiplied_out\":" << r.reduce.lines_multiplied_out
    << ",\"merges\":" << r.reduce.merges << ",\"branches\":" << r.reduce.branches
    << ",\"leaves\":" << r.reduce.leaves << ",\"zero_branches\":" << r.reduce.zero_branches
    << ",\"branchings_undone\":" << r.reduce.branchings_undone
    << "},\"engine_runs\":[";
  bool first = true;
  for (const auto& [key, g] : group_runs(r)) {
    o << (first ? "" : ",") << "{\"engine\":" << json_quote(std::get<0>(key)) << ",\"n\":" << std::get<1>(key)
      << ",\"count\":" << g.count << ",\"nnz\":" << g.nnz << ",\"seconds\":" << number(g.seconds)
      << ",\"predicted_seconds\":" << number(g.predicted_seconds) << ",\"device\":" << json_quote(g.device);
    if (!g.kernel.empty())
      o << ",\"kernel\":" << json_quote(g.kernel) << ",\"compile_seconds\":" << number(g.compile_seconds);
    o << "}";
    first = false;
  }
  o << "],\"threads\":" << info.threads << ",\"seconds\":{\"read\":" << number(info.read_seconds);
  for (const auto& [stage, s] : r.stage_seconds) o << "," << json_quote(stage) << ":" << number(s);
  o << "},\"notes\":[";
  std::vector<std::string> notes = in.notes;
  notes.insert(notes.end(), r.notes.begin(), r.notes.end());
  for (std::size_t i = 0; i < notes.size(); ++i) o << (i ? "," : "") << json_quote(notes[i]);
  o << "]}";
  return o.str();
}

std::string report_text(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  o << "matchcount: " << info.file << ": " << in.format << ", " << to_string(kind_of(in.matrix)) << " "
    << r.rows << "x" << r.cols << ", " << r.nnz << " entries (read in " << number(info.read_seconds) << " s)\n";
  for (const auto& note : in.notes) o << "matchcount: note: " << note << "\n";
  o << "matchcount: maximum matching " << r.matching_size << " of " << r.rows << "\n";
  if (r.dm_blocks > 0) {
    o << "matchcount: Dulmage-Mendelsohn: " << r.dm_blocks << " blocks, " << r.dm_deleted_entries
      << " entries in no perfect matching deleted; block sizes";
    std::map<int, int> sizes;
    for (int s : r.dm_block_sizes) ++sizes[s];
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
      o << " " << it->first;
      if (it->second > 1) o << " (x" << it->second << ")";
    }
    o << "\n";
  }
  o << "matchcount: Forbert-Marx: " << r.reduce.lines_multiplied_out << " lines multiplied out, "
    << r.reduce.merges << " merges, " << r.reduce.branches << " branches, " << r.reduce.leaves
    << " blocks left for engines\n";
  for (const auto& [key, g] : group_runs(r))
    o << "matchcount: engine " << std::get<0>(key) << ": " << g.count << " block(s) of size " << std::get<1>(key)
      << " in " << number(g.seconds) << " s on the " << g.device
      << (g.kernel.empty() ? std::string() : " (" + g.kernel + " kernel, compiled in " + number(g.compile_seconds) + " s)")
      << "\n";
  for (const auto& note : r.notes) o << "matchcount: note: " << note << "\n";
  o << "matchcount: times (s):";
  for (const auto& [stage, s] : r.stage_seconds) o << " " << stage << " " << number(s);
  o << "\n";
  if (r.value.exact()) o << "matchcount: the value is exact\n";
  else
    o << "matchcount: the value is approximate (double precision); estimated absolute error "
      << number(r.value.abs_error) << ", relative " << number(r.value.rel_error()) << "\n";
  return o.str();
}

std::string report_plan(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  o << "plan for " << info.file << ": " << in.format << ", " << to_string(kind_of(in.matrix)) << " " << r.rows
    << "x" << r.cols << ", " << r.nnz << " entries\n";
  for (const auto& note : r.notes) o << "note: " << note << "\n";
  o << "Dulmage-Mendelsohn: " << r.dm_blocks << " block(s); Forbert-Marx: " << r.reduce.branches << " branches, "
    << r.engine_runs.size() << " block(s) left for engines\n";
  double total = 0;
  for (const auto& [key, g] : group_runs(r)) {
    o << "  " << std::get<0>(key) << ": " << g.count << " block(s) of size " << std::get<1>(key) << ", "
      << g.nnz << " entries";
    if (g.width >= 0) o << ", frontier width " << g.width;
    o << ", predicted " << number(g.predicted_seconds) << " s\n";
    total += g.predicted_seconds;
  }
  o << "predicted engine time " << number(total) << " s (not run: --explain)\n";
  return o.str();
}

}  // namespace matchcount
