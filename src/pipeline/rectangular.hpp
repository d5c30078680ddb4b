// Private to the pipeline: the permanent of a non-square matrix (CountOptions::perfect_matchings
// false), the sum over injective maps from the shorter side into the longer one.
#pragma once

#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// Fills report.value (or the plan, with options.explain), notes and engine runs for a
/// non-square `input`; rows and cols of the report are left as they are.
void count_rectangular(const AnyMatrix& input, const CountOptions& options, CountReport& report);

}  // namespace matchcount::detail
