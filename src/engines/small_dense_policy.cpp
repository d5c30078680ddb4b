// Where a stack of small matrices is counted by default (matchcount/small_dense.hpp): the CPU's
// kernels' time from a model of each, against the CUDA context a command would start first.
#include <algorithm>
#include <cmath>

#include "core/tuning.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount {

double small_dense_cpu_seconds(DenseQuestion question, int n, std::int64_t count, int threads) {
  double each = 0;  // core-seconds a matrix
  switch (question) {
    case DenseQuestion::Permanent: each = 0.3e-9 * n * std::ldexp(1.0, n); break;
    case DenseQuestion::Hafnian: each = 4.2e-9 * n * n * std::ldexp(1.0, n / 2); break;
    case DenseQuestion::Torontonian: each = 3.5e-8 * n * n * n + 5.7e-10 * 12 * std::ldexp(1.0, n / 2); break;
  }
  return each * static_cast<double>(std::max<std::int64_t>(count, 0)) / std::max(threads, 1);
}

bool gpu_stack_pays_for_its_context(DenseQuestion question, int n, std::int64_t count, int threads) {
  return small_dense_cpu_seconds(question, n, count, threads) >= tuning::tuning().gpu_stack_seconds;
}

}  // namespace matchcount
