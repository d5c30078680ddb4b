// The resident memory of this process, for the memory budget's accounting of what a count
// holds (src/pipeline/memory_budget.cpp). Private to src/.
#pragma once

namespace matchcount {

/// Bytes of this process resident in memory now (Linux: /proc/self/statm; 0 where it cannot be
/// read, and then the budget's accounting falls back to its predictions alone).
double resident_bytes();

}  // namespace matchcount
