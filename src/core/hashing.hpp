// Hashes of fingerprints, checksums and kernel cache keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace matchcount {

/// 64-bit FNV-1a, the hash of fingerprints and checksums; `h` chains calls.
std::uint64_t fnv1a64(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ULL);
inline std::uint64_t fnv1a64(const std::string& s, std::uint64_t h = 0xcbf29ce484222325ULL) {
  return fnv1a64(s.data(), s.size(), h);
}

}  // namespace matchcount
