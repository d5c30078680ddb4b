// The GPU dense Ryser engine: prepares the Nijenhuis-Wilf walk for its CUDA walk (exact residues
// for integers, exactly summed floats for real and complex input) and finishes the result on
// the host. A CUDA failure is reported in one line and the block is counted on the CPU.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/hashing.hpp"
#include "engines/ryser/ryser.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/gpu_common.hpp"
#include "matchcount/checkpoint.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"
#include "core/tuning.hpp"

namespace matchcount::engines {
namespace {


/// Doubled NW columns a2[(j*n + i)*W + w] and start values x0 from a dense row-major matrix;
/// `part(v, w)` gives the w-th double of an entry.
template <class T, class Part>
void nw_columns(const SparseMatrix<T>& a, int W, Part part, gpu::WalkJob& job) {
  const int n = a.rows;
  std::vector<T> d = a.dense();
  job.n = n;
  job.a2.assign(static_cast<std::size_t>(n - 1) * n * W, 0.0);
  job.x0.assign(static_cast<std::size_t>(n) * W, 0.0);
  for (int i = 0; i < n; ++i)
    for (int w = 0; w < W; ++w) {
      double row = 0;  // exact for the integer walks (row sums < 2^49); rounded once otherwise
      for (int j = 0; j < n; ++j) row += part(d[static_cast<std::size_t>(i * n + j)], w);
      job.x0[static_cast<std::size_t>(i * W + w)] = 2 * part(d[static_cast<std::size_t>(i * n + n - 1)], w) - row;
      for (int j = 0; j + 1 < n; ++j)
        job.a2[(static_cast<std::size_t>(j) * n + i) * W + w] = 2 * part(d[static_cast<std::size_t>(i * n + j)], w);
    }
}

/// A checkpoint name for the walk: kind, size, chunking and a hash of everything the sums
/// depend on (columns, start values, primes, fold pattern, fixed-point exponent).
std::string walk_tag(const gpu::WalkJob& job) {
  std::uint64_t h = fnv1a64(job.a2.data(), job.a2.size() * sizeof(double));
  h = fnv1a64(job.x0.data(), job.x0.size() * sizeof(double), h);
  h = fnv1a64(job.primes.data(), job.primes.size() * sizeof(double), h);
  h = fnv1a64(&job.fold_mask, sizeof job.fold_mask, h);
  h = fnv1a64(&job.q, sizeof job.q, h);
  static const char* kinds[] = {"real", "complex", "exact-shared", "exact-prime"};
  char buf[160];
  std::snprintf(buf, sizeof buf, "gpu-ryser/%s/n=%d/k=%d/input=%016llx", kinds[static_cast<int>(job.kind)], job.n, job.k,
                static_cast<unsigned long long>(h));
  return buf;
}

/// The code-generation paper's permanent ordering. Gray column j flips in 2^-(j+1) of the
/// steps, so columns are taken greedily, each time the one that adds the fewest rows not yet
/// touched (then the sparsest): the frequently flipped columns share few rows, and a kernel
/// with baked columns pays least per flip; the densest column ends up last, as the
/// Nijenhuis-Wilf column that never flips. Rows then come coldest first (by the first column
/// that touches them, latest first): a hybrid kernel keeps a prefix of them in memory with
/// their product cached, and every kernel multiplies the rows in this order. Among column 0's
/// rows, those column 1 does not touch come first, so that the rows fall into contiguous
/// classes by the first two columns (ryser_low_columns.cuh takes their subsets in one step).
/// MATCHCOUNT_GPU_ORDER=columns (for comparisons): a simpler order, sparsest columns first,
/// rows as given.
template <class T>
SparseMatrix<T> permanent_order(const SparseMatrix<T>& a) {
  const bool greedy = !tuning::tuning().gpu_order_columns;
  const auto n = static_cast<std::size_t>(a.cols);
  std::vector<std::vector<int>> rows_of(n);
  for (const auto& e : a.entries) rows_of[static_cast<std::size_t>(e.col)].push_back(e.row);
  std::vector<bool> touched(static_cast<std::size_t>(a.rows)), used(n), second(static_cast<std::size_t>(a.rows));
  std::vector<int> col_at(n), first_col(static_cast<std::size_t>(a.rows), a.cols);
  for (std::size_t pos = 0; pos < n; ++pos) {
    std::size_t best = n;
    int best_new = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (used[j]) continue;
      int fresh = 0;
      for (int r : rows_of[j]) fresh += greedy && !touched[static_cast<std::size_t>(r)];
      if (best == n || fresh < best_new || (fresh == best_new && rows_of[j].size() < rows_of[best].size()))
        best = j, best_new = fresh;
    }
    used[best] = true;
    col_at[best] = static_cast<int>(pos);
    if (pos == 1)
      for (int r : rows_of[best]) second[static_cast<std::size_t>(r)] = true;
    for (int r : rows_of[best])
      if (!touched[static_cast<std::size_t>(r)]) {
        touched[static_cast<std::size_t>(r)] = true;
        if (pos + 1 < n) first_col[static_cast<std::size_t>(r)] = static_cast<int>(pos);
      }
  }
  std::vector<int> order(static_cast<std::size_t>(a.rows)), row_at(static_cast<std::size_t>(a.rows));
  for (int i = 0; i < a.rows; ++i) order[static_cast<std::size_t>(i)] = i;
  if (greedy)
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      const auto ux = static_cast<std::size_t>(x), uy = static_cast<std::size_t>(y);
      return first_col[ux] != first_col[uy] ? first_col[ux] > first_col[uy] : second[ux] < second[uy];
    });
  for (int i = 0; i < a.rows; ++i) row_at[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  SparseMatrix<T> b = a;
  for (auto& e : b.entries) {
    e.col = col_at[static_cast<std::size_t>(e.col)];
    e.row = row_at[static_cast<std::size_t>(e.row)];
  }
  b.normalize();
  return b;
}

/// Scales every row by a power of two so that its largest |entry| lies in [1, 2): exact, and
/// it keeps the products far from overflow. Returns the sum of the exponents taken out.
template <class T>
long normalise_rows(SparseMatrix<T>& a) {
  std::vector<int> e(static_cast<std::size_t>(a.rows), std::numeric_limits<int>::min());
  for (const auto& x : a.entries) e[static_cast<std::size_t>(x.row)] = std::max(e[static_cast<std::size_t>(x.row)], std::ilogb(std::abs(x.value)));
  for (auto& x : a.entries) x.value = x.value * std::ldexp(1.0, -e[static_cast<std::size_t>(x.row)]);
  long total = 0;
  for (int v : e) total += v;
  return total;
}

/// The fixed-point exponent q: every partial sum of the walk is below 2^(q+510).
template <class T>
int fixed_exponent(const SparseMatrix<T>& a) {
  std::vector<double> r(static_cast<std::size_t>(a.rows));
  for (const auto& x : a.entries) r[static_cast<std::size_t>(x.row)] += std::abs(x.value) * (1 + 4 * kEps);
  double log2_max = 0;  // log2 of the largest possible |term|: prod of row abs sums (W = 2: re+im)
  for (double v : r) log2_max += std::log2(2 * v);
  return static_cast<int>(std::ceil(log2_max)) + a.rows + 2 - (64 * kLimbs - 2);
}

class GpuRyserEngine final : public Engine {
 public:
  std::string name() const override { return "gpu-ryser"; }
  int max_n() const override { return 63; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return exact(permanent_order(a), opt); });
  }
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return floating(permanent_order(a), opt); });
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return floating(permanent_order(a), opt); });
  }

 private:
  std::unique_ptr<Engine> cpu_ = make_ryser();

  template <class T, class Run>
  auto guarded(const SparseMatrix<T>& a, const EngineOptions& opt, Run run_gpu) const -> decltype(run_gpu()) {
    return gpu_or_cpu(*cpu_, a, opt, run_gpu);
  }


  /// Real and complex walks: rows scaled by powers of two, exact fixed-point sums.
  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, const EngineOptions& opt) {
    constexpr bool cplx = std::is_same_v<T, Complex>;
    constexpr int W = cplx ? 2 : 1;
    SparseMatrix<T> b = a;
    const long shift = normalise_rows(b);
    gpu::WalkJob job = base_job(b, opt, cplx ? gpu::WalkKind::Complex : gpu::WalkKind::Real);
    nw_columns(b, W, [](const T& v, int w) { return w ? std::imag(v) : std::real(v); }, job);
    const auto r = run(job, opt);
    const long e = job.q + shift + 1 - b.rows;
    const double sign = (b.rows - 1) % 2 ? -1.0 : 1.0;
    T v;
    if constexpr (cplx) v = Complex(scaled(fixed_at(&r.words[0]), e), scaled(fixed_at(&r.words[kLimbs]), e));
    else v = scaled(fixed_at(&r.words[0]), e);
    const double abs_sum = std::ldexp(double_at(&r.words[W * kLimbs]), static_cast<int>(shift + 1 - b.rows));
    // The drift term and the entries' share are models, not bounds (error_factor,
    // entry_error_estimate): such a value's error is marked an estimate.
    const bool estimated = !integral_rows(b) || row_sum_relative_error(a, opt) > 0;
    return {sign * v, W * error_factor(b, job.k) * abs_sum + entry_error_estimate(a, opt) * abs_sum, estimated};
  }

  template <class T>
  static gpu::WalkJob base_job(const SparseMatrix<T>& a, const EngineOptions& opt, gpu::WalkKind kind) {
    gpu::WalkJob job;
    job.kind = kind;
    job.k = gpu::chunk_log2(a.rows - 1);
    job.progress = opt.progress;
    job.specialise = static_cast<int>(opt.specialise);
    job.gpus = opt.gpus;
    job.journal = opt.journal;
    job.team = opt.team;
    if constexpr (!std::is_same_v<T, Integer>) job.q = fixed_exponent(a);
    return job;
  }

  /// What the entries' own errors (EngineOptions::entry_error) move the sum by, per unit of
  /// sum |terms|. An estimate, unlike the CPU walk's bound (src/engines/ryser/row_grid.hpp, which
  /// needs the least |y_i| of every term): a term moves by sum_i E_i prod_{k != i} |y_k| to
  /// first order, E_i = eta r_i, which on random blocks stayed below 5.4 n eta |term| in sum.
  template <class T>
  static double entry_error_estimate(const SparseMatrix<T>& a, const EngineOptions& opt) {
    return 16.0 * a.rows * row_sum_relative_error(a, opt);
  }

  /// Rounding model as for the CPU walk: n-factor products, the start sums, and the drift of
  /// y over a chunk (none for integral rows, whose sums are exact).
  template <class T>
  static double error_factor(const SparseMatrix<T>& a, int k) {
    const double drift = integral_rows(a) ? 0.0 : std::sqrt(double(a.rows) * std::ldexp(1.0, k));
    return 2 * kEps * (2.0 * a.rows + 2 + drift);
  }

  static gpu::WalkResult run(gpu::WalkJob& job, const EngineOptions& opt) {
    job.tag = walk_tag(job);
    gpu::WalkResult r = gpu::run_walk(job);
    if (opt.stats) {
      opt.stats->device = "gpu";
      opt.stats->kernel = gpu::to_string(r.source) + (r.memory_rows > 0 ? "-hybrid" : "") +
                          (r.low_columns == 1 ? "-pairs" : r.low_columns == 2 ? "-fours" : "");
      opt.stats->compile_seconds += r.compile_seconds;
      if (!r.kernel_note.empty()) opt.stats->note = r.kernel_note;
      if (r.units_per_device.size() > 1) {
        std::string split = std::to_string(r.units_per_device.size()) + " GPUs took";
        for (std::size_t d = 0; d < r.units_per_device.size(); ++d)
          split += (d ? " + " : " ") + std::to_string(r.units_per_device[d]);
        opt.stats->note += (opt.stats->note.empty() ? "" : "; ") + split + " units";
      }
      if (!r.units_by_rank.empty()) opt.stats->note += (opt.stats->note.empty() ? "" : "; ") + cluster::ranks_note(r.units_by_rank);
    }
    return r;
  }

  Integer exact(const SparseMatrix<Integer>& a, const EngineOptions& opt) const {
    const int n = a.rows;
    std::vector<int> rows(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
    const ModPlan mod = make_mod_plan(a, rows);
    std::vector<double> sums;
    auto add_sums = [&](const gpu::WalkResult& r) {  // residues in [0, p)
      for (std::uint64_t w : r.words) sums.push_back(static_cast<double>(w));
    };
    bool prime_walks = !mod.shared;
    if (mod.shared) {
      gpu::WalkJob job = base_job(a, opt, gpu::WalkKind::ModShared);
      nw_columns(a, 1, [](const Integer& v, int) { return v.get_d(); }, job);
      for (std::size_t g = 0; g + 1 < mod.group_end.size(); ++g)
        job.fold_mask |= std::uint64_t{1} << (mod.group_end[g] - 1);
      job.every8_ok = every8_ok(a);
      for (std::size_t k = 0; k < mod.primes.size() && !prime_walks; k += 4) {
        const std::size_t e = std::min(mod.primes.size(), k + 4);
        job.primes.assign(mod.primes.begin() + static_cast<long>(k), mod.primes.begin() + static_cast<long>(e));
        job.pinv.assign(mod.pinv.begin() + static_cast<long>(k), mod.pinv.begin() + static_cast<long>(e));
        const auto r = run(job, opt);
        if (r.words.empty()) prime_walks = true;  // no specialised kernel: walk on residues
        else add_sums(r);
      }
      if (prime_walks) sums.clear();
    }
    if (prime_walks) {
      for (std::size_t k = 0; k < mod.primes.size(); ++k) {
        const double p = mod.primes[k];
        gpu::WalkJob job = base_job(a, opt, gpu::WalkKind::ModPrime);
        nw_columns(a, 1, [](const Integer& v, int) { return v.get_d(); }, job);  // sizes only
        std::vector<Integer> d = a.dense();
        for (int i = 0; i < n; ++i) {
          Integer row = 0;
          for (int j = 0; j < n; ++j) row += d[static_cast<std::size_t>(i * n + j)];
          job.x0[static_cast<std::size_t>(i)] = residue_of(2 * d[static_cast<std::size_t>(i * n + n - 1)] - row, p);
          for (int j = 0; j + 1 < n; ++j)
            job.a2[static_cast<std::size_t>(j) * n + i] = residue_of(2 * d[static_cast<std::size_t>(i * n + j)], p);
        }
        job.primes = {p};
        job.pinv = {mod.pinv[k]};
        add_sums(run(job, opt));
      }
    }
    return finish_mod(sums, mod, (n - 1) % 2 == 1, n - 1);
  }

  /// True when any 8 consecutive rows (aligned as the generic kernels fold them) have row
  /// sums whose product is below 2^49.
  static bool every8_ok(const SparseMatrix<Integer>& a) {
    std::vector<Integer> r(static_cast<std::size_t>(a.rows));
    for (const auto& e : a.entries) r[static_cast<std::size_t>(e.row)] += abs(e.value);
    const Integer limit = Integer(1) << 49;
    for (int g = 0; g < a.rows; g += 8) {
      Integer p = 1;
      for (int i = g; i < std::min(a.rows, g + 8); ++i) p *= r[static_cast<std::size_t>(i)];
      if (p >= limit) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Engine> make_gpu_ryser() { return std::make_unique<GpuRyserEngine>(); }

}  // namespace matchcount::engines
