// Pieces the which-matchings questions share (which_common.hpp).
#include "pipeline/which_common.hpp"

#include <cmath>

namespace matchcount::detail {

std::optional<SparseMatrix<Integer>> scaled_integer_weights(const AnyMatrix& m, std::string* why) {
  return std::visit(
      [&](const auto& a) -> std::optional<SparseMatrix<Integer>> {
        using T = std::decay_t<decltype(a.entries[0].value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          if (why) *why = "complex weights have no order";
          return std::nullopt;
        } else {
          std::vector<Rational> q;
          for (const auto& e : a.entries) {
            if constexpr (std::is_same_v<T, double>) {
              if (!std::isfinite(e.value)) {
                if (why) *why = "a weight is not finite";
                return std::nullopt;
              }
            }
            q.push_back(Rational(e.value));  // exact: a double is a binary fraction
            if (q.back() < 0) {
              if (why)
                *why = "a negative weight (entry " + std::to_string(e.row + 1) + ", " + std::to_string(e.col + 1) +
                       ") makes that no probability";
              return std::nullopt;
            }
          }
          Integer l = 1;
          for (const auto& x : q) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), x.get_den_mpz_t());
          SparseMatrix<Integer> z{a.rows, a.cols, {}};
          for (std::size_t i = 0; i < q.size(); ++i)
            if (q[i] != 0) z.entries.push_back({a.entries[i].row, a.entries[i].col, q[i].get_num() * (l / q[i].get_den())});
          return z;
        }
      },
      m);
}

SparseMatrix<Integer> general_graph(const SparseMatrix<Integer>& a, bool symmetric) {
  SparseMatrix<Integer> g{a.rows + (symmetric ? 0 : a.cols), a.rows + (symmetric ? 0 : a.cols), {}};
  for (const auto& e : a.entries) {
    if (symmetric) {
      if (e.row != e.col) g.entries.push_back(e);
      continue;
    }
    g.entries.push_back({e.row, a.rows + e.col, e.value});
    g.entries.push_back({a.rows + e.col, e.row, e.value});
  }
  g.normalize();
  return g;
}

}  // namespace matchcount::detail
