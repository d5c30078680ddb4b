// The "glynn" engine and matchcount::small_dense_permanent (matchcount/small_dense.hpp):
// Glynn's formula for small dense matrices,
//   perm(A) = 2^(1-n) sum_{d in {+-1}^n, d_0 = +1} (prod_i d_i) prod_j s_j(d),  s_j = sum_i d_i a_ij.
// In Gray-code order one sign flips per term, so the n column sums s_j are updated by +-2 a_rj
// and each of the 2^(n-1) terms costs n additions and n-1 multiplications (complex ones for
// complex input). The last h signs are fixed per SIMD lane (one vector of W = 2^h lanes) and
// the first n-1-h are walked in the same Gray order by every lane, so all lanes flip the same
// row in the same direction; lane l's own signs are the bits of l.
//
// Error estimate: the ryser engine's model (src/engines/ryser/ryser.cpp), in units of the sum
// of |terms| S: products of n factors and start sums of n additions (2n + 2 roundings), the
// drift of the running sums over a lane's T = 2^(n-1-h) steps as a random walk of roundings
// (sqrt(n T); none for integral input, whose sums are exact); compensated term sums. Complex
// values count twice (a complex product rounds in both parts), as in that engine. For n <= 3
// (no lanes) a first-order bound instead, as the engine's direct path gives one there: so few
// terms average out no rounding (see glynn_scalar).
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/dense_input.hpp"
#include "engines/ryser/cuda/glynn_batch.hpp"
#include "engines/ryser/glynn.hpp"
#include "engines/ryser/glynn_walk.hpp"
#include "engines/ryser/ryser.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"

namespace matchcount::engines::glynn {
namespace {

constexpr double kExactLimit = 0x1p52;  // below 2^53 with room for the rounding of the bound

template <bool CX>
Walked glynn_avx2(const Input& a) {
  return glynn_simd<4, CX>(a);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(MATCHCOUNT_NO_AVX512)  // the macro: tests
#define MATCHCOUNT_AVX512 1
template <bool CX>
__attribute__((target("avx512f,avx512dq"))) Walked glynn_avx512(const Input& a) {
  return glynn_simd<8, CX>(a);
}
#endif

template <bool CX>
Walked glynn(const Input& a) {
  if (a.n < 4) return glynn_scalar<CX>(a);
#ifdef MATCHCOUNT_AVX512
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  if (avx512 && a.n >= 5) return glynn_avx512<CX>(a);
#endif
  return glynn_avx2<CX>(a);
}

/// Reads the matrix; false for entries the kernel leaves to the general path
/// (dense::to_doubles).
template <class T>
bool read(const T* p, std::int64_t s0, std::int64_t s1, Input& a) {
  const int n = a.n;
  a.complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double re, im;
      if (!dense::to_doubles(p[i * s0 + j * s1], re, im)) return false;
      a.integral = a.integral && im == 0 && std::trunc(re) == re;
      a.re[i * n + j] = re, a.im[i * n + j] = im;
    }
  return true;
}

bool has_zero_line(const Input& a) {
  const int n = a.n;
  for (int i = 0; i < n; ++i) {
    bool row = true, col = true;
    for (int j = 0; j < n; ++j) {
      row = row && a.re[i * n + j] == 0 && a.im[i * n + j] == 0;
      col = col && a.re[j * n + i] == 0 && a.im[j * n + i] == 0;
    }
    if (row || col) return true;
  }
  return false;
}

/// Exact in doubles when every term and partial sum is an integer below 2^53: |s_j| <= c_j =
/// sum_i |a_ij| (integers), so |terms| <= prod_j c_j and sums <= 2^(n-1) prod_j c_j.
bool exact_in_doubles(const Input& a) {
  double bound = std::ldexp(1.0, a.n - 1);
  for (int j = 0; j < a.n; ++j) {
    double c = 0;
    for (int i = 0; i < a.n; ++i) c += std::fabs(a.re[i * a.n + j]);
    bound *= c;
  }
  return bound < kExactLimit;
}

/// The walk of `a` (n >= 2, no zero line) and its value of `kind`: exact (every sum an integer
/// below 2^53: exact_in_doubles), real or complex with the error of the ryser engine's model.
SmallDenseValue evaluate(const Input& a, SmallDenseValue::Kind kind) {
  SmallDenseValue out;
  out.kind = kind;
  const int n = a.n;
  const Walked w = kind == SmallDenseValue::Cplx ? glynn<true>(a) : glynn<false>(a);
  const double scale = std::ldexp(1.0, 1 - n);
  out.re = (w.re.hi + w.re.lo) * scale;
  out.im = kind == SmallDenseValue::Cplx ? (w.im.hi + w.im.lo) * scale : 0.0;
  if (kind == SmallDenseValue::Exact) return out;  // every sum was exact
  if (w.bound >= 0) {  // the bound of the scalar walk, with the rounding of the final sum
    out.abs_error = (w.bound * (1 + 4 * n * kU) + 2 * kU * std::abs(std::complex<double>(w.re.hi, w.im.hi))) * scale;
    return out;
  }
  const double drift = a.integral ? 0.0 : std::sqrt(double(n) * w.steps);
  out.abs_error = (kind == SmallDenseValue::Cplx ? 2 : 1) * 2 * kU * (2.0 * n + 2 + drift) * w.abs * scale;
  out.estimated = drift > 0;
  return out;
}

/// The "glynn" engine: a block densified into an Input.
class GlynnEngine final : public Engine {
 public:
  std::string name() const override { return "glynn"; }
  int max_n() const override { return kSmallDenseMax; }

 protected:
  // Exact where every sum of the walk is an integer below 2^53; larger integers go to ryser's
  // exact walk over CRT primes (the same number, never rounded).
  Integer count(const SparseMatrix<Integer>& m, const EngineOptions& opt) const override {
    for (const auto& e : m.entries)
      if (abs(e.value) > Integer(1) << 53) return make_ryser()->permanent(m, opt);
    const Input a = input(m, [](const Integer& x) { return std::complex<double>(x.get_d(), 0.0); });
    if (!exact_in_doubles(a)) return make_ryser()->permanent(m, opt);
    if (a.n == 1) return Integer(a.re[0]);
    return Integer(evaluate(a, SmallDenseValue::Exact).re);
  }
  Approx<double> count(const SparseMatrix<double>& m, const EngineOptions&) const override {
    const Input a = input(m, [](double x) { return std::complex<double>(x, 0.0); });
    if (a.n == 1) return {a.re[0], 0.0};
    const SmallDenseValue v = evaluate(a, SmallDenseValue::Real);
    return {v.re, v.abs_error, v.estimated};
  }
  Approx<Complex> count(const SparseMatrix<Complex>& m, const EngineOptions&) const override {
    const Input a = input(m, [](const Complex& x) { return x; });
    if (a.n == 1) return {Complex(a.re[0], a.im[0]), 0.0};
    const SmallDenseValue v = evaluate(a, SmallDenseValue::Cplx);
    return {Complex(v.re, v.im), v.abs_error, v.estimated};
  }

 private:
  template <class T, class F>
  static Input input(const SparseMatrix<T>& m, F value) {
    Input a;
    a.n = m.rows;
    a.complex = std::is_same_v<T, Complex>;
    for (int i = 0; i < a.n * a.n; ++i) a.re[i] = 0, a.im[i] = 0;
    for (const auto& e : m.entries) {
      const std::complex<double> x = value(e.value);
      if (!std::isfinite(x.real()) || !std::isfinite(x.imag())) throw RefusedError("glynn: an entry is not finite");
      a.re[e.row * a.n + e.col] = x.real(), a.im[e.row * a.n + e.col] = x.imag();
      a.integral = a.integral && x.imag() == 0 && std::trunc(x.real()) == x.real();
    }
    return a;
  }
};

}  // namespace
}  // namespace matchcount::engines::glynn

namespace matchcount {

PermanentValue SmallDenseValue::value() const {
  PermanentValue v;
  if (kind == Exact) v.value = Integer(re);
  else if (kind == Real) v.value = re;
  else v.value = Complex(re, im);
  v.abs_error = abs_error;
  v.error_estimated = estimated;
  return v;
}

SmallDenseValue small_dense_permanent(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                      std::int64_t s0, std::int64_t s1, DenseMode mode) {
  using namespace engines::glynn;
  SmallDenseValue out;
  if (rows != cols || rows > kSmallMax || rows < 0) return out;
  Input a;
  a.n = int(rows);
  if (!engines::dense::dispatch(type, [&](auto* tag) { return read(static_cast<decltype(tag)>(data), s0, s1, a); })) return out;
  const SmallDenseValue::Kind kind = engines::dense::number_kind(type, a.integral, mode);
  if (kind == SmallDenseValue::None) return out;  // exact fractions
  out.kind = kind;
  const int n = a.n;
  if (n == 0) return out.re = 1, out;
  if (has_zero_line(a)) return out;  // 0, exactly (Glynn's terms would cancel in rounding)
  if (n == 1) return out.re = a.re[0], out.im = kind == SmallDenseValue::Cplx ? a.im[0] : 0.0, out;
  if (kind == SmallDenseValue::Exact && !exact_in_doubles(a)) return SmallDenseValue{};
  return evaluate(a, kind);
}

std::vector<SmallDenseValue> gpu_dense_permanents(const double* re, const double* im, int n, std::int64_t count,
                                                  const std::function<bool()>& stop) {
  if (n < kGpuDenseMin || n > kGpuDenseMax) throw GpuError("GPU permanent batch: n must be 4..20");
  bool stopped = false;
  const std::vector<double> sums = gpu::glynn_batch::run(re, im, n, count, stop, stopped);
  if (stopped) throw Interrupted(2, "GPU permanent batch stopped");
  const bool cplx = im != nullptr;
  // The glynn engine's error model (evaluate above): 2n + 2 roundings of each term and the
  // drift of the running sums over a thread's 2^(n-1-t) steps; complex counts twice.
  const double scale = std::ldexp(1.0, 1 - n);
  const double drift = std::sqrt(double(n) * std::ldexp(1.0, n - 1 - gpu::glynn_batch::thread_bits(n)));
  std::vector<SmallDenseValue> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double* o = &sums[i * gpu::glynn_batch::kOut];
    SmallDenseValue& v = values[i];
    v.kind = cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real;
    v.re = (o[0] + o[1]) * scale;
    v.im = cplx ? (o[2] + o[3]) * scale : 0.0;
    v.abs_error = (cplx ? 2 : 1) * 2 * engines::glynn::kU * (2.0 * n + 2 + drift) * o[4] * scale;
    v.estimated = true;
  }
  return values;
}

namespace engines {
std::unique_ptr<Engine> make_glynn() { return std::make_unique<glynn::GlynnEngine>(); }
}  // namespace engines

}  // namespace matchcount
