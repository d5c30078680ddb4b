// Private to the pipeline: matrices whose dimensions far exceed their entries (a 10^8 x 10^8
// file with one entry) are settled in time and memory of the entries, before any stage that
// allocates per row or column (matching, decomposition, union-find).
#pragma once

#include <optional>

#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// For a permanent (count_permanent, after its report's shape is set): a square matrix with
/// a row or column without entries, or a rectangular one whose shorter side has one, counts 0;
/// the report is filled as the full pipeline would fill it (the maximum matching, found on the
/// lines that hold entries, and its note) and true is returned. A rectangular matrix whose
/// longer side has many lines without entries comes back in `smaller`, with only the lines that
/// hold entries (and enough empty ones to stay rectangular): its permanent is the same, since
/// an injective map through an empty line has a product of 0.
bool settle_empty_lines(const AnyMatrix& input, const CountOptions& options, CountReport& report,
                        std::optional<AnyMatrix>& smaller);

/// For a hafnian (count_hafnian, `a` symmetric and, without `loops`, without its diagonal):
/// when the vertices far outnumber the entries (so that some vertex has no edge, and no loop
/// with `loops`), the count is 0; the report gets the graph's size, the maximum matching
/// (found on the vertices that have edges) and the first such vertex as the witness, and true is
/// returned. Smaller graphs take the full path, whose Tutte witness is more telling.
template <class T>
bool settle_isolated_vertices(const SparseMatrix<T>& a, bool loops, const CountOptions& options, CountReport& report);

}  // namespace matchcount::detail
