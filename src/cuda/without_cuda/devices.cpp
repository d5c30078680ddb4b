// Stand-in for src/cuda/*.cu when the library is built without nvcc: no devices.
#include "matchcount/gpu.hpp"

namespace matchcount {

bool built_with_cuda() { return false; }
std::vector<GpuDevice> gpu_devices() { return {}; }

}  // namespace matchcount
