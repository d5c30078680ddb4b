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

bool run_stack_chunks(const double* re, const double* im, std::size_t per, long long count, long long chunk,
                      std::size_t out_per, double* out, const std::function<bool()>& stop,
                      const std::function<void(long long, const double*, const double*, double*)>& launch) {
  if (count <= 0) return true;
  chunk = std::max(1LL, std::min(chunk, count));
  const bool cplx = im != nullptr;
  const std::size_t n = static_cast<std::size_t>(chunk);
  DeviceBuffer<double> d_re(n * per), d_im(cplx ? n * per : 1), d_out(n * out_per);
  for (long long b = 0; b < count; b += chunk) {
    if (stop && stop()) return false;
    const long long k = std::min(chunk, count - b);
    const std::size_t first = static_cast<std::size_t>(b), bytes = static_cast<std::size_t>(k) * per * sizeof(double);
    check(cudaMemcpy(d_re.ptr, re + first * per, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    if (cplx) check(cudaMemcpy(d_im.ptr, im + first * per, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    launch(k, d_re.ptr, cplx ? d_im.ptr : nullptr, d_out.ptr);
    check(cudaMemcpy(out + first * out_per, d_out.ptr, static_cast<std::size_t>(k) * out_per * sizeof(double),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy");
  }
  return true;
}

}  // namespace detail

}  // namespace matchcount::gpu
