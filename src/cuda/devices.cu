// Device discovery through the CUDA runtime. A missing driver or device is not an error:
// matchcount then runs on the CPU.
#include <cuda_runtime.h>

#include "matchcount/gpu.hpp"

namespace matchcount {

bool built_with_cuda() { return true; }

std::vector<GpuDevice> gpu_devices() {
  std::vector<GpuDevice> out;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver / no device" status
    return out;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    out.push_back({i, prop.name, prop.major, prop.minor,
                   static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
                   prop.multiProcessorCount});
  }
  return out;
}

}  // namespace matchcount
