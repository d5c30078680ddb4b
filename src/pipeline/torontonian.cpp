// count_torontonian (matchcount/pipeline.hpp): the torontonian question. O (and gamma) are
// brought to double or complex values and counted by the walk of
// src/engines/torontonian/torontonian.hpp in one block; its error is a bound that holds.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/hashing.hpp"
#include "engines/torontonian/torontonian.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/resume.hpp"

namespace matchcount {
namespace {

using Clock = std::chrono::steady_clock;

template <class U>
std::vector<U> dense_values(const AnyMatrix& m) {
  return std::visit(
      [](const auto& a) {
        std::vector<U> out(static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(a.cols), U(0));
        for (const auto& e : a.entries) {
          U& x = out[static_cast<std::size_t>(e.row) * static_cast<std::size_t>(a.cols) + static_cast<std::size_t>(e.col)];
          using T = std::decay_t<decltype(e.value)>;
          if constexpr (std::is_same_v<T, Integer> || std::is_same_v<T, Rational>) x = U(e.value.get_d());
          else if constexpr (std::is_same_v<T, Complex> && std::is_same_v<U, double>) x = e.value.real();
          else x = U(e.value);
        }
        return out;
      },
      m);
}

std::uint64_t fingerprint(const AnyMatrix& o, const AnyMatrix* gamma) {
  std::uint64_t h = 0x7070;
  for (const AnyMatrix* m : {&o, gamma}) {
    if (!m) continue;
    std::visit(
        [&](const auto& s) {
          std::ostringstream text;
          text.precision(17);
          text << s.rows << "x" << s.cols << ";";
          for (const auto& e : s.entries) text << e.row << "," << e.col << "," << e.value << ";";
          const std::string t = text.str();
          h = fnv1a64(t.data(), t.size(), h);
        },
        *m);
  }
  return h;
}

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
  if (options.max_seconds > 0) {
    EnginePlan plan;
    plan.engine = "torontonian";
    plan.predicted_seconds = engines::torontonian_seconds(n, !complex_input, options.threads);
    detail::check_time_budget({plan}, options);
  }
  EngineStats stats;
  Checkpoint* checkpoint = options.checkpoint;
  if (checkpoint) {
    checkpoint->open(fingerprint(o, gamma), 1, std::uint64_t{1} << 20);
    if (checkpoint->resumed()) report.notes.push_back("resumed from the checkpoint " + checkpoint->path());
    checkpoint->begin_block(0);
  }
  EngineOptions eo = detail::block_options(options, checkpoint, &stats);
  if (options.progress) eo.progress = options.progress;
  const auto t1 = Clock::now();
  Approx<double> v;
  if (complex_input) {
    engines::TorontonianInput<Complex> in{n, dense_values<Complex>(o), gamma ? dense_values<Complex>(*gamma) : std::vector<Complex>{}};
    v = engines::torontonian(in, eo);
  } else {
    engines::TorontonianInput<double> in{n, dense_values<double>(o), gamma ? dense_values<double>(*gamma) : std::vector<double>{}};
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
  report.engine_runs.push_back({2 * n, report.nnz, gamma ? "loop-torontonian" : "torontonian",
                                std::chrono::duration<double>(Clock::now() - t1).count(), stats});
  if (checkpoint) {
    report.resume = detail::resume_summary(checkpoint);
    checkpoint->complete();
  }
  report.stage_seconds.push_back({"total", std::chrono::duration<double>(Clock::now() - start).count()});
  return report;
}

}  // namespace matchcount
