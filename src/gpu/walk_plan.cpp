// Host-only parts of the GPU walk shared by CUDA and CPU-only builds.
#include <algorithm>

#include "matchcount/gpu.hpp"

namespace matchcount::gpu {

std::string to_string(KernelSource s) {
  switch (s) {
    case KernelSource::Generic: return "generic";
    case KernelSource::Compiled: return "nvrtc";
    case KernelSource::Cached: return "cached";
  }
  return "?";
}

// Chunks of 2^12 steps make the fresh start of every chunk (about m * n additions) cost under
// 1% of the chunk; small walks use shorter chunks so that there are enough of them to spread.
int chunk_log2(int m) { return std::clamp(m - 15, 0, 12); }

}  // namespace matchcount::gpu
