// Counts for Python: options from the Request, the GIL released around the library, Ctrl-C
// and progress callbacks relayed, results converted.
#include "run.hpp"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>

#include "interrupt.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/io.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"
#include "progress_relay.hpp"
#include "small_dense.hpp"

namespace matchcount::py {

namespace {

constexpr int kStopFrom = 16;  // sides above which a count may be long enough to stop


}  // namespace

/// The record's input description: a matrix of the right number kind, without its entries.
ReadResult described(const AnyMatrix& m, const std::string& format, const std::vector<std::string>& names,
                     const std::vector<std::string>& notes) {
  ReadResult in;
  in.matrix = std::visit([](const auto& a) { return AnyMatrix(std::decay_t<decltype(a)>{}); }, m);
  in.format = format;
  in.row_names = names;
  in.notes = notes;
  return in;
}

namespace {

[[noreturn]] void keyboard_interrupt(const std::string& message) {
  PyErr_SetString(PyExc_KeyboardInterrupt, message.c_str());
  throw nb::python_error();
}

}  // namespace

DevicePolicy device_policy(const std::string& device) {
  if (device == "cpu") return DevicePolicy::Cpu;
  if (device == "gpu") {
    // The CLI's words for the same refusal (apps/cli_main.cpp).
    if (!gpu_available())
      throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible"
                                           : "--device gpu: matchcount was built without CUDA");
    return DevicePolicy::Gpu;
  }
  return DevicePolicy::Auto;
}

/// A square matrix of n >= 3 without zeros is one Dulmage-Mendelsohn block in which no line
/// has the at most 2 entries the free Forbert-Marx rules need, nor the 3..4 entries of a
/// branch of a block of 16 or more: preprocessing would hand it to the planner unchanged, at
/// a cost several times that of the count itself (docs/benchmarks.md, "Python package").
bool preprocessing_is_identity(const AnyMatrix& m) {
  const auto n = static_cast<std::size_t>(rows_of(m));
  return rows_of(m) == cols_of(m) && n >= 3 && nnz_of(m) == n * n;
}

nb::object permanent_dense(const nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>& a, int mode, int threads) {
  // Small square matrices: the dense kernel (small_dense.hpp). Below n = 10 (under ~1 us) the
  // GIL is kept, as dropping and retaking it would be a sizeable share of the call.
  const auto rows = static_cast<std::int64_t>(a.shape(0)), cols = static_cast<std::int64_t>(a.shape(1));
  const auto small = [&] {
    return small_permanent(a.data(), a.dtype(), rows, cols, a.stride(0), a.stride(1), static_cast<ExactMode>(mode));
  };
  SmallValue v;
  if (rows < 10) {
    v = small();
  } else {
    nb::gil_scoped_release release;
    v = small();
  }
  if (v.kind == SmallValue::Real) return nb::steal(PyFloat_FromDouble(v.re));
  if (v.kind == SmallValue::Cplx) return nb::steal(PyComplex_FromDoubles(v.re, v.im));
  if (v.kind == SmallValue::Exact) return nb::steal(PyLong_FromDouble(v.re));
  const AnyMatrix m = from_dense(a, static_cast<ExactMode>(mode));
  CountOptions o;
  o.threads = threads;
  o.preprocess = !preprocessing_is_identity(m);
  CountReport report;
  {
    nb::gil_scoped_release release;
    report = count_permanent(m, o);
  }
  return to_python(report.value);
}

nb::object count(const Matrix& input, const Request& r) {
  const AnyMatrix* m = &input.m;
  if (r.what > 0 && !r.perfect_matchings)  // a matrix: the NumPy reader's words (src/io/read_input.cpp)
    std::visit(
        [](const auto& a) {
          if (!a.square())
            throw std::invalid_argument("the hafnian needs a square symmetric matrix, got " + std::to_string(a.rows) +
                                        "x" + std::to_string(a.cols));
          if (const auto [i, j] = first_asymmetric_entry(a); i >= 0)
            throw std::invalid_argument("the matrix is not symmetric: entry [" + std::to_string(i) + ", " +
                                        std::to_string(j) + "] differs from entry [" + std::to_string(j) + ", " +
                                        std::to_string(i) + "] (0-based; the hafnian needs a symmetric matrix)");
        },
        *m);
  AnyMatrix repeated;
  if (!r.row_mult.empty() || !r.col_mult.empty()) {
    const auto list = [](const std::string& text, const char* option) {
      return text.empty() ? std::vector<std::uint64_t>{} : parse_multiplicities(text, option);
    };
    repeated = repeat_lines(*m, list(r.row_mult, "row_mult"), list(r.col_mult, "col_mult"));
    m = &repeated;
  }
  CountOptions o;
  o.perfect_matchings = r.perfect_matchings;
  o.engine = r.engine == "auto" ? "" : r.engine;
  o.threads = r.threads;
  o.device = device_policy(r.device);
  o.explain = r.details == 2;
  o.max_memory = r.max_memory;
  o.max_seconds = r.max_seconds;  // a count predicted longer is refused before it starts
  o.log = r.log;
  if (r.what > 0) o.vertex_names = r.names;
  // A stop needs a checkpoint; a rectangular count keeps none (and would say so in its notes).
  // Tiny counts take less time than setting up a stop would (~us, a few syscalls).
  const bool worth_stopping = rows_of(*m) == cols_of(*m) && rows_of(*m) > kStopFrom && !o.explain && !o.log;
  const bool capped = r.max_seconds > 0 && !o.explain;
  StopToken token(r.checkpoint, r.checkpoint_every,
                  (r.interruptible || !r.progress.is_none() || capped) && worth_stopping);
  o.checkpoint = token.checkpoint();
  ProgressRelay relay(r.progress, r.progress_every, &token);
  if (relay.active()) o.progress = [&relay](double f) { relay.report(f); };

  CountReport report;
  std::optional<std::string> interrupted;
  int stop_signal = 0;
  SigintGuard guard(r.interruptible, &token);
  {
    nb::gil_scoped_release release;
    // Destroyed before the token it stops through.
    std::optional<Deadline> deadline;
    if (capped) deadline.emplace(r.max_seconds, &token);
    try {
      report = r.what > 0 ? count_hafnian(*m, r.what == 2, o) : count_permanent(*m, o);
    } catch (const Interrupted& e) {
      interrupted = e.what();
      stop_signal = e.signal();
    }
  }
  guard.restore();
  relay.rethrow();  // the callback's own exception comes first
  if (stop_signal == kDeadlineSignal && !guard.signalled()) {
    // The CLI's line (apps/cli_main.cpp) in the names of the Python arguments.
    char cap[32];
    std::snprintf(cap, sizeof cap, "%g", r.max_seconds);
    throw BudgetError(std::string("the time cap max_seconds=") + cap + " was reached; " +
                      (r.checkpoint.empty() ? "the count stopped (checkpoint=FILE saves progress to resume)"
                                            : "progress is saved in " + r.checkpoint +
                                                  ": call again (with a larger cap) to resume"));
  }
  if (interrupted || guard.signalled()) {
    // Without the user's checkpoint the private file is gone with the token: say nothing of it.
    keyboard_interrupt(!r.checkpoint.empty() && interrupted ? *interrupted : "matchcount: count interrupted");
  }
  if (r.details == 0 && report.value.log) {
    const LogValue& l = *report.value.log;
    return nb::make_tuple(l.sign, l.log_abs, l.error);
  }
  if (r.details == 0) return to_python(report.value);
  RunInfo info;
  info.file = "<python>";
  info.threads = r.threads;
  const ReadResult in = described(*m, r.format, r.names, r.notes);
  return nb::str(report_json(report, in, info).c_str());
}

}  // namespace matchcount::py
