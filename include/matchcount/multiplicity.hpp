// Row and column multiplicities: the matrix in which line i appears mult[i] times, as boson
// sampling's output patterns and thewalrus's permanent_repeated take them. The planner finds
// the repeated lines again and counts them by class (the "repeated" engine).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "matchcount/matrix.hpp"

namespace matchcount {

/// Parses "1,0,2,..." (non-negative integers separated by commas, spaces allowed). Throws
/// UsageError naming `option` on anything else.
std::vector<std::uint64_t> parse_multiplicities(const std::string& text, const std::string& option);

/// The matrix with row i repeated row_mult[i] times and column j col_mult[j] times (0 drops
/// the line); an empty list leaves that side as it is. Throws UsageError when a list's length
/// differs from the side's, and RefusedError when the result would exceed `max_entries`
/// stored entries or 2^31 - 1 lines.
AnyMatrix repeat_lines(const AnyMatrix& m, const std::vector<std::uint64_t>& row_mult,
                       const std::vector<std::uint64_t>& col_mult, std::uint64_t max_entries = 100'000'000);

}  // namespace matchcount
