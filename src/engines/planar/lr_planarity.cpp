// The left-right planarity test and its embedding (lr_planarity.hpp), after Brandes' paper:
// an orientation DFS (lowpoints, nesting depths), a testing DFS that keeps the conflict pairs
// of return edges on a stack, and an embedding DFS that places the back edges left or right of
// the tree edges. The searches are iterative, with a per-vertex position in the adjacency
// list, so that paths of a million vertices need no call stack.
#include "engines/planar/lr_planarity.hpp"

#include <algorithm>
#include <stdexcept>

namespace matchcount::engines::planar {
namespace {

constexpr int kNone = -1;

/// Return edges of one side, lowest and highest (both kNone when there are none).
struct Interval {
  int low = kNone, high = kNone;
  bool empty() const { return low == kNone && high == kNone; }
};
/// Return edges that must lie on different sides. `id` is the pair's identity: stack_bottom
/// remembers which pair was on top when an edge was entered, as the paper's pointer does.
struct ConflictPair {
  Interval left, right;
  long id = 0;
};

class LeftRight {
 public:
  LeftRight(int n, const EdgeList& edges)
      : n_(n), m_(int(edges.size())), edges_(edges), start_(std::size_t(n) + 1, 0), adj_(2 * edges.size()),
        out_(2 * edges.size()), out_count_(std::size_t(n), 0), src_(edges.size(), kNone), dst_(edges.size(), kNone),
        height_(std::size_t(n), kNone), parent_(std::size_t(n), kNone), lowpt_(edges.size()), lowpt2_(edges.size()),
        nesting_(edges.size()), ind_(std::size_t(n), 0), resumed_(edges.size(), 0) {
    for (auto [u, v] : edges) ++start_[std::size_t(u) + 1], ++start_[std::size_t(v) + 1];
    for (std::size_t v = 0; v < std::size_t(n); ++v) start_[v + 1] += start_[v];
    std::vector<int> fill(start_.begin(), start_.end() - 1);
    for (int k = 0; k < m_; ++k) {
      adj_[std::size_t(fill[std::size_t(edges[std::size_t(k)].first)]++)] = k;
      adj_[std::size_t(fill[std::size_t(edges[std::size_t(k)].second)]++)] = k;
    }
  }

  bool planar() {
    for (int v = 0; v < n_; ++v)
      if (height_[std::size_t(v)] == kNone) height_[std::size_t(v)] = 0, roots_.push_back(v), orient(v);
    sort_out_edges();
    ref_.assign(std::size_t(m_), kNone), side_.assign(std::size_t(m_), 1), lowpt_edge_.assign(std::size_t(m_), kNone);
    stack_bottom_.assign(std::size_t(m_), 0);
    restart();
    for (int root : roots_)
      if (!test(root)) return false;
    return true;
  }

  /// After planar() returned true.
  Rotation embedding() {
    for (int k = 0; k < m_; ++k) nesting_[std::size_t(k)] *= resolve_side(k);
    sort_out_edges();
    cw_.assign(2 * std::size_t(m_), kNone), ccw_.assign(2 * std::size_t(m_), kNone);
    first_.assign(std::size_t(n_), kNone), left_ref_.assign(std::size_t(n_), kNone);
    right_ref_.assign(std::size_t(n_), kNone);
    for (int v = 0; v < n_; ++v) {
      int previous = kNone;
      for (int i = 0; i < out_count_[std::size_t(v)]; ++i) {
        const int h = half(out(v, i), v);
        add_cw(v, h, previous);
        previous = h;
      }
    }
    restart();
    for (int root : roots_) embed(root);
    Rotation r;
    r.next = std::move(cw_);
    return r;
  }

 private:
  int other(int k, int v) const { return edges_[std::size_t(k)].first == v ? edges_[std::size_t(k)].second : edges_[std::size_t(k)].first; }
  int half(int k, int from) const { return 2 * k + (edges_[std::size_t(k)].first == from ? 0 : 1); }
  int out(int v, int i) const { return out_[std::size_t(start_[std::size_t(v)] + i)]; }
  int lowpt(int k) const {
    if (k == kNone) throw std::logic_error("lr_planarity: an interval without its lowest edge");
    return lowpt_[std::size_t(k)];
  }
  long top_id() const { return stack_.empty() ? 0 : stack_.back().id; }
  bool conflicting(const Interval& i, int k) const { return !i.empty() && lowpt(i.high) > lowpt(k); }
  int lowest(const ConflictPair& p) const {
    if (p.left.empty()) return lowpt(p.right.low);
    if (p.right.empty()) return lowpt(p.left.low);
    return std::min(lowpt(p.left.low), lowpt(p.right.low));
  }
  void set_ref(int k, int to) {
    if (k != kNone) ref_[std::size_t(k)] = to;
  }
  void restart() {
    std::fill(ind_.begin(), ind_.end(), 0);
    std::fill(resumed_.begin(), resumed_.end(), char(0));
  }
  void sort_out_edges() {
    for (int v = 0; v < n_; ++v) {
      int* b = out_.data() + start_[std::size_t(v)];  // (a pointer: the range may be empty at the end)
      std::stable_sort(b, b + out_count_[std::size_t(v)],
                       [&](int a, int c) { return nesting_[std::size_t(a)] < nesting_[std::size_t(c)]; });
    }
  }

  /// Orients the edges away from the DFS root (tree edges down, back edges up) and computes
  /// heights, lowpoints and nesting depths.
  void orient(int root) {
    dfs_.assign(1, root);
    while (!dfs_.empty()) {
      const int v = dfs_.back();
      dfs_.pop_back();
      const int e = parent_[std::size_t(v)];
      const std::size_t V = std::size_t(v);
      for (int& i = ind_[V]; start_[V] + i < start_[V + 1]; ++i) {
        const int k = adj_[std::size_t(start_[V] + i)], w = other(k, v);
        const std::size_t K = std::size_t(k), W = std::size_t(w);
        if (!resumed_[K]) {
          if (src_[K] != kNone) continue;  // oriented from its other end
          src_[K] = v, dst_[K] = w;
          out_[std::size_t(start_[V] + out_count_[V]++)] = k;
          lowpt_[K] = lowpt2_[K] = height_[V];
          if (height_[W] == kNone) {  // a tree edge: descend, and come back to this edge
            parent_[W] = k, height_[W] = height_[V] + 1, resumed_[K] = 1;
            dfs_.push_back(v), dfs_.push_back(w);
            break;
          }
          lowpt_[K] = height_[W];  // a back edge
        }
        nesting_[K] = 2 * lowpt_[K] + (lowpt2_[K] < height_[V] ? 1 : 0);  // chordal edges nest outside
        if (e == kNone) continue;
        const std::size_t E = std::size_t(e);
        if (lowpt_[K] < lowpt_[E]) lowpt2_[E] = std::min(lowpt_[E], lowpt2_[K]), lowpt_[E] = lowpt_[K];
        else if (lowpt_[K] > lowpt_[E]) lowpt2_[E] = std::min(lowpt2_[E], lowpt_[K]);
        else lowpt2_[E] = std::min(lowpt2_[E], lowpt2_[K]);
      }
    }
  }

  /// Whether the return edges below `root` admit a left-right partition.
  bool test(int root) {
    dfs_.assign(1, root);
    while (!dfs_.empty()) {
      const int v = dfs_.back();
      dfs_.pop_back();
      const int e = parent_[std::size_t(v)];
      bool descended = false;
      for (int& i = ind_[std::size_t(v)]; i < out_count_[std::size_t(v)]; ++i) {
        const int k = out(v, i), w = dst_[std::size_t(k)];
        if (!resumed_[std::size_t(k)]) {
          stack_bottom_[std::size_t(k)] = top_id();
          if (k == parent_[std::size_t(w)]) {
            resumed_[std::size_t(k)] = 1;
            dfs_.push_back(v), dfs_.push_back(w);
            descended = true;
            break;
          }
          lowpt_edge_[std::size_t(k)] = k;
          stack_.push_back({Interval{}, Interval{k, k}, ++next_id_});
        }
        if (lowpt_[std::size_t(k)] < height_[std::size_t(v)]) {  // k has return edges below v
          if (i == 0) lowpt_edge_[std::size_t(e)] = lowpt_edge_[std::size_t(k)];
          else if (!add_constraints(k, e)) return false;
        }
      }
      if (!descended && e != kNone) remove_back_edges(e);
    }
    return true;
  }

  bool add_constraints(int ei, int e) {
    ConflictPair p;
    // The return edges of ei all go right, merged into one interval.
    do {
      if (stack_.empty()) throw std::logic_error("lr_planarity: an edge with return edges left none on the stack");
      ConflictPair q = stack_.back();
      stack_.pop_back();
      if (!q.left.empty()) std::swap(q.left, q.right);
      if (!q.left.empty()) return false;
      if (lowpt(q.right.low) > lowpt_[std::size_t(e)]) {
        if (p.right.empty()) p.right = q.right;
        else set_ref(p.right.low, q.right.high);
        p.right.low = q.right.low;
      } else {
        set_ref(q.right.low, lowpt_edge_[std::size_t(e)]);  // aligned with e's lowest return edge
      }
    } while (top_id() != stack_bottom_[std::size_t(ei)]);
    // Return edges of the earlier siblings that conflict with ei go left.
    while (!stack_.empty() && (conflicting(stack_.back().left, ei) || conflicting(stack_.back().right, ei))) {
      ConflictPair q = stack_.back();
      stack_.pop_back();
      if (conflicting(q.right, ei)) std::swap(q.left, q.right);
      if (conflicting(q.right, ei)) return false;
      set_ref(p.right.low, q.right.high);
      if (q.right.low != kNone) p.right.low = q.right.low;
      if (p.left.empty()) p.left = q.left;
      else set_ref(p.left.low, q.left.high);
      p.left.low = q.left.low;
    }
    if (!(p.left.empty() && p.right.empty())) p.id = ++next_id_, stack_.push_back(p);
    return true;
  }

  void remove_back_edges(int e) {
    const int u = src_[std::size_t(e)];
    while (!stack_.empty() && lowest(stack_.back()) == height_[std::size_t(u)]) {  // pairs ending at u
      if (stack_.back().left.low != kNone) side_[std::size_t(stack_.back().left.low)] = -1;
      stack_.pop_back();
    }
    if (!stack_.empty()) {  // the next pair may hold some edges ending at u: trim them
      ConflictPair& p = stack_.back();
      for (Interval* side : {&p.left, &p.right}) {
        Interval& other_side = side == &p.left ? p.right : p.left;
        while (side->high != kNone && dst_[std::size_t(side->high)] == u) side->high = ref_[std::size_t(side->high)];
        if (side->high == kNone && side->low != kNone) {  // just emptied
          ref_[std::size_t(side->low)] = other_side.low;
          side_[std::size_t(side->low)] = -1;
          side->low = kNone;
        }
      }
    }
    if (lowpt_[std::size_t(e)] < height_[std::size_t(u)]) {  // e's side is that of a highest return edge
      if (stack_.empty()) throw std::logic_error("lr_planarity: a return edge without its conflict pair");
      const int hl = stack_.back().left.high, hr = stack_.back().right.high;
      ref_[std::size_t(e)] = hl != kNone && (hr == kNone || lowpt(hl) > lowpt(hr)) ? hl : hr;
    }
  }

  /// side(e) resolved along its chain of references (each resolved once).
  int resolve_side(int e) {
    chain_.clear();
    for (int x = e; ref_[std::size_t(x)] != kNone; x = ref_[std::size_t(x)]) chain_.push_back(x);
    for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
      const std::size_t x = std::size_t(*it);
      side_[x] *= side_[std::size_t(ref_[x])];
      ref_[x] = kNone;
    }
    return side_[std::size_t(e)];
  }

  // The rotation at each vertex as a doubly linked cycle of its half-edges.
  void add_cw(int v, int h, int ref) {  // h right after ref (ref kNone: v's first half-edge)
    if (ref == kNone) {
      cw_[std::size_t(h)] = ccw_[std::size_t(h)] = h, first_[std::size_t(v)] = h;
      return;
    }
    const int after = cw_[std::size_t(ref)];
    cw_[std::size_t(ref)] = h, cw_[std::size_t(h)] = after, ccw_[std::size_t(after)] = h, ccw_[std::size_t(h)] = ref;
  }
  void add_ccw(int v, int h, int ref) {  // h right before ref
    if (ref == kNone) return add_cw(v, h, kNone);
    add_cw(v, h, ccw_[std::size_t(ref)]);
    if (ref == first_[std::size_t(v)]) first_[std::size_t(v)] = h;
  }

  void embed(int root) {
    dfs_.assign(1, root);
    while (!dfs_.empty()) {
      const int v = dfs_.back();
      dfs_.pop_back();
      for (int& i = ind_[std::size_t(v)]; i < out_count_[std::size_t(v)];) {
        const int k = out(v, i++), w = dst_[std::size_t(k)];
        if (k == parent_[std::size_t(w)]) {  // the tree edge comes first around w
          add_ccw(w, half(k, w), first_[std::size_t(w)]);
          left_ref_[std::size_t(v)] = right_ref_[std::size_t(v)] = half(k, v);
          dfs_.push_back(v), dfs_.push_back(w);
          break;
        }
        if (side_[std::size_t(k)] == 1) {
          add_cw(w, half(k, w), right_ref_[std::size_t(w)]);
        } else {
          add_ccw(w, half(k, w), left_ref_[std::size_t(w)]);
          left_ref_[std::size_t(w)] = half(k, w);
        }
      }
    }
  }

  int n_, m_;
  const EdgeList& edges_;
  std::vector<int> start_, adj_, out_, out_count_, src_, dst_, height_, parent_, lowpt_, lowpt2_, nesting_, ind_;
  std::vector<char> resumed_;
  std::vector<int> roots_, dfs_, chain_;
  std::vector<int> ref_, side_, lowpt_edge_;
  std::vector<long> stack_bottom_;
  std::vector<ConflictPair> stack_;
  long next_id_ = 0;
  std::vector<int> cw_, ccw_, first_, left_ref_, right_ref_;
};

}  // namespace

std::optional<Rotation> lr_planarity(int vertices, const EdgeList& edges, bool embed) {
  if (vertices > 2 && edges.size() > 3 * std::size_t(vertices) - 6) return std::nullopt;  // Euler
  LeftRight lr(vertices, edges);
  if (!lr.planar()) return std::nullopt;
  if (!embed) return Rotation{};
  return lr.embedding();
}

}  // namespace matchcount::engines::planar
