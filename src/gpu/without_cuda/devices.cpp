// Stand-in for src/gpu/devices.cu when the library is built without nvcc.
#include "matchcount/gpu.hpp"

namespace matchcount {

bool built_with_cuda() { return false; }
std::vector<GpuDevice> gpu_devices() { return {}; }

}  // namespace matchcount
