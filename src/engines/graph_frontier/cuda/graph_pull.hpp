// Where a state of the graph frontier DP pulls its value from, written once for the device
// kernel (graph_frontier_launch.cu) and the host tests, which run it against the CPU engine
// where no device is. The CPU engine's GraphRun::step does the same over its own tables.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engines/graph_frontier/graph_step.hpp"

#if defined(__CUDACC__)
#define MC_PULL_FN __host__ __device__ __forceinline__
#else
#define MC_PULL_FN inline
#endif

namespace matchcount::gpu {

using PullState = unsigned long long;

/// A pair of small integers: (new slot, old slot) of a moved vertex, or (old slot, entry) of a
/// processed neighbour.
struct SlotPair {
  int a, b;
};

/// One vertex's step as the kernel reads it (the lists of pairs travel separately).
struct PullStep {
  PullState states = 0;    // entries of the new table
  PullState same = 0;      // new slots holding the same vertex as before
  PullState old_mask = 0;  // old index of a state: its bits without the implied top one
  int top = -1;            // without loops: the new table's top bit, implied by parity (-1: none)
  int parity = 0, vslot = -1, loop = -1, n_moved = 0, n_back = 0;
};

/// States of a table over a frontier of w vertices (2^(w-1) without loops, 2^w with).
inline double graph_table_states(int w, bool loops) {
  return double(std::uint64_t{1} << (loops ? w : (w > 0 ? w - 1 : 0)));
}

inline PullStep pull_step(const engines::graph_frontier_detail::GraphStep& st, bool loops) {
  PullStep s;
  s.states = PullState(graph_table_states(st.new_w, loops));
  s.same = st.same;
  s.old_mask = loops ? ~PullState{0} : (PullState{1} << std::max(st.old_w - 1, 0)) - 1;
  s.top = !loops && st.new_w >= 1 ? st.new_w - 1 : -1;
  s.parity = st.parity, s.vslot = st.vslot, s.loop = loops ? st.loop : -1;
  s.n_moved = int(st.moved.size()), s.n_back = int(st.back.size());
  return s;
}

/// Calls source(old index, entry) for each term of new state i, in the CPU engine's order;
/// entry -1 is a weight of 1 (v stays open).
template <class Source>
MC_PULL_FN void graph_pull(const PullStep& s, const SlotPair* moved, const SlotPair* back, PullState i, Source&& source) {
  PullState t = i;
#if defined(__CUDA_ARCH__)
  if (s.top >= 0) t |= PullState((__popcll(t) + s.parity) & 1) << s.top;
#else
  if (s.top >= 0) t |= PullState((__builtin_popcountll(t) + s.parity) & 1) << s.top;
#endif
  PullState base = t & s.same;  // the same open vertices in the old slots
  for (int k = 0; k < s.n_moved; ++k) base |= ((t >> moved[k].a) & 1) << moved[k].b;
  if (s.vslot >= 0 && ((t >> s.vslot) & 1)) {
    source(base & s.old_mask, -1);  // v stays open
    return;
  }
  for (int k = 0; k < s.n_back; ++k)  // v matched to an open processed neighbour
    if (!((base >> back[k].a) & 1)) source((base | (PullState{1} << back[k].a)) & s.old_mask, back[k].b);
  if (s.loop >= 0) source(base & s.old_mask, s.loop);  // v covered by its loop
}

}  // namespace matchcount::gpu
