// The walk of Björklund's recursion over repeated pairs (private to the hafnian engines).
//
// The recursion of haf_walk.hpp works for any pairing of the vertices into the pairs it
// eliminates. When the vertices are copies of a few modes (a photon-number pattern), the pairs
// can be chosen as copies of a few pair types (a, b), type t repeated r_t times
// (hafnian_repeated.cpp pairs them). Subsets of the copies of one type with the same size k are
// images of each other under a permutation of copies, which leaves the matrix unchanged, so the
// inclusion-exclusion over the C(r_t, k) of them is one subset weighted by C(r_t, k): a chain
// "include copy 1, include copy 2, ..." with a branch after each, which drops the copies left
// (sign (-1)^(r_t - k)). The tree has prod_t (r_t + 1) leaves instead of 2^(N/2) (Bulmer et al.,
// "The boundary for quantum advantage in Gaussian boson sampling", count the same leaves for
// their finite-difference sieve; here each leaf costs O(1) after the recursion's updates
// instead of a power-trace evaluation).
//
// Types are eliminated in order; the first `unit_types` types' choices k_t (mixed radix, the
// first most significant) name the work units, and a unit reuses the chain of the last unit
// walked up to the first type whose choice changed.
#pragma once

#include <cstdint>
#include <vector>

#include "engines/hafnian/haf_walk.hpp"

namespace matchcount::engines::haf {

/// The pair types in elimination order: type t takes levels first[t] .. first[t] + mult[t] - 1
/// of the recursion; weight[t][k] is the lane factor of including k of its mult[t] copies,
/// (-1)^(mult - k) C(mult, k) (reduced modulo each lane's prime in exact walks).
struct PairChain {
  std::vector<int> mult, first;
  std::vector<std::vector<v4d>> weight;
  std::size_t unit_types = 0;
  /// Units: the product of (mult + 1) over the first unit_types types.
  std::uint64_t units() const {
    std::uint64_t u = 1;
    for (std::size_t t = 0; t < unit_types; ++t) u *= static_cast<std::uint64_t>(mult[t]) + 1;
    return u;
  }
};

template <class Ar>
class RptWalk final : public Walk<Ar, 0> {
  using Base = Walk<Ar, 0>;
  using Node = typename Base::Node;

 public:
  RptWalk(const Ar& ar, const Root<typename Ar::V>& root, const PairChain& chain)
      : Base(ar, root, 0), chain_(chain), chains_(chain.unit_types), choice_(chain.unit_types, -1) {
    this->truncate_ = false;  // each subset size stands for all its subsets (Walk::include)
  }

  typename Ar::Acc run(std::uint64_t u) override {
    const std::size_t U = chain_.unit_types;
    std::vector<int> k(U);
    for (std::size_t t = U; t-- > 0;) {
      const auto radix = static_cast<std::uint64_t>(chain_.mult[t]) + 1;
      k[t] = static_cast<int>(u % radix);
      u /= radix;
    }
    std::size_t changed = 0;
    while (changed < U && k[changed] == choice_[changed]) ++changed;
    Node x = changed == 0 ? root_node() : after(changed - 1);
    for (std::size_t t = changed; t < U; ++t) {
      auto& c = chains_[t];
      if (t > changed || c.empty()) c.assign(1, x);  // a new prefix: the chain starts again
      for (int j = static_cast<int>(c.size()); j <= k[t]; ++j) c.push_back(this->include(chain_.first[t] + j - 1, c.back()));
      choice_[t] = k[t];
      x = after(t);
    }
    this->acc_ = {};
    rest(U, x);
    return this->acc_;
  }

 private:
  Node root_node() const {
    return Node{this->root_.b.data(), this->root_.loops ? this->root_.d.data() : nullptr, this->one_.data() + kPad,
                v4d{1, 1, 1, 1}};
  }

  /// The node after type t of the unit's prefix: its chain's node for choice_[t], weighted.
  Node after(std::size_t t) const {
    const Node& c = chains_[t][static_cast<std::size_t>(choice_[t])];
    return weighted(c, chain_.weight[t][static_cast<std::size_t>(choice_[t])]);
  }

  Node weighted(const Node& x, v4d w) const {
    if constexpr (std::is_same_v<Ar, ModArith>) return Node{x.b, x.d, x.g, this->ar_.reduce(x.w * w)};
    else return Node{x.b, x.d, x.g, x.w * w};
  }

  /// Types t.. below node x (at level first[t]): every choice of each, leaves at the end.
  void rest(std::size_t t, const Node& x) {
    if (t == chain_.mult.size()) {
      this->ar_.leaf(this->acc_, Ar::scale(x.g[this->mm()], x.w));
      return;
    }
    const int r = chain_.mult[t];
    Node c = x;
    for (int k = 0;; ++k) {
      rest(t + 1, weighted(c, chain_.weight[t][static_cast<std::size_t>(k)]));
      if (k == r) break;
      c = this->include(chain_.first[t] + k, c);
    }
  }

  const PairChain& chain_;
  std::vector<std::vector<Node>> chains_;  // per unit type: the nodes after including 0, 1, ... copies
  std::vector<int> choice_;                // the last unit's choices (-1: none yet)
};

}  // namespace matchcount::engines::haf
