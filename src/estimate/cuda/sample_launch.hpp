// Host code shared by the GPU samplers (estimate_launch.cu for permanents, graph_launch.cu for
// general graphs): how many threads a one-sample-per-thread launch may use, and the sums of a
// launch gathered from the device. Read by nvcc only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/launch.hpp"
#include "estimate/sample_sums.hpp"

namespace matchcount::estimate {

/// Threads that fill every SM, fewer when the scratch arrays (`bytes_per_thread`) would take
/// more than a quarter of the card (total memory, not free memory, so the count is the same on
/// every run), in whole blocks; 0 when not even one block fits.
inline std::uint64_t sample_threads(const cudaDeviceProp& prop, double bytes_per_thread, int block_threads) {
  const double by_memory = 0.25 * static_cast<double>(prop.totalGlobalMem) / bytes_per_thread;
  const double full = static_cast<double>(prop.multiProcessorCount) * prop.maxThreadsPerMultiProcessor;
  const auto block = static_cast<std::uint64_t>(block_threads);
  return static_cast<std::uint64_t>(std::min(full, by_memory)) / block * block;
}

/// Waits for the launch that wrote `n` partial sums to `out` and merges them.
inline SampleSums collect_sums(const gpu::detail::DeviceBuffer<SampleSums>& out, std::uint64_t n) {
  gpu::detail::check(cudaGetLastError(), "launching the sample kernel");
  gpu::detail::check(cudaDeviceSynchronize(), "the sample kernel");
  std::vector<SampleSums> host(n);
  gpu::detail::check(cudaMemcpy(host.data(), out.ptr, n * sizeof(SampleSums), cudaMemcpyDeviceToHost), "cudaMemcpy");
  SampleSums total;
  for (const auto& s : host) total.merge(s);
  return total;
}

}  // namespace matchcount::estimate
