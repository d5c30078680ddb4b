// The shared body of the reader fuzz targets (docs/fuzzing.md): one input is read through
// read_input, as the matchcount program reads a file, and what comes back is checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "matchcount/io.hpp"

namespace matchcount::fuzz {

/// How the program reaches one reader: the --as values that lead to it (the first is the plain
/// invocation) and file names (the ".mtx" rule of --as auto depends on the name).
struct ReaderTarget {
  std::initializer_list<InputFormat> modes;
  std::initializer_list<const char*> names;
};

/// Reads `data` twice: with the target's first mode and name and no flags, and with a mode, a
/// name and flags (--exact, --sum-duplicates, --hafnian, --loop-hafnian) drawn from a hash of
/// the input, so that every input keeps its options when it is run again. Each read must give
/// a well-formed matrix that survives a Matrix Market round trip (where text can hold its
/// values), or an InputError with a one-line message; anything else aborts with a description
/// of the failure.
void read_and_check(const std::uint8_t* data, std::size_t size, const ReaderTarget& target);

}  // namespace matchcount::fuzz
