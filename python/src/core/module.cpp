// matchcount._core: the nanobind module behind `import matchcount`. The Python layer
// (python/src/matchcount/) checks arguments and turns numpy, scipy.sparse and networkx input
// into the calls below; this file only binds them and maps the library's errors onto
// Python's exceptions (the messages are the CLI's).
#include <cctype>
#include <cstring>
#include <optional>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "convert.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/matchings.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/multiplicity.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/report.hpp"
#include "matchcount/svg.hpp"
#include "matchcount/which.hpp"
#include "interrupt.hpp"
#include "run.hpp"
#include "small_dense.hpp"

namespace nb = nanobind;
using namespace matchcount;
using namespace matchcount::py;

namespace {

using Dense = nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>;

/// A quick path's value: small() (a SmallValue) as a Python number, or None where the general
/// path counts; the GIL is released for matrices of `release_from` rows or more, whose count
/// is long enough to pay for it.
template <class Small>
nb::object quick_value(const Dense& a, std::size_t release_from, Small small) {
  SmallValue v;
  if (a.shape(0) < release_from) {
    v = small();
  } else {
    nb::gil_scoped_release release;
    v = small();
  }
  if (v.kind == SmallValue::None) return nb::none();
  return to_python(v.value());
}

using Stack = nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>;
using Index = nb::ndarray<nb::ro, const std::int64_t, nb::ndim<1>, nb::device::cpu>;
using Values = nb::ndarray<nb::ro, nb::ndim<1>, nb::device::cpu>;

nb::list catalog() {
  nb::list out;
  for (const EngineInfo& e : engine_catalog()) {
    nb::dict d;
    d["name"] = e.name;
    d["gpu"] = e.gpu;
    d["integer"] = e.integer;
    d["real"] = e.real;
    d["complex"] = e.complex;
    d["rectangular"] = e.rectangular;
    d["graph"] = e.graph;
    d["loops"] = e.loops;
    d["max_n"] = e.max_n;
    d["shares_units"] = e.shares_units;
    d["summary"] = e.summary;
    d["question"] = e.question;
    out.append(d);
  }
  return out;
}

/// A message of the library in the words of the Python arguments: the CLI's options that it
/// names become the keyword arguments that do the same.
std::string pythonic(std::string text) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"--max-memory", "max_memory"}, {"--max-seconds", "max_seconds"}, {"--checkpoint", "checkpoint"},
      {"--exact", "exact=True"},       {"--engine", "engine"},           {"--device gpu", "device=\"gpu\""},
      {"--log", "log=True"},           {"--reps", "rpt"},                 {"--mu", "mu"},
      {"--gamma", "gamma"},            {"--estimate", "matchcount.estimate"}, {"--hafnian", "hafnian()"}};
  for (const auto& [cli, py] : kNames)
    for (std::size_t at = text.find(cli); at != std::string::npos; at = text.find(cli, at + std::strlen(py))) {
      const std::size_t end = at + std::strlen(cli);
      if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) {
        at += 1;  // a longer option (--exact-up-to): not this one
        continue;
      }
      text.replace(at, std::strlen(cli), py);
    }
  return text;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "matchcount's C++ library (internal; use the matchcount package)";
  static nb::exception<RefusedError> refused(m, "RefusedError", PyExc_RuntimeError);
  // Registered after RefusedError, so tried first (nanobind tries the latest translator first).
  static nb::exception<BudgetError> budget(m, "BudgetExceeded", refused);
  // Bad input is ValueError (TypeError for a dtype), as the CLI's exit code 2; a stop is
  // KeyboardInterrupt. Unlisted exceptions fall through to nanobind's own translation.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const BudgetError& e) {
      PyErr_SetString(budget.ptr(), pythonic(e.what()).c_str());
    } catch (const RefusedError& e) {
      PyErr_SetString(refused.ptr(), pythonic(e.what()).c_str());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const UsageError& e) {
      PyErr_SetString(PyExc_ValueError, pythonic(e.what()).c_str());
    } catch (const Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  nb::class_<Matrix>(m, "Matrix")
      .def_prop_ro("rows", [](const Matrix& a) { return rows_of(a.m); })
      .def_prop_ro("cols", [](const Matrix& a) { return cols_of(a.m); })
      .def_prop_ro("nnz", [](const Matrix& a) { return nnz_of(a.m); })
      .def_prop_ro("kind", [](const Matrix& a) { return to_string(kind_of(a.m)); })
      // (row, column) of every stored entry, for the pictures.
      .def_prop_ro("positions", [](const Matrix& a) {
        std::vector<std::pair<int, int>> out;
        std::visit([&](const auto& s) { for (const auto& e : s.entries) out.emplace_back(e.row, e.col); }, a.m);
        return out;
      });

  m.def("from_dense", [](const Dense& a, int mode) { return Matrix{from_dense(a, static_cast<ExactMode>(mode))}; });
  m.def("from_coo", [](int rows, int cols, const Index& r, const Index& c, const Values& v, int mode) {
    return Matrix{from_coo(rows, cols, r, c, v, static_cast<ExactMode>(mode))};
  });
  m.def("from_coo_big", [](int rows, int cols, const Index& r, const Index& c, const nb::list& nums,
                           const nb::object& dens, int mode) {
    return Matrix{from_coo_big(rows, cols, r, c, nums, dens, static_cast<ExactMode>(mode))};
  }, nb::arg("rows"), nb::arg("cols"), nb::arg("r"), nb::arg("c"), nb::arg("nums"), nb::arg("dens").none(),
     nb::arg("mode"));

  // hafnian_repeated: the value, or with details the --json record.
  m.def("hafnian_repeated", [](const Matrix& a, const std::string& reps, const Matrix* mu, bool loop, int threads,
                               const std::string& device, int details, const std::string& format) -> nb::object {
    const std::vector<std::uint64_t> rpt = parse_multiplicities(reps, "rpt");
    CountOptions o;
    o.threads = threads;
    o.device = device_policy(device);
    CountReport report;
    {
      nb::gil_scoped_release release;
      report = count_hafnian_repeated(a.m, rpt, mu ? &mu->m : nullptr, loop, o);
    }
    if (details == 0) return to_python(report.value);
    RunInfo info;
    info.file = "<python>";
    info.threads = threads;
    return nb::str(report_json(report, described(a.m, format, {}, {}), info).c_str());
  }, nb::arg("matrix"), nb::arg("reps"), nb::arg("mu").none(), nb::arg("loop"), nb::arg("threads"), nb::arg("device"),
     nb::arg("details"), nb::arg("format"));
  // edge_probabilities: (u, v, p, abs_error) per edge, p an int/Fraction or a float.
  m.def("marginals", [](const Matrix& g, bool symmetric, int threads, const std::string& device, bool log,
                        bool interruptible) -> nb::object {
    CountOptions o;
    o.threads = threads;
    o.log = log;
    o.device = device_policy(device);
    MarginalsReport r;
    StopToken token("", 60, false);
    SigintGuard guard(interruptible, &token);  // Ctrl-C stops between edges
    bool stopped = false;
    {
      nb::gil_scoped_release release;
      try {
        r = edge_probabilities(MatchingGraph{g.m, symmetric}, o, WhichMethod::Auto,
                               [&token] { return token.stop_requested(); });
      } catch (const Interrupted&) {
        stopped = true;
      }
    }
    guard.restore();
    if (stopped || guard.signalled()) {
      PyErr_SetString(PyExc_KeyboardInterrupt, "matchcount: edge probabilities interrupted");
      throw nb::python_error();
    }
    nb::list out;
    for (const auto& e : r.edges) out.append(nb::make_tuple(e.u, e.v, to_python(e.p), e.p.abs_error));
    return out;
  }, nb::arg("graph"), nb::arg("symmetric"), nb::arg("threads"), nb::arg("device"), nb::arg("log"),
     nb::arg("interruptible"));
  // Pictures (matchcount/svg.hpp): the graph as names and edges (u, v) in one numbering.
  m.def("matching_svg", [](const std::vector<std::string>& names, const std::vector<std::pair<int, int>>& edges,
                           const std::vector<bool>& matched) {
    std::vector<char> flags(matched.begin(), matched.end());
    return matching_svg(DrawnGraph{names, edges}, flags);
  }, nb::arg("names"), nb::arg("edges"), nb::arg("matched"));
  m.def("marginals_svg", [](const std::vector<std::string>& names, const std::vector<std::pair<int, int>>& edges,
                            const std::vector<double>& p) { return marginals_svg(DrawnGraph{names, edges}, p); },
        nb::arg("names"), nb::arg("edges"), nb::arg("p"));
  // sample_perfect_matchings: a list of samples, each a list of (u, v).
  m.def("samples", [](const Matrix& g, bool symmetric, std::uint64_t k, std::uint64_t seed, int threads,
                      const std::string& device, bool interruptible,
                      const std::vector<std::pair<int, int>>& cells) -> nb::object {
    SampleOptions o;
    o.samples = k, o.seed = seed;
    o.count.threads = threads;
    o.count.device = device_policy(device);
    std::vector<std::vector<std::pair<int, int>>> drawn;
    StopToken token("", 60, false);
    SigintGuard guard(interruptible, &token);  // Ctrl-C stops between samples and steps
    o.stop = [&token] { return token.stop_requested(); };
    bool stopped = false;
    {
      nb::gil_scoped_release release;
      try {
        drawn = sample_perfect_matchings(MatchingGraph{g.m, symmetric, cells}, o);
      } catch (const Interrupted&) {
        stopped = true;
      }
    }
    guard.restore();
    if (stopped || guard.signalled()) {
      PyErr_SetString(PyExc_KeyboardInterrupt, "matchcount: sampling interrupted");
      throw nb::python_error();
    }
    nb::list out;
    for (const auto& pairs : drawn) {
      nb::list one;
      for (const auto& [u, v] : pairs) one.append(nb::make_tuple(u, v));
      out.append(one);
    }
    return out;
  }, nb::arg("graph"), nb::arg("symmetric"), nb::arg("k"), nb::arg("seed"), nb::arg("threads"), nb::arg("device"),
     nb::arg("interruptible"), nb::arg("cells"));
  // matchings (hosoya_index, monomer_dimer, matching_polynomial): the total, the coefficients
  // (polynomial), or with details the --json record. y: the monomer weight as a 1 x 1 matrix.
  m.def("matchings", [](const Matrix& g, const Matrix& y, bool polynomial, int threads, int details,
                        const std::string& format, bool log) -> nb::object {
    PermanentValue w;
    std::visit(
        [&](const auto& a) {
          using T = std::decay_t<decltype(a.entries[0].value)>;
          w.value = a.entries.empty() ? T(0) : a.entries[0].value;
        },
        y.m);
    CountOptions opts;
    opts.threads = threads;
    opts.log = log;
    CountReport report;
    {
      nb::gil_scoped_release release;
      report = count_matchings_report(g.m, w, polynomial, opts);
    }
    if (details == 0 && report.value.log) {  // log=True: (sign, ln |total|, its error), as count's
      const LogValue& l = *report.value.log;
      return nb::make_tuple(l.sign, l.log_abs, l.error);
    }
    if (details != 0) {
      RunInfo info;
      info.file = "<python>";
      info.threads = threads;
      return nb::str(report_json(report, described(g.m, format, {}, {}), info).c_str());
    }
    if (!polynomial) return to_python(report.value);
    nb::list out;
    for (const auto& c : report.polynomial) out.append(to_python(c));
    return out;
  }, nb::arg("graph"), nb::arg("y"), nb::arg("polynomial"), nb::arg("threads"), nb::arg("details"), nb::arg("format"),
     nb::arg("log"));
  // tor / ltor: the value, or with details the --json record.
  m.def("torontonian", [](const Matrix& o, const Matrix* gamma, int threads, const std::string& device, int details,
                          const std::string& format) -> nb::object {
    CountOptions opts;
    opts.threads = threads;
    opts.device = device_policy(device);
    CountReport report;
    {
      nb::gil_scoped_release release;
      report = count_torontonian(o.m, gamma ? &gamma->m : nullptr, opts);
    }
    if (details == 0) return to_python(report.value);
    RunInfo info;
    info.file = "<python>";
    info.threads = threads;
    return nb::str(report_json(report, described(o.m, format, {}, {}), info).c_str());
  }, nb::arg("o"), nb::arg("gamma").none(), nb::arg("threads"), nb::arg("device"), nb::arg("details"), nb::arg("format"));
  m.def("permanent_dense", &permanent_dense);
  // The hafnian's and the torontonian's quick paths: the small kernel's value (small_hafnian;
  // small_torontonian: the engine's count and bound without the pipeline), or None where the
  // general path counts.
  m.def("hafnian_dense", [](const Dense& a, bool loops) -> nb::object {
    return quick_value(a, 12, [&] {  // below 12 rows a few microseconds
      return small_hafnian(a.data(), a.dtype(), static_cast<std::int64_t>(a.shape(0)), static_cast<std::int64_t>(a.shape(1)),
                           a.stride(0), a.stride(1), loops, ExactMode::Auto);
    });
  });
  m.def("hafnian_repeated_dense", [](const Dense& a, const std::vector<std::int64_t>& reps, const std::optional<Values>& mu,
                                     bool loops) -> nb::object {
    std::vector<std::uint64_t> rpt;
    for (const std::int64_t r : reps) {
      if (r < 0) return nb::none();  // the general path's message
      rpt.push_back(static_cast<std::uint64_t>(r));
    }
    const auto element = element_of(a.dtype());
    if (!element || (mu && (mu->dtype() != a.dtype() || mu->shape(0) != a.shape(0)))) return nb::none();
    return quick_value(a, std::size_t{1} << 20, [&] {  // at most 4096 leaves: the GIL is kept
      return small_dense_hafnian_repeated(a.data(), *element, static_cast<std::int64_t>(a.shape(0)),
                                          static_cast<std::int64_t>(a.shape(1)), a.stride(0), a.stride(1), rpt,
                                          mu ? mu->data() : nullptr, mu ? mu->stride(0) : 0, loops);
    });
  }, nb::arg("a"), nb::arg("rpt"), nb::arg("mu").none(), nb::arg("loops"));
  m.def("loop_torontonian_dense", [](const Dense& a, const Values& gamma) -> nb::object {
    const auto element = element_of(a.dtype()), gamma_element = element_of(gamma.dtype());
    if (!element || !gamma_element || gamma.shape(0) != a.shape(0)) return nb::none();
    return quick_value(a, 16, [&] {  // eight modes or fewer: a few microseconds
      return small_dense_loop_torontonian(a.data(), *element, static_cast<std::int64_t>(a.shape(0)),
                                          static_cast<std::int64_t>(a.shape(1)), a.stride(0), a.stride(1), gamma.data(),
                                          *gamma_element, gamma.stride(0));
    });
  });
  m.def("torontonian_dense", [](const Dense& a) -> nb::object {
    return quick_value(a, 16, [&] {  // eight modes or fewer likewise
      return small_torontonian(a.data(), a.dtype(), static_cast<std::int64_t>(a.shape(0)),
                               static_cast<std::int64_t>(a.shape(1)), a.stride(0), a.stride(1));
    });
  });
  // The small dense kernel alone, for the tests: (value, abs_error), or None where the
  // general path counts.
  m.def("small_permanent", [](const Dense& a, int mode) -> nb::object {
    const SmallValue v = small_permanent(a.data(), a.dtype(), static_cast<std::int64_t>(a.shape(0)),
                                         static_cast<std::int64_t>(a.shape(1)), a.stride(0), a.stride(1),
                                         static_cast<ExactMode>(mode));
    if (v.kind == SmallValue::None) return nb::none();
    return nb::make_tuple(to_python(v.value()), v.abs_error);
  });
  m.def("count", [](const Matrix& a, int what, bool perfect_matchings, const std::string& device,
                    const std::string& engine, int threads, const std::string& row_mult, const std::string& col_mult,
                    const std::string& checkpoint, double checkpoint_every, nb::object progress, double progress_every,
                    bool interruptible, int details, const std::string& format, std::vector<std::string> names,
                    std::vector<std::string> notes, double max_memory, double max_seconds, bool log) {
    Request r;
    r.what = what, r.perfect_matchings = perfect_matchings, r.device = device, r.engine = engine;
    r.threads = threads, r.row_mult = row_mult, r.col_mult = col_mult, r.checkpoint = checkpoint;
    r.checkpoint_every = checkpoint_every, r.progress = std::move(progress), r.progress_every = progress_every;
    r.interruptible = interruptible, r.details = details, r.format = format, r.names = std::move(names);
    r.notes = std::move(notes);
    r.max_memory = max_memory, r.max_seconds = max_seconds, r.log = log;
    return count(a, r);
  }, nb::arg("matrix"), nb::arg("what"), nb::arg("perfect_matchings"), nb::arg("device"), nb::arg("engine"),
     nb::arg("threads"), nb::arg("row_mult"), nb::arg("col_mult"), nb::arg("checkpoint"), nb::arg("checkpoint_every"),
     nb::arg("progress").none(), nb::arg("progress_every"), nb::arg("interruptible"), nb::arg("details"),
     nb::arg("format"), nb::arg("names"), nb::arg("notes"), nb::arg("max_memory"), nb::arg("max_seconds"),
     nb::arg("log") = false);
  m.def("estimate", [](const Matrix& a, bool hafnian, bool loops, bool perfect_matchings, const std::string& method,
                       std::uint64_t samples, double rel_error, double max_seconds, std::uint64_t max_samples,
                       std::uint64_t seed, int threads, int exact_up_to, int scale_interval, int scale_sweeps,
                       const std::string& device, nb::object progress, double progress_every, bool interruptible,
                       const std::string& format, double max_memory) {
    EstimateRequest r;
    r.hafnian = hafnian, r.loops = loops, r.perfect_matchings = perfect_matchings, r.method = method;
    r.samples = samples, r.rel_error = rel_error, r.max_seconds = max_seconds, r.max_samples = max_samples;
    r.seed = seed, r.threads = threads, r.exact_up_to = exact_up_to, r.scale_interval = scale_interval;
    r.scale_sweeps = scale_sweeps, r.device = device, r.progress = std::move(progress);
    r.progress_every = progress_every, r.interruptible = interruptible, r.format = format;
    r.max_memory = max_memory;
    return estimate(a, r);
  }, nb::arg("matrix"), nb::arg("hafnian"), nb::arg("loops"), nb::arg("perfect_matchings"), nb::arg("method"),
     nb::arg("samples"), nb::arg("rel_error"), nb::arg("max_seconds"), nb::arg("max_samples"), nb::arg("seed"),
     nb::arg("threads"), nb::arg("exact_up_to"), nb::arg("scale_interval"), nb::arg("scale_sweeps"), nb::arg("device"),
     nb::arg("progress").none(), nb::arg("progress_every"), nb::arg("interruptible"), nb::arg("format"),
     nb::arg("max_memory"));
  m.def("batch", [](const nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>& a, int what, int mode, int threads,
                    const std::string& device, const std::string& engine, bool interruptible, double rtol, double atol,
                    const std::optional<nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>>& gammas) {
    return batch(a, static_cast<BatchOf>(what), mode, threads, device, engine, interruptible, rtol, atol, gammas);
  }, nb::arg("a"), nb::arg("what"), nb::arg("mode"), nb::arg("threads"), nb::arg("device"), nb::arg("engine"),
     nb::arg("interruptible"), nb::arg("rtol"), nb::arg("atol"), nb::arg("gammas").none() = nb::none());

  // The CLI's reader of --max-memory sizes ("200M", "8G", "1.5GiB"): bytes, or None.
  m.def("parse_memory_size", [](const std::string& text) { return parse_memory_size(text); });
  m.def("engine_names", &engine_names);
  m.def("engine_catalog", &catalog);
  m.def("estimate_methods", &estimate_method_names);
  m.def("built_with_cuda", &built_with_cuda);
  m.def("gpu_count", [] { return gpu_devices().size(); });
  m.attr("__version__") = MATCHCOUNT_VERSION;
}
