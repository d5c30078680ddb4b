// Allocation failures end a program with a one-line message and exit code 1, never an abort:
// GMP's memory functions are replaced by ones that throw std::bad_alloc (GMP's own abort on
// failure), and a std::bad_alloc that reaches std::terminate (out of an OpenMP region, a
// thread or a noexcept function, where no handler can catch it) prints the line and exits.
#pragma once

#include <string>

namespace matchcount {

/// Installs the GMP memory functions and the terminate handler described above. `message` is
/// the line printed (a newline is added) when a std::bad_alloc reaches std::terminate. Call
/// once, before any GMP number is made.
void install_allocation_failure_handlers(const std::string& message);

/// Test hook: the GMP allocation (or reallocation) `calls` calls from now throws
/// std::bad_alloc, as if memory had run out (0: the next one; negative: none). Counting costs
/// one relaxed atomic load per GMP allocation while unset.
void fail_gmp_allocation_after(long long calls);

}  // namespace matchcount
