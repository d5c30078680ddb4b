#include "cuda/kernel_source.hpp"

namespace matchcount::gpu {

std::string to_string(KernelSource s) {
  switch (s) {
    case KernelSource::Generic: return "generic";
    case KernelSource::Compiled: return "nvrtc";
    case KernelSource::Cached: return "cached";
  }
  return "?";
}

}  // namespace matchcount::gpu
