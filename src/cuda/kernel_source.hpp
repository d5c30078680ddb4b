// How a GPU kernel was obtained, for the engines' reports.
#pragma once

#include <string>

namespace matchcount::gpu {

/// Compiled now by NVRTC, loaded from the disk cache, or the generic kernel compiled into the
/// program.
enum class KernelSource { Generic, Compiled, Cached };
std::string to_string(KernelSource s);

}  // namespace matchcount::gpu
