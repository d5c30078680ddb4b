// Allocation failures end a program with a one-line message and exit code 1, never an abort:
// GMP's memory functions are replaced by ones that throw std::bad_alloc (GMP's own abort on
// failure), and a std::bad_alloc that reaches std::terminate (out of an OpenMP region, a
// thread or a noexcept function, where no handler can catch it) prints the line and exits.
//
// Memory budgets (memory_budget.cpp): how much memory a count may plan for (--max-memory,
// CountOptions::max_memory), read from the system, and the sizes people type and read.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace matchcount {

/// Installs the GMP memory functions and the terminate handler described above. `message` is
/// the line printed (a newline is added) when a std::bad_alloc reaches std::terminate. Call
/// once, before any GMP number is made.
void install_allocation_failure_handlers(const std::string& message);

/// Test hook: the GMP allocation (or reallocation) `calls` calls from now throws
/// std::bad_alloc, as if memory had run out (0: the next one; negative: none). Counting costs
/// one relaxed atomic load per GMP allocation while unset.
void fail_gmp_allocation_after(long long calls);

/// Bytes this process can use now: the least of the system's MemAvailable (/proc/meminfo), the
/// memory limit of its cgroup (v2 memory.max or v1 memory.limit_in_bytes) and its RLIMIT_AS and
/// RLIMIT_DATA; the physical memory where none of these can be read.
double available_memory();
/// The default memory budget of a count: 3/4 of available_memory() when the process first asks
/// (docs/usage.md, "Memory budget": the predictions are estimates, and the rest of the system
/// keeps a share).
double default_max_memory();
/// A size as people write it: a number of bytes with an optional unit, "200M", "8G", "1.5GiB",
/// "512 KB", "1e9". K, M, G, T (and KiB, MiB, GiB, TiB) are powers of 1024, KB, MB, GB, TB
/// powers of 1000, B bytes; units in any case. nullopt for anything else, a negative or
/// non-finite size, or one beyond 2^63 bytes.
std::optional<double> parse_memory_size(std::string_view text);
/// "3.1 GiB", "200 MiB", "512 bytes": a byte count in binary units to three digits.
std::string memory_text(double bytes);

}  // namespace matchcount
