// An independent permanent for tests: expansion along the first row with memoisation-free
// recursion. Exponential, for n <= 9.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::test {

template <class T>
T naive_permanent(const SparseMatrix<T>& a) {
  const int n = a.rows;
  const std::vector<T> d = a.dense();
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  auto rec = [&](auto& self, int row) -> T {
    if (row == n) return T(1);
    T sum(0);
    for (int c = 0; c < n; ++c) {
      const T& v = d[static_cast<std::size_t>(row) * n + c];
      if (used[c] || v == T(0)) continue;
      used[c] = true;
      sum += v * self(self, row + 1);
      used[c] = false;
    }
    return sum;
  };
  return rec(rec, 0);
}

}  // namespace matchcount::test
