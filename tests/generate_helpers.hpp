// Helpers shared by the generator tests: counts by independent brute force (no engine, no
// biadjacency for graphs) and comparison of matrices entry by entry.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <stdexcept>
#include <utility>
#include <vector>

#include "matchcount/generate.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::gentest {

/// Edges in range, u < v, sorted, no repeats (gtest expectations).
inline void expect_simple(const EdgeList& g) {
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const auto [u, v] = g.edges[i];
    EXPECT_LE(0, u);
    EXPECT_LT(u, v);
    EXPECT_LT(v, g.vertices);
    if (i > 0) { EXPECT_LT(g.edges[i - 1], g.edges[i]); }
  }
}

inline std::vector<int> degrees(const EdgeList& g) {
  std::vector<int> d(static_cast<std::size_t>(g.vertices), 0);
  for (auto [u, v] : g.edges) ++d[static_cast<std::size_t>(u)], ++d[static_cast<std::size_t>(v)];
  return d;
}

/// A platform-independent fingerprint of a text (FNV-1a) and of a matrix (its text).
inline std::uint64_t fingerprint_text(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}
template <class T>
std::uint64_t fingerprint(const SparseMatrix<T>& m) {
  std::ostringstream out;
  out.precision(17);
  out << m.rows << ' ' << m.cols << '\n';
  for (const auto& e : m.entries) out << e.row << ' ' << e.col << ' ' << e.value << '\n';
  return fingerprint_text(out.str());
}

/// Perfect matchings of a general graph (no biadjacency involved): match the lowest unmatched
/// vertex with each unmatched neighbour in turn. A repeated edge counts once per copy.
class GraphMatchings {
 public:
  explicit GraphMatchings(const EdgeList& g) : n_(g.vertices), adj_(g.vertices), used_(g.vertices, 0) {
    for (auto [u, v] : g.edges) {
      adj_[u].push_back(v);
      adj_[v].push_back(u);
    }
  }
  std::uint64_t count() {
    if (n_ % 2) return 0;
    total_ = 0;
    go(0);
    return total_;
  }

 private:
  void go(int from) {
    int v = from;
    while (v < n_ && used_[v]) ++v;
    if (v == n_) {
      ++total_;
      return;
    }
    used_[v] = 1;
    for (int w : adj_[v])
      if (!used_[w]) {
        used_[w] = 1;
        go(v + 1);
        used_[w] = 0;
      }
    used_[v] = 0;
  }
  int n_;
  std::vector<std::vector<int>> adj_;
  std::vector<char> used_;
  std::uint64_t total_ = 0;
};

inline std::uint64_t graph_matchings(const EdgeList& g) { return GraphMatchings(g).count(); }

/// Permanent of a square integer matrix with at most 64 columns: depth-first over rows, a
/// bitmask of used columns, and pruning when a column's last row passes without covering it.
class RowDfs {
 public:
  explicit RowDfs(const SparseMatrix<Integer>& m) : n_(m.rows), rows_(m.rows), must_(m.rows, 0) {
    if (m.rows != m.cols) {
      zero_ = true;
      return;
    }
    if (n_ > 64) throw std::runtime_error("RowDfs: more than 64 columns");
    std::vector<int> last(m.cols, -1);
    for (const auto& e : m.entries) {
      if (e.value == 0) continue;
      rows_[e.row].push_back({e.col, e.value});
      if (e.value != 1) weighted_ = true;
      last[e.col] = std::max(last[e.col], e.row);
    }
    for (int c = 0; c < m.cols; ++c) {
      if (last[c] < 0) zero_ = true;
      else must_[last[c]] |= std::uint64_t(1) << c;
    }
    product_.assign(n_ + 1, Integer(1));
  }
  Integer permanent() {
    if (zero_) return 0;
    total_ = 0;
    leaves_ = 0;
    go(0, 0);
    return weighted_ ? total_ : Integer(static_cast<unsigned long>(leaves_));
  }

 private:
  void go(int i, std::uint64_t used) {
    if (i == n_) {
      if (weighted_) total_ += product_[n_];
      else ++leaves_;
      return;
    }
    for (const auto& [c, w] : rows_[i]) {
      const std::uint64_t bit = std::uint64_t(1) << c;
      if (used & bit) continue;
      const std::uint64_t now = used | bit;
      if ((now & must_[i]) != must_[i]) continue;
      if (weighted_) product_[i + 1] = product_[i] * w;
      go(i + 1, now);
    }
  }
  int n_;
  std::vector<std::vector<std::pair<int, Integer>>> rows_;
  std::vector<std::uint64_t> must_;
  std::vector<Integer> product_;
  bool zero_ = false, weighted_ = false;
  Integer total_;
  std::uint64_t leaves_ = 0;
};

inline Integer permanent(const SparseMatrix<Integer>& m) { return RowDfs(m).permanent(); }

template <class T>
bool same_entries(const SparseMatrix<T>& a, const SparseMatrix<T>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.entries.size() != b.entries.size()) return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i)
    if (a.entries[i].row != b.entries[i].row || a.entries[i].col != b.entries[i].col ||
        !(a.entries[i].value == b.entries[i].value))
      return false;
  return true;
}

}  // namespace matchcount::gentest
