// Renderings of a count: the JSON object (schema 1, shared with plans and estimates), the -v
// lines for stderr and the --explain plan.
#include "matchcount/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <tuple>

#include "matchcount/memory.hpp"
#include "report/json_util.hpp"

namespace matchcount {

namespace report_detail {

Json json_head(const char* mode, const ReadResult& in, const RunInfo& info, int rows, int cols, std::size_t nnz) {
  Json j;
  j["schema"] = kJsonSchema;
  j["mode"] = mode;
  j["file"] = info.file;
  j["format"] = in.format;
  j["number_kind"] = to_string(kind_of(in.matrix));
  j["rows"] = rows;
  j["cols"] = cols;
  j["nnz"] = nnz;
  return j;
}

Json json_real(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

Json json_notes(const std::vector<std::string>& input_notes, const std::vector<std::string>& notes) {
  Json out = Json::array();
  for (const auto& n : input_notes) out.push_back(n);
  for (const auto& n : notes) out.push_back(n);
  return out;
}

std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace report_detail

using report_detail::Json;

std::string json_quote(const std::string& s) { return report_detail::json_text(Json(s)); }

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
  double bytes = 0.0;  // the largest predicted memory of one block
  int width = -1;
  std::string device, kernel, why;
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
    g.bytes = std::max(g.bytes, run.predicted_bytes);
    g.compile_seconds += run.stats.compile_seconds;
    g.device = run.stats.device;
    if (!run.stats.kernel.empty()) g.kernel = run.stats.kernel;
    if (g.why.empty()) g.why = run.why;
  }
  return groups;
}

/// What kind of value a count of this input gives (the value's own kind once counted).
const char* value_kind(const CountReport& r, NumberKind input) {
  static constexpr const char* kinds[] = {"integer", "fraction", "real", "complex"};
  if (!r.explained && r.value.log) return "log";
  if (!r.explained) return kinds[r.value.value.index()];
  switch (input) {
    case NumberKind::Integer: return kinds[0];
    case NumberKind::Rational: return kinds[1];
    case NumberKind::Real: return kinds[2];
    case NumberKind::Complex: return kinds[3];
  }
  return kinds[2];
}

/// The general-graph path's structure, one line per stage, each line after `prefix`.
std::string graph_text(const CountReport& r, const char* prefix) {
  const GraphReport& g = r.graph;
  std::ostringstream o;
  o << prefix << (g.loops ? "loop hafnian" : "hafnian") << " of a graph with " << g.vertices << " vertices and "
    << g.edges << " edges\n";
  if (!g.loops) {
    o << prefix << "Edmonds: maximum matching " << r.matching_size << " of " << g.vertices / 2 << " edges";
    if (!g.witness.empty()) o << "; " << g.witness;
    o << "\n";
  }
  if (g.witness.empty())
    o << prefix << "structure: " << g.dead_edges << " edges in no perfect matching removed"
      << (g.dead_edges_complete ? "" : " (search stopped at its budget)") << ", " << g.components << " component(s); "
      << g.forced << " forced edges, " << g.folded << " degree-2 folds, " << g.loops_taken << " loops taken; "
      << r.dm_blocks << " block(s) left for engines (" << g.bipartite_blocks << " bipartite: permanents)\n";
  return o.str();
}

}  // namespace

namespace report_detail {

/// Integers and fractions as decimal strings (they may have thousands of digits, beyond any
/// JSON reader's numbers), a fraction always as "p/q"; floats as numbers, complex as [re, im].
Json value_json(const PermanentValue& v) {
  if (v.log) return report_detail::json_real(v.log->log_abs);  // --log: ln |count|, "-inf" for 0
  switch (v.value.index()) {
    case 0: return std::get<Integer>(v.value).get_str();
    case 1: {
      Rational q = std::get<Rational>(v.value);
      q.canonicalize();
      return q.get_num().get_str() + "/" + q.get_den().get_str();
    }
    case 2: return report_detail::json_real(std::get<double>(v.value));
    default: {
      const Complex z = std::get<Complex>(v.value);
      return Json::array({report_detail::json_real(z.real()), report_detail::json_real(z.imag())});
    }
  }
}

}  // namespace report_detail

namespace {
using report_detail::value_json;
}  // namespace

std::string report_json(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  Json j = report_detail::json_head(r.explained ? "explain" : "count", in, info, r.rows, r.cols, r.nnz);
  const char* kind = value_kind(r, kind_of(in.matrix));
  j["value"] = r.explained ? Json(nullptr) : value_json(r.value);
  j["value_kind"] = kind;
  const bool exact = std::string(kind) == "integer" || std::string(kind) == "fraction";
  j["exact"] = exact;
  if (!exact && !r.explained && r.value.log) {
    // --log: the errors of the logarithm `value`; the count's own relative error is
    // expm1(abs_error).
    const LogValue& l = *r.value.log;
    j["abs_error"] = l.error;
    j["rel_error"] = l.sign == 0 ? (l.error > 0 ? INFINITY : 0.0) : l.error / std::max(std::fabs(l.log_abs), 1e-300);
    j["log"] = {{"sign", l.sign}, {"log10", report_detail::json_real(l.log10_abs())}, {"count", l.scientific(l.digits())}};
    j["error_model"] = l.estimated ? "estimate" : "bound";
  } else if (!exact && !r.explained) {
    j["abs_error"] = r.value.abs_error;
    j["rel_error"] = r.value.rel_error();  // infinite (null) for an uncertain 0
    // "bound": abs_error is proven to hold; "estimate": it rests on a statistical spread or a
    // condition estimate and may undershoot (docs/pipeline.md, "Error bounds of float counts").
    j["error_model"] = r.value.error_estimated ? "estimate" : "bound";
  }
  j["counts"] = !r.quantity.empty() ? r.quantity.c_str() : !r.graph.hafnian ? "permanent" : r.graph.loops ? "loop_hafnian" : "hafnian";
  if (!r.polynomial.empty()) {  // m_0 .. m_floor(n/2) as strings; floats with their bounds
    Json p = Json::array(), e = Json::array();
    bool floats = false;
    for (const auto& c : r.polynomial) {
      p.push_back(c.to_string());
      e.push_back(c.abs_error);
      floats = floats || c.value.index() >= 2;
    }
    j["polynomial"] = std::move(p);
    if (floats) j["polynomial_errors"] = std::move(e);
  }
  j["matching_size"] = r.matching_size;
  if (r.graph.hafnian)
    j["graph"] = {{"vertices", r.graph.vertices},         {"edges", r.graph.edges},
                  {"witness", r.graph.witness},           {"dead_edges", r.graph.dead_edges},
                  {"dead_edges_complete", r.graph.dead_edges_complete},
                  {"components", r.graph.components},     {"bipartite_blocks", r.graph.bipartite_blocks},
                  {"forced", r.graph.forced},             {"folded", r.graph.folded},
                  {"loops_taken", r.graph.loops_taken}};
  j["dulmage_mendelsohn"] = {{"blocks", r.dm_blocks}, {"deleted_entries", r.dm_deleted_entries}, {"block_sizes", r.dm_block_sizes}};
  j["forbert_marx"] = {{"multiplied_out", r.reduce.lines_multiplied_out}, {"merges", r.reduce.merges},
                       {"branches", r.reduce.branches},   {"leaves", r.reduce.leaves},
                       {"zero_branches", r.reduce.zero_branches}, {"branchings_undone", r.reduce.branchings_undone}};
  Json runs = Json::array();
  for (const auto& [key, g] : group_runs(r)) {
    Json run = {{"engine", std::get<0>(key)}, {"n", std::get<1>(key)}, {"count", g.count}, {"nnz", g.nnz},
                {"seconds", g.seconds}, {"predicted_seconds", g.predicted_seconds}, {"device", g.device}};
    if (g.width >= 0) run["frontier_width"] = g.width;
    if (!g.kernel.empty()) run["kernel"] = g.kernel, run["compile_seconds"] = g.compile_seconds;
    if (!g.why.empty()) run["why"] = g.why;
    run["predicted_bytes"] = g.bytes;
    runs.push_back(std::move(run));
  }
  j["engine_runs"] = std::move(runs);
  j["memory"] = {{"budget", std::isfinite(r.max_memory) ? Json(r.max_memory) : Json(nullptr)},
                 {"planning_bytes", r.planning_bytes}};
  if (const ResumeSummary& rs = r.resume; rs.resumed)
    j["resume"] = {{"resumed", true},
                   {"verified", rs.verified},
                   {"blocks_saved", rs.blocks_saved},
                   {"walk_units_saved", rs.walk_units_saved},
                   {"walk_units_recomputed", rs.walk_units_recomputed},
                   {"walk_ranges_recomputed", rs.walk_ranges_recomputed}};
  j["threads"] = info.threads;
  Json seconds = {{"read", info.read_seconds}};
  for (const auto& [stage, s] : r.stage_seconds) seconds[stage] = s;
  j["seconds"] = std::move(seconds);
  j["notes"] = report_detail::json_notes(in.notes, r.notes);
  return report_detail::json_text(j);
}

std::string report_text(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  o << "matchcount: " << info.file << ": " << in.format << ", " << to_string(kind_of(in.matrix)) << " "
    << r.rows << "x" << r.cols << ", " << r.nnz << " entries (read in " << number(info.read_seconds) << " s)\n";
  for (const auto& note : in.notes) o << "matchcount: note: " << note << "\n";
  // The structure of the count of perfect matchings; the one-block questions have none.
  const bool structure = r.quantity.empty();
  if (structure && r.graph.hafnian) {
    o << graph_text(r, "matchcount: ");
  } else if (structure) {
    o << "matchcount: maximum matching " << r.matching_size << " of " << r.rows << "\n";
  }
  if (structure && r.dm_blocks > 0 && !r.graph.hafnian) {
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
  if (structure && !r.graph.hafnian)
    o << "matchcount: Forbert-Marx: " << r.reduce.lines_multiplied_out << " lines multiplied out, "
      << r.reduce.merges << " merges, " << r.reduce.branches << " branches, " << r.reduce.leaves
      << " blocks left for engines\n";
  for (const auto& [key, g] : group_runs(r))
    o << "matchcount: engine " << std::get<0>(key) << ": " << g.count << " block(s) of size " << std::get<1>(key)
      << " in " << number(g.seconds) << " s on the " << g.device
      << (g.kernel.empty() ? std::string() : " (" + g.kernel + " kernel, compiled in " + number(g.compile_seconds) + " s)")
      << "\n";
  for (const auto& note : r.notes) o << "matchcount: note: " << note << "\n";
  if (const ResumeSummary& rs = r.resume; rs.resumed) {
    o << "matchcount: resumed: " << rs.blocks_saved << " block value(s) and " << rs.walk_units_saved
      << " walk unit(s) from the checkpoint; ";
    if (rs.verified)
      o << "--verify-resume recomputed " << rs.walk_units_recomputed << " of those units (" << rs.walk_ranges_recomputed
        << " range(s)) and found their sums as saved (finished blocks' values are not recomputed)\n";
    else
      o << "not verified (--verify-resume recomputes a sample)\n";
  }
  o << "matchcount: times (s):";
  for (const auto& [stage, s] : r.stage_seconds) o << " " << stage << " " << number(s);
  o << "\n";
  if (const auto& l = r.value.log) {
    char line[200];
    std::snprintf(line, sizeof line, " (log10 %.15g); %s the logarithm's error %.3g", l->log10_abs(),
                  l->estimated ? "estimate (not a bound) of" : "bound on", l->error);
    o << "matchcount: the value is the natural logarithm of the count " << l->scientific(l->digits())
      << (l->sign == 0 ? "" : line) << "\n";
  } else if (r.value.exact()) o << "matchcount: the value is exact\n";
  else
    o << "matchcount: the value is approximate (double precision); "
      << (r.value.error_estimated ? "estimated absolute error (not a bound) " : "bound on the absolute error ")
      << number(r.value.abs_error) << ", relative " << number(r.value.rel_error()) << "\n";
  return o.str();
}

std::string report_plan(const CountReport& r, const ReadResult& in, const RunInfo& info) {
  std::ostringstream o;
  o << "plan for " << info.file << ": " << in.format << ", " << to_string(kind_of(in.matrix)) << " " << r.rows
    << "x" << r.cols << ", " << r.nnz << " entries\n";
  for (const auto& note : r.notes) o << "note: " << note << "\n";
  if (r.graph.hafnian)
    o << graph_text(r, "");
  else
    o << "Dulmage-Mendelsohn: " << r.dm_blocks << " block(s); Forbert-Marx: " << r.reduce.branches << " branches, "
      << r.engine_runs.size() << " block(s) left for engines\n";
  double total = 0, peak = 0;
  int uncountable = 0;
  for (const auto& [key, g] : group_runs(r)) {
    o << "  " << std::get<0>(key) << ": " << g.count << " block(s) of size " << std::get<1>(key) << ", "
      << g.nnz << " entries";
    if (g.width >= 0) o << ", frontier width " << g.width;
    if (!g.why.empty()) {
      o << ", cannot be counted: " << g.why << "\n";
      uncountable += g.count;
      continue;
    }
    o << ", predicted " << number(g.predicted_seconds) << " s";
    if (g.bytes > 0) o << ", " << memory_text(g.bytes);
    o << "\n";
    total += g.predicted_seconds;
    peak = std::max(peak, g.bytes);
  }
  if (uncountable > 0) o << uncountable << " block(s) cannot be counted: a count would be refused";
  if (uncountable == 0) o << "predicted engine time " << number(total) << " s";
  else if (uncountable < static_cast<int>(r.engine_runs.size()))
    o << "; predicted engine time of the others " << number(total) << " s";
  o << " (not run: --explain)\n";
  o << "memory: planning about " << memory_text(r.planning_bytes);
  if (peak > 0) o << ", engines at most " << memory_text(peak);
  o << "; budget " << (std::isfinite(r.max_memory) ? memory_text(r.max_memory) : std::string("none")) << " (--max-memory)\n";
  return o.str();
}

}  // namespace matchcount
