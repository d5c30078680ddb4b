// matchcount::small_dense_torontonian and gpu_dense_torontonians (matchcount/small_dense.hpp):
// small torontonians without the pipeline, on a CPU thread or a GPU thread each
// (cuda/tor_small.cuh, the engine's real-basis count and certified bound written for both).
// For batches: the pipeline's and the engine's per-matrix set-up outweighed a small walk
// (docs/benchmarks.md, "Batches beside GBSKernels").
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "core/tuning.hpp"
#include "engines/dense_input.hpp"
#include "engines/torontonian/torontonian.hpp"
#include "engines/torontonian/cuda/tor_batch.hpp"
#include "engines/torontonian/cuda/tor_small.cuh"
#include "matchcount/checkpoint.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount {

static_assert(kSmallTorontonianMaxModes == gpu::tor_small::kMaxModes);

namespace {

/// tor_small.cuh's count of O (and gamma, where g_re is given) on this thread; kind None where
/// it leaves the matrix to the engine.
SmallDenseValue kernel_count(const double* re, const double* im, int modes, const double* g_re = nullptr,
                             const double* g_im = nullptr) {
  namespace ts = gpu::tor_small;
  constexpr int N = ts::kMaxModes;
  thread_local std::vector<double> scratch(static_cast<std::size_t>(8 * N * N + ts::walk_doubles(N)));
  double* m = scratch.data();
  const ts::Result r = ts::torontonian<N>(re, im, modes, m, m + 4 * N * N, m + 8 * N * N, g_re, g_im);
  SmallDenseValue out;
  if (r.status != ts::kDone) return out;
  out.kind = SmallDenseValue::Real;
  out.re = r.value, out.abs_error = r.error;
  return out;
}

}  // namespace

SmallDenseValue small_dense_torontonian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                        std::int64_t s0, std::int64_t s1) {
  if (rows != cols || rows < 2 || rows % 2 || rows > 2 * kSmallTorontonianMaxModes) return {};
  const int d = static_cast<int>(rows);
  thread_local std::vector<double> re, im;
  bool integral = true, any_imag = false;
  if (!engines::dense::read_square(data, type, d, s0, s1, re, im, integral, any_imag)) return {};
  return kernel_count(re.data(), any_imag ? im.data() : nullptr, d / 2);
}

SmallDenseValue small_dense_loop_torontonian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                             std::int64_t s0, std::int64_t s1, const void* gamma, DenseElement gamma_type,
                                             std::int64_t gamma_stride) {
  SmallDenseValue none;
  if (rows != cols || rows < 2 || rows % 2 || rows > 2 * kSmallTorontonianMaxModes) return none;
  const int d = static_cast<int>(rows);
  thread_local std::vector<double> re, im, g_re, g_im;
  bool integral = true, any_imag = false;
  if (!engines::dense::read_square(data, type, d, s0, s1, re, im, integral, any_imag)) return none;
  g_re.assign(static_cast<std::size_t>(d), 0.0), g_im.assign(static_cast<std::size_t>(d), 0.0);
  bool g_integral = true;
  for (int i = 0; i < d; ++i) {
    double x = 0, y = 0;
    if (!engines::dense::dispatch(gamma_type, [&](auto* tag) {
          return engines::dense::to_doubles(static_cast<decltype(tag)>(gamma)[i * gamma_stride], x, y);
        }))
      return none;  // a non-finite value: the pipeline's message
    g_integral = g_integral && y == 0 && std::trunc(x) == x;
    g_re[static_cast<std::size_t>(i)] = x, g_im[static_cast<std::size_t>(i)] = y;
  }
  const bool g_imag = std::any_of(g_im.begin(), g_im.end(), [](double x) { return x != 0; });
  const SmallDenseValue quick =
      kernel_count(re.data(), any_imag ? im.data() : nullptr, d / 2, g_re.data(), g_imag ? g_im.data() : nullptr);
  if (quick.kind != SmallDenseValue::None) return quick;
  // Else the engine (complex arithmetic, a long double retry, or its refusal). The pipeline's
  // number kinds: complex where O or gamma is of a complex type and not all (real) integers, as
  // the module's reader gives them.
  const bool cplx = (engines::dense::is_complex_type(type) && !integral) ||
                    (engines::dense::is_complex_type(gamma_type) && !g_integral);
  EngineOptions one;
  one.threads = 1;
  Approx<double> v;
  try {
    if (cplx) {
      engines::TorontonianInput<Complex> in{d / 2, {}, {}, DevicePolicy::Cpu};
      for (std::size_t e = 0; e < re.size(); ++e) in.o.emplace_back(re[e], im[e]);
      for (std::size_t e = 0; e < g_re.size(); ++e) in.gamma.emplace_back(g_re[e], g_im[e]);
      v = engines::torontonian(in, one);
    } else {
      v = engines::torontonian(engines::TorontonianInput<double>{d / 2, re, g_re, DevicePolicy::Cpu}, one);
    }
  } catch (const std::exception&) {  // refused: the pipeline says why
    return none;
  }
  if (!(v.abs_error < std::fabs(v.value))) return none;  // the pipeline refuses it
  SmallDenseValue out;
  out.kind = SmallDenseValue::Real;
  out.re = v.value, out.abs_error = v.abs_error, out.estimated = v.estimated;
  return out;
}

namespace {

std::vector<SmallDenseValue> gpu_batch(const double* re, const double* im, const double* g_re, const double* g_im, int modes,
                                       std::int64_t count, const std::function<bool()>& stop) {
  if (modes < 1 || modes > gpu::tor_small::kMaxModes) throw GpuError("GPU torontonian batch: 1..16 modes");
  bool stopped = false;
  const std::vector<double> got =
      gpu::tor_batch::run(re, im, g_re, g_im, modes, count, stop, stopped, tuning::tuning().gpu_verbose);
  if (stopped) throw Interrupted(2, "GPU torontonian batch stopped");
  std::vector<SmallDenseValue> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double* o = &got[i * gpu::tor_batch::kOut];
    if (o[2] != static_cast<double>(gpu::tor_small::kDone)) continue;  // kind None: the engine counts it
    values[i].kind = SmallDenseValue::Real;
    values[i].re = o[0], values[i].abs_error = o[1];
  }
  return values;
}

}  // namespace

std::vector<SmallDenseValue> gpu_dense_torontonians(const double* re, const double* im, int modes, std::int64_t count,
                                                    const std::function<bool()>& stop) {
  return gpu_batch(re, im, nullptr, nullptr, modes, count, stop);
}

std::vector<SmallDenseValue> gpu_dense_loop_torontonians(const double* re, const double* im, const double* gamma_re,
                                                         const double* gamma_im, int modes, std::int64_t count,
                                                         const std::function<bool()>& stop) {
  if (!gamma_re) throw std::invalid_argument("gpu_dense_loop_torontonians: gamma is required");
  return gpu_batch(re, im, gamma_re, gamma_im, modes, count, stop);
}

}  // namespace matchcount
