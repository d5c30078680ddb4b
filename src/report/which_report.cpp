// JSON of the which-matchings questions (report.hpp): --marginals as one object of schema 1
// (mode "marginals"), --sample as one object a sample.
#include <string>

#include "matchcount/report.hpp"
#include "report/json_util.hpp"

namespace matchcount {

using report_detail::Json;

std::string row_label(const ReadResult& input, int r) {
  if (r >= 0 && static_cast<std::size_t>(r) < input.row_names.size()) return input.row_names[static_cast<std::size_t>(r)];
  return std::to_string(r + 1);
}

std::string col_label(const ReadResult& input, int c) {
  if (input.symmetric_graph) return row_label(input, c);
  if (c >= 0 && static_cast<std::size_t>(c) < input.col_names.size()) return input.col_names[static_cast<std::size_t>(c)];
  return std::to_string(c + 1);
}

std::pair<std::string, std::string> edge_labels(const ReadResult& input, int u, int v, bool reversed) {
  std::pair<std::string, std::string> out{row_label(input, u), col_label(input, v)};
  if (reversed) std::swap(out.first, out.second);
  return out;
}

std::string marginals_json(const MarginalsReport& report, const std::vector<ListedEdge>& order, const MatchingGraph& g,
                           const ReadResult& input, const RunInfo& info) {
  Json j = report_detail::json_head("marginals", input, info, rows_of(g.matrix), cols_of(g.matrix), nnz_of(g.matrix));
  j["total"] = report_detail::value_json(report.total);
  if (report.total.log) j["total_log"] = true;  // --log: ln |total|
  j["exact"] = report.total.exact();
  Json edges = Json::array();
  for (const ListedEdge& listed : order) {
    const EdgeProbability& e = report.edges[listed.index];
    const auto [u, v] = edge_labels(input, e.u, e.v, listed.reversed);
    Json x;
    x["u"] = u;
    x["v"] = v;
    x["p"] = report_detail::value_json(e.p);
    if (!e.p.exact()) {
      x["abs_error"] = report_detail::json_real(e.p.abs_error);
      x["error_model"] = e.p.error_estimated ? "estimate" : "bound";
    }
    edges.push_back(std::move(x));
  }
  j["edges"] = std::move(edges);
  j["seconds"] = report_detail::json_real(report.seconds);
  j["notes"] = report_detail::json_notes(input.notes, report.notes);
  return report_detail::json_text(j);
}

std::string sample_json(const std::vector<std::pair<int, int>>& pairs, const ReadResult& input) {
  Json edges = Json::array();
  for (const auto& [u, v] : pairs) edges.push_back(Json::array({row_label(input, u), col_label(input, v)}));
  Json j;
  j["edges"] = std::move(edges);
  return report_detail::json_text(j);
}

}  // namespace matchcount
