// What the CUDA runtime can see. Without nvcc at build time, or without a GPU at run time, the
// device list is empty and every stage runs on the CPU. (The GPU walks the engines are built
// on are internal: src/gpu/jobs.hpp.)
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace matchcount {

struct GpuDevice {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  double memory_gib = 0.0;
  int multiprocessors = 0;
};

/// True when the library was compiled with its CUDA sources.
bool built_with_cuda();
/// Devices the CUDA runtime reports; empty when there are none or no driver.
std::vector<GpuDevice> gpu_devices();

/// A CUDA or NVRTC call failed; the message names the call and the CUDA error.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace matchcount
