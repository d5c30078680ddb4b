#include "cuda/launch.hpp"

#include "matchcount/error.hpp"

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

PrimePasses plan_device_passes(const char* engine, int device, std::size_t K, double per_prime,
                               std::size_t max_per_pass) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const double usable = double(free_bytes) - double(512u << 20);  // the small tables and slack
  const PrimePasses pp = plan_prime_passes(K, per_prime, usable, max_per_pass);
  if (pp.passes == 0)
    throw RefusedError(std::string(engine) + ": one prime's tables need " + std::to_string(per_prime / double(1u << 30)) +
                       " GiB, more than the " + std::to_string(usable / double(1u << 30)) + " GiB free on " + prop.name);
  return pp;
}

}  // namespace detail

}  // namespace matchcount::gpu
