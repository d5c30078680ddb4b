// A float count into the report, shared by the square and rectangular paths.
#pragma once

#include <cmath>

#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// Stores `v` and its error bound as the report's value; a value beyond the double range is
/// refused (--exact counts such matrices exactly) rather than printed as inf.
template <class V>
void store_float(CountReport& report, const Approx<V>& v) {
  if (!std::isfinite(std::abs(v.value)))
    throw RefusedError("the permanent is beyond the range of double precision (about 1e308); "
                       "--exact counts it exactly");
  report.value.value = v.value;
  report.value.abs_error = v.abs_error;
}

}  // namespace matchcount::detail
