// Classes of identical lines (rows or columns) of a sparse matrix, for the repeated-lines
// engine and its planner (private to src/engines). Found by hashing each line once, in time
// and memory linear in the entries: planning a block of 10^6 rows must not compare lines in
// pairs.
#pragma once

#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount::engines {

/// The classes of one side: class t has `mult[t]` identical lines, the least index of which is
/// `rep[t]`; classes are in the order of their representatives.
struct LineClasses {
  std::vector<int> rep, mult;
};

/// The classes of identical rows (by_col false) or columns (true) of `a`, whose entries are
/// normalized (sorted by row, then column). Two lines are identical when they hold equal values
/// at the same positions.
template <class T>
LineClasses line_classes(const SparseMatrix<T>& a, bool by_col);

}  // namespace matchcount::engines
