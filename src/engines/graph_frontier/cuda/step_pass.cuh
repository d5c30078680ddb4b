// What the device DPs over graph_step.hpp's steps share (graph_frontier_launch.cu, one value a
// prime; graph_polynomial_launch.cu, a polynomial a state): every vertex's moved slots and
// back neighbours uploaded once, and one pass over the vertices, in which vertex k's table is
// written at the end of one arena opposite its source's, a launch a vertex.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cuda/launch.hpp"
#include "engines/graph_frontier/cuda/graph_pull.hpp"
#include "matchcount/error.hpp"

namespace matchcount::gpu {

/// A frontier has at most 63 slots, so a vertex has at most 63 moved slots and 63 processed
/// neighbours on the frontier.
constexpr int kMaxPairs = 64;

/// The steps' pairs on the device; RefusedError for a frontier wider than a state's 63 slots.
class DeviceStepPairs {
 public:
  explicit DeviceStepPairs(const std::vector<engines::graph_frontier_detail::GraphStep>& steps)
      : host_(flatten(steps)), moved_(host_.moved), back_(host_.back) {}
  const SlotPair* moved(std::size_t k) const { return moved_.ptr + host_.moved_at[k]; }
  const SlotPair* back(std::size_t k) const { return back_.ptr + host_.back_at[k]; }

 private:
  struct Host {
    std::vector<SlotPair> moved, back;
    std::vector<std::size_t> moved_at, back_at;
  };
  static Host flatten(const std::vector<engines::graph_frontier_detail::GraphStep>& steps) {
    Host h;
    for (const auto& st : steps) {
      if (st.old_w > 63 || st.new_w > 63 || st.moved.size() > kMaxPairs || st.back.size() > kMaxPairs)
        throw RefusedError("gpu-graph-frontier: frontier width " + std::to_string(std::max(st.old_w, st.new_w)) + " > 63");
      h.moved_at.push_back(h.moved.size()), h.back_at.push_back(h.back.size());
      for (auto [j, o] : st.moved) h.moved.push_back({j, o});
      for (auto [o, e] : st.back) h.back.push_back({o, e});
    }
    return h;
  }
  Host host_;
  detail::DeviceBuffer<SlotPair> moved_, back_;
};

/// One pass over the vertices: launch(k, step, old_at, new_at) queues vertex k's kernel, its
/// tables `old_at` and `new_at` states into the arena of `arena_states` states. Launches queue
/// on the stream; the pass waits after each one only where `progress` is shown (`done` of
/// `total` states written; a long graph of narrow frontiers would otherwise pay a round trip a
/// vertex). Returns the last table's offset, after the kernels finished.
template <class Launch>
std::size_t run_step_pass(const std::vector<engines::graph_frontier_detail::GraphStep>& steps, bool loops,
                          std::size_t arena_states, const std::function<void(double)>& progress, double& done,
                          double total, const char* kernel_name, Launch launch) {
  std::size_t old_at = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const PullStep step = pull_step(steps[k], loops);
    const std::size_t new_at = k % 2 == 0 ? arena_states - std::size_t(step.states) : 0;
    launch(k, step, old_at, new_at);
    done += double(step.states) + 1;
    if (progress) {
      detail::check(cudaDeviceSynchronize(), kernel_name);
      progress(done / total);
    }
    old_at = new_at;
  }
  detail::check(cudaDeviceSynchronize(), kernel_name);
  return old_at;
}

}  // namespace matchcount::gpu
