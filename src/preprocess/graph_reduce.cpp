// Reductions of a symmetric matrix that keep its hafnian or loop hafnian. Each rule expands
// the (loop) hafnian along one vertex v of low degree, whose few options multiply out:
//  - no neighbour: v is covered by its loop (factor a_vv) or by nothing (the hafnian is 0);
//  - one neighbour u, no loop: every perfect matching holds uv;
//  - one neighbour u and a loop: haf = a_vv haf(A - v) + a_uv haf(A - u - v). Expanding
//    haf(A - v) along u's loop and edges shows this is haf(A') with A' = A - v, u's edges times
//    a_vv and u's loop a_vv a_uu + a_uv;
//  - two neighbours u, w, no loop: haf = a_vu haf(A - u - v) + a_vw haf(A - v - w). Expanding
//    the first along w and the second along u, both sums run over the same partner x, so they
//    are one vertex z with a_zx = a_vu a_wx + a_vw a_ux (and, with loops, a_zz = a_vu a_ww +
//    a_vw a_uu); the edge u-w appears in neither term.
// Rows are ordered maps, as in the Forbert-Marx rules, so every step costs the rows it edits.
#include <map>
#include <stdexcept>

#include "core/tracked.hpp"
#include "matchcount/graph_matching.hpp"

namespace matchcount {
namespace {

template <class T>
class WorkGraph {
 public:
  WorkGraph(const SparseMatrix<T>& a, bool loops) : loops_(loops) {
    const auto n = static_cast<std::size_t>(a.rows);
    row_.resize(n);
    loop_.assign(n, T(0));
    alive_.assign(n, 1);
    // The upper triangle wins: a symmetric input gives the same either way.
    for (const auto& e : a.entries)
      if (e.row < e.col && !(e.value == T(0))) {
        row_[e.row].insert_or_assign(e.col, e.value);
        row_[e.col].insert_or_assign(e.row, e.value);
      }
    for (const auto& e : a.entries)
      if (e.row > e.col && !(e.value == T(0))) {
        row_[e.row].emplace(e.col, e.value);
        row_[e.col].emplace(e.row, e.value);
      } else if (e.row == e.col && loops) {
        loop_[e.row] = e.value;
      }
  }

  int size() const { return static_cast<int>(row_.size()); }
  bool alive(int v) const { return alive_[v]; }
  std::size_t degree(int v) const { return row_[v].size(); }
  bool has_loop(int v) const { return loops_ && !(loop_[v] == T(0)); }
  const T& loop(int v) const { return loop_[v]; }
  const std::map<int, T>& row(int v) const { return row_[v]; }

  /// Removes v with its edges; its neighbours go to `touched`.
  void remove(int v, std::vector<int>& touched) {
    for (const auto& [x, value] : row_[v]) {
      row_[x].erase(v);
      touched.push_back(x);
    }
    row_[v].clear();
    alive_[v] = 0;
  }

  /// Multiplies u's edges by s and sets u's loop.
  void scale_edges(int u, const T& s, const T& new_loop) {
    for (auto& [x, value] : row_[u]) {
      value *= s;
      row_[x][u] = value;
    }
    loop_[u] = new_loop;
  }

  /// u, v, w become z (in u's slot): a_zx = a_vu a_wx + a_vw a_ux, a_zz = a_vu a_ww + a_vw a_uu.
  void fold(int v, int u, const T& a_vu, int w, const T& a_vw, std::vector<int>& touched) {
    std::map<int, T> z;
    for (const auto& [x, value] : row_[w])
      if (x != u && x != v) z[x] += a_vu * value;
    for (const auto& [x, value] : row_[u])
      if (x != w && x != v) z[x] += a_vw * value;
    T z_loop = a_vu * loop_[w];
    z_loop += a_vw * loop_[u];
    remove(v, touched);
    remove(w, touched);
    remove(u, touched);
    alive_[u] = 1;
    loop_[u] = loops_ ? z_loop : T(0);
    for (auto& [x, value] : z)
      if (!(value == T(0))) {
        row_[u].emplace(x, value);
        row_[x].emplace(u, value);
      }
    touched.push_back(u);
  }

  SparseMatrix<T> to_matrix() const {
    std::vector<int> index(row_.size(), -1);
    int next = 0;
    for (std::size_t v = 0; v < row_.size(); ++v)
      if (alive_[v]) index[v] = next++;
    SparseMatrix<T> m;
    m.rows = m.cols = next;
    for (std::size_t v = 0; v < row_.size(); ++v) {
      if (!alive_[v]) continue;
      if (loops_ && !(loop_[v] == T(0))) m.entries.push_back({index[v], index[v], loop_[v]});
      for (const auto& [x, value] : row_[v]) m.entries.push_back({index[v], index[x], value});
    }
    m.normalize();
    return m;
  }

 private:
  bool loops_;
  std::vector<std::map<int, T>> row_;  // off-diagonal entries, both directions
  std::vector<T> loop_;                // diagonal (zero unless `loops`)
  std::vector<char> alive_;
};

/// Whether some rule applies to a vertex of the input: checked first, so that inputs without
/// low-degree vertices (most of a lattice) are not copied into maps for nothing.
template <class T>
bool any_rule_applies(const SparseMatrix<T>& a, bool loops) {
  std::vector<int> degree(static_cast<std::size_t>(a.rows), 0);
  std::vector<char> loop(static_cast<std::size_t>(a.rows), 0);
  for (const auto& e : a.entries) {
    if (e.value == T(0)) continue;
    if (e.row != e.col) ++degree[e.row], ++degree[e.col];  // twice per edge in a symmetric input
    else loop[e.row] = loops;
  }
  for (int v = 0; v < a.rows; ++v)
    if (degree[v] <= 2 || (degree[v] <= 4 && !loop[v])) return true;
  return false;
}

}  // namespace

template <class T>
GraphReduced<T> reduce_graph(const SparseMatrix<T>& a, bool loops) {
  if (!a.square()) throw std::invalid_argument("reduce_graph needs a square (symmetric) matrix");
  GraphReduced<T> out;
  if (!any_rule_applies(a, loops)) {
    out.rest.rows = out.rest.cols = a.rows;
    for (const auto& e : a.entries)
      if (e.row != e.col || loops) out.rest.entries.push_back(e);
    out.rest.normalize();
    return out;
  }
  WorkGraph<T> g(a, loops);
  // Vertices of degree <= 1 go first: forcing an edge only removes, while folding merges two
  // rows, and folds taken before the forced edges around them would fill rows in needlessly.
  std::vector<int> low, two, touched;
  const auto enqueue = [&](int v) {
    if (g.degree(v) <= 1) low.push_back(v);
    else if (g.degree(v) == 2) two.push_back(v);
  };
  for (int v = a.rows - 1; v >= 0; --v) enqueue(v);  // lowest index first
  while (!low.empty() || !two.empty()) {
    std::vector<int>& from = low.empty() ? two : low;
    const int v = from.back();
    from.pop_back();
    if (!g.alive(v)) continue;
    const std::size_t d = g.degree(v);
    const bool loop = g.has_loop(v);
    if (d > 2 || (d == 2 && loop)) continue;
    touched.clear();
    out.changed = true;
    if (d == 0 && !loop) {
      out.zero = true;
      out.factor = T(0);
      out.rest = SparseMatrix<T>{};
      return out;
    }
    if (d == 0) {
      out.factor *= g.loop(v);
      g.remove(v, touched);
      ++out.loops_taken;
    } else if (d == 1) {
      const auto [u, a_vu] = *g.row(v).begin();
      if (!loop) {
        out.factor *= a_vu;
        g.remove(v, touched);
        g.remove(u, touched);
        ++out.forced;
      } else {
        const T a_vv = g.loop(v);
        T new_loop = a_vv * g.loop(u);
        new_loop += a_vu;
        g.remove(v, touched);
        g.scale_edges(u, a_vv, new_loop);
        touched.push_back(u);
        ++out.loops_taken;
      }
    } else {
      auto it = g.row(v).begin();
      const auto [u, a_vu] = *it;
      ++it;
      const auto [w, a_vw] = *it;  // copies: fold() clears the row they live in
      g.fold(v, u, a_vu, w, a_vw, touched);
      ++out.folded;
    }
    for (int x : touched)
      if (g.alive(x)) enqueue(x);
  }
  out.rest = g.to_matrix();
  return out;
}

#define MATCHCOUNT_INSTANTIATE(T) template GraphReduced<T> reduce_graph<T>(const SparseMatrix<T>&, bool);
MATCHCOUNT_INSTANTIATE(Integer)
MATCHCOUNT_INSTANTIATE(Rational)
MATCHCOUNT_INSTANTIATE(double)
MATCHCOUNT_INSTANTIATE(Complex)
// Float counts reduce on values with error bounds (core/tracked.hpp, src/pipeline/entry_errors.hpp).
MATCHCOUNT_INSTANTIATE(Tracked<double>)
MATCHCOUNT_INSTANTIATE(Tracked<Complex>)
#undef MATCHCOUNT_INSTANTIATE

}  // namespace matchcount
