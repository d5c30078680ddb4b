// Batches (run.hpp's batch): permanents, hafnians, loop hafnians and torontonians of a stack of
// matrices, threads across the matrices. Small permanents go through the dense kernel
// (small_dense.hpp), the rest through the library's counts with one thread each.
#include <omp.h>

#include <complex>
#include <exception>
#include <stdexcept>

#include "interrupt.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "run.hpp"
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

}  // namespace

nb::object batch(const nb::ndarray<nb::ro, nb::ndim<3>, nb::device::cpu>& a, BatchOf what, int mode, int threads,
                 const std::string& device, const std::string& engine, bool interruptible) {
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
  // The tolerance of the symmetric test and the torontonian's number kind are the callers'.
  const ExactMode read_mode = what == BatchOf::Torontonian ? ExactMode::Float : static_cast<ExactMode>(mode);
  const bool small = what == BatchOf::Permanent && rows == cols && rows <= kSmallMax && o.engine.empty() &&
                     o.device != DevicePolicy::Gpu;
  std::vector<SmallValue> fast(static_cast<std::size_t>(small ? k : 0));
  std::vector<PermanentValue> values(static_cast<std::size_t>(k));
  std::int64_t failed_at = -1;
  std::exception_ptr failure;
  StopToken token("", 60, false);
  SigintGuard guard(interruptible, &token);
  {
    nb::gil_scoped_release release;
#pragma omp parallel for schedule(dynamic, 16) num_threads(t)
    for (std::int64_t i = 0; i < k; ++i) {
      if (token.stop_requested()) continue;  // Ctrl-C: the matrices under way finish, no more start
      try {
        if (small) {
          fast[std::size_t(i)] = small_permanent(at(i), dtype, rows, cols, s1, s2, read_mode);
          if (fast[std::size_t(i)].kind != SmallValue::None) continue;
        }
        const AnyMatrix m = from_strided(at(i), dtype, rows, cols, s1, s2, read_mode);
        CountOptions mine = o;
        switch (what) {
          case BatchOf::Permanent:
            mine.preprocess = !preprocessing_is_identity(m);
            values[std::size_t(i)] = count_permanent(m, mine).value;
            break;
          case BatchOf::Hafnian:
          case BatchOf::LoopHafnian:
            values[std::size_t(i)] = count_hafnian(m, what == BatchOf::LoopHafnian, mine).value;
            break;
          case BatchOf::Torontonian: values[std::size_t(i)] = count_torontonian(m, nullptr, mine).value; break;
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
  const auto value_of = [&](std::size_t i) {
    return small && fast[i].kind != SmallValue::None ? fast[i].value() : values[i];
  };
  if (static_cast<ExactMode>(mode) == ExactMode::Exact) {
    nb::list out;
    for (std::size_t i = 0; i < std::size_t(k); ++i) out.append(to_python(value_of(i)));
    return out;
  }
  // Torontonians are real whatever O is.
  bool cplx = what != BatchOf::Torontonian && dtype.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex);
  for (std::size_t i = 0; i < std::size_t(k) && !cplx; ++i) cplx = value_of(i).value.index() == 3;
  if (cplx) {
    std::vector<std::complex<double>> out(static_cast<std::size_t>(k));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = as_complex(value_of(i));
    return numpy_array(std::move(out));
  }
  std::vector<double> out(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = as_complex(value_of(i)).real();
  return numpy_array(std::move(out));
}

}  // namespace matchcount::py
