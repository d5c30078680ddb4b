// Lines (rows, columns, vertices) without an entry, found from the entries alone: a file may
// declare 10^9 rows and list one entry, so nothing here is sized by the dimension. Shared by
// the readers' zero hints (io) and the pipeline's early zero (pipeline/empty_lines.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace matchcount {

/// How many of `n` lines miss from the sorted distinct `used`, and the first that does (-1
/// when none does).
inline void missing_lines(int n, const std::vector<int>& used, int& count, int& first) {
  count = n - static_cast<int>(used.size());
  first = -1;
  if (count == 0) return;
  first = static_cast<int>(used.size());  // every line before it is used
  for (std::size_t k = 0; k < used.size(); ++k)
    if (used[k] != static_cast<int>(k)) {
      first = static_cast<int>(k);
      break;
    }
}

}  // namespace matchcount
