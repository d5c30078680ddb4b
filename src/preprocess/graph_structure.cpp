// Components of a graph and the one-line explanation of a Tutte witness.
#include <string>

#include "matchcount/graph_matching.hpp"

namespace matchcount {
namespace {

std::string name_of(int v, const std::vector<std::string>& names) {
  return v < static_cast<int>(names.size()) ? names[v] : std::to_string(v);
}

}  // namespace

std::size_t GraphPattern::edges() const {
  std::size_t twice = 0;
  for (const auto& list : adj) twice += list.size();
  return twice / 2;
}

std::string tutte_witness_text(const GraphMatching& m, const std::vector<std::string>& names) {
  if (m.perfect()) return "the graph has a perfect matching";
  const auto odd = [](int k) { return std::to_string(k) + (k == 1 ? " odd component" : " odd components"); };
  if (m.barrier.empty()) return "the graph has " + odd(m.odd_components) + " (components with an odd number of vertices)";
  constexpr std::size_t kShown = 12;  // a -v line stays one line
  const std::size_t k = m.barrier.size();
  std::string text = k == 1 ? "removing the vertex " : "removing the " + std::to_string(k) + " vertices ";
  for (std::size_t i = 0; i < k && i < kShown; ++i) text += (i ? ", " : "") + name_of(m.barrier[i], names);
  if (k > kShown) text += ", ... (" + std::to_string(k - kShown) + " more)";
  return text + " leaves " + odd(m.odd_components);
}

std::vector<std::vector<int>> graph_components(const GraphPattern& g) {
  std::vector<int> component(static_cast<std::size_t>(g.n), -1), stack;
  std::vector<std::vector<int>> out;
  for (int s = 0; s < g.n; ++s) {
    if (component[s] >= 0) continue;
    const int c = static_cast<int>(out.size());
    out.emplace_back(1, s);
    component[s] = c;
    stack.assign(1, s);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int w : g.adj[v])
        if (component[w] < 0) {
          component[w] = c;
          out[c].push_back(w);
          stack.push_back(w);
        }
    }
    std::sort(out[c].begin(), out[c].end());
  }
  return out;
}

}  // namespace matchcount
