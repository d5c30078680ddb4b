// The "+" estimators discard every entry that lies in no perfect matching of the remaining
// rows and columns, so that no sample ever walks into a dead end. LiveMatching keeps one
// perfect matching M of the remainder per sample (a copy of the block's Hopcroft-Karp
// matching at the start) and answers, for the row r being placed, which of its columns are
// still possible:
//  - c = M(r) always is (M without (r, c) matches the rest);
//  - c != M(r) is iff the rest without r and c has a perfect matching, i.e. row r' = M^-1(c)
//    can reach row r in the digraph D on the remaining rows with i -> i' when a_{i, M(i')} != 0
//    (i takes M(i'), i' moves on, ..., r's column goes to the last one).
// The test is a bidirectional search: backward from r (rows that can reach r; kept for every
// candidate of the step, it only grows) and forward from r' (afresh per candidate), a batch
// of queued rows of each side in turn. It stops when they meet, or when either side runs out
// (then r' cannot reach r). Either way it costs about twice the smaller side: on grids the
// answers are local (a short alternating cycle, or a small pocket cut off), on dense blocks
// the first backward step (r's column) already holds nearly every r'. Placing r on c != M(r)
// shifts M along the path found, so M stays a perfect matching of the remainder.
//
// Lanes: one thread (OneLane: the CPU, the GPU's thread-per-sample kernel) takes one row of
// each side in turn (search_one); a GPU warp takes a batch of up to 32 queued rows of each
// side in turn, one per lane (estimate_launch.cu), which pays on large sparse blocks, where a
// search visits hundreds of rows per side (random 3-regular graphs). Lanes claim rows with
// compare-and-swap on their marks and append to the queues with fetch-and-add, so which lane
// wins a row (and so the tree and the path found) may vary between runs; the answers
// (possible or not) never do, and a sample's value depends only on them.
// Shared host/device code; arrays are a sample's strided scratch (O(n) per sample).
#pragma once

#include "estimate/philox.hpp"

namespace matchcount::estimate {

/// A batch of `lanes` searchers run one after the other by one thread: the CPU, a GPU
/// thread, and tests (with several lanes, to check the batched search on the host).
template <int Lanes>
struct SerialLanes {
  int scalars[4] = {0, 0, 0, 0};
  MC_HD static constexpr int count() { return Lanes; }
  MC_HD static constexpr bool leader() { return true; }
  template <class F>
  MC_HD void each(F&& f) {
    for (int lane = 0; lane < Lanes; ++lane) f(lane);
  }
  template <class F>
  MC_HD void single(F&& f) { f(); }
  MC_HD static int cas(int& a, int expected, int desired) {
    const int old = a;
    if (old == expected) a = desired;
    return old;
  }
  MC_HD static int fetch_add(int& a, int v) {
    const int old = a;
    a += v;
    return old;
  }
  MC_HD int* shared() { return scalars; }
  // The threads behind the lanes: this one, of one; nothing to wait for.
  MC_HD static constexpr int index() { return 0; }
  MC_HD static constexpr int threads() { return 1; }
  MC_HD static void sync() {}
};
using OneLane = SerialLanes<1>;

/// The remaining block as a search sees it: CSR/CSC and the placed marks (row_deg,
/// col_deg < 0: placed or taken).
template <class View, class Arr>
class LiveMatching {
 public:
  Arr match, match_inv;  // row -> column, column -> row, over the remainder
  Arr mark;              // search stamps: bstamp_ backward, a per-candidate stamp forward
  Arr bparent;           // backward: the row that a row hands its column on to
  Arr fparent;           // forward: the row a row was reached from (may be bparent: one lane)
  Arr queue;             // backward from index 0 up, forward from n - 1 down

  /// Starts a sample from the block's perfect matching (row -> column).
  MC_HD void start(const View& b, const int* match0) {
    for (int i = 0; i < b.n; ++i) {
      match[i] = match0[i];
      match_inv[match0[i]] = i;
      mark[i] = 0;
    }
    epoch_ = 0;
  }

  /// A new row to place: the backward search restarts from r. Every lane calls it.
  template <class Lanes>
  MC_HD void begin_row(int r, Lanes& lanes) {
    row_ = r;
    bstamp_ = ++epoch_;
    lanes.single([&] { mark[r] = bstamp_, queue[0] = r; });
    bhead_ = 0, btail_ = 1, bnext_ = -1;
    last_ = -1;
  }

  /// Whether row r (begin_row) may take column c: whether the rest has a perfect matching.
  /// Every lane calls it and gets the answer.
  template <class RowDeg, class ColDeg, class Lanes>
  MC_HD bool possible(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int c, Lanes& lanes) {
    return c == match[row_] || search(b, row_deg, col_deg, match_inv[c], lanes);
  }

  /// Whether place(r, c) can follow the path of the last search as it stands (else it
  /// searches again, with one lane, unless search_for(c) is run first).
  MC_HD bool path_ready(int r, int c) const { return c == match[r] || last_ == match_inv[c]; }
  /// The search place(row_, c) needs, by every lane.
  template <class RowDeg, class ColDeg, class Lanes>
  MC_HD void search_for(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int c, Lanes& lanes) {
    search(b, row_deg, col_deg, match_inv[c], lanes);
  }

  /// Places row r on a possible column c (c != M(r) only for the row of begin_row, after
  /// possible(c)): M moves along the path from r' to r. One thread.
  template <class RowDeg, class ColDeg>
  MC_HD void place(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int r, int c) {
    const int rp = match_inv[c];
    if (c != match[r]) {
      if (last_ != rp) {  // another candidate was tested last
        OneLane one;
        search(b, row_deg, col_deg, rp, one);
      }
      // Forward part, from the meeting row back to r': each row takes its successor's column.
      int cur = meet_, carry = match[cur], y = meet_forward_parent_;
      while (cur != rp) {
        const int had = match[y];
        match[y] = carry, match_inv[carry] = y;
        carry = had, cur = y;
        if (cur != rp) y = fparent[cur];
      }
      // Backward part, from the meeting row on to r.
      for (cur = meet_; cur != r;) {
        const int t = bparent[cur];
        match[cur] = match[t], match_inv[match[cur]] = cur;
        cur = t;
      }
    }
    match[r] = c, match_inv[c] = r;
    last_ = -1;
  }

  /// Applies f to every scalar of the search state (a GPU warp copies lane 0's to the others).
  template <class F>
  MC_HD void share(F&& f) {
    row_ = f(row_), epoch_ = f(epoch_), bstamp_ = f(bstamp_);
    bhead_ = f(bhead_), btail_ = f(btail_), bnext_ = f(bnext_);
    meet_ = f(meet_), meet_forward_parent_ = f(meet_forward_parent_), last_ = f(last_);
  }

 private:
  // Does row rp reach row_ in D? Sets meet_ (a row on both sides' trees) and the forward
  // parent of meet_ when it does. Every lane runs it and returns the same answer; the
  // scalars (this object's and the lanes' shared ones) change alike in every lane.
  template <class RowDeg, class ColDeg, class Lanes>
  MC_HD bool search(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int rp, Lanes& lanes) {
    last_ = -1;
    if (mark[rp] == bstamp_) return found(rp, -1, rp);
    if constexpr (Lanes::count() == 1) return search_one(b, row_deg, col_deg, rp);
    const int fs = ++epoch_;
    int* shared = lanes.shared();  // 0: backward tail, 1: forward tail, 2: meeting row, 3: its forward parent
    // The sides hold distinct rows, but for those met in the last backward batch, which ends
    // the search (the forward queue is then forgotten): n entries suffice.
    const int top = b.n - 1;
    lanes.single([&] {
      mark[rp] = fs, queue[top] = rp;
      shared[0] = btail_, shared[1] = top - 1, shared[2] = -1, shared[3] = -1;
    });
    int fhead = top, ftail = top - 1;  // forward queue: (ftail, fhead], taken from fhead down
    const int width = lanes.count();
    for (;;) {
      // Backward: rows holding t's column can hand theirs on to t. Every row of the batch
      // is scanned to the end, so an exhausted backward side holds every row reaching r.
      if (bhead_ == btail_) return false;  // every row that reaches r is known: rp is not one
      const int nb = btail_ - bhead_ < width ? btail_ - bhead_ : width;
      lanes.each([&](int lane) {
        if (lane >= nb) return;
        const int stamp = bstamp_, forward = fs, t = queue[bhead_ + lane], j = match[t];
        const int *row_of = b.row_of, end = b.col_start[j + 1];
        const Arr marks = mark, parents = bparent, rows = queue;
        int* const counters = shared;
        for (int k = b.col_start[j]; k < end; ++k) {
          const int i = row_of[k];
          if (row_deg[i] < 0) continue;
          for (int seen = marks[i]; seen != stamp;) {
            const int was = lanes.cas(marks[i], seen, stamp);
            if (was != seen) {
              seen = was;
              continue;
            }
            parents[i] = t;
            rows[lanes.fetch_add(counters[0], 1)] = i;
            if (seen == forward) lanes.cas(counters[2], -1, i);  // the forward side had it: met
            break;
          }
        }
      });
      bhead_ += nb, btail_ = shared[0];
      if (shared[2] >= 0) return found(shared[2], shared[2] == rp ? -1 : fparent[shared[2]], rp);
      // Forward: i may take column j, whose row moves on.
      if (fhead == ftail) return false;  // rp's side is closed and misses r
      const int nf = fhead - ftail < width ? fhead - ftail : width;
      lanes.each([&](int lane) {
        if (lane >= nf) return;
        const int stamp = bstamp_, forward = fs, i = queue[fhead - lane];
        const int *col_of = b.col_of, end = b.row_start[i + 1];
        const Arr marks = mark, parents = fparent, rows = queue, column_row = match_inv;
        int* const counters = shared;
        for (int k = b.row_start[i]; k < end; ++k) {
          const int j = col_of[k];
          if (col_deg[j] < 0) continue;
          const int next = column_row[j];
          if (next == i) continue;
          for (int seen = marks[next]; seen != forward;) {
            if (seen == stamp) {  // next reaches r: met
              if (lanes.cas(counters[2], -1, next) == -1) counters[3] = i;
              break;
            }
            const int was = lanes.cas(marks[next], seen, forward);
            if (was != seen) {
              seen = was;
              continue;
            }
            parents[next] = i;
            rows[lanes.fetch_add(counters[1], -1)] = next;
            break;
          }
        }
      });
      fhead -= nf, ftail = shared[1];
      if (shared[2] >= 0) return found(shared[2], shared[3], rp);
    }
  }
  // The same search by one thread, one row of each side in turn: without the batches'
  // bookkeeping it costs less per row than the batched code with batches of one. A meeting
  // stops the scan of t's column midway; the next search goes on from there (bnext_), so
  // that an exhausted backward side really holds every row reaching r.
  template <class RowDeg, class ColDeg>
  MC_HD bool search_one(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int rp) {
    const int fs = ++epoch_;
    mark[rp] = fs;
    int fhead = b.n - 1, ftail = fhead;
    queue[ftail--] = rp;
    for (;;) {
      if (bhead_ == btail_) return false;
      {
        const int t = queue[bhead_], j = match[t];
        for (int k = bnext_ >= 0 ? bnext_ : b.col_start[j]; k < b.col_start[j + 1]; ++k) {
          const int i = b.row_of[k];
          if (row_deg[i] < 0 || mark[i] == bstamp_) continue;
          const bool met = mark[i] == fs;
          const int forward_parent = fparent[i];  // read first: fparent may be bparent
          mark[i] = bstamp_, bparent[i] = t, queue[btail_++] = i;
          if (met) {
            bnext_ = k + 1;
            return found(i, forward_parent, rp);
          }
        }
        bnext_ = -1, ++bhead_;
      }
      if (fhead == ftail) return false;
      {
        const int i = queue[fhead--];
        for (int k = b.row_start[i]; k < b.row_start[i + 1]; ++k) {
          const int j = b.col_of[k];
          if (col_deg[j] < 0) continue;
          const int next = match_inv[j];
          if (next == i || mark[next] == fs) continue;
          if (mark[next] == bstamp_) return found(next, i, rp);
          mark[next] = fs, fparent[next] = i, queue[ftail--] = next;
        }
      }
    }
  }
  MC_HD bool found(int meet, int forward_parent, int rp) {
    meet_ = meet, meet_forward_parent_ = forward_parent, last_ = rp;
    return true;
  }

  int row_ = 0, epoch_ = 0, bstamp_ = 0, bhead_ = 0, btail_ = 0;
  int bnext_ = -1;  // search_one: where the scan of queue[bhead_]'s column goes on (-1: from its start)
  int meet_ = 0, meet_forward_parent_ = -1, last_ = -1;  // last_: the rp that meet_ belongs to
};

}  // namespace matchcount::estimate
