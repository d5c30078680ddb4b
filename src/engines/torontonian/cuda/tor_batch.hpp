// The GPU batch of small torontonians (tor_batch.cu), behind
// matchcount::gpu_dense_torontonians (src/engines/torontonian/small_torontonian.cpp). Plain
// C++17 for nvcc.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace matchcount::gpu::tor_batch {

/// Per matrix: the value, its certified bound, and tor_small::Status (kRefer: the engine counts
/// it).
constexpr int kOut = 3;

/// The torontonians of `count` 2n x 2n matrices O (re, and im for complex; null for real; each
/// row-major and (2n)^2 after the one before), n = modes <= tor_small::kMaxModes, on the first
/// CUDA device: one thread a matrix (tor_small.cuh), kOut doubles each; with g_re (and g_im for
/// complex gammas), 2n values a matrix, the loop torontonians. `stopped` set (and the rest left
/// kRefer) when `stop` said so between launches; `verbose`: the kernels' and the copies'
/// seconds on stderr. GpuError on a CUDA failure.
std::vector<double> run(const double* re, const double* im, const double* g_re, const double* g_im, int modes,
                        std::int64_t count, const std::function<bool()>& stop, bool& stopped, bool verbose = false);

}  // namespace matchcount::gpu::tor_batch
