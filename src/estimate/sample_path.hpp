// One sample of the Rasmussen-type estimators, written once for the CPU and the GPU (a GPU
// thread runs exactly this code; its scratch arrays are interleaved with its neighbours').
//
// A sample places the rows one at a time: row r takes an available column c with probability
// p_c > 0 on every available entry, and the sample is multiplied by a_rc / p_c. Whatever the
// row order and the probabilities (as long as they depend only on the choices made so far),
// the expected product is perm(A): E = sum_c p_c * (a_rc / p_c) * perm(rest) by induction.
//  - Rasmussen: p_c proportional to a_rc (the factor is then the row's available mass).
//  - Scaling: p_c proportional to a_rc * s_c, s the column scaling that brings the remaining
//    matrix towards doubly stochastic (a few Sinkhorn sweeps every `scale_interval` rows).
//  - The "+" variants place next the row with the fewest available entries, a column left
//    with one unused row is given to that row at once (factor a_rc, no draw), and the drawn
//    row's entries that lie in no perfect matching of the rest (perm(rest) = 0) are left out
//    of the draw (live_matching.hpp): a "+" sample of a block with a perfect matching never
//    dies. The plain variants end a sample with 0 when a row is left with no entry.
#pragma once

#include <cmath>
#include <cstddef>

#include "estimate/live_matching.hpp"
#include "estimate/philox.hpp"
#include "estimate/sample_sums.hpp"

namespace matchcount::estimate {

/// The values follow EstimateMethod's. The determinant estimators (hafnians only,
/// determinant_sample.hpp) are no sample paths: is_plus and is_scaling are false for them.
enum class Method : int {
  Rasmussen = 0,
  RasmussenPlus = 1,
  Scaling = 2,
  ScalingPlus = 3,
  GodsilGutman = 4,
  GodsilGutmanComplex = 5,
  Barvinok = 6
};
constexpr bool is_determinant(Method m) { return static_cast<int>(m) >= static_cast<int>(Method::GodsilGutman); }
constexpr bool is_plus(Method m) { return m == Method::RasmussenPlus || m == Method::ScalingPlus; }
constexpr bool is_scaling(Method m) { return m == Method::Scaling || m == Method::ScalingPlus; }

/// A block in CSR and CSC form with values in both, wherever it lives (host or device).
struct BlockView {
  int n = 0;
  int max_degree = 0;  // most entries in one row
  const int* row_start = nullptr;
  const int* col_of = nullptr;
  const double* row_val = nullptr;
  const int* col_start = nullptr;
  const int* row_of = nullptr;
  const double* col_val = nullptr;
  /// Sinkhorn column scaling of the whole block (scaling methods start from it).
  const double* col_scale0 = nullptr;
  /// A perfect matching, row -> column ("+" methods); null when the block has none.
  const int* match0 = nullptr;
};

struct SampleParams {
  int scale_interval = 1;
  int scale_iterations = 5;
  /// General graphs: after every step also rescale the remaining vertices within this many
  /// edges of the pair just covered (0: only the full rescales every scale_interval steps).
  int scale_radius = 0;
  /// General graphs: keep the estimate of the rest's log count (GraphPath::log_rest).
  bool track_scales = false;
  /// General graphs, scaling methods: weight the draws by belief-propagation messages (the
  /// Bethe approximation, one message per edge and direction) instead of the Sinkhorn
  /// scaling; the graph needs GraphView::rev and msg0 (graph_path.hpp).
  bool bethe = false;
  /// General graphs, "+" methods: try the cheap two-tree test (GraphSearch::certify) on each
  /// candidate before the full search. The live sets, and so the samples, are the same either
  /// way; on expanders it saves most of the search, on lattices it costs more than it saves.
  bool cheap_test = true;
};

/// Element k at base[k * stride].
template <class T>
struct Strided {
  T* base = nullptr;
  std::size_t stride = 1;
  MC_HD T& operator[](int k) const { return base[static_cast<std::size_t>(k) * stride]; }
};

/// A sample's scratch arrays: ints(n, d, M, lanes) ints and doubles(n, M) doubles, element k
/// of array a at (offset_a + k) * stride. Plain methods need only the degrees, Rasmussen
/// methods no doubles. `lanes`: the "+" searches run on several lanes (Path::cooperate()),
/// which need the forward parents apart from the backward ones; one thread keeps both in one
/// array (n ints less: on the GPU that keeps more warps' scratch in shared memory with room
/// for L1; docs/benchmarks.md).
struct Workspace {
  Strided<int> row_deg;  // -1: placed; else available entries ("+"; 0 for plain methods)
  Strided<int> col_deg;  // -1: taken; else unused rows holding it ("+"; 0 for plain methods)
  Strided<int> next, prev, head;  // "+": unused rows in lists by degree, head[d] first row
  Strided<int> stack;             // "+": columns whose degree fell to 1
  Strided<int> ok;                // "+": whether entry k of the row to place is possible
  Strided<int> match, match_inv, mark, bparent, fparent, queue;  // "+": LiveMatching
  Strided<double> rscale, cscale;

  static constexpr std::size_t ints(int n, int max_degree, Method m, bool lanes = false) {
    return is_plus(m) ? (lanes ? 11 : 10) * std::size_t(n) + 2 * std::size_t(max_degree) + 1 : 2 * std::size_t(n);
  }
  static constexpr std::size_t doubles(int n, Method m) { return is_scaling(m) ? 2 * std::size_t(n) : 0; }
  MC_HD static Workspace bind(int* ib, double* db, std::size_t stride, int n, int max_degree, Method m,
                              bool lanes = false) {
    Workspace w;
    const std::size_t s = stride, un = static_cast<std::size_t>(n);
    std::size_t at = 0;
    auto take = [&](std::size_t count) {
      Strided<int> a{ib + at * s, s};
      at += count;
      return a;
    };
    w.row_deg = take(un);
    w.col_deg = take(un);
    if (is_plus(m)) {
      w.next = take(un), w.prev = take(un), w.stack = take(un);
      w.match = take(un), w.match_inv = take(un), w.mark = take(un), w.bparent = take(un), w.queue = take(un);
      w.fparent = lanes ? take(un) : w.bparent;
      w.head = take(std::size_t(max_degree) + 1);
      w.ok = take(std::size_t(max_degree));
    }
    if (is_scaling(m)) {
      w.rscale = {db, s};
      w.cscale = {db + un * s, s};
    }
    return w;
  }
};

/// The next placement: `row` takes a drawn column, or the forced `col` with factor `value`.
struct Step {
  int row = 0;
  int col = -1;
  double value = 0.0;
};
constexpr int kDone = -1, kDead = -2, kRescale = -3;
/// Cooperative "+" paths (cooperate()): the row of pending_row() wants check_row() by every
/// lane, or the placement pending wants place_search() by every lane, before next().
constexpr int kCheck = -4, kPlace = -5;

template <Method M>
class Path {
 public:
  MC_HD Path(const BlockView& b, const Workspace& w, const SampleParams& p) : b_(b), w_(w), p_(p) { bind_live(); }

  /// "+" paths only: leave the live-entry searches to the caller's lanes (kCheck, kPlace).
  /// The workspace must be bound with `lanes`.
  MC_HD void cooperate() { cooperate_ = true; }

  MC_HD void start() {
    const int n = b_.n;
    step_ = 0, sp_ = 0, min_ = 1, last_scale_ = 0, dead_ = false;
    pending_.row = kDone;
    if constexpr (is_plus(M)) {
      if (!b_.match0) {  // no perfect matching: every sample is 0
        dead_ = true;
        return;
      }
      live_.start(b_, b_.match0);
      for (int d = 0; d <= b_.max_degree; ++d) w_.head[d] = -1;
      for (int i = 0; i < n; ++i) {
        w_.row_deg[i] = b_.row_start[i + 1] - b_.row_start[i];
        dead_ = dead_ || w_.row_deg[i] == 0;
        link(i);
      }
      for (int j = 0; j < n; ++j) {
        w_.col_deg[j] = b_.col_start[j + 1] - b_.col_start[j];
        dead_ = dead_ || w_.col_deg[j] == 0;
        if (w_.col_deg[j] == 1) w_.stack[sp_++] = j;
      }
    } else {
      for (int i = 0; i < n; ++i) w_.row_deg[i] = 0, w_.col_deg[i] = 0;
    }
    if constexpr (is_scaling(M))
      for (int j = 0; j < n; ++j) w_.cscale[j] = b_.col_scale0[j];
  }

  /// The next row to place (kDone when all are, kDead when the sample is 0, kRescale when
  /// the scaling methods want rescale() before the draw).
  MC_HD Step next() {
    if (dead_) return {kDead};
    if (pending_.row >= 0) {  // after check_row or place_search
      const Step s = pending_;
      pending_.row = kDone;
      return s;
    }
    if (step_ == b_.n) return {kDone};
    Step s;
    if constexpr (is_plus(M)) {
      while (sp_ > 0) {
        const int c = w_.stack[--sp_];
        if (w_.col_deg[c] != 1) continue;  // taken since it was pushed
        for (int k = b_.col_start[c]; k < b_.col_start[c + 1]; ++k)
          if (w_.row_deg[b_.row_of[k]] >= 0) return {b_.row_of[k], c, b_.col_val[k]};
      }
    }
    if constexpr (is_scaling(M))
      if (step_ - last_scale_ >= p_.scale_interval) return {kRescale};
    if constexpr (is_plus(M)) {
      while (w_.head[min_] < 0) ++min_;
      return possible_choices(w_.head[min_]);
    } else {
      s.row = step_;
    }
    return s;
  }

  /// Calls f(col, probability, factor) for every available column of row r (f returns true
  /// to stop); returns false when the row has none.
  template <class F>
  MC_HD bool for_each_choice(int r, F&& f) const {
    double total = 0.0;
    int count = 0;
    for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k)
      if (choice(r, k)) total += weight(k), ++count;
    if (count == 0) return false;
    // Scaled weights that under- or overflow fall back to the entries themselves (any
    // positive probabilities keep the estimator unbiased).
    const bool fallback = is_scaling(M) && !(total > 0.0 && total < INFINITY);
    const bool plain = !is_scaling(M) || fallback;
    if (fallback) {
      total = 0.0;
      for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k)
        if (choice(r, k)) total += b_.row_val[k];
    }
    for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k) {
      const int c = b_.col_of[k];
      if (!choice(r, k)) continue;
      const double wk = plain ? b_.row_val[k] : weight(k);
      if (f(c, wk / total, b_.row_val[k] * (total / wk))) break;
    }
    return true;
  }

  /// Draws row r's column with a uniform u in [0, 1); col -1 when the row has none.
  MC_HD Step draw(int r, double u) const {
    Step s{r, -1, 0.0};
    double acc = 0.0;
    for_each_choice(r, [&](int c, double p, double factor) {
      s.col = c, s.value = factor;  // the last one also catches rounding at the top end
      acc += p;
      return u < acc;
    });
    return s;
  }

  /// Places row r on column c; false when that leaves a row or column with no entry.
  MC_HD bool assign(int r, int c) {
    ++step_;
    if constexpr (!is_plus(M)) {
      w_.row_deg[r] = -1, w_.col_deg[c] = -1;
      return true;
    } else {
      live_.place(b_, w_.row_deg, w_.col_deg, r, c);
      unlink(r);
      w_.row_deg[r] = -1, w_.col_deg[c] = -1;
      for (int k = b_.col_start[c]; k < b_.col_start[c + 1]; ++k) {
        const int i = b_.row_of[k];
        if (w_.row_deg[i] <= 0) continue;
        unlink(i);
        if (--w_.row_deg[i] == 0) return false;
        link(i);
        if (w_.row_deg[i] < min_) min_ = w_.row_deg[i];
      }
      for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k) {
        const int j = b_.col_of[k];
        if (w_.col_deg[j] <= 0) continue;
        if (--w_.col_deg[j] == 0) return false;
        dead_ = dead_ || w_.col_deg[j] == 0;
        if (w_.col_deg[j] == 1) w_.stack[sp_++] = j;
      }
      return true;
    }
  }

  MC_HD int placed() const { return step_; }
  /// Points the path at other scratch arrays (a copy of the state, for enumeration).
  MC_HD void rebind(const Workspace& w) {
    w_ = w;
    bind_live();
  }

  /// Sinkhorn sweeps over the unplaced rows and untaken columns, lines lane, lane + lanes, ...
  /// of each kind by this caller (a GPU warp shares them out); sync() orders the phases. A
  /// sum that is 0 or not finite (under/overflow) leaves that scale as it was: scales only
  /// need to stay positive.
  template <class Sync>
  MC_HD void rescale(int lane, int lanes, Sync&& sync) {
    const int n = b_.n;
    for (int it = 0; it < p_.scale_iterations; ++it) {
      for (int i = lane; i < n; i += lanes) {
        if (w_.row_deg[i] < 0) continue;
        double s = 0.0;
        for (int k = b_.row_start[i]; k < b_.row_start[i + 1]; ++k)
          if (w_.col_deg[b_.col_of[k]] >= 0) s += b_.row_val[k] * w_.cscale[b_.col_of[k]];
        if (s > 0.0 && s < INFINITY) w_.rscale[i] = 1.0 / s;
      }
      sync();
      for (int j = lane; j < n; j += lanes) {
        if (w_.col_deg[j] < 0) continue;
        double s = 0.0;
        for (int k = b_.col_start[j]; k < b_.col_start[j + 1]; ++k)
          if (w_.row_deg[b_.row_of[k]] >= 0) s += b_.col_val[k] * w_.rscale[b_.row_of[k]];
        if (s > 0.0 && s < INFINITY) w_.cscale[j] = 1.0 / s;
      }
      sync();
    }
  }
  /// Marks the rescale that next() asked for as done.
  MC_HD void rescaled() { last_scale_ = step_; }

  // Cooperative "+" paths (cooperate(), run_sample_lanes).
  /// kCheck/kPlace: the row (or placement) waiting for the lanes' searches.
  MC_HD Step pending() const { return pending_; }
  /// Every lane, after share(): marks row r's possible columns in ok.
  template <class Lanes>
  MC_HD void check_row(int r, Lanes& lanes) {
    const int rs = b_.row_start[r];
    live_.begin_row(r, lanes);
    for (int k = rs; k < b_.row_start[r + 1]; ++k) {
      const int c = b_.col_of[k];
      if (w_.col_deg[c] < 0) continue;
      const bool ok = live_.possible(b_, w_.row_deg, w_.col_deg, c, lanes);
      if (lanes.leader()) w_.ok[k - rs] = ok;
    }
  }
  /// One thread (lane 0), after check_row: next() returns the row's step.
  MC_HD void row_checked() { pending_ = checked(pending_.row); }
  /// Every lane, after share(): the search that placing pending() needs; next() returns it.
  template <class Lanes>
  MC_HD void place_search(Lanes& lanes) {
    live_.search_for(b_, w_.row_deg, w_.col_deg, pending_.col, lanes);
  }
  /// Copies the search state through f (a GPU warp: lane 0's to every lane).
  template <class F>
  MC_HD void share(F&& f) {
    live_.share(f);
    pending_.row = f(pending_.row), pending_.col = f(pending_.col);
  }
  /// Before assign(r, c): false (cooperative paths) when the placement needs a search
  /// first; it is then pending (kPlace).
  MC_HD bool ready(const Step& s) {
    if constexpr (is_plus(M)) {
      if (cooperate_ && !live_.path_ready(s.row, s.col)) {
        pending_ = s;
        return false;
      }
    }
    return true;
  }

 private:
  MC_HD void bind_live() {
    live_.match = w_.match, live_.match_inv = w_.match_inv, live_.mark = w_.mark;
    live_.bparent = w_.bparent, live_.fparent = w_.fparent, live_.queue = w_.queue;
  }

  // "+": the row to place, with its possible columns marked in ok (entries in no perfect
  // matching of the rest are left out, so the sample cannot die). A row with one possible
  // column takes it without a draw.
  MC_HD Step possible_choices(int r) {
    if (w_.row_deg[r] == 1) {  // its one column is M(r)
      int last = -1;
      for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k)
        if (w_.col_deg[b_.col_of[k]] >= 0) last = k;
      return {r, b_.col_of[last], b_.row_val[last]};
    }
    if (cooperate_) {
      pending_.row = r, pending_.col = -1;
      return {kCheck};
    }
    OneLane one;
    check_row(r, one);
    return checked(r);
  }
  /// The row's possible columns (ok) counted: one is taken at once, else the row is drawn.
  MC_HD Step checked(int r) const {
    int count = 0, last = -1;
    for (int k = b_.row_start[r]; k < b_.row_start[r + 1]; ++k)
      if (choice(r, k)) ++count, last = k;
    if (count == 1) return {r, b_.col_of[last], b_.row_val[last]};
    return {r};
  }

  /// Whether entry k of row r (the row next() returned) is a choice.
  MC_HD bool choice(int r, int k) const {
    if (w_.col_deg[b_.col_of[k]] < 0) return false;
    if constexpr (is_plus(M)) return w_.ok[k - b_.row_start[r]] != 0;
    else return true;
  }

  MC_HD double weight(int k) const {
    if constexpr (is_scaling(M)) return b_.row_val[k] * w_.cscale[b_.col_of[k]];
    else return b_.row_val[k];
  }

  // Bucket lists of unplaced rows by available degree (doubly linked, O(1) moves).
  MC_HD void link(int i) {
    const int d = w_.row_deg[i];
    w_.prev[i] = -1;
    w_.next[i] = w_.head[d];
    if (w_.head[d] >= 0) w_.prev[w_.head[d]] = i;
    w_.head[d] = i;
  }
  MC_HD void unlink(int i) {
    const int d = w_.row_deg[i];
    if (w_.prev[i] >= 0) w_.next[w_.prev[i]] = w_.next[i];
    else w_.head[d] = w_.next[i];
    if (w_.next[i] >= 0) w_.prev[w_.next[i]] = w_.prev[i];
  }

  BlockView b_;
  Workspace w_;
  SampleParams p_;
  LiveMatching<BlockView, Strided<int>> live_;
  int step_ = 0, sp_ = 0, min_ = 1, last_scale_ = 0;
  bool dead_ = false;  // a row or column without entries: the permanent is 0
  bool cooperate_ = false;
  Step pending_{kDone};  // row >= 0: next() returns it (cooperative "+" paths)
};

/// Runs a sample on until it is complete (kDone; x is 0 when the path died) or wants a
/// rescale (kRescale) or, on cooperative paths, the lanes' searches (kCheck, kPlace): the
/// part of a sample that one thread does.
template <class P, class Stop = NoStop>
MC_HD int advance(P& path, SampleRng& rng, WideValue& x, const Stop& stop = Stop{}) {
  for (;;) {
    if (stop()) {  // a time cap: the sample is dropped with its batch
      x = abandoned_sample();
      return kDone;
    }
    Step s = path.next();
    if (s.row == kDone || s.row == kRescale || s.row == kCheck) return s.row;
    if (s.row == kDead) break;
    if (s.col < 0) s = path.draw(s.row, rng.uniform());
    if (s.col < 0) break;
    if (!path.ready(s)) return kPlace;
    x.mul(s.value);
    if (!path.assign(s.row, s.col)) break;
  }
  x = {0.0, 0};
  return kDone;
}

/// One sample by one thread (0 when the path dies; abandoned_sample() once `stop()`).
template <class P, class Stop = NoStop>
MC_HD WideValue run_sample(P& path, SampleRng& rng, const Stop& stop = Stop{}) {
  path.start();
  WideValue x;
  while (advance(path, rng, x, stop) == kRescale) {
    path.rescale(0, 1, [] {});
    path.rescaled();
  }
  return x;
}

/// One sample by a team of lanes (a GPU warp, or SerialLanes on the host): the leader walks
/// the path; every lane shares the Sinkhorn sweeps and, on "+" paths (cooperate()), the
/// live-entry searches. `share(v)` gives every lane the leader's v. The leader's result is
/// the sample; the draws are the same as run_sample's, so the value is too.
template <class P, class Lanes, class Share>
MC_HD WideValue run_sample_lanes(P& path, SampleRng& rng, Lanes& lanes, Share&& share) {
  WideValue x;
  if (lanes.leader()) path.start();
  for (;;) {
    int code = 0;
    if (lanes.leader()) code = advance(path, rng, x);
    code = share(code);
    if (code == kDone) break;
    path.share(share);
    if (code == kRescale) {
      path.rescale(lanes.index(), lanes.threads(), [&] { lanes.sync(); });
      if (lanes.leader()) path.rescaled();
    } else if (code == kCheck) {
      path.check_row(path.pending().row, lanes);
      if (lanes.leader()) path.row_checked();
    } else {
      path.place_search(lanes);
    }
    lanes.sync();
  }
  return x;
}

}  // namespace matchcount::estimate
