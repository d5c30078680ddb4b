#include "cuda/launch.hpp"

namespace matchcount::gpu {
namespace detail {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw GpuError(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
  }
}

int blocks_per_sm(const void* fn, int block, std::size_t shared, const char* what) {
  if (shared > 48 * 1024)
    check(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
          "cudaFuncSetAttribute");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, shared),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (per_sm < 1) throw GpuError(std::string(what) + ": the kernel does not fit on a multiprocessor");
  return per_sm;
}

}  // namespace detail

}  // namespace matchcount::gpu
