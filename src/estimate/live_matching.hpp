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
// candidate of the step, it only grows) and forward from r' (afresh per candidate), one node
// of each in turn. It stops when they meet, or when either side runs out (then r' cannot
// reach r). Either way it costs at most about twice the smaller side: on grids the answers are
// local (a short alternating cycle, or a small pocket cut off), on dense blocks the first
// backward step (r's column) already holds nearly every r'. Placing r on c != M(r) shifts M
// along the path found, so M stays a perfect matching of the remainder.
// Shared host/device code; arrays are a sample's strided scratch (O(n) per sample).
#pragma once

#include "philox.hpp"

namespace matchcount::estimate {

/// The remaining block as a search sees it: CSR/CSC and the placed marks (row_deg,
/// col_deg < 0: placed or taken).
template <class View, class Arr>
class LiveMatching {
 public:
  Arr match, match_inv;  // row -> column, column -> row, over the remainder
  Arr mark;              // search stamps: bstamp_ backward, a per-candidate stamp forward
  Arr parent;            // backward: the row that r' hands its column on to; forward: predecessor
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

  /// A new row to place: the backward search restarts from r.
  MC_HD void begin_row(int r) {
    row_ = r;
    bstamp_ = ++epoch_;
    mark[r] = bstamp_;
    queue[0] = r;
    bhead_ = 0, btail_ = 1, bnext_ = -1;
    last_ = -1;
  }

  /// Whether row r (begin_row) may take column c: whether the rest has a perfect matching.
  template <class RowDeg, class ColDeg>
  MC_HD bool possible(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int c) {
    return c == match[row_] || search(b, row_deg, col_deg, match_inv[c]);
  }

  /// Places row r on a possible column c (c != M(r) only for the row of begin_row, after
  /// possible(c)): M moves along the path from r' to r.
  template <class RowDeg, class ColDeg>
  MC_HD void place(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int r, int c) {
    const int rp = match_inv[c];
    if (c != match[r]) {
      if (last_ != rp) search(b, row_deg, col_deg, rp);  // another candidate was tested last
      // Forward part, from the meeting row back to r': each row takes its successor's column.
      int cur = meet_, carry = match[cur], y = meet_forward_parent_;
      while (cur != rp) {
        const int had = match[y];
        match[y] = carry, match_inv[carry] = y;
        carry = had, cur = y;
        if (cur != rp) y = parent[cur];
      }
      // Backward part, from the meeting row on to r.
      for (cur = meet_; cur != r;) {
        const int t = parent[cur];
        match[cur] = match[t], match_inv[match[cur]] = cur;
        cur = t;
      }
    }
    match[r] = c, match_inv[c] = r;
    last_ = -1;
  }

 private:
  // Does row rp reach row_ in D? Sets meet_ (a row on both sides' trees) and the forward
  // parent of meet_ when it does.
  template <class RowDeg, class ColDeg>
  MC_HD bool search(const View& b, const RowDeg& row_deg, const ColDeg& col_deg, int rp) {
    // Whatever this search finds, it may overwrite the parents of the path found last (its
    // forward tree, or the backward tree growing into it): that path is forgotten.
    last_ = -1;
    if (mark[rp] == bstamp_) return found(rp, -1, rp);
    const int fs = ++epoch_;
    mark[rp] = fs;
    int fhead = b.n - 1, ftail = b.n - 1;
    queue[ftail--] = rp;
    for (;;) {
      if (bhead_ == btail_) return false;  // every row that reaches r is known: rp is not one
      {  // backward: rows holding t's column can hand theirs on to t
        // A meeting stops the scan of t's column midway; the next search goes on from there
        // (bnext_), so that an exhausted backward side really holds every row reaching r.
        const int t = queue[bhead_], j = match[t];
        for (int k = bnext_ >= 0 ? bnext_ : b.col_start[j]; k < b.col_start[j + 1]; ++k) {
          const int i = b.row_of[k];
          if (row_deg[i] < 0 || mark[i] == bstamp_) continue;
          const bool met = mark[i] == fs;
          const int forward_parent = parent[i];
          mark[i] = bstamp_, parent[i] = t, queue[btail_++] = i;
          if (met) {
            bnext_ = k + 1;
            return found(i, forward_parent, rp);
          }
        }
        bnext_ = -1, ++bhead_;
      }
      if (fhead == ftail) return false;  // rp's side is closed and misses r
      {  // forward: i may take column j, whose row moves on
        const int i = queue[fhead--];
        for (int k = b.row_start[i]; k < b.row_start[i + 1]; ++k) {
          const int j = b.col_of[k];
          if (col_deg[j] < 0) continue;
          const int next = match_inv[j];
          if (next == i || mark[next] == fs) continue;
          if (mark[next] == bstamp_) return found(next, i, rp);
          mark[next] = fs, parent[next] = i, queue[ftail--] = next;
        }
      }
    }
  }
  MC_HD bool found(int meet, int forward_parent, int rp) {
    meet_ = meet, meet_forward_parent_ = forward_parent, last_ = rp;
    return true;
  }

  int row_ = 0, epoch_ = 0, bstamp_ = 0, bhead_ = 0, btail_ = 0;
  int bnext_ = -1;  // where the scan of queue[bhead_]'s column goes on (-1: from its start)
  int meet_ = 0, meet_forward_parent_ = -1, last_ = -1;  // last_: the rp that meet_ belongs to
};

}  // namespace matchcount::estimate
