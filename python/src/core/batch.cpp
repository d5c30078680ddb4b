// Batches (run.hpp's batch): permanents, hafnians, loop hafnians and (loop) torontonians of a
// stack of matrices, threads across the matrices. Small permanents go through the dense kernel
// (small_dense.hpp), the rest through the library's counts with one thread each.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <exception>
#include <stdexcept>

#include "interrupt.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/pipeline.hpp"
#include "run.hpp"
#include "batch_scan.hpp"
#include "small_dense.hpp"

namespace matchcount::py {
namespace {

template <class T>
nb::object numpy_array(std::vector<T> values) {
  auto* data = new std::vector<T>(std::move(values));
  nb::capsule owner(data, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data->data(), {data->size()}, owner));
}

Complex as_complex(const PermanentValue& v) {
  switch (v.value.index()) {
    case 0: return std::get<Integer>(v.value).get_d();
    case 1: return std::get<Rational>(v.value).get_d();
    case 2: return std::get<double>(v.value);
    default: return std::get<Complex>(v.value);
  }
}

[[noreturn]] void rethrow_for(std::int64_t at, const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::domain_error&) {
    throw;
  } catch (const std::exception& e) {
    // Which matrix, then the count's own message; the exception's type is kept.
    const std::string where = "matrix " + std::to_string(at) + ": " + e.what();
    if (dynamic_cast<const RefusedError*>(&e)) throw RefusedError(where);
    throw std::invalid_argument(where);
  }
}

/// The n x n matrix at `data` into row-major r (real parts) and m (imaginary parts, where m is
/// not null).
template <class E>
void read_entries(const E* d, std::int64_t n, std::int64_t s1, std::int64_t s2, double* r, double* m) {
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t c = 0; c < n; ++c) {
      const std::complex<double> x(d[a * s1 + c * s2]);
      r[a * n + c] = x.real();
      if (m) m[a * n + c] = x.imag();
    }
}

/// The loop torontonians' gammas: row i (2n values, `s1` elements apart) at base + i * s0
/// elements of `dtype`.
struct Gammas {
  const char* base = nullptr;
  nb::dlpack::dtype dtype;
  std::int64_t per = 0, s0 = 0, s1 = 0, bytes = 0;
  const void* row(std::int64_t i) const { return base + i * s0 * bytes; }
};

/// The batch's float permanents, (loop) hafnians or (loop) torontonians on the GPU
/// (gpu_dense_permanents, gpu_dense_hafnians, gpu_dense_torontonians, with `gammas`
/// gpu_dense_loop_torontonians) into `fast`: by the stack's `flags`, those counted
/// as floats (non-integral, or every one with ExactMode::Float; integral ones stay exact on the
/// CPU), without a non-finite entry (whose message the pipeline gives) and, for hafnians,
/// exactly symmetric (the pipeline says why not). A GPU that fails leaves them to the CPU.
/// Hafnians are read where they are (a DenseStack of the chosen ones), the others copied on
/// `threads` threads into the split arrays their calls take: one thread reading the stack would
/// outlast the GPU's call (docs/benchmarks.md, "Python's batches on the GPU").
void on_gpu(const StackLayout& s, const std::vector<std::uint8_t>& flags, ExactMode mode, BatchOf what, int threads,
            std::vector<SmallValue>& fast, const std::function<bool()>& stop, const Gammas& gammas) {
  const std::int64_t n = s.n, k = s.count;
  const bool cplx = s.dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex);
  const bool hafnian = what == BatchOf::Hafnian || what == BatchOf::LoopHafnian;
  const auto taken = [&](std::int64_t i) {
    const std::uint8_t f = flags[static_cast<std::size_t>(i)];
    return (f & kFinite) && (!hafnian || (f & kSymmetric)) && !((f & kIntegral) && mode != ExactMode::Float);
  };
  std::vector<std::int64_t> which;
  for (std::int64_t i = 0; i < k; ++i)
    if (taken(i)) which.push_back(i);
  if (which.empty()) return;
  const auto kk = static_cast<std::int64_t>(which.size());
  try {
    std::vector<SmallValue> got;
    if (hafnian) {
      const DenseStack stack{s.base, *element_of(s.dtype), s.s0, s.s1, s.s2, which.data()};
      got = gpu_dense_hafnians(stack, static_cast<int>(n), kk, what == BatchOf::LoopHafnian, stop);
    } else {
      // Not value-initialised: each thread's first touch of its matrices is its own write.
      const std::size_t nn = static_cast<std::size_t>(n * n);
      const std::unique_ptr<double[]> re(new double[which.size() * nn]), im(cplx ? new double[which.size() * nn] : nullptr);
      with_element(s.dtype, [&](auto element) {
        using E = decltype(element);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t w = 0; w < kk; ++w)
          read_entries(reinterpret_cast<const E*>(s.at(which[static_cast<std::size_t>(w)])), n, s.s1, s.s2,
                       &re[static_cast<std::size_t>(w) * nn], cplx ? &im[static_cast<std::size_t>(w) * nn] : nullptr);
      });
      if (what == BatchOf::Torontonian && gammas.base) {
        const bool g_cplx = gammas.dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex);
        const std::size_t per = static_cast<std::size_t>(gammas.per);
        std::vector<double> g_re(which.size() * per), g_im(g_cplx ? g_re.size() : 0);
        with_element(gammas.dtype, [&](auto element) {
          using E = decltype(element);
          for (std::size_t w = 0; w < which.size(); ++w) {
            const E* g = reinterpret_cast<const E*>(gammas.row(which[w]));
            for (std::size_t j = 0; j < per; ++j) {
              const std::complex<double> x(g[static_cast<std::int64_t>(j) * gammas.s1]);
              g_re[w * per + j] = x.real();
              if (g_cplx) g_im[w * per + j] = x.imag();
            }
          }
        });
        got = gpu_dense_loop_torontonians(re.get(), im.get(), g_re.data(), g_cplx ? g_im.data() : nullptr,
                                          static_cast<int>(n / 2), kk, stop);
      } else {
        got = what == BatchOf::Permanent ? gpu_dense_permanents(re.get(), im.get(), static_cast<int>(n), kk, stop)
                                         : gpu_dense_torontonians(re.get(), im.get(), static_cast<int>(n / 2), kk, stop);
      }
    }
    for (std::size_t w = 0; w < which.size(); ++w) fast[static_cast<std::size_t>(which[w])] = got[w];
  } catch (const GpuError&) {  // the CPU counts them
  } catch (const Interrupted&) {  // the caller sees the stop request
  }
}

}  // namespace

nb::object batch(const nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>& a, BatchOf what, int mode, int threads,
                 const std::string& device, const std::string& engine, bool interruptible, double rtol, double atol,
                 const std::optional<nb::ndarray<nb::ro, nb::ndim<2>, nb::device::cpu>>& gamma_rows) {
  const auto k = static_cast<std::int64_t>(a.shape(0));
  const auto rows = static_cast<std::int64_t>(a.shape(1)), cols = static_cast<std::int64_t>(a.shape(2));
  const auto dtype = a.dtype();
  Gammas gammas;
  if (gamma_rows) {
    if (what != BatchOf::Torontonian || static_cast<std::int64_t>(gamma_rows->shape(0)) != k ||
        static_cast<std::int64_t>(gamma_rows->shape(1)) != rows || !element_of(gamma_rows->dtype()))
      throw std::invalid_argument("gammas: one row of 2n float or complex values a matrix");
    gammas = Gammas{static_cast<const char*>(gamma_rows->data()), gamma_rows->dtype(), rows, gamma_rows->stride(0),
                    gamma_rows->stride(1), (gamma_rows->dtype().bits + 7) / 8};
  }
  // The stack as counted: the caller's, or its copy with near-symmetric hafnians symmetrised.
  StackLayout s{static_cast<const char*>(a.data()), k, rows, a.stride(0), a.stride(1), a.stride(2), dtype,
                (dtype.bits + 7) / 8};
  std::unique_ptr<char[]> symmetrised;
  CountOptions o;
  o.threads = 1;  // threads go across the matrices
  o.device = device_policy(device);
  o.engine = engine == "auto" ? "" : engine;
  const int t = threads > 0 ? threads : omp_get_max_threads();
  // The torontonian's number kind is the caller's.
  const ExactMode read_mode = what == BatchOf::Torontonian ? ExactMode::Float : static_cast<ExactMode>(mode);
  const bool hafnians = what == BatchOf::Hafnian || what == BatchOf::LoopHafnian;
  const bool tors = what == BatchOf::Torontonian && rows % 2 == 0 && rows >= 2 && rows <= 2 * kSmallTorontonianMaxModes;
  const bool small = rows == cols && o.engine.empty() && o.device != DevicePolicy::Gpu &&
                     (what == BatchOf::Permanent ? rows <= kSmallMax : tors || (hafnians && rows <= kSmallHafnianMax));
  // Permanents of floats of 4..20 rows, (loop) hafnians of 2..64 and torontonians of up to 16
  // modes on a CUDA device, where asked, and by default for a batch of 256 and more of the sizes
  // where the GPU beats the CPU's small kernels (small_dense.hpp): the whole batch in a few launches.
  const bool floats = dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float) ||
                      dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex);
  const bool sized = what == BatchOf::Permanent ? rows >= kGpuDenseMin && rows <= kGpuDenseMax
                                                : tors || (hafnians && rows >= 2 && rows <= 64);
  const bool by_default = what == BatchOf::Permanent     ? gpu_permanents_by_default(rows)
                          : what == BatchOf::Torontonian ? tors && gpu_torontonians_by_default(rows / 2)
                                                         : gpu_hafnians_by_default(rows);
  const bool asked = o.device == DevicePolicy::Gpu ||
                     (by_default && o.device == DevicePolicy::Auto && k >= 256 && gpu_available());
  const bool gpu = sized && asked && rows == cols && o.engine.empty() && floats && read_mode != ExactMode::Exact;
  std::vector<SmallValue> fast(static_cast<std::size_t>(small || gpu ? k : 0));
  // The matrices the pipeline counts (general[i]), and their values in order: most batches have
  // none, so no value is allocated (and first touched) for the others.
  std::vector<char> general(static_cast<std::size_t>(k), 0);
  std::vector<std::int64_t> slow;
  std::vector<PermanentValue> values;
  std::int64_t failed_at = -1;
  std::exception_ptr failure;
  StopToken token("", 60, false);
  SigintGuard guard(interruptible, &token);
  {
    nb::gil_scoped_release release;
    // One look at every float matrix of a hafnian batch (symmetric? within rtol and atol of
    // it, as thewalrus's test?) or of a GPU batch (which ones go): the GPU's choice and the
    // symmetric test share the pass.
    std::vector<std::uint8_t> flags;
    if (rows == cols && floats && element_of(dtype) && (hafnians || gpu)) {
      flags = scan_stack(s, hafnians, t);
      if (hafnians) symmetrise_near(s, flags, rtol, atol, t, symmetrised);
    }
    if (gpu) on_gpu(s, flags, read_mode, what, t, fast, [&] { return token.stop_requested(); }, gammas);
#pragma omp parallel for schedule(dynamic, 16) num_threads(t)
    for (std::int64_t i = 0; i < k; ++i) {
      if (token.stop_requested()) continue;  // Ctrl-C: the matrices under way finish, no more start
      if (gpu && fast[std::size_t(i)].kind != SmallValue::None) continue;  // counted on the GPU
      if (small) {
        try {
          fast[std::size_t(i)] = what == BatchOf::Permanent ? small_permanent(s.at(i), dtype, rows, cols, s.s1, s.s2, read_mode)
                                 : what == BatchOf::Torontonian
                                     ? gammas.base ? small_loop_torontonian(s.at(i), dtype, rows, cols, s.s1, s.s2, gammas.row(i),
                                                                            gammas.dtype, gammas.s1)
                                                   : small_torontonian(s.at(i), dtype, rows, cols, s.s1, s.s2)
                                     : small_hafnian(s.at(i), dtype, rows, cols, s.s1, s.s2, what == BatchOf::LoopHafnian, read_mode);
        } catch (...) {  // the pipeline counts it, and says what went wrong
          fast[std::size_t(i)] = SmallValue{};
        }
        if (fast[std::size_t(i)].kind != SmallValue::None) continue;
      }
      general[std::size_t(i)] = 1;
    }
    for (std::int64_t i = 0; i < k; ++i)
      if (general[std::size_t(i)]) slow.push_back(i);
    values.resize(slow.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
    for (std::size_t j = 0; j < slow.size(); ++j) {
      if (token.stop_requested()) continue;
      const std::int64_t i = slow[j];
      try {
        const AnyMatrix m = from_strided(s.at(i), dtype, rows, cols, s.s1, s.s2, read_mode);
        CountOptions mine = o;
        // A torontonian the small kernel left (a complex basis, a bound the long double retry
        // must tighten, a refusal to explain) gains nothing from the GPU's walk, which repeats
        // the kernel's double arithmetic in a launch of its own: the CPU counts it.
        if (what == BatchOf::Torontonian && rows <= 2 * kSmallTorontonianMaxModes) mine.device = DevicePolicy::Cpu;
        switch (what) {
          case BatchOf::Permanent:
            mine.preprocess = !preprocessing_is_identity(m);
            values[j] = count_permanent(m, mine).value;
            break;
          case BatchOf::Hafnian:
          case BatchOf::LoopHafnian:
            values[j] = count_hafnian(m, what == BatchOf::LoopHafnian, mine).value;
            break;
          case BatchOf::Torontonian: {
            std::optional<AnyMatrix> g;
            if (gammas.base) g = from_strided(gammas.row(i), gammas.dtype, rows, 1, gammas.s1, 1, read_mode);
            values[j] = count_torontonian(m, g ? &*g : nullptr, mine).value;
            break;
          }
        }
      } catch (...) {
#pragma omp critical(matchcount_batch_failure)
        if (failed_at < 0 || i < failed_at) failed_at = i, failure = std::current_exception();
      }
    }
  }
  guard.restore();
  if (guard.signalled() || token.stop_requested()) {
    PyErr_SetString(PyExc_KeyboardInterrupt, "matchcount: batch interrupted");
    throw nb::python_error();
  }
  if (failure) rethrow_for(failed_at, failure);
  // Matrix i's value: the pipeline's (the next of `values`, in order) or the fast path's.
  std::size_t next = 0;
  const auto value_of = [&](std::size_t i) { return general[i] ? values[next++] : fast[i].value(); };
  if (static_cast<ExactMode>(mode) == ExactMode::Exact) {
    nb::list out;
    for (std::size_t i = 0; i < std::size_t(k); ++i) out.append(to_python(value_of(i)));
    return out;
  }
  // Torontonians are real whatever O is; a fast value is complex only as kind Cplx.
  bool cplx = what != BatchOf::Torontonian && dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex);
  for (std::size_t i = 0; i < std::size_t(k) && !cplx; ++i) cplx = general[i] ? false : fast[i].kind == SmallValue::Cplx;
  for (std::size_t j = 0; j < values.size() && !cplx; ++j) cplx = values[j].value.index() == 3;
  const auto number = [&](std::size_t i) {
    if (general[i]) return as_complex(values[next++]);
    const SmallValue& f = fast[i];
    return Complex(f.re, f.kind == SmallValue::Cplx ? f.im : 0.0);
  };
  if (cplx) {
    std::vector<std::complex<double>> out(static_cast<std::size_t>(k));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = number(i);
    return numpy_array(std::move(out));
  }
  std::vector<double> out(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = number(i).real();
  return numpy_array(std::move(out));
}

}  // namespace matchcount::py
