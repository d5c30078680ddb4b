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
#include <stdexcept>
#include <type_traits>

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

/// A lane job of `count` n0 x n0 blocks whose roots are at `roots`, in `walks` vertex orders.
template <class T>
gpu::HafLaneJob lane_job(int n0, bool loops, std::size_t count, const double* roots, int q, int walks) {
  gpu::HafLaneJob job;
  job.n = n0 + n0 % 2, job.loops = loops, job.complex = std::is_same_v<T, Complex>, job.q = q;
  job.verbose = tuning::tuning().gpu_verbose;
  job.matrices = count;
  job.walks = walks;
  job.spread = haf::kSpreadWalks;
  job.orders = lane_orders(n0, walks);
  job.roots = roots;
  return job;
}

namespace {

/// Each block's value and estimate from its walks' values: value(b, w) is block b's walk w,
/// estimate(walks, b) its Approx (the walk of |A|, where it was not walked, reads 0), given to
/// store(b, approx): the batches' store writes the caller's values in the same pass.
template <class T, class Value, class Estimate, class Store>
void block_values(std::size_t count, int walks, Value value, Estimate estimate, Store store) {
#pragma omp parallel
  {
    std::vector<T> walk(haf::kFloatWalks, T{});  // one a thread, not one a block
#pragma omp for schedule(static)
    for (long long i = 0; i < static_cast<long long>(count); ++i) {
      const std::size_t b = static_cast<std::size_t>(i);
      for (int w = 0; w < haf::kFloatWalks; ++w)
        walk[static_cast<std::size_t>(w)] = w < walks ? value(b, static_cast<std::size_t>(w)) : T{};
      store(b, estimate(walk, b));
    }
  }
}

}  // namespace

/// Values and estimates from an expansion's walks (run_hafnian_enum's values, `walks` a
/// block), into store(b, approx): float_estimate's, with no fixed point's truncation to add.
template <class T, class Store>
void expansion_estimates(const double* values, std::size_t count, int walks, const std::vector<double>& excess,
                         Store store) {
  const std::size_t W = std::is_same_v<T, Complex> ? 2 : 1, per = static_cast<std::size_t>(walks) * W;
  block_values<T>(
      count, walks,
      [&](std::size_t b, std::size_t w) {
        const double* v = &values[b * per + w * W];
        if constexpr (std::is_same_v<T, Complex>) return Complex(v[0], v[1]);
        else return v[0];
      },
      [&](const std::vector<T>& walk, std::size_t b) { return haf::float_estimate(walk, excess.empty() ? 0.0 : excess[b]); },
      store);
}

/// Values and estimates from the lanes' channel sums (run_hafnian_lanes's words, `walks` a
/// block, in fixed point of exponent q), into store(b, approx): float_block_value's, the
/// truncation included.
template <class T, class Store>
void lane_estimates(const std::uint64_t* words, std::size_t count, int walks, int n0, int q,
                    const std::vector<double>& excess, Store store) {
  const std::size_t per = gpu::haf_channel_words(std::is_same_v<T, Complex> ? gpu::HafArith::Complex : gpu::HafArith::Real);
  const std::size_t channels = static_cast<std::size_t>(walks);
  block_values<T>(
      count, walks, [&](std::size_t b, std::size_t w) { return fixed_value<T>(&words[(b * channels + w) * per], q); },
      [&](const std::vector<T>& walk, std::size_t b) {
        return float_block_value(walk, excess.empty() ? 0.0 : excess[b], (n0 + 1) / 2, q);
      },
      store);
}

template <class T>
std::vector<Approx<T>> lane_hafnians(int n0, bool loops, std::size_t count, const double* roots, int q,
                                     const std::vector<double>& excess) {
  const int walks = float_walks_for(excess.empty() ? 0.0 : *std::max_element(excess.begin(), excess.end()));
  const gpu::HafLaneJob job = lane_job<T>(n0, loops, count, roots, q, walks);
  std::vector<Approx<T>> out(count);
  const auto into = [&out](std::size_t b, const Approx<T>& a) { out[b] = a; };
  if (expansion_takes(job.n, loops)) {
    expansion_estimates<T>(gpu::run_hafnian_enum(job).data(), count, walks, excess, into);
    return out;
  }
  const std::vector<std::uint64_t> words = gpu::run_hafnian_lanes(job);
  const auto t0 = std::chrono::steady_clock::now();
  lane_estimates<T>(words.data(), count, walks, n0, q, excess, into);
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

/// A value in the caller's terms.
template <class T>
void to_small(const Approx<T>& got, SmallDenseValue& v) {
  v.kind = std::is_same_v<T, Complex> ? SmallDenseValue::Cplx : SmallDenseValue::Real;
  v.re = std::real(got.value);
  v.im = std::imag(got.value);
  v.abs_error = got.abs_error;
  v.estimated = got.estimated;
}

/// One job's values into the caller's.
template <class T>
void store_values(const std::vector<Approx<T>>& got, SmallDenseValue* to) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < static_cast<long long>(got.size()); ++i)
    to_small(got[static_cast<std::size_t>(i)], to[i]);
}

/// The two kinds of gpu_dense_hafnians' queued jobs: expansions (EnumQueue, whose roots need no
/// fixed-point exponent) and walks one a thread (LaneQueue), each with its estimates.
struct ExpansionJobs {
  using Queue = gpu::EnumQueue;
  static constexpr bool kExponent = false;
  static constexpr const char* kName = "gpu-hafnian expansion";
  template <class T>
  static void estimates(const gpu::EnumValues& got, std::size_t count, int, int, SmallDenseValue* to) {
    engines::gpu_haf::expansion_estimates<T>(got.data, count, engines::haf::kSpreadWalks, {},
                                             [to](std::size_t b, const Approx<T>& a) { to_small(a, to[b]); });
  }
};
struct LaneJobs {
  using Queue = gpu::LaneQueue;
  static constexpr bool kExponent = true;
  static constexpr const char* kName = "gpu-hafnian lanes";
  template <class T>
  static void estimates(const gpu::LaneSums& got, std::size_t count, int n, int q, SmallDenseValue* to) {
    engines::gpu_haf::lane_estimates<T>(got.data, count, engines::haf::kSpreadWalks, n, q, {},
                                        [to](std::size_t b, const Approx<T>& a) { to_small(a, to[b]); });
  }
};

/// gpu_dense_hafnians in jobs of `job` matrices through a Kind::Queue with two jobs in flight:
/// the host writes job j's roots into one half of a page-locked buffer while the device runs job
/// j - 1 (whose roots are in the other half), starts job j, whose roots then cross the bus while
/// job j - 1 ends, and makes job j - 1's estimates while the device runs job j. A job the queue
/// does not take (a lanes job too large for one launch) runs alone (lane_hafnians). The caller's
/// doubles carry no entry errors, so no excess and no walk of |A|. (Overlapping with a host
/// thread of its own instead lost to the two threads' OpenMP teams: docs/benchmarks.md, "Batches
/// of small hafnians: each matrix once".)
template <class Kind, class T, class Entry>
void queued_jobs(const Entry& entry, int n, std::int64_t count, bool loops, std::int64_t job,
                 const std::function<bool()>& stop, SmallDenseValue* values) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  constexpr int kInFlight = Kind::Queue::kInFlight;
  const int W = cplx ? 2 : 1, walks = engines::haf::kSpreadWalks;
  const bool verbose = tuning::tuning().gpu_verbose;
  const auto since = [](auto t0) { return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const std::size_t per = gpu::HafLaneJob::root_values(n + n % 2, loops) * static_cast<std::size_t>(W);
  // Two halves where there are two jobs or more; a batch of one job writes one.
  const std::size_t half = static_cast<std::size_t>(std::min(job, count)) * per;
  gpu::LaneRootBuffer roots(count > job ? 2 * half : half);
  typename Kind::Queue queue;
  struct InFlight {
    std::int64_t first, count;
    int q;
  };
  InFlight pending[kInFlight] = {};
  int oldest = 0;
  const auto take_oldest = [&] {
    const auto got = queue.take();
    const InFlight& j = pending[oldest];
    oldest = (oldest + 1) % kInFlight;
    const auto t0 = std::chrono::steady_clock::now();
    Kind::template estimates<T>(got, static_cast<std::size_t>(j.count), n, j.q, values + j.first);
    if (verbose) std::fprintf(stderr, "%s: estimates, %.3f ms\n", Kind::kName, since(t0));
  };
  int slot = 0;
  for (std::int64_t first = 0; first < count; first += job, slot ^= 1) {
    if (stop && stop()) throw Interrupted(2, "GPU hafnian batch stopped");  // the queue waits for its jobs
    const std::int64_t k = std::min(job, count - first);
    // This half's last job (the one before last) has been taken: its roots have crossed the bus.
    double* buffer = roots.data() + static_cast<std::size_t>(slot) * half;
    const auto t0 = std::chrono::steady_clock::now();
    const int q = engines::gpu_haf::write_lane_roots(
        static_cast<std::size_t>(k), n, loops, W, per, buffer,
        [&](std::size_t b, double* root) {
          const std::int64_t at = first + static_cast<std::int64_t>(b);
          // Entry (i, j), i >= j, of the matrix: its lower triangle's.
          gpu::write_lane_root(root, n, loops, W, [&](int r, int c, int w) { return entry(at, r, c, w); });
        },
        Kind::kExponent);
    if (verbose) std::fprintf(stderr, "%s: roots on the host, %.3f ms\n", Kind::kName, since(t0));
    if (!queue.start(engines::gpu_haf::lane_job<T>(n, loops, static_cast<std::size_t>(k), buffer, q, walks))) {
      while (queue.in_flight() > 0) take_oldest();
      store_values(engines::gpu_haf::lane_hafnians<T>(n, loops, static_cast<std::size_t>(k), buffer, q, {}), values + first);
      continue;
    }
    pending[(oldest + queue.in_flight() - 1) % kInFlight] = InFlight{first, k, q};
    if (queue.in_flight() == kInFlight) take_oldest();
  }
  while (queue.in_flight() > 0) take_oldest();
}

/// gpu_dense_hafnians over any reader of the batch's entries: entry(b, r, c, w) is part w (0
/// real, 1 imaginary) of entry (r, c), r >= c, of the call's matrix b.
template <class Entry>
std::vector<SmallDenseValue> dense_hafnians(const Entry& entry, bool cplx, int n, std::int64_t count, bool loops,
                                            const std::function<bool()>& stop) {
  if (n < 2 || n > engines::kHafnianMaxN) throw GpuError("GPU hafnian batch: n must be 2.." + std::to_string(engines::kHafnianMaxN));
  std::vector<SmallDenseValue> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  constexpr std::int64_t kJob = 4096;
  if (count <= 0) return values;
  if (n + n % 2 <= gpu::kHafLaneMaxN && tuning::tuning().haf_batch != 2) {
    // An expansion's job is short: jobs of up to 32 MiB of roots (at most 65536 matrices) fill
    // the device, where the walks' 4096 already take about a wave.
    if (engines::gpu_haf::expansion_takes(n + n % 2, loops)) {
      const std::int64_t bytes = static_cast<std::int64_t>(gpu::HafLaneJob::root_values(n + n % 2, loops)) * (cplx ? 16 : 8);
      const std::int64_t job = std::clamp<std::int64_t>((std::int64_t{32} << 20) / bytes, kJob, 65536);
      if (cplx) queued_jobs<ExpansionJobs, Complex>(entry, n, count, loops, job, stop, values.data());
      else queued_jobs<ExpansionJobs, double>(entry, n, count, loops, job, stop, values.data());
      return values;
    }
    if (cplx) queued_jobs<LaneJobs, Complex>(entry, n, count, loops, kJob, stop, values.data());
    else queued_jobs<LaneJobs, double>(entry, n, count, loops, kJob, stop, values.data());
    return values;
  }
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
          for (int j = 0; j < n; ++j) {  // the symmetric entry (i, j): the lower triangle's
            const int r = std::max(i, j), c = std::min(i, j);
            T x;
            if constexpr (std::is_same_v<T, Complex>) x = Complex(entry(first + b, r, c, 0), entry(first + b, r, c, 1));
            else x = entry(first + b, r, c, 0);
            if (x != T(0)) m.entries.push_back({i, j, x});
          }
      }
    };
    if (cplx) {
      std::vector<SparseMatrix<Complex>> blocks;
      fill(Complex(), blocks);
      store_values(engines::gpu_hafnian_batch(blocks, loops, EngineOptions{}), to);
    } else {
      std::vector<SparseMatrix<double>> blocks;
      fill(0.0, blocks);
      store_values(engines::gpu_hafnian_batch(blocks, loops, EngineOptions{}), to);
    }
  }
  return values;
}

}  // namespace

std::vector<SmallDenseValue> gpu_dense_hafnians(const double* re, const double* im, int n, std::int64_t count, bool loops,
                                                const std::function<bool()>& stop) {
  const std::size_t nn = static_cast<std::size_t>(std::max(n, 0)) * static_cast<std::size_t>(std::max(n, 0));
  const auto entry = [re, im, n, nn](std::int64_t b, int r, int c, int w) {
    return (w ? im : re)[static_cast<std::size_t>(b) * nn + static_cast<std::size_t>(r) * static_cast<std::size_t>(n) +
                         static_cast<std::size_t>(c)];
  };
  return dense_hafnians(entry, im != nullptr, n, count, loops, stop);
}

std::vector<SmallDenseValue> gpu_dense_hafnians(const DenseStack& stack, int n, std::int64_t count, bool loops,
                                                const std::function<bool()>& stop) {
  // One reader a float element type, its loads inlined into the roots' writers.
  const auto read = [&](auto element) {
    using E = decltype(element);
    const E* data = static_cast<const E*>(stack.data);
    const auto entry = [data, &stack](std::int64_t b, int r, int c, int w) -> double {
      const E& x = data[(stack.which ? stack.which[b] : b) * stack.matrix_stride + r * stack.row_stride + c * stack.col_stride];
      if constexpr (std::is_floating_point_v<E>) return w ? 0.0 : static_cast<double>(x);
      else return static_cast<double>(w ? x.imag() : x.real());
    };
    return dense_hafnians(entry, !std::is_floating_point_v<E>, n, count, loops, stop);
  };
  switch (stack.type) {
    case DenseElement::Float32: return read(float{});
    case DenseElement::Float64: return read(double{});
    case DenseElement::Complex64: return read(std::complex<float>{});
    case DenseElement::Complex128: return read(std::complex<double>{});
    default: throw std::invalid_argument("GPU hafnian batch: float or complex elements");
  }
}

}  // namespace matchcount
