// The steps of the graph frontier DP along a vertex order: how the slots of the frontier move
// and where each new state pulls its value from. Both runs of the DP read them, the CPU's
// (graph_frontier_run.hpp) and the device's (cuda/graph_frontier_launch.cu), so this header
// needs nothing beyond the standard library.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace matchcount::engines::graph_frontier_detail {

using State = std::uint64_t;  // bit j: the frontier vertex in slot j is open

/// One vertex v of the order: how the slots of the frontier move and where v's value pulls from.
/// Slots stay where they are; a leaving vertex's slot goes to v or to the vertex of the top slot,
/// so a new state maps to its old one by a mask and a few moved bits.
struct GraphStep {
  int old_w = 0, new_w = 0;                    // frontier sizes before and after v
  int parity = 0;                              // without loops: parity of the open count after v
  State same = 0;                              // new slots that hold the same vertex as before
  std::vector<std::pair<int, int>> moved;      // (new slot, old slot) of vertices that moved
  int vslot = -1;                              // v's new slot; -1 when v has no later neighbour
  std::vector<std::pair<int, int>> back;       // processed neighbours: (old slot, entry index)
  int loop = -1;                               // entry index of v's loop (-1: none, or no loops)
  double predicted = 0;                        // predicted work, for progress reports
};

/// The steps of `order` over nbrs[v] = (neighbour, entry index of a_vu) (no self pairs) and
/// loop_entry[v] (entry index of a_vv, -1 when absent or loops are off). RefusedError when the
/// frontier exceeds kGraphFrontierMaxWidth.
std::vector<GraphStep> graph_steps(const std::vector<std::vector<std::pair<int, int>>>& nbrs,
                                   const std::vector<int>& loop_entry, const std::vector<int>& order, bool loops);

/// Without loops the open count has the parity of the processed count, so a step whose
/// frontier is empty after an odd number of vertices leaves no state: the hafnian is 0.
inline bool graph_steps_dead(const std::vector<GraphStep>& steps, bool loops) {
  if (loops) return false;
  for (const auto& st : steps)
    if (st.new_w == 0 && st.parity) return true;
  return false;
}

}  // namespace matchcount::engines::graph_frontier_detail
