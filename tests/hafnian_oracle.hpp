// An independent hafnian for tests: expansion on the lowest uncovered vertex (it is matched to
// every later neighbour, or, for the loop hafnian, covered alone by its loop). Exponential: for
// n <= 16 or so. Both triangles of `a` must be stored; the diagonal counts only with `loops`.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::test {

template <class T>
T naive_hafnian(const SparseMatrix<T>& a, bool loops = false) {
  const int n = a.rows;
  const std::vector<T> d = a.dense();
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  auto at = [&](int i, int j) -> const T& { return d[static_cast<std::size_t>(i) * n + j]; };
  auto rec = [&](auto& self) -> T {
    int i = 0;
    while (i < n && used[i]) ++i;
    if (i == n) return T(1);
    used[i] = true;
    T sum(0);
    if (loops && !(at(i, i) == T(0))) sum += at(i, i) * self(self);
    for (int j = i + 1; j < n; ++j) {
      if (used[j] || at(i, j) == T(0)) continue;
      used[j] = true;
      sum += at(i, j) * self(self);
      used[j] = false;
    }
    used[i] = false;
    return sum;
  };
  return rec(rec);
}

}  // namespace matchcount::test
