// count_torontonian (matchcount/pipeline.hpp): the torontonian question. O (and gamma) are
// brought to double or complex values and counted by the walk of
// src/engines/torontonian/torontonian.hpp in one block; its error is a bound that holds.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/tuning.hpp"
#include "engines/torontonian/torontonian.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/one_block.hpp"
#include "pipeline/share_walks.hpp"

namespace matchcount {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

CountReport count_torontonian(const AnyMatrix& o, const AnyMatrix* gamma, const CountOptions& given) {
  const auto start = Clock::now();
  const CountOptions options = detail::with_memory_budget(given);
  const detail::MemoryScope memory_scope(o);
  CountReport report;
  report.max_memory = options.max_memory;
  report.rows = rows_of(o), report.cols = cols_of(o), report.nnz = nnz_of(o);
  report.quantity = gamma ? "loop_torontonian" : "torontonian";
  if (!options.engine.empty()) throw UsageError("--torontonian has one engine; --engine does not apply");
  if (options.log) throw UsageError("--log does not apply to --torontonian");
  if (options.explain) throw UsageError("--explain does not apply to --torontonian");
  if (report.rows != report.cols || report.rows % 2)
    throw UsageError("the torontonian needs a 2n x 2n matrix O, got " + std::to_string(report.rows) + "x" +
                     std::to_string(report.cols));
  const int n = report.rows / 2;
  if (gamma && !((rows_of(*gamma) == 2 * n && cols_of(*gamma) == 1) || (rows_of(*gamma) == 1 && cols_of(*gamma) == 2 * n)))
    throw UsageError("--gamma has " + std::to_string(rows_of(*gamma)) + "x" + std::to_string(cols_of(*gamma)) +
                     " values; the loop torontonian needs " + std::to_string(2 * n));
  const bool complex_input = kind_of(o) == NumberKind::Complex || (gamma && kind_of(*gamma) == NumberKind::Complex);
  if (kind_of(o) == NumberKind::Integer || kind_of(o) == NumberKind::Rational)
    report.notes.push_back("the torontonian is counted in double precision (its terms are square roots)");
  // The walk's device, as the engine decides it for a Gaussian state (real in the x/p basis).
  const bool gpu = (options.device == DevicePolicy::Gpu ||
                    (options.device == DevicePolicy::Auto && n >= engines::kTorontonianGpuMinModes)) &&
                   gpu_available();
  const int cores = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
  const double predicted = engines::torontonian_seconds(n, !complex_input, cores, gpu && !complex_input);
  if (options.max_seconds > 0) {
    detail::check_time_budget("torontonian", predicted, options);
  }
  EngineStats stats;
  Checkpoint* checkpoint = options.checkpoint;
  detail::OneBlockCheckpoint saved(checkpoint, 0x7070, {&o, gamma}, std::uint64_t{1} << 20, report);
  EngineOptions eo = detail::block_options(options, checkpoint, &stats);
  if (options.progress) eo.progress = options.progress;
  // MPI: the other ranks take units of the walk (the matrices go out in complex form, which
  // gives the engine the same walk as rank 0's).
  if (cluster::distributed() && predicted >= tuning::tuning().mpi_min_seconds)
    eo.team = cluster::share_torontonian(detail::dense_as<Complex>(o), gamma ? detail::dense_as<Complex>(*gamma) : std::vector<Complex>{},
                                         gpu, eo);
  const auto t1 = Clock::now();
  Approx<double> v;
  if (complex_input) {
    engines::TorontonianInput<Complex> in{n, detail::dense_as<Complex>(o), gamma ? detail::dense_as<Complex>(*gamma) : std::vector<Complex>{},
                                          options.device};
    v = engines::torontonian(in, eo);
  } else {
    engines::TorontonianInput<double> in{n, detail::dense_as<double>(o), gamma ? detail::dense_as<double>(*gamma) : std::vector<double>{},
                                         options.device};
    v = engines::torontonian(in, eo);
  }
  if (!(v.abs_error < std::fabs(v.value))) {
    char buf[240];
    std::snprintf(buf, sizeof buf, "the torontonian's terms cancel beyond double precision: the value %.3g has an error bound "
                  "of %.3g, which does not determine it (no value is printed)", v.value, v.abs_error);
    throw RefusedError(buf);
  }
  report.value.value = v.value;
  report.value.abs_error = v.abs_error;
  report.value.error_estimated = v.estimated;
  if (!stats.note.empty()) report.notes.push_back((stats.device == "gpu" ? "gpu-torontonian: " : "torontonian: ") + stats.note);
  report.engine_runs.push_back({2 * n, report.nnz, gamma ? "loop-torontonian" : "torontonian",
                                std::chrono::duration<double>(Clock::now() - t1).count(), stats});
  saved.finish(report);
  report.stage_seconds.push_back({"total", std::chrono::duration<double>(Clock::now() - start).count()});
  return report;
}

}  // namespace matchcount
