// count_hafnian_repeated (matchcount/pipeline.hpp): photon-number patterns. The matrix and its
// loop weights are brought to one number kind, rationals to integers by a common denominator,
// and the repeated-pair walk of src/engines/hafnian/hafnian_repeated.hpp counts them in one
// block: the expanded matrix is never built, so preprocessing (which works on it) does not run.
#include <chrono>
#include <cmath>
#include <string>

#include <omp.h>

#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/hafnian/hafnian_repeated.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/one_block.hpp"
#include "pipeline/share_walks.hpp"
#include "pipeline/evaluated.hpp"

namespace matchcount {
namespace {

using Clock = std::chrono::steady_clock;

/// The engine on `in`, its walks shared with the other MPI ranks where `share` and it walks
/// (Kan's formula is one sequential sum).
template <class T>
auto count_shared(const engines::RepeatedHafnian<T>& in, const EngineOptions& eo, bool share) {
  EngineOptions e = eo;
  if (share && engines::repeated_uses_walk(in)) e.team = cluster::share_repeated_hafnian(in, e);
  return engines::hafnian_repeated(in, e);
}

/// The value of the walk for values of kind T, stored in the report.
template <class T>
void count_kind(const engines::RepeatedHafnian<T>& in, const EngineOptions& eo, bool share, CountReport& report) {
  if constexpr (std::is_same_v<T, Rational>) {
    // One common denominator L: edges times L^2 and loops times L make every matching's weight
    // L^N times its own (count_hafnian does the same).
    Integer l = 1;
    for (const auto& x : in.a) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), x.get_den_mpz_t());
    if (in.loops)
      for (const auto& x : in.mu) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), x.get_den_mpz_t());
    engines::RepeatedHafnian<Integer> z{in.n, {}, {}, in.rpt, in.loops, in.device};
    for (const auto& x : in.a) z.a.push_back(x.get_num() * (Integer(l * l) / x.get_den()));
    for (const auto& x : in.mu) z.mu.push_back(x.get_num() * (l / x.get_den()));
    std::uint64_t vertices = 0;
    for (auto r : in.rpt) vertices += r;
    Integer denominator;
    mpz_pow_ui(denominator.get_mpz_t(), l.get_mpz_t(), static_cast<unsigned long>(vertices));
    Rational q(count_shared(z, eo, share), denominator);
    q.canonicalize();
    report.value.value = q;
  } else if constexpr (std::is_same_v<T, Integer>) {
    report.value.value = count_shared(in, eo, share);
  } else {
    detail::store_float(report, count_shared(in, eo, share), "the hafnian");
  }
}

}  // namespace

CountReport count_hafnian_repeated(const AnyMatrix& input, const std::vector<std::uint64_t>& rpt, const AnyMatrix* mu,
                                   bool loops, const CountOptions& given) {
  const auto start = Clock::now();
  const CountOptions options = detail::with_memory_budget(given);
  const detail::MemoryScope memory_scope(input);
  CountReport report;
  report.max_memory = options.max_memory;
  report.rows = rows_of(input), report.cols = cols_of(input), report.nnz = nnz_of(input);
  report.graph.hafnian = true;
  report.graph.loops = loops;
  report.quantity = loops ? "loop_hafnian" : "hafnian";
  if (!options.engine.empty() && options.engine != "hafnian" && options.engine != "gpu-hafnian")
    throw UsageError("--reps counts with the repeated-pair hafnian walk (hafnian or gpu-hafnian); --engine " + options.engine +
                     " does not apply");
  if (options.log) throw UsageError("--log does not apply to --reps (the count is a double or exact)");
  if (options.explain) throw UsageError("--explain does not apply to --reps");
  if (!options.preprocess) throw UsageError("--no-preprocess does not apply to --reps (nothing is preprocessed)");
  const int n = report.rows;
  std::visit([](const auto& m) { require_symmetric(m); }, input);
  if (rpt.size() != static_cast<std::size_t>(n))
    throw UsageError("--reps has " + std::to_string(rpt.size()) + " numbers but the matrix has " + std::to_string(n) + " rows");
  if (mu && !loops) throw UsageError("--mu gives loop weights: it needs --loop-hafnian");
  if (mu && !((rows_of(*mu) == n && cols_of(*mu) == 1) || (rows_of(*mu) == 1 && cols_of(*mu) == n)))
    throw UsageError("--mu has " + std::to_string(rows_of(*mu)) + "x" + std::to_string(cols_of(*mu)) +
                     " values; it needs " + std::to_string(n) + ", one per row");
  const int kind = std::max(static_cast<int>(kind_of(input)), mu ? static_cast<int>(kind_of(*mu)) : 0);
  std::uint64_t photons = 0;
  for (auto r : rpt) photons += r;
  const engines::PairTypes types = engines::pair_types(rpt, loops);
  char note[200];
  std::snprintf(note, sizeof note, "%llu photons in %d modes", static_cast<unsigned long long>(photons), n);
  report.notes.push_back(note);

  EngineStats stats;
  Checkpoint* checkpoint = options.checkpoint;
  // The pattern and the loop flag are part of what the checkpoint is of.
  const std::uint64_t seed = fnv1a64(rpt.data(), rpt.size() * sizeof(std::uint64_t), loops ? 0x9e3779b97f4a7c15ULL : 1);
  detail::OneBlockCheckpoint saved(checkpoint, seed, {&input, mu}, (std::uint64_t{1} << 20) + 64 * photons, report);
  EngineOptions eo = detail::block_options(options, checkpoint, &stats);
  if (options.progress) eo.progress = options.progress;
  const auto run = [&](auto tag) {
    using T = decltype(tag);
    engines::RepeatedHafnian<T> in;
    in.n = n, in.rpt = rpt, in.loops = loops;
    in.a = detail::dense_as<T>(input);
    if (mu) in.mu = detail::dense_as<T>(*mu);
    else
      for (int i = 0; i < n; ++i) in.mu.push_back(in.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n + 1)]);
    // The device, decided once here so that MPI ranks walk the same walk: --engine gpu-hafnian
    // or --device gpu asks for the GPU, auto takes it for walks of half a second or more.
    const int cores = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
    in.device = engines::repeated_device(rpt, loops, number_kind<T>(),
                                         options.engine == "gpu-hafnian" ? DevicePolicy::Gpu : options.device, cores);
    const bool gpu = in.device == DevicePolicy::Gpu;
    const double primes = 0;  // the seconds of floats; exact counts take a few more passes
    const double predicted = gpu ? engines::hafnian_repeated_gpu_seconds(types, 4)
                                 : engines::hafnian_repeated_seconds(types, primes, number_kind<T>(), options.threads);
    if (options.max_seconds > 0) {
      detail::check_time_budget(gpu ? "gpu-hafnian-rpt" : "hafnian-rpt", predicted, options);
    }
    // MPI: the other ranks take work units of the same walks.
    count_kind(in, eo, cluster::distributed() && predicted >= tuning::tuning().mpi_min_seconds, report);
  };
  const auto t1 = Clock::now();
  switch (kind) {
    case 0: run(Integer()); break;
    case 1: run(Rational()); break;
    case 2: run(0.0); break;
    default: run(Complex()); break;
  }
  const std::string engine = stats.device == "gpu" ? "gpu-hafnian-rpt" : "hafnian-rpt";
  report.engine_runs.push_back({static_cast<int>(photons), report.nnz, engine, std::chrono::duration<double>(Clock::now() - t1).count(), stats});
  if (!stats.note.empty()) report.notes.push_back(engine + ": " + stats.note);
  saved.finish(report);
  report.stage_seconds.push_back({"total", std::chrono::duration<double>(Clock::now() - start).count()});
  return report;
}

}  // namespace matchcount
