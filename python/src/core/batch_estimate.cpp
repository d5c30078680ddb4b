// estimate (the --estimate road); batches are in batch.cpp.
#include <omp.h>

#include <cstring>
#include <exception>
#include <stdexcept>

#include <nanobind/stl/string.h>

#include "interrupt.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"
#include "progress_relay.hpp"
#include "run.hpp"
#include "small_dense.hpp"

namespace matchcount::py {

namespace {

/// Thrown from the estimate's progress hook (called between rounds on the calling thread,
/// outside any parallel region) to unwind a stopped estimate.
struct EstimateStopped {};

}  // namespace

nb::dict estimate(const Matrix& input, const EstimateRequest& r) {
  EstimateOptions o;
  o.perfect_matchings = r.perfect_matchings;
  if (!parse_estimate_method(r.method, o.method)) {
    std::string names;
    for (const auto& n : estimate_method_names()) names += (names.empty() ? "" : ", ") + n;
    throw std::invalid_argument("method: '" + r.method + "' is not one of " + names);
  }
  o.samples = r.samples;
  o.rel_error = r.rel_error;
  o.max_seconds = r.max_seconds;
  o.max_memory = r.max_memory;
  o.max_samples = r.max_samples;
  o.seed = r.seed;
  o.threads = r.threads;
  o.device = device_policy(r.device);
  o.exact_up_to = r.exact_up_to;
  o.scale_interval = r.scale_interval;
  o.scale_iterations = r.scale_sweeps;
  StopToken token("", 0, false);
  ProgressRelay relay(r.progress, r.progress_every, &token);
  SigintGuard guard(r.interruptible, &token);
  if (relay.active() || r.interruptible)
    o.progress = [&](const EstimateProgress& p) {
      relay.report(
          [&p] {
            nb::dict d;
            d["samples"] = p.samples;
            d["sample_target"] = p.sample_target;
            d["rel_error"] = p.rel_error;
            d["rel_error_target"] = p.rel_error_target;
            d["seconds"] = p.seconds;
            d["max_seconds"] = p.max_seconds;
            return d;
          },
          false);
      if (token.stop_requested()) throw EstimateStopped{};
    };
  EstimateReport rep;
  bool stopped = false;
  {
    nb::gil_scoped_release release;
    try {
      rep = r.hafnian ? estimate_hafnian(input.m, r.loops, o) : estimate_permanent(input.m, o);
    } catch (const EstimateStopped&) {
      stopped = true;
    }
  }
  guard.restore();
  relay.rethrow();
  if (stopped || guard.signalled()) {
    PyErr_SetString(PyExc_KeyboardInterrupt, "matchcount: estimate interrupted");
    throw nb::python_error();
  }
  nb::dict d;
  const double value = rep.estimate.to_double();
  d["value"] = value;
  d["log10"] = rep.estimate.log10();
  d["rel_std_error"] = rep.rel_std_error;
  d["ci_low"] = rep.ci_low.to_double();
  d["ci_high"] = rep.ci_high.to_double();
  d["samples"] = rep.samples;
  d["zero_samples"] = rep.zero_samples;
  d["target_met"] = rep.target_met;
  d["exact"] = rep.exact;
  d["exact_value"] = rep.exact_value ? to_python(*rep.exact_value) : nb::none();
  d["heavy_tail"] = rep.heavy_tail;
  d["method"] = to_string(rep.method);
  d["seconds"] = rep.seconds;
  d["text"] = rep.exact_value ? rep.exact_value->to_string() : rep.estimate.to_string(rep.significant_digits());
  nb::list notes;
  for (const auto& n : rep.notes) notes.append(n);
  d["notes"] = notes;
  ReadResult in;
  in.matrix = std::visit([](const auto& a) { return AnyMatrix(std::decay_t<decltype(a)>{}); }, input.m);
  in.format = r.format;
  RunInfo info;
  info.file = "<python>";
  info.threads = r.threads;
  d["json"] = estimate_json(rep, in, info);
  return d;
}

}  // namespace matchcount::py
