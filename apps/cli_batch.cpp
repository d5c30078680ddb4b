// Stacks of matrices (cli_batch.hpp).
#include "cli_batch.hpp"

#include <omp.h>

#include <complex>
#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>
#include <variant>
#include <iostream>
#include <type_traits>
#include <vector>

#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/small_dense.hpp"
#include "cli_stack_matrix.hpp"

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
CountOptions small_dense(const StackMatrix& m, const CountOptions& count) {
  const auto n = static_cast<std::size_t>(m.rows());
  if (!count.engine.empty() || count.log || m.rows() != m.cols() || n < 3 || n > kSmallDenseMax ||
      m.kind() == NumberKind::Rational || m.nnz() != n * n)
    return count;
  CountOptions o = count;
  o.engine = "glynn";
  o.preprocess = false;
  return o;
}

/// A small kernel's value as the stack's number kind (a complex stack's real value as complex);
/// false where the pipeline counts the matrix.
bool take(const SmallDenseValue& v, const StackMatrix& m, PermanentValue& value) {
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();
  if (m.kind() == NumberKind::Complex && value.value.index() == 2) value.value = Complex(v.re, 0.0);
  return true;
}

/// A torontonian of at most kSmallTorontonianMaxModes modes by small_dense_torontonian (the
/// engine's count without the pipeline); false where the engine must count it.
bool small_torontonian(const StackMatrix& m, const CountOptions& count, PermanentValue& value) {
  if (count.device == DevicePolicy::Gpu || m.rows() > 2 * kSmallTorontonianMaxModes) return false;
  const SmallDenseValue v = m.dense([](const void* data, DenseElement type, int n, std::int64_t s1, std::int64_t s2) {
    return small_dense_torontonian(data, type, n, n, s1, s2);
  });
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();  // real whatever O is
  return true;
}

/// A loop torontonian of at most kSmallTorontonianMaxModes modes by
/// small_dense_loop_torontonian; false where the pipeline must count or refuse it.
bool small_loop_torontonian(const StackMatrix& m, const StackGammas& g, std::int64_t i, const CountOptions& count,
                            PermanentValue& value) {
  if (count.device == DevicePolicy::Gpu || m.rows() > 2 * kSmallTorontonianMaxModes || m.rows() != g.per) return false;
  const SmallDenseValue v = m.dense([&](const void* data, DenseElement type, int n, std::int64_t s1, std::int64_t s2) {
    return small_dense_loop_torontonian(data, type, n, n, s1, s2, g.row(i),
                                        g.complex ? DenseElement::Complex128 : DenseElement::Float64, 1);
  });
  if (v.kind == SmallDenseValue::None) return false;
  value = v.value();
  return true;
}

/// A float permanent of at most kSmallDenseMax rows by Glynn's small walk alone
/// (small_dense_permanent), the value the pipeline's glynn engine gives, without the pipeline's
/// per-count set-up (its memory and time checks cost more than an 8 x 8 permanent); false where
/// the pipeline counts it (an exact number, a sparse or larger matrix, an engine asked for).
bool small_permanent(const StackMatrix& m, const CountOptions& count, PermanentValue& value) {
  if (!count.engine.empty() || small_dense(m, count).engine != "glynn" || count.device == DevicePolicy::Gpu) return false;
  return take(m.dense([](const void* data, DenseElement type, int n, std::int64_t s1, std::int64_t s2) {
    return small_dense_permanent(data, type, n, n, s1, s2, DenseMode::Float);
  }), m, value);
}

/// A float (loop) hafnian of at most kSmallHafnianMax rows by the hafnian engine's walk alone
/// (small_dense_hafnian), as the Python package's batches count it; false where the pipeline
/// must count it (an exact number, an asymmetric matrix, ...).
bool small_hafnian(const StackMatrix& m, bool loops, const CountOptions& count, PermanentValue& value) {
  if (!count.engine.empty() || count.log || count.device == DevicePolicy::Gpu || m.rows() > kSmallHafnianMax) return false;
  return take(m.dense([&](const void* data, DenseElement type, int n, std::int64_t s1, std::int64_t s2) {
    return small_dense_hafnian(data, type, n, n, s1, s2, loops, DenseMode::Float);
  }), m, value);
}

/// The stack's float permanents of 4..20 rows, (loop) hafnians of 2..64 and torontonians of
/// 1..16 modes on a CUDA device (gpu_dense_permanents, gpu_dense_hafnians,
/// gpu_dense_torontonians), where --device asks for it or, for permanents, torontonians and
/// hafnians of kGpuHafnianBatchMin..kGpuHafnianBatchMax vertices, by default for 256 matrices and
/// more where that pays for the CUDA context the command starts (gpu_stack_pays_for_its_context);
/// true for those counted. Hafnians go there only when every matrix is symmetric (else
/// the pipeline says which is not); hafnians are read where the stack is stored, the others
/// copied into the split arrays of the calls, on every thread.
std::vector<bool> on_gpu(const ReadResult& input, StackQuestion question, const CountOptions& count,
                         std::vector<PermanentValue>& values, int threads, const StackGammas* gammas) {
  const std::size_t k = stack_size(input);
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
                     (by_default && count.device == DevicePolicy::Auto && k >= 256 &&
                      gpu_stack_pays_for_its_context(permanent     ? DenseQuestion::Permanent
                                                     : torontonian ? DenseQuestion::Torontonian
                                                                   : DenseQuestion::Hafnian,
                                                     n, static_cast<std::int64_t>(k), threads) &&
                      gpu_available());
  // Float stacks are kept as stored (ReadOptions::dense_stacks); the others are exact.
  if (k == 0 || !sized || !asked || !count.engine.empty() || input.stored.element_bytes == 0 || n != cols_of(input.matrix))
    return done;
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const bool cplx = kind == NumberKind::Complex;
  const StoredStack& st = input.stored;
  const auto kk = static_cast<std::int64_t>(k);
  if (!permanent && !torontonian) {
    bool symmetric = true;
#pragma omp parallel for schedule(static) reduction(&& : symmetric) num_threads(threads)
    for (std::int64_t i = 0; i < kk; ++i)
      for (int r = 0; r < n && symmetric; ++r)
        for (int c = 0; c < r && symmetric; ++c) symmetric = stored_entry(st, i, r, c) == stored_entry(st, i, c, r);
    if (!symmetric) return done;
  }
  try {
    std::vector<SmallDenseValue> got;
    if (!permanent && !torontonian) {
      const DenseStack stack{st.values.data(), element_of(st), st.s0, st.s1, st.s2, nullptr};
      got = gpu_dense_hafnians(stack, n, kk, question == StackQuestion::LoopHafnian);
    } else {
      // Not value-initialised: each thread's first touch of its matrices is its own write.
      const std::unique_ptr<double[]> re(new double[k * nn]), im(cplx ? new double[k * nn] : nullptr);
#pragma omp parallel for schedule(static) num_threads(threads)
      for (std::int64_t i = 0; i < kk; ++i)
        for (int r = 0; r < n; ++r)
          for (int c = 0; c < n; ++c) {
            const std::complex<double> x = stored_entry(st, i, r, c);
            const std::size_t at = static_cast<std::size_t>(i) * nn + static_cast<std::size_t>(r * n + c);
            re[at] = x.real();
            if (cplx) im[at] = x.imag();
          }
      if (torontonian && gammas) {
        // One row a matrix (a shared row repeated), split as the batch reads them.
        const auto per = static_cast<std::size_t>(gammas->per);
        std::vector<double> g_re(k * per), g_im(gammas->complex ? g_re.size() : 0);
        for (std::size_t i = 0; i < k; ++i)
          for (int j = 0; j < gammas->per; ++j) {
            const Complex x = gammas->at(static_cast<std::int64_t>(i), j);
            g_re[i * per + static_cast<std::size_t>(j)] = x.real();
            if (gammas->complex) g_im[i * per + static_cast<std::size_t>(j)] = x.imag();
          }
        got = gpu_dense_loop_torontonians(re.get(), im.get(), g_re.data(), gammas->complex ? g_im.data() : nullptr, n / 2, kk);
      } else {
        got = permanent     ? gpu_dense_permanents(re.get(), im.get(), n, kk)
              : torontonian ? gpu_dense_torontonians(re.get(), im.get(), n / 2, kk)
                            : gpu_dense_hafnians(re.get(), im.get(), n, kk, question == StackQuestion::LoopHafnian);
      }
    }
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

std::size_t stack_size(const ReadResult& input) {
  return input.stored.element_bytes != 0 ? static_cast<std::size_t>(input.stored.count) : input.stack.size();
}

AnyMatrix StackGammas::column(std::int64_t i) const {
  if (complex) {
    SparseMatrix<Complex> m{per, 1, {}};
    for (int j = 0; j < per; ++j) m.entries.push_back({j, 0, at(i, j)});
    return m;
  }
  SparseMatrix<double> m{per, 1, {}};
  for (int j = 0; j < per; ++j) m.entries.push_back({j, 0, row(i)[j]});
  return m;
}

StackGammas read_stack_gammas(const std::string& path, const ReadOptions& read, std::int64_t k, int rows) {
  ReadOptions as_numbers;
  as_numbers.max_memory = read.max_memory;
  as_numbers.max_seconds = read.max_seconds;
  as_numbers.vectors = true;
  const ReadResult in = read_input(path, as_numbers);
  const int r = rows_of(in.matrix), c = cols_of(in.matrix);
  StackGammas g;
  g.per = rows;
  g.shared = (r == rows && c == 1) || (r == 1 && c == rows);
  if (in.is_stack || (!g.shared && !(r == k && c == rows)))
    throw UsageError("--gamma: " + path + " holds " + (in.is_stack ? std::string("a stack") : std::to_string(r) + "x" + std::to_string(c)) +
                     " values; a stack of " + std::to_string(k) + " " + std::to_string(rows) + "x" + std::to_string(rows) +
                     " matrices takes " + std::to_string(k) + "x" + std::to_string(rows) + " (one row a matrix) or " +
                     std::to_string(rows) + " (the same for each)");
  g.complex = kind_of(in.matrix) == NumberKind::Complex;
  g.values.assign(static_cast<std::size_t>(r) * static_cast<std::size_t>(c) * (g.complex ? 2 : 1), 0.0);
  std::visit(
      [&](const auto& m) {
        for (const auto& e : m.entries) {
          const std::size_t at = static_cast<std::size_t>(e.row) * static_cast<std::size_t>(c) + static_cast<std::size_t>(e.col);
          using T = std::decay_t<decltype(e.value)>;
          if constexpr (std::is_same_v<T, Complex>) g.values[2 * at] = e.value.real(), g.values[2 * at + 1] = e.value.imag();
          else if constexpr (std::is_same_v<T, double>) g.values[at] = e.value;
          else g.values[at] = e.value.get_d();  // integers and fractions, as the pipeline rounds them
        }
      },
      in.matrix);
  return g;
}

void run_stack(const ReadResult& input, const std::string& file, StackQuestion question, const BatchFlags& flags,
               const CountOptions& count, int threads, const StackGammas* gammas) {
  const auto k = static_cast<std::int64_t>(stack_size(input));
  const int t = threads > 0 ? threads : omp_get_max_threads();
  std::vector<PermanentValue> values(static_cast<std::size_t>(k));
  const std::vector<bool> counted = on_gpu(input, question, count, values, t, gammas);
  CountOptions one = count;
  one.threads = 1;  // threads go across the matrices
  std::int64_t failed_at = -1;
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 4) num_threads(t)
  for (std::int64_t i = 0; i < k; ++i) {
    if (counted[static_cast<std::size_t>(i)]) continue;
    try {
      const StackMatrix m(input, i);
      PermanentValue& value = values[std::size_t(i)];
      switch (question) {
        case StackQuestion::Permanent:
          if (!small_permanent(m, one, value)) value = count_permanent(m.sparse(), small_dense(m, one)).value;
          break;
        case StackQuestion::Hafnian:
        case StackQuestion::LoopHafnian: {
          const bool loops = question == StackQuestion::LoopHafnian;
          if (!small_hafnian(m, loops, one, value)) value = count_hafnian(m.sparse(), loops, one).value;
          break;
        }
        case StackQuestion::Torontonian: {
          // What the small kernel left (a complex basis, a bound the long double retry must
          // tighten, a refusal to explain) gains nothing from the GPU's walk, which repeats the
          // kernel's double arithmetic in a launch of its own: the CPU counts it.
          CountOptions left = one;
          if (m.rows() <= 2 * kSmallTorontonianMaxModes) left.device = DevicePolicy::Cpu;
          if (gammas) {
            if (!small_loop_torontonian(m, *gammas, i, one, value)) {
              const AnyMatrix gamma = gammas->column(i);
              value = count_torontonian(m.sparse(), &gamma, left).value;
            }
          } else if (!small_torontonian(m, one, value)) {
            value = count_torontonian(m.sparse(), nullptr, left).value;
          }
          break;
        }
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
