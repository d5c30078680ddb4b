// The GPU SkipPer engine (gpu-skipper): sparse blocks counted by src/engines/sparse/cuda/skipper_kernel.cuh
// (docs/gpu.md, "SkipPer on the GPU"). Integers exactly (residues modulo primes, CRT on the
// host), reals and complex numbers with exact fixed-point sums as gpu-ryser. A CUDA failure is
// reported in one line and the block is counted on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engines/ryser/ryser.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/gpu_common.hpp"
#include "engines/sparse/gpu_skipper.hpp"
#include "engines/sparse/gpu_skipper_layout.hpp"

namespace matchcount::engines {
namespace {

// Modelled operations per second (plan_skipper's count, an upper bound per step) and the
// launch, copies and a typical compilation (about a second; none when cached), fitted in
// docs/benchmarks.md, "GPU: SkipPer on one H100".
constexpr double kOpsPerSecond = 24e12, kOverhead = 0.5;

/// Sum over threads of the 512-bit integers at word offset `at` of each thread's words.
Integer sum_fixed(const gpu::SkipResult& r, int at) {
  Integer total = 0;
  const std::size_t per = static_cast<std::size_t>(r.words_per_thread), threads = r.words.size() / per;
  for (std::size_t t = 0; t < threads; ++t) total += fixed_at(&r.words[t * per + static_cast<std::size_t>(at)]);
  return total;
}

/// Sum over threads of the double at word offset `at` (sums of |terms|, for error bounds).
double sum_doubles(const gpu::SkipResult& r, int at) {
  const std::size_t per = static_cast<std::size_t>(r.words_per_thread), threads = r.words.size() / per;
  double total = 0;
  for (std::size_t t = 0; t < threads; ++t) total += double_at(&r.words[t * per + static_cast<std::size_t>(at)]);
  return total;
}

template <class T>
std::vector<std::vector<int>> support_of(const SparseMatrix<T>& a) {
  std::vector<std::vector<int>> s(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) s[static_cast<std::size_t>(e.row)].push_back(e.col);
  return s;
}

/// Floats take the halved (Nijenhuis-Wilf) form unless a form is forced: in the plain form
/// the rows that are constant in a chunk are sums of positive entries, and on positive
/// matrices the alternating sum cancels by many orders of magnitude (examples in
/// docs/benchmarks.md, "GPU: SkipPer on one H100"). Exact counts have no such limit.
SkipChoice float_choice() {
  SkipChoice c = SkipChoice::from_env();
  if (c.mode == 0) c.mode = 2;
  return c;
}

class GpuSkipperEngine final : public Engine {
 public:
  std::string name() const override { return "gpu-skipper"; }
  int max_n() const override { return 63; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return exact(a, opt); });
  }
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return floating(a, opt); });
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return guarded(a, opt, [&] { return floating(a, opt); });
  }

 private:
  std::unique_ptr<Engine> cpu_ = make_ryser();

  template <class T, class Run>
  auto guarded(const SparseMatrix<T>& a, const EngineOptions& opt, Run run_gpu) const -> decltype(run_gpu()) {
    return gpu_or_cpu(*cpu_, a, opt, run_gpu);
  }


  static gpu::SkipResult run(gpu::SkipJob& job, const EngineOptions& opt) {
    job.specialise = static_cast<int>(opt.specialise);
    job.progress = opt.progress;
    gpu::SkipResult r = gpu::run_skip(job);
    if (opt.stats) {
      opt.stats->device = "gpu";
      opt.stats->kernel = gpu::to_string(r.source);
      opt.stats->compile_seconds += r.compile_seconds;
      if (!r.kernel_note.empty()) opt.stats->note = r.kernel_note;
    }
    return r;
  }

  /// Residue sums of one walk, one per prime, appended to `sums` in [0, p).
  static void add_sums(const gpu::SkipResult& r, const std::vector<double>& primes, std::vector<double>& sums) {
    const std::size_t np = primes.size(), threads = r.words.size() / np;
    for (std::size_t k = 0; k < np; ++k) {
      const auto p = static_cast<std::uint64_t>(primes[k]);
      __extension__ unsigned __int128 s = 0;
      for (std::size_t t = 0; t < threads; ++t) {
        double v;
        std::memcpy(&v, &r.words[t * np + k], sizeof v);
        s = (s + to_residue(std::fmod(v, primes[k]), p)) % p;
      }
      sums.push_back(static_cast<double>(static_cast<std::uint64_t>(s)));
    }
  }

  Integer exact(const SparseMatrix<Integer>& a, const EngineOptions& opt) const {
    const int n = a.rows;
    std::vector<int> rows(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
    const ModPlan mod = make_mod_plan(a, rows);
    const SkipChoice choice = SkipChoice::from_env();
    IntegerWalk w = integer_walk(a, choice);
    std::vector<double> sums;
    bool prime_walks = !mod.shared;
    // Row sums below 2^49: one walk on exact integers serves up to four primes.
    for (std::size_t k = 0; k < mod.primes.size() && !prime_walks; k += 4) {
      const std::size_t e = std::min(mod.primes.size(), k + 4);
      gpu::SkipJob job = w.job;
      job.primes.assign(mod.primes.begin() + static_cast<long>(k), mod.primes.begin() + static_cast<long>(e));
      job.pinv.assign(mod.pinv.begin() + static_cast<long>(k), mod.pinv.begin() + static_cast<long>(e));
      job.predicted_ops = w.plan.ops * (1.0 + 0.5 * double(e - k));
      const auto r = run(job, opt);
      if (r.words.empty()) prime_walks = true;  // no kernel folds these products: walk on residues
      else add_sums(r, job.primes, sums);
    }
    if (prime_walks) {
      sums.clear();
      for (std::size_t k = 0; k < mod.primes.size(); ++k) {
        const double p = mod.primes[k];
        std::vector<std::vector<int>> groups{w.plan.h_rows};  // one constant slot: modular products
        gpu::SkipJob job = skip_layout(a, w.plan, groups, 1, [p](const Integer& v, double* out) { out[0] = residue_of(v, p); });
        job.kind = gpu::WalkKind::ModPrime;
        job.primes = {p};
        job.pinv = {mod.pinv[k]};
        job.predicted_ops = w.plan.ops * 4;
        add_sums(run(job, opt), job.primes, sums);
      }
    }
    return finish_mod(sums, mod, w.negate, w.shift);
  }

  /// Real and complex walks: rows scaled by powers of two (exact, keeps products far from
  /// overflow), one constant slot, exact fixed-point sums in units of 2^q.
  template <class T>
  static Approx<T> floating(const SparseMatrix<T>& a, const EngineOptions& opt) {
    constexpr bool cplx = std::is_same_v<T, Complex>;
    constexpr int W = cplx ? 2 : 1;
    const int n = a.rows;
    SparseMatrix<T> b = a;
    std::vector<int> ex(static_cast<std::size_t>(n), std::numeric_limits<int>::min());
    for (const auto& x : b.entries) ex[static_cast<std::size_t>(x.row)] = std::max(ex[static_cast<std::size_t>(x.row)], std::ilogb(std::abs(x.value)));
    for (auto& x : b.entries) x.value = x.value * std::ldexp(1.0, -ex[static_cast<std::size_t>(x.row)]);
    long row_shift = 0;
    for (int v : ex) row_shift += v;
    const SkipPlan plan = plan_skipper(support_of(b), n, float_choice());
    std::vector<std::vector<int>> groups{plan.h_rows};
    gpu::SkipJob job = skip_layout(b, plan, groups, W, [](const T& v, double* out) {
      out[0] = std::real(v);
      if constexpr (cplx) out[1] = std::imag(v);
    });
    job.kind = cplx ? gpu::WalkKind::Complex : gpu::WalkKind::Real;
    job.predicted_ops = plan.ops * (cplx ? 3 : 1);
    // Every |y_i| is at most the row's absolute sum (re + im), so every partial sum of the at
    // most 2^bits terms is below 2^(q + 510).
    std::vector<double> r(static_cast<std::size_t>(n));
    for (const auto& x : b.entries) r[static_cast<std::size_t>(x.row)] += (std::abs(std::real(x.value)) + std::abs(std::imag(x.value))) * (1 + 4 * kEps);
    double log2_max = 0;
    for (double v : r) log2_max += std::log2(v);
    job.q = static_cast<int>(std::ceil(log2_max)) + plan.bits + 2 - (64 * kLimbs - 2);
    const auto res = run(job, opt);
    const int shift = plan.halved ? n - 1 : static_cast<int>(plan.l_rows.size());
    const long e = job.q + row_shift - shift;
    const double sign = plan.bits % 2 ? -1.0 : 1.0;
    T v;
    if constexpr (cplx) v = Complex(scaled(sum_fixed(res, 0), e), scaled(sum_fixed(res, kLimbs), e));
    else v = scaled(sum_fixed(res, 0), e);
    const double abs_sum = std::ldexp(sum_doubles(res, W * kLimbs), static_cast<int>(row_shift - shift));
    // Rounding model as for the other Ryser walks: n-factor products, the start sums, and the
    // drift of y over a chunk (none for integral rows, whose sums are exact).
    const double drift = integral_rows(b) ? 0.0 : std::sqrt(double(n) * std::ldexp(1.0, plan.k));
    // The entries' own errors: an estimate as gpu-ryser's (gpu_ryser.cpp, entry_error_estimate).
    const double entries = row_sum_relative_error(a, opt);
    return {sign * v, (W * 2 * kEps * (2.0 * n + 2 + drift) + 16.0 * n * entries) * abs_sum, drift > 0 || entries > 0};
  }
};

template <class T>
double seconds(const SparseMatrix<T>& a, double factor) {
  if (a.rows < kGpuMinN || a.rows > 63 || has_empty_line(a)) return std::numeric_limits<double>::infinity();
  const SkipChoice choice = std::is_same_v<T, Integer> ? SkipChoice::from_env() : float_choice();
  const SkipPlan p = plan_skipper(support_of(a), a.rows, choice);
  return p.ops * factor / kOpsPerSecond + kOverhead;
}

}  // namespace

std::unique_ptr<Engine> make_gpu_skipper() { return std::make_unique<GpuSkipperEngine>(); }

// Exact walks of up to four primes cost about what float ones do (the modular products
// replace TwoSum); complex ones cost about three real ones.
double gpu_skipper_seconds(const SparseMatrix<Integer>& a, double passes) { return seconds(a, passes); }
double gpu_skipper_seconds(const SparseMatrix<double>& a) { return seconds(a, 1.0); }
double gpu_skipper_seconds(const SparseMatrix<Complex>& a) { return seconds(a, 3.0); }

}  // namespace matchcount::engines
