// The GPU batch of small dense permanents (glynn_batch.cu), behind
// matchcount::gpu_dense_permanents (src/engines/ryser/glynn.cpp, which adds the error model).
// Plain C++17 for nvcc.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace matchcount::gpu::glynn_batch {

/// Per matrix: the signed terms' sum, real part (hi, lo) and imaginary part (hi, lo), and the
/// sum of |re| + |im| of the terms, before the factor 2^(1-n).
constexpr int kOut = 5;

/// Threads a matrix's walk is split over: 2^thread_bits(n), each walking at least two terms.
inline int thread_bits(int n) { return n - 2 < 6 ? n - 2 : 6; }

/// The sums of `count` n x n matrices (re, and im for complex; null for real; each row-major
/// and n * n after the one before) on the first CUDA device, kOut doubles each; `stopped` set
/// (and the rest left 0) when `stop` said so between launches. GpuError on a CUDA failure.
std::vector<double> run(const double* re, const double* im, int n, std::int64_t count, const std::function<bool()>& stop,
                        bool& stopped);

}  // namespace matchcount::gpu::glynn_batch
