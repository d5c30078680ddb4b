// permanent_batch (threads across a stack of matrices) and estimate (the --estimate road).
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

template <class T>
nb::object numpy_array(std::vector<T> values) {
  auto* data = new std::vector<T>(std::move(values));
  nb::capsule owner(data, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data->data(), {data->size()}, owner));
}


}  // namespace

nb::object permanent_batch(const nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>& a, int mode, int threads,
                           const std::string& device, const std::string& engine) {
  const auto k = static_cast<std::int64_t>(a.shape(0));
  const auto rows = static_cast<std::int64_t>(a.shape(1)), cols = static_cast<std::int64_t>(a.shape(2));
  const std::int64_t s0 = a.stride(0), s1 = a.stride(1), s2 = a.stride(2);
  const auto dtype = a.dtype();
  const std::size_t item = (dtype.bits + 7) / 8;
  const char* base = static_cast<const char*>(a.data());
  const auto at = [&](std::int64_t i) { return base + i * s0 * std::int64_t(item); };
  CountOptions o;
  o.threads = 1;  // threads go across the matrices
  o.device = device_policy(device);
  o.engine = engine == "auto" ? "" : engine;
  const int t = threads > 0 ? threads : omp_get_max_threads();
  // Small square matrices first, in the dense kernel (small_dense.hpp); a named engine or
  // device, and what the kernel leaves (kind None), go through the pipeline after.
  const bool small = rows == cols && rows <= kSmallMax && o.engine.empty() && o.device != DevicePolicy::Gpu;
  std::vector<SmallValue> fast(static_cast<std::size_t>(small ? k : 0));
  std::int64_t slow_count = small ? 0 : k;
  if (small) {
    nb::gil_scoped_release release;
#pragma omp parallel for schedule(static) num_threads(t) reduction(+ : slow_count)
    for (std::int64_t i = 0; i < k; ++i) {
      fast[std::size_t(i)] = small_permanent(at(i), dtype, rows, cols, s1, s2, static_cast<ExactMode>(mode));
      slow_count += fast[std::size_t(i)].kind == SmallValue::None;
    }
  }
  std::vector<PermanentValue> values(static_cast<std::size_t>(slow_count > 0 ? k : 0));
  std::int64_t failed_at = -1;
  std::exception_ptr failure;
  if (slow_count > 0) {
    nb::gil_scoped_release release;
#pragma omp parallel for schedule(dynamic, 64) num_threads(t)
    for (std::int64_t i = 0; i < k; ++i) {
      if (small && fast[std::size_t(i)].kind != SmallValue::None) continue;
      try {
        const AnyMatrix m = from_strided(at(i), dtype, rows, cols, s1, s2, static_cast<ExactMode>(mode));
        CountOptions mine = o;
        mine.preprocess = !preprocessing_is_identity(m);
        values[std::size_t(i)] = count_permanent(m, mine).value;
      } catch (...) {
#pragma omp critical(matchcount_batch_failure)
        if (failed_at < 0 || i < failed_at) failed_at = i, failure = std::current_exception();
      }
    }
  }
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::domain_error&) {
      throw;
    } catch (const std::exception& e) {
      // Which matrix, then the count's own message; the exception's type is kept.
      const std::string where = "matrix " + std::to_string(failed_at) + ": " + e.what();
      if (dynamic_cast<const RefusedError*>(&e)) throw RefusedError(where);
      throw std::invalid_argument(where);
    }
  }
  // PermanentValue's variant index: 0 integer, 1 fraction, 2 real, 3 complex.
  const auto is_fast = [&](std::size_t i) { return small && fast[i].kind != SmallValue::None; };
  const auto kind = [&](std::size_t i) {
    if (is_fast(i))
      return fast[i].kind == SmallValue::Real ? 2 : fast[i].kind == SmallValue::Cplx ? 3 : 0;
    return int(values[i].value.index());
  };
  bool all_real = k > 0, all_complex = k > 0;
  for (std::size_t i = 0; i < std::size_t(k); ++i) {
    all_real = all_real && kind(i) == 2;
    all_complex = all_complex && kind(i) == 3;
  }
  if (all_real) {
    std::vector<double> out(static_cast<std::size_t>(k));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = is_fast(i) ? fast[i].re : std::get<double>(values[i].value);
    return numpy_array(std::move(out));
  }
  if (all_complex) {
    std::vector<std::complex<double>> out(static_cast<std::size_t>(k));
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = is_fast(i) ? Complex(fast[i].re, fast[i].im) : std::get<Complex>(values[i].value);
    return numpy_array(std::move(out));
  }
  nb::list out;
  for (std::size_t i = 0; i < std::size_t(k); ++i)
    out.append(to_python(is_fast(i) ? fast[i].value() : values[i]));
  return out;
}

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
