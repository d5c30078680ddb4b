// Stacks of matrices (cli_batch.hpp).
#include "cli_batch.hpp"

#include <omp.h>

#include <complex>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <type_traits>
#include <variant>
#include <vector>

#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount::cli {
namespace {

Complex as_complex(const PermanentValue& v) {
  switch (v.value.index()) {
    case 0: return std::get<Integer>(v.value).get_d();
    case 1: return std::get<Rational>(v.value).get_d();
    case 2: return std::get<double>(v.value);
    default: return std::get<Complex>(v.value);
  }
}

/// A 1-D .npy array (version 1.0, little-endian) of float64 or complex128 values.
void write_npy(const std::string& path, const std::vector<PermanentValue>& values, bool cplx) {
  std::string header = std::string("{'descr': '") + (cplx ? "<c16" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
  const std::size_t unpadded = 10 + header.size() + 1;  // magic, version, length, header, newline
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw UsageError("-o " + path + ": cannot write the file");
  const unsigned char head[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(reinterpret_cast<const char*>(head), 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const unsigned char len_bytes[2] = {static_cast<unsigned char>(len & 0xff), static_cast<unsigned char>(len >> 8)};
  out.write(reinterpret_cast<const char*>(len_bytes), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto& v : values) {
    const Complex x = as_complex(v);
    const double re = x.real(), im = x.imag();
    out.write(reinterpret_cast<const char*>(&re), sizeof re);  // x86-64 and arm64: little-endian
    if (cplx) out.write(reinterpret_cast<const char*>(&im), sizeof im);
  }
  if (!out) throw UsageError("-o " + path + ": writing the file failed");
}

/// A square matrix of 3..16 rows without zeros (and not exact fractions) is one block that
/// preprocessing would hand to the planner unchanged: the glynn engine counts it without
/// either, as the Python package's batches do (matchcount/small_dense.hpp).
CountOptions small_dense(const AnyMatrix& m, const CountOptions& count) {
  const auto n = static_cast<std::size_t>(rows_of(m));
  if (!count.engine.empty() || count.log || rows_of(m) != cols_of(m) || n < 3 || n > kSmallDenseMax ||
      nnz_of(m) != n * n || kind_of(m) == NumberKind::Rational)
    return count;
  CountOptions o = count;
  o.engine = "glynn";
  o.preprocess = false;
  return o;
}

/// A float matrix of the stack as a dense row-major array for a small kernel: `count(data,
/// type, n)` runs it; kind None (the pipeline counts it) for an exact or non-square matrix.
template <class Count>
SmallDenseValue on_dense(const AnyMatrix& m, Count count) {
  const int n = rows_of(m);
  SmallDenseValue v;
  if (n != cols_of(m)) return v;
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a.entries[0].value)>;
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Complex>) {
          std::vector<T> dense(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), T(0));
          for (const auto& e : a.entries) dense[static_cast<std::size_t>(e.row * n + e.col)] = e.value;
          v = count(dense.data(), std::is_same_v<T, double> ? DenseElement::Float64 : DenseElement::Complex128, n);
        }  // exact input: the pipeline's notes and conversion
      },
      m);
  return v;
}

/// A torontonian of at most kSmallTorontonianMaxModes modes by small_dense_torontonian (the
/// engine's count without the pipeline); false where the engine must count it.
bool small_torontonian(const AnyMatrix& m, const CountOptions& count, PermanentValue& value) {
  if (count.device == DevicePolicy::Gpu || rows_of(m) > 2 * kSmallTorontonianMaxModes) return false;
  const SmallDenseValue v = on_dense(m, [](const void* data, DenseElement type, int n) {
    return small_dense_torontonian(data, type, n, n, n, 1);
  });
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();
  return true;
}

/// A float permanent of at most kSmallDenseMax rows by Glynn's small walk alone
/// (small_dense_permanent), the value the pipeline's glynn engine gives, without the pipeline's
/// per-count set-up (its memory and time checks cost more than an 8 x 8 permanent); false where
/// the pipeline counts it (an exact number, a sparse or larger matrix, an engine asked for).
bool small_permanent(const AnyMatrix& m, const CountOptions& count, PermanentValue& value) {
  if (!count.engine.empty() || small_dense(m, count).engine != "glynn" || count.device == DevicePolicy::Gpu) return false;
  const SmallDenseValue v = on_dense(m, [](const void* data, DenseElement type, int n) {
    return small_dense_permanent(data, type, n, n, n, 1, DenseMode::Float);
  });
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();
  if (kind_of(m) == NumberKind::Complex && value.value.index() == 2) value.value = Complex(v.re, 0.0);  // the stack's type
  return true;
}

/// A float (loop) hafnian of at most kSmallHafnianMax rows by the hafnian engine's walk alone
/// (small_dense_hafnian), as the Python package's batches count it; false where the pipeline
/// must count it (an exact number, an asymmetric matrix, ...).
bool small_hafnian(const AnyMatrix& m, bool loops, const CountOptions& count, PermanentValue& value) {
  if (!count.engine.empty() || count.log || count.device == DevicePolicy::Gpu || rows_of(m) > kSmallHafnianMax) return false;
  const SmallDenseValue v = on_dense(m, [&](const void* data, DenseElement type, int n) {
    return small_dense_hafnian(data, type, n, n, n, 1, loops, DenseMode::Float);
  });
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();
  if (kind_of(m) == NumberKind::Complex && value.value.index() == 2) value.value = Complex(v.re, 0.0);  // the stack's type
  return true;
}

/// The stack's float permanents of 4..20 rows, (loop) hafnians of 2..64 and torontonians of
/// 1..16 modes on a CUDA device (gpu_dense_permanents, gpu_dense_hafnians,
/// gpu_dense_torontonians), where --device asks for it or, for permanents, torontonians and
/// hafnians of kGpuHafnianBatchMin..kGpuHafnianBatchMax vertices, by default for 256 matrices and
/// more; true for those counted. Hafnians go there only when every
/// matrix is symmetric (else the pipeline says which is not).
std::vector<bool> on_gpu(const ReadResult& input, StackQuestion question, const CountOptions& count,
                         std::vector<PermanentValue>& values) {
  const auto k = input.stack.size();
  std::vector<bool> done(k, false);
  const NumberKind kind = kind_of(input.matrix);
  const int n = rows_of(input.matrix);
  const bool permanent = question == StackQuestion::Permanent;
  const bool torontonian = question == StackQuestion::Torontonian;
  // By default only where the GPU beats the CPU's small kernels (small_dense.hpp).
  const bool by_default = permanent     ? gpu_permanents_by_default(n)
                          : torontonian ? n % 2 == 0 && gpu_torontonians_by_default(n / 2)
                                        : gpu_hafnians_by_default(n);
  const bool sized = permanent     ? n >= kGpuDenseMin && n <= kGpuDenseMax
                     : torontonian ? n % 2 == 0 && n >= 2 && n <= 2 * kSmallTorontonianMaxModes
                                   : n >= 2 && n <= 64;
  const bool asked = count.device == DevicePolicy::Gpu ||
                     (by_default && count.device == DevicePolicy::Auto && k >= 256 && gpu_available());
  if (k == 0 || !sized || !asked || !count.engine.empty() || (kind != NumberKind::Real && kind != NumberKind::Complex) ||
      n != cols_of(input.matrix))
    return done;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const bool cplx = kind == NumberKind::Complex;
  std::vector<double> re(k * nn, 0.0), im(cplx ? k * nn : 0, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    std::visit(
        [&](const auto& m) {
          using T = std::decay_t<decltype(m.entries[0].value)>;
          if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Complex>)
            for (const auto& e : m.entries) {
              const std::complex<double> x(e.value);
              re[i * nn + static_cast<std::size_t>(e.row * n + e.col)] = x.real();
              if (cplx) im[i * nn + static_cast<std::size_t>(e.row * n + e.col)] = x.imag();
            }
        },
        input.stack[i]);
  if (!permanent && !torontonian)
    for (std::size_t i = 0; i < k; ++i)
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < r; ++c) {
          const std::size_t a = i * nn + static_cast<std::size_t>(r * n + c), b = i * nn + static_cast<std::size_t>(c * n + r);
          if (re[a] != re[b] || (cplx && im[a] != im[b])) return done;
        }
  try {
    const double* pim = cplx ? im.data() : nullptr;
    const auto kk = static_cast<std::int64_t>(k);
    const auto got = permanent     ? gpu_dense_permanents(re.data(), pim, n, kk)
                     : torontonian ? gpu_dense_torontonians(re.data(), pim, n / 2, kk)
                                   : gpu_dense_hafnians(re.data(), pim, n, kk, question == StackQuestion::LoopHafnian);
    for (std::size_t i = 0; i < k; ++i)  // kind None: the engine counts it
      if (got[i].kind != SmallDenseValue::None) values[i] = got[i].value(), done[i] = true;
  } catch (const GpuError& e) {  // counted on the CPU, as a GPU engine's block would be
    if (gpu_available()) std::fprintf(stderr, "matchcount: warning: GPU failed (%s); counting on the CPU\n", e.what());
  }
  return done;
}

}  // namespace

void add_batch_options(CLI::App& app, BatchFlags& flags) {
  auto* g = app.add_option_group("Stacks", "a 3-D NumPy file (k, m, n): one count per matrix");
  g->add_option("-o,--output", flags.output,
                "with a 3-D .npy stack: write the values to FILE.npy (float64, or complex128 for complex input) "
                "instead of one a line");
}

void check_batch(const BatchFlags& flags, const ReadResult& input, const std::string& refused_option) {
  if (!flags.output.empty() && !input.is_stack)
    throw UsageError("-o writes the values of a stack of matrices (a 3-D .npy file); this input is one matrix");
  if (input.is_stack && !refused_option.empty())
    throw UsageError(refused_option + " does not apply to a stack of matrices (each is counted on its own)");
}

void run_stack(const ReadResult& input, const std::string& file, StackQuestion question, const BatchFlags& flags,
               const CountOptions& count, int threads) {
  const auto k = static_cast<std::int64_t>(input.stack.size());
  std::vector<PermanentValue> values(static_cast<std::size_t>(k));
  const std::vector<bool> counted = on_gpu(input, question, count, values);
  CountOptions one = count;
  one.threads = 1;  // threads go across the matrices
  std::int64_t failed_at = -1;
  std::exception_ptr failure;
  const int t = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 4) num_threads(t)
  for (std::int64_t i = 0; i < k; ++i) {
    if (counted[static_cast<std::size_t>(i)]) continue;
    try {
      const AnyMatrix& m = input.stack[static_cast<std::size_t>(i)];
      switch (question) {
        case StackQuestion::Permanent:
          if (!small_permanent(m, one, values[std::size_t(i)]))
            values[std::size_t(i)] = count_permanent(m, small_dense(m, one)).value;
          break;
        case StackQuestion::Hafnian:
        case StackQuestion::LoopHafnian: {
          const bool loops = question == StackQuestion::LoopHafnian;
          if (!small_hafnian(m, loops, one, values[std::size_t(i)])) values[std::size_t(i)] = count_hafnian(m, loops, one).value;
          break;
        }
        case StackQuestion::Torontonian:
          if (!small_torontonian(m, one, values[std::size_t(i)])) values[std::size_t(i)] = count_torontonian(m, nullptr, one).value;
          break;
      }
    } catch (...) {
#pragma omp critical(matchcount_stack_failure)
      if (failed_at < 0 || i < failed_at) failed_at = i, failure = std::current_exception();
    }
  }
  if (failure) {
    const std::string where = file + ": matrix " + std::to_string(failed_at) + ": ";
    try {
      std::rethrow_exception(failure);
    } catch (const RefusedError& e) {
      throw RefusedError(where + e.what());
    } catch (const UsageError& e) {
      throw UsageError(where + e.what());
    } catch (const std::invalid_argument& e) {
      throw InputError(file, 0, "matrix " + std::to_string(failed_at) + ": " + e.what());
    }
  }
  if (!flags.output.empty()) {
    const bool cplx = question != StackQuestion::Torontonian && kind_of(input.matrix) == NumberKind::Complex;
    write_npy(flags.output, values, cplx);
    return;
  }
  for (const auto& v : values) std::cout << v.to_string() << "\n";
  std::cout.flush();
}

}  // namespace matchcount::cli
