// Batches of small float (loop) hafnians on the GPU, one walk a thread (cuda/haf_lanes.cu):
// the host's share. A batch sends each matrix once, in its own vertex order, and the device
// reads it in the walks' orders; the lanes' sums are added on the device, so what crosses the
// bus is a matrix's entries in and a channel's sum out (docs/gpu.md, "Batches of small
// hafnians"). gpu_dense_hafnians builds the roots straight from the caller's arrays.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/tuning.hpp"
#include "engines/gpu_common.hpp"
#include "engines/hafnian/cuda/haf_enum.cuh"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/error.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount::engines {
namespace gpu_haf {

int lane_fixed_exponent(const double* root, int n0, bool loops, int W) {
  const int n = n0 + n0 % 2, E = n * (n - 1) / 2;
  // Each entry's modulus once (a complex one is a hypot), then the row sums in the order of
  // the sparse blocks' entries (j ascending), loops apart.
  double modulus[gpu::kHafLaneMaxN * (gpu::kHafLaneMaxN + 1) / 2];
  const int values = E + (loops ? n : 0);
  for (int v = 0; v < values; ++v)
    modulus[v] = W == 2 ? std::abs(Complex(root[2 * v], root[2 * v + 1])) : std::abs(root[v]);
  double max_row = 0, max_loop = 0;
  for (int i = 0; i < n0; ++i) {
    double row = 0;
    for (int j = 0; j < n0; ++j)
      if (j != i) row += modulus[i > j ? i * (i - 1) / 2 + j : j * (j - 1) / 2 + i];
    max_row = std::max(max_row, row);
    if (loops) max_loop = std::max(max_loop, modulus[E + i]);
  }
  return fixed_exponent((n0 + 1) / 2, walk_rho(max_row, max_loop, loops));
}

std::vector<int> lane_orders(int n0, int walks) {
  const int n = n0 + n0 % 2;
  const auto orders = haf::float_orders(n0);
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(walks) * static_cast<std::size_t>(n));
  for (int w = 0; w < walks; ++w) {
    for (int i = 0; i < n0; ++i) out.push_back(orders[static_cast<std::size_t>(w)][static_cast<std::size_t>(i)]);
    if (n > n0) out.push_back(n0);  // the padding vertex stays last
  }
  return out;
}

bool expansion_takes(int n, bool loops) {
  const int choice = tuning::tuning().haf_batch;
  if (choice == 1 || choice == 2 || n > gpu::haf_enum::kMaxN) return false;
  return choice == 3 || (n >= kExpandMinN && n <= (loops ? kExpandMaxLoopN : kExpandMaxN));
}

namespace {

/// Each block's value and estimate from its walks' values: value(b, w) is block b's walk w,
/// estimate(walks, b) its Approx (the walk of |A|, where it was not walked, reads 0).
template <class T, class Value, class Estimate>
std::vector<Approx<T>> block_values(std::size_t count, int walks, Value value, Estimate estimate) {
  std::vector<Approx<T>> out(count);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < static_cast<long long>(count); ++i) {
    const std::size_t b = static_cast<std::size_t>(i);
    std::vector<T> walk(haf::kFloatWalks, T{});
    for (int w = 0; w < walks; ++w) walk[static_cast<std::size_t>(w)] = value(b, static_cast<std::size_t>(w));
    out[b] = estimate(walk, b);
  }
  return out;
}

}  // namespace

template <class T>
std::vector<Approx<T>> lane_hafnians(int n0, bool loops, std::size_t count, const double* roots, int q,
                                     const std::vector<double>& excess) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  gpu::HafLaneJob job;
  job.n = n0 + n0 % 2, job.loops = loops, job.complex = cplx, job.q = q;
  job.verbose = tuning::tuning().gpu_verbose;
  job.matrices = count;
  job.walks = float_walks_for(excess.empty() ? 0.0 : *std::max_element(excess.begin(), excess.end()));
  job.spread = haf::kSpreadWalks;
  job.orders = lane_orders(n0, job.walks);
  job.roots = roots;
  const std::size_t walks = static_cast<std::size_t>(job.walks);
  const auto excess_of = [&](std::size_t b) { return excess.empty() ? 0.0 : excess[b]; };
  if (expansion_takes(job.n, loops)) {
    // Each walk's value in doubles: the estimate has no fixed point's truncation to add.
    const std::vector<double> values = gpu::run_hafnian_enum(job);
    const std::size_t W = cplx ? 2 : 1;
    return block_values<T>(
        count, job.walks,
        [&](std::size_t b, std::size_t w) {
          const double* v = &values[(b * walks + w) * W];
          if constexpr (cplx) return Complex(v[0], v[1]);
          else return v[0];
        },
        [&](const std::vector<T>& walk, std::size_t b) { return haf::float_estimate(walk, excess_of(b)); });
  }
  const std::vector<std::uint64_t> words = gpu::run_hafnian_lanes(job);
  const std::size_t per = gpu::haf_channel_words(cplx ? gpu::HafArith::Complex : gpu::HafArith::Real);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Approx<T>> out = block_values<T>(
      count, job.walks, [&](std::size_t b, std::size_t w) { return fixed_value<T>(&words[(b * walks + w) * per], q); },
      [&](const std::vector<T>& walk, std::size_t b) { return float_block_value(walk, excess_of(b), (n0 + 1) / 2, q); });
  if (job.verbose)
    std::fprintf(stderr, "gpu-hafnian lanes: estimates, %.3f ms\n",
                 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return out;
}
template std::vector<Approx<double>> lane_hafnians(int, bool, std::size_t, const double*, int, const std::vector<double>&);
template std::vector<Approx<Complex>> lane_hafnians(int, bool, std::size_t, const double*, int, const std::vector<double>&);

}  // namespace gpu_haf
}  // namespace matchcount::engines

namespace matchcount {

namespace {

/// One job's values into the caller's.
template <class T>
void store_values(const std::vector<Approx<T>>& got, bool cplx, SmallDenseValue* to) {
  for (std::size_t b = 0; b < got.size(); ++b) {
    SmallDenseValue& v = to[b];
    v.kind = cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real;
    v.re = std::real(got[b].value);
    v.im = std::imag(got[b].value);
    v.abs_error = got[b].abs_error;
    v.estimated = got[b].estimated;
  }
}

/// gpu_dense_hafnians by lane_hafnians (expansions, or one walk a thread), in jobs of `job`
/// matrices whose roots are written straight from the caller's arrays into one page-locked
/// buffer (without the fixed-point exponent for expansions, which sum none). The
/// caller's doubles carry no entry errors, so no excess and no walk of |A|. (Writing a job's
/// roots while the device walks the job before, the walk in a thread of its own, was slower:
/// docs/benchmarks.md, "Batches of small hafnians: each matrix once".)
template <class T>
void lane_jobs(const double* re, const double* im, int n, std::int64_t count, bool loops, std::int64_t job,
               const std::function<bool()>& stop, SmallDenseValue* values) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  const int W = cplx ? 2 : 1;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t per = gpu::HafLaneJob::root_values(n + n % 2, loops) * static_cast<std::size_t>(W);
  gpu::LaneRootBuffer roots(static_cast<std::size_t>(std::min(job, count)) * per);
  for (std::int64_t first = 0; first < count; first += job) {
    if (stop && stop()) throw Interrupted(2, "GPU hafnian batch stopped");
    const std::int64_t k = std::min(job, count - first);
    const auto t0 = std::chrono::steady_clock::now();
    const int q = engines::gpu_haf::write_lane_roots(
        static_cast<std::size_t>(k), n, loops, W, per, roots.data(), [&](std::size_t b, double* root) {
          const std::size_t base = (static_cast<std::size_t>(first) + b) * nn;
          // Entry (i, j), i >= j, of the matrix: its lower triangle's.
          gpu::write_lane_root(root, n, loops, W, [&](int r, int c, int w) {
            return (w ? im : re)[base + static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(c)];
          });
        },
        !engines::gpu_haf::expansion_takes(n + n % 2, loops));
    if (tuning::tuning().gpu_verbose)
      std::fprintf(stderr, "gpu-hafnian lanes: roots on the host, %.3f ms\n",
                   1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    store_values(engines::gpu_haf::lane_hafnians<T>(n, loops, static_cast<std::size_t>(k), roots.data(), q, {}), cplx,
                 values + first);
  }
}

}  // namespace

std::vector<SmallDenseValue> gpu_dense_hafnians(const double* re, const double* im, int n, std::int64_t count, bool loops,
                                                const std::function<bool()>& stop) {
  if (n < 2 || n > engines::kHafnianMaxN) throw GpuError("GPU hafnian batch: n must be 2.." + std::to_string(engines::kHafnianMaxN));
  const bool cplx = im != nullptr;
  std::vector<SmallDenseValue> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  constexpr std::int64_t kJob = 4096;
  if (count <= 0) return values;
  if (n + n % 2 <= gpu::kHafLaneMaxN && tuning::tuning().haf_batch != 2) {
    // An expansion's job is short: jobs of up to 32 MiB of roots (at most 65536 matrices) fill
    // the device, where the walks' 4096 already take about a wave.
    std::int64_t job = kJob;
    if (engines::gpu_haf::expansion_takes(n + n % 2, loops)) {
      const std::int64_t bytes = static_cast<std::int64_t>(gpu::HafLaneJob::root_values(n + n % 2, loops)) * (cplx ? 16 : 8);
      job = std::clamp<std::int64_t>((std::int64_t{32} << 20) / bytes, kJob, 65536);
    }
    if (cplx) lane_jobs<Complex>(re, im, n, count, loops, job, stop, values.data());
    else lane_jobs<double>(re, im, n, count, loops, job, stop, values.data());
    return values;
  }
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  // The symmetric entry (i, j) of matrix b: the lower triangle's.
  const auto at = [n, nn](std::int64_t b, int i, int j) {
    return static_cast<std::size_t>(b) * nn + static_cast<std::size_t>(i >= j ? i * n + j : j * n + i);
  };
  for (std::int64_t first = 0; first < count; first += kJob) {
    if (stop && stop()) throw Interrupted(2, "GPU hafnian batch stopped");
    const std::int64_t k = std::min(kJob, count - first);
    SmallDenseValue* to = &values[static_cast<std::size_t>(first)];
    const auto fill = [&](auto tag, auto& blocks) {
      using T = decltype(tag);
      blocks.resize(static_cast<std::size_t>(k));
#pragma omp parallel for schedule(static)
      for (std::int64_t b = 0; b < k; ++b) {
        SparseMatrix<T>& m = blocks[static_cast<std::size_t>(b)];
        m = SparseMatrix<T>{n, n, {}};
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) {
            T x;
            if constexpr (std::is_same_v<T, Complex>) x = Complex(re[at(first + b, i, j)], im[at(first + b, i, j)]);
            else x = re[at(first + b, i, j)];
            if (x != T(0)) m.entries.push_back({i, j, x});
          }
      }
    };
    if (cplx) {
      std::vector<SparseMatrix<Complex>> blocks;
      fill(Complex(), blocks);
      store_values(engines::gpu_hafnian_batch(blocks, loops, EngineOptions{}), true, to);
    } else {
      std::vector<SparseMatrix<double>> blocks;
      fill(0.0, blocks);
      store_values(engines::gpu_hafnian_batch(blocks, loops, EngineOptions{}), false, to);
    }
  }
  return values;
}

}  // namespace matchcount
