// Private to the pipeline: the permanent as an expression over blocks that engines count.
// Preprocessing builds the expression; engines then count its leaves; evaluation combines
// the leaf permanents exactly (integers) or with error propagation (floats).
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::detail {

template <class T>
struct Plan {
  enum class Kind { Leaf, Sum, Product };
  struct Node {
    Kind kind = Kind::Product;
    T scale{1};             // the node's value is scale * (leaf | sum | product of kids)
    int leaf = -1;          // index into leaves for Kind::Leaf
    std::vector<int> kids;  // always smaller indices than the node itself
  };
  std::vector<Node> nodes;
  std::vector<SparseMatrix<T>> leaves;

  int constant(const T& value) {
    nodes.push_back({Kind::Product, value, -1, {}});
    return static_cast<int>(nodes.size()) - 1;
  }
  int leaf(SparseMatrix<T> block, const T& scale) {
    leaves.push_back(std::move(block));
    nodes.push_back({Kind::Leaf, scale, static_cast<int>(leaves.size()) - 1, {}});
    return static_cast<int>(nodes.size()) - 1;
  }
  int combine(Kind kind, std::vector<int> kids, const T& scale) {
    nodes.push_back({kind, scale, -1, std::move(kids)});
    return static_cast<int>(nodes.size()) - 1;
  }
  bool is_zero(int node) const {
    return nodes[node].kind == Kind::Product && nodes[node].kids.empty() && nodes[node].scale == T(0);
  }
};

}  // namespace matchcount::detail
