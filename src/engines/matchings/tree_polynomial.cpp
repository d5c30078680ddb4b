// The classical recursion for the matching polynomial of a forest (tree_polynomial.hpp).
#include "engines/matchings/tree_polynomial.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "matchcount/checkpoint.hpp"

namespace matchcount::engines {
namespace {

using Poly = std::vector<Integer>;

/// Adjacency lists (neighbour, weight) of the symmetric pattern, each edge once per end (an
/// edge given in both triangles is taken once).
std::vector<std::vector<std::pair<int, Integer>>> neighbours(const SparseMatrix<Integer>& a) {
  if (a.rows != a.cols) throw std::invalid_argument("the matching polynomial needs a square adjacency matrix");
  std::vector<std::pair<std::pair<int, int>, const Integer*>> edges;
  for (const auto& e : a.entries)
    if (e.row != e.col && e.value != 0) edges.push_back({{std::min(e.row, e.col), std::max(e.row, e.col)}, &e.value});
  std::stable_sort(edges.begin(), edges.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::vector<std::pair<int, Integer>>> adj(static_cast<std::size_t>(a.rows));
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (i > 0 && edges[i].first == edges[i - 1].first) continue;
    const auto [u, v] = edges[i].first;
    adj[static_cast<std::size_t>(u)].emplace_back(v, *edges[i].second);
    adj[static_cast<std::size_t>(v)].emplace_back(u, *edges[i].second);
  }
  return adj;
}

/// a + b, the shorter padded with zeros.
Poly add(const Poly& a, const Poly& b) {
  Poly out(std::max(a.size(), b.size()), Integer(0));
  for (std::size_t i = 0; i < a.size(); ++i) out[i] += a[i];
  for (std::size_t i = 0; i < b.size(); ++i) out[i] += b[i];
  return out;
}

/// a * b * c x^shift (c a scalar), added into `out` (grown as needed).
void add_product(Poly& out, const Poly& a, const Poly& b, const Integer& c, std::size_t shift) {
  if (a.empty() || b.empty()) return;
  const std::size_t size = a.size() + b.size() - 1 + shift;
  if (out.size() < size) out.resize(size, Integer(0));
  Integer t;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0) continue;
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (b[j] == 0) continue;
      mpz_mul(t.get_mpz_t(), a[i].get_mpz_t(), b[j].get_mpz_t());
      if (c != 1) t *= c;
      out[i + j + shift] += t;
    }
  }
}

}  // namespace

bool is_forest(const SparseMatrix<Integer>& a) {
  if (a.rows != a.cols) return false;
  const auto adj = neighbours(a);
  // Union-find: an edge inside one tree closes a cycle.
  std::vector<int> parent(static_cast<std::size_t>(a.rows));
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](int v) {
    while (parent[static_cast<std::size_t>(v)] != v) v = parent[static_cast<std::size_t>(v)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
    return v;
  };
  for (int v = 0; v < a.rows; ++v)
    for (const auto& [u, w] : adj[static_cast<std::size_t>(v)]) {
      if (u < v) continue;
      const int x = root(v), y = root(u);
      if (x == y) return false;
      parent[static_cast<std::size_t>(x)] = y;
    }
  return true;
}

std::vector<Integer> tree_matching_polynomial(const SparseMatrix<Integer>& a, bool (*stop)()) {
  if (!is_forest(a)) throw std::invalid_argument("tree_matching_polynomial: the graph has a cycle");
  const int n = a.rows;
  const auto adj = neighbours(a);
  std::vector<Poly> free(static_cast<std::size_t>(n)), matched(static_cast<std::size_t>(n));
  std::vector<int> parent(static_cast<std::size_t>(n), -2), order;
  order.reserve(static_cast<std::size_t>(n));
  Poly total{Integer(1)};
  for (int r = 0; r < n; ++r) {
    if (parent[static_cast<std::size_t>(r)] != -2) continue;
    // The tree of r in preorder (iteratively: trees may be paths of any length).
    order.clear();
    parent[static_cast<std::size_t>(r)] = -1;
    order.push_back(r);
    for (std::size_t i = 0; i < order.size(); ++i)
      for (const auto& [u, w] : adj[static_cast<std::size_t>(order[i])])
        if (parent[static_cast<std::size_t>(u)] == -2) {
          parent[static_cast<std::size_t>(u)] = order[i];
          order.push_back(u);
        }
    // Children before parents: each vertex joins its parent once its subtree is complete.
    for (int v : order) free[static_cast<std::size_t>(v)] = Poly{Integer(1)}, matched[static_cast<std::size_t>(v)].clear();
    for (std::size_t i = order.size(); i-- > 1;) {
      if (stop && stop()) throw Interrupted(2, "the matching polynomial was stopped");
      const int c = order[i], v = parent[static_cast<std::size_t>(c)];
      Integer w = 0;
      for (const auto& [u, x] : adj[static_cast<std::size_t>(c)])
        if (u == v) w = x;
      Poly& fv = free[static_cast<std::size_t>(v)];
      Poly& mv = matched[static_cast<std::size_t>(v)];
      const Poly sc = add(free[static_cast<std::size_t>(c)], matched[static_cast<std::size_t>(c)]);
      Poly next_m;
      add_product(next_m, mv, sc, Integer(1), 0);
      add_product(next_m, fv, free[static_cast<std::size_t>(c)], w, 1);
      Poly next_f;
      add_product(next_f, fv, sc, Integer(1), 0);
      fv = std::move(next_f), mv = std::move(next_m);
      Poly().swap(free[static_cast<std::size_t>(c)]), Poly().swap(matched[static_cast<std::size_t>(c)]);
    }
    const Poly tree = add(free[static_cast<std::size_t>(r)], matched[static_cast<std::size_t>(r)]);
    Poly product;
    add_product(product, total, tree, Integer(1), 0);
    total = std::move(product);
  }
  total.resize(static_cast<std::size_t>(n / 2) + 1, Integer(0));
  return total;
}

}  // namespace matchcount::engines
