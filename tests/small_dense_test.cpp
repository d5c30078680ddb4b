// matchcount::small_dense_permanent (the glynn engine's walk on strided arrays, for the
// Python package's quick path and batches): against ryser within both error estimates on
// random real, complex and integer arrays of every size it takes, in row-major and
// column-major strides; exact integers; and the cases it leaves to the pipeline. The GPU batch
// (gpu_dense_permanents): its threads' shares summed on the CPU, and on a GPU against ryser; the
// GPU batch of (loop) hafnians (gpu_dense_hafnians) against the CPU hafnian engine.
// small_dense_hafnian: the hafnian engine's bits and the brute force within the estimate.
#include <gtest/gtest.h>
#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "engines/ryser/cuda/glynn_batch_walk.cuh"
#include "matchcount/checkpoint.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/small_dense.hpp"
#include "symmetric_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

TEST(SmallDense, AgreesWithRyserOnEverySizeAndStride) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const auto ryser = make_engine("ryser");
  for (int n = 1; n <= kSmallDenseMax; ++n)
    for (const bool transposed : {false, true}) {
      std::vector<std::complex<double>> a(static_cast<std::size_t>(n * n));
      SparseMatrix<Complex> m{n, n, {}};
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const std::complex<double> x(u(rng), u(rng));
          a[static_cast<std::size_t>(transposed ? j * n + i : i * n + j)] = x;
          m.entries.push_back({i, j, x});
        }
      const std::int64_t s0 = transposed ? 1 : n, s1 = transposed ? n : 1;
      const SmallDenseValue v = small_dense_permanent(a.data(), DenseElement::Complex128, n, n, s0, s1);
      ASSERT_EQ(v.kind, SmallDenseValue::Cplx) << n;
      const Approx<Complex> want = ryser->permanent(m, {});
      EXPECT_LE(std::abs(Complex(v.re, v.im) - want.value), v.abs_error + want.abs_error) << n;
      // The real parts alone, as float64.
      std::vector<double> re(a.size());
      for (std::size_t k = 0; k < a.size(); ++k) re[k] = a[k].real();
      SparseMatrix<double> mr{n, n, {}};
      for (const auto& e : m.entries) mr.entries.push_back({e.row, e.col, e.value.real()});
      const SmallDenseValue r = small_dense_permanent(re.data(), DenseElement::Float64, n, n, s0, s1);
      ASSERT_EQ(r.kind, SmallDenseValue::Real) << n;
      const Approx<double> want_r = ryser->permanent(mr, {});
      EXPECT_LE(std::abs(r.re - want_r.value), r.abs_error + want_r.abs_error) << n;
    }
}

TEST(SmallDense, BatchesGoToTheGpuByDefaultWhereItWasFaster) {
  // The measured crossovers (docs/benchmarks.md, "Which batches go to the GPU by default").
  EXPECT_FALSE(gpu_permanents_by_default(11));
  EXPECT_TRUE(gpu_permanents_by_default(12));
  EXPECT_TRUE(gpu_permanents_by_default(kGpuDenseMax));
  EXPECT_FALSE(gpu_permanents_by_default(kGpuDenseMax + 1));
  EXPECT_FALSE(gpu_torontonians_by_default(7));
  EXPECT_TRUE(gpu_torontonians_by_default(8));
  EXPECT_TRUE(gpu_torontonians_by_default(kSmallTorontonianMaxModes));
  EXPECT_FALSE(gpu_torontonians_by_default(kSmallTorontonianMaxModes + 1));
  EXPECT_FALSE(gpu_hafnians_by_default(7));
  EXPECT_TRUE(gpu_hafnians_by_default(8));
  // A command's stacks, which start a CUDA context first: the cases of docs/benchmarks.md,
  // "Which stacks the command line sends to the GPU", stay on the CPU but torontonians of 12
  // modes by 65,536 (a tie there), and the model grows with the work.
  using Q = DenseQuestion;
  EXPECT_FALSE(gpu_stack_pays_for_its_context(Q::Hafnian, 12, 65536, 16));
  EXPECT_FALSE(gpu_stack_pays_for_its_context(Q::Hafnian, 16, 4096, 16));
  EXPECT_FALSE(gpu_stack_pays_for_its_context(Q::Permanent, 12, 65536, 16));
  EXPECT_FALSE(gpu_stack_pays_for_its_context(Q::Permanent, 16, 4096, 16));
  EXPECT_FALSE(gpu_stack_pays_for_its_context(Q::Torontonian, 16, 65536, 16));
  EXPECT_TRUE(gpu_stack_pays_for_its_context(Q::Torontonian, 24, 65536, 16));
  EXPECT_TRUE(gpu_stack_pays_for_its_context(Q::Permanent, 20, 65536, 16));
  EXPECT_TRUE(gpu_stack_pays_for_its_context(Q::Hafnian, 24, 4096, 16));
  EXPECT_LT(small_dense_cpu_seconds(Q::Hafnian, 12, 1000, 2), small_dense_cpu_seconds(Q::Hafnian, 14, 1000, 2));
  EXPECT_DOUBLE_EQ(small_dense_cpu_seconds(Q::Permanent, 12, 1000, 1), 2 * small_dense_cpu_seconds(Q::Permanent, 12, 1000, 2));
}

TEST(SmallDense, HafniansOfThreeVerticesOrFewerHoldTheirBoundsAgainstExactRationals) {
  // Closed forms up to 3 vertices: the value within its bound (not an estimate) of the exact
  // rational hafnian of the same doubles, with cancelling terms and entries from 2^-30 to 2^30;
  // an exact entry alone (haf of 2, lhaf of 1) has no error.
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> scale(-30, 30);
  int cases = 0;
  for (int round = 0; round < 600; ++round)
    for (int n = 0; n <= 3; ++n)
      for (const bool loops : {false, true})
        for (const bool cplx : {false, true}) {
          std::vector<std::complex<double>> a(static_cast<std::size_t>(n * n));
          for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) {
              const double s = round % 3 == 0 ? std::ldexp(1.0, scale(rng)) : 1.0;
              a[static_cast<std::size_t>(i * n + j)] = a[static_cast<std::size_t>(j * n + i)] =
                  std::complex<double>(s * u(rng), cplx ? s * u(rng) : 0.0);
            }
          if (n == 2 && loops && round % 3 == 1)  // a_01 = -a_00 a_11 to the last bits: cancellation
            a[1] = a[2] = -(a[0] * a[3]) * (1 + std::ldexp(u(rng), -50));
          // The exact value in rationals (real and imaginary parts).
          using Q = mpq_class;
          const auto q = [&](int i, int j, bool imag) {
            const std::complex<double> x = a[static_cast<std::size_t>(i * n + j)];
            return Q(imag ? x.imag() : x.real());
          };
          struct C {
            Q re, im;
          };
          const auto mul = [](const C& x, const C& y) { return C{x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re}; };
          const auto e = [&](int i, int j) { return C{q(i, j, false), q(i, j, true)}; };
          C exact{0, 0};
          const auto add = [&](const C& x) { exact.re += x.re, exact.im += x.im; };
          if (n == 1 && loops) add(e(0, 0));
          if (n == 2) add(e(0, 1));
          if (n == 2 && loops) add(mul(e(0, 0), e(1, 1)));
          if (n == 3 && loops) {
            add(mul(e(0, 0), e(1, 2))), add(mul(e(1, 1), e(0, 2))), add(mul(e(2, 2), e(0, 1)));
            add(mul(mul(e(0, 0), e(1, 1)), e(2, 2)));
          }
          const SmallDenseValue v = cplx ? small_dense_hafnian(a.data(), DenseElement::Complex128, n, n, n, 1, loops)
                                         : [&] {
                                             std::vector<double> re(a.size());
                                             for (std::size_t k = 0; k < a.size(); ++k) re[k] = a[k].real();
                                             return small_dense_hafnian(re.data(), DenseElement::Float64, n, n, n, 1, loops);
                                           }();
          if (n == 0) {  // no entry, so every entry is an integer: the pipeline's exact 1
            EXPECT_EQ(v.kind, SmallDenseValue::None);
            ++cases;
            continue;
          }
          ASSERT_EQ(v.kind, cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real) << n << " " << loops;
          EXPECT_FALSE(v.estimated);
          const Q dr = Q(v.re) - exact.re, di = Q(v.im) - exact.im;
          const Q err2 = dr * dr + di * di, bound2 = Q(v.abs_error) * Q(v.abs_error);
          EXPECT_LE(err2, bound2) << n << " " << loops << " " << cplx << " " << v.re << " " << v.abs_error;
          if ((n == 1 && loops) || (n == 2 && !loops)) {
            EXPECT_EQ(v.abs_error, 0.0) << n;
          }
          ++cases;
        }
  EXPECT_EQ(cases, 600 * 16);
}

TEST(SmallDense, HafniansAreTheEnginesBitsAndTheBruteForcesValues) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const auto fast = engines::make_hafnian();
  const auto brute = engines::make_hafnian_brute();
  for (int n = 4; n <= 14; ++n)
    for (const bool loops : {false, true})
      for (const bool transposed : {false, true}) {
        std::vector<std::complex<double>> a(static_cast<std::size_t>(n * n));
        SparseMatrix<Complex> m{n, n, {}};
        for (int i = 0; i < n; ++i)
          for (int j = 0; j <= i; ++j) {
            const std::complex<double> x(u(rng), u(rng));
            a[static_cast<std::size_t>(i * n + j)] = a[static_cast<std::size_t>(j * n + i)] = x;
            m.entries.push_back({i, j, x});
            if (i != j) m.entries.push_back({j, i, x});
          }
        m.normalize();
        const std::int64_t s0 = transposed ? 1 : n, s1 = transposed ? n : 1;
        const SmallDenseValue v = small_dense_hafnian(a.data(), DenseElement::Complex128, n, n, s0, s1, loops);
        ASSERT_EQ(v.kind, SmallDenseValue::Cplx) << n;
        const Approx<Complex> want = brute->hafnian(m, loops, {});
        EXPECT_LE(std::abs(Complex(v.re, v.im) - want.value), v.abs_error + want.abs_error) << n << " " << loops;
        if (n % 2 == 0 || loops) {  // the engine's walk, bit for bit
          const Approx<Complex> engine = fast->hafnian(m, loops, {});
          EXPECT_EQ(Complex(v.re, v.im), engine.value) << n << " " << loops;
          EXPECT_EQ(v.abs_error, engine.abs_error) << n;
        } else {
          EXPECT_EQ(v.re, 0.0);
          EXPECT_EQ(v.im, 0.0);
          EXPECT_EQ(v.abs_error, 0.0);
        }
        std::vector<double> re(a.size());
        SparseMatrix<double> mr{n, n, {}};
        for (std::size_t k = 0; k < a.size(); ++k) re[k] = a[k].real();
        for (const auto& e : m.entries) mr.entries.push_back({e.row, e.col, e.value.real()});
        const SmallDenseValue r = small_dense_hafnian(re.data(), DenseElement::Float64, n, n, s0, s1, loops);
        ASSERT_EQ(r.kind, SmallDenseValue::Real) << n;
        const Approx<double> want_r = brute->hafnian(mr, loops, {});
        EXPECT_LE(std::abs(r.re - want_r.value), r.abs_error + want_r.abs_error) << n << " " << loops;
      }
  // What it leaves to the pipeline, and its exact zeros.
  std::vector<double> ones(36, 1.0), half(36, 0.5);
  EXPECT_EQ(small_dense_hafnian(ones.data(), DenseElement::Float64, 6, 6, 6, 1, false).kind, SmallDenseValue::None);
  EXPECT_EQ(small_dense_hafnian(ones.data(), DenseElement::Float64, 6, 6, 6, 1, false, DenseMode::Float).re, 15.0);
  EXPECT_EQ(small_dense_hafnian(half.data(), DenseElement::Float64, 6, 6, 6, 1, false, DenseMode::Exact).kind,
            SmallDenseValue::None);
  std::vector<std::int32_t> ints(36, 1);
  EXPECT_EQ(small_dense_hafnian(ints.data(), DenseElement::Int32, 6, 6, 6, 1, false).kind, SmallDenseValue::None);
  half[1] = 0.25;  // asymmetric
  EXPECT_EQ(small_dense_hafnian(half.data(), DenseElement::Float64, 6, 6, 6, 1, false).kind, SmallDenseValue::None);
  half[1] = std::nan("");
  half[6] = half[1];
  EXPECT_EQ(small_dense_hafnian(half.data(), DenseElement::Float64, 6, 6, 6, 1, false).kind, SmallDenseValue::None);
  std::vector<double> big(25 * 25, 0.5);
  EXPECT_EQ(small_dense_hafnian(big.data(), DenseElement::Float64, 25, 25, 25, 1, true).kind, SmallDenseValue::None);
  std::vector<double> lonely(36, 0.5);
  for (int j = 0; j < 6; ++j) lonely[static_cast<std::size_t>(2 * 6 + j)] = lonely[static_cast<std::size_t>(j * 6 + 2)] = 0;
  const SmallDenseValue zero = small_dense_hafnian(lonely.data(), DenseElement::Float64, 6, 6, 6, 1, true);
  EXPECT_EQ(zero.kind, SmallDenseValue::Real);
  EXPECT_EQ(zero.re, 0.0);
  EXPECT_EQ(zero.abs_error, 0.0);
  lonely[2 * 6 + 2] = 0.5;  // its loop covers it
  SparseMatrix<double> covered{6, 6, {}};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (const double x = lonely[static_cast<std::size_t>(i * 6 + j)]; x != 0) covered.entries.push_back({i, j, x});
  EXPECT_NEAR(small_dense_hafnian(lonely.data(), DenseElement::Float64, 6, 6, 6, 1, true).re,
              brute->hafnian(covered, true, {}).value, 1e-12);
}

TEST(SmallDense, IntegersExactAndWhatItLeavesToThePipeline) {
  // The all-ones 10 x 10 (10! = 3628800), as int32 and as integral float64.
  std::vector<std::int32_t> ones(100, 1);
  SmallDenseValue v = small_dense_permanent(ones.data(), DenseElement::Int32, 10, 10, 10, 1);
  ASSERT_EQ(v.kind, SmallDenseValue::Exact);
  EXPECT_EQ(v.re, 3628800.0);
  EXPECT_EQ(std::get<Integer>(v.value().value), Integer(3628800));
  std::vector<double> onesf(144, 1.0);
  EXPECT_EQ(small_dense_permanent(onesf.data(), DenseElement::Float64, 10, 10, 10, 1).kind, SmallDenseValue::Exact);
  EXPECT_EQ(small_dense_permanent(onesf.data(), DenseElement::Float64, 10, 10, 10, 1, DenseMode::Float).kind,
            SmallDenseValue::Real);
  // 12 x 12: its sums could pass 2^53 (2^11 12^12), so the pipeline counts it.
  EXPECT_EQ(small_dense_permanent(onesf.data(), DenseElement::Float64, 12, 12, 12, 1).kind, SmallDenseValue::None);
  // Left to the pipeline: rectangular, too large, fractions asked exact, non-finite, sums
  // beyond 2^53.
  EXPECT_EQ(small_dense_permanent(onesf.data(), DenseElement::Float64, 12, 11, 12, 1).kind, SmallDenseValue::None);
  std::vector<double> big(17 * 17, 1.0);
  EXPECT_EQ(small_dense_permanent(big.data(), DenseElement::Float64, 17, 17, 17, 1).kind, SmallDenseValue::None);
  std::vector<double> half(4, 0.5);
  EXPECT_EQ(small_dense_permanent(half.data(), DenseElement::Float64, 2, 2, 2, 1, DenseMode::Exact).kind, SmallDenseValue::None);
  half[3] = 1.0 / 0.0;
  EXPECT_EQ(small_dense_permanent(half.data(), DenseElement::Float64, 2, 2, 2, 1).kind, SmallDenseValue::None);
  std::vector<std::int64_t> large(16 * 16, 1000);
  EXPECT_EQ(small_dense_permanent(large.data(), DenseElement::Int64, 16, 16, 16, 1).kind, SmallDenseValue::None);
  // The glynn engine counts that one exactly all the same (by ryser's exact walk).
  SparseMatrix<Integer> m{16, 16, {}};
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) m.entries.push_back({i, j, Integer(1000)});
  Integer want;
  mpz_fac_ui(want.get_mpz_t(), 16);
  for (int i = 0; i < 16; ++i) want *= 1000;
  EXPECT_EQ(make_engine("glynn")->permanent(m, {}), want);
}

/// The GPU batch's threads' shares summed on the CPU (the kernel's walk, glynn_batch_walk.cuh).
template <int N, bool CX>
std::complex<double> thread_shares(const std::vector<double>& re, const std::vector<double>& im, double& abs) {
  const int t = std::min(6, N - 2);
  gpu::glynn_batch::ThreadSums total;
  abs = 0;
  for (unsigned j = 0; j < (1u << t); ++j) {
    const auto s = gpu::glynn_batch::glynn_thread<N, CX>(re.data(), im.data(), j, t);
    gpu::glynn_batch::two_sum(total.re_hi, total.re_lo, s.re_hi), gpu::glynn_batch::two_sum(total.re_hi, total.re_lo, s.re_lo);
    gpu::glynn_batch::two_sum(total.im_hi, total.im_lo, s.im_hi), gpu::glynn_batch::two_sum(total.im_hi, total.im_lo, s.im_lo);
    abs += s.abs;
  }
  const double scale = std::ldexp(1.0, 1 - N);
  abs *= scale;
  return {(total.re_hi + total.re_lo) * scale, (total.im_hi + total.im_lo) * scale};
}

template <int N, bool CX>
void check_thread_shares(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> re(N * N), im(N * N, 0.0);
  SparseMatrix<Complex> m{N, N, {}};
  for (int i = 0; i < N * N; ++i) {
    re[static_cast<std::size_t>(i)] = u(rng);
    if (CX) im[static_cast<std::size_t>(i)] = u(rng);
    m.entries.push_back({i / N, i % N, Complex(re[static_cast<std::size_t>(i)], im[static_cast<std::size_t>(i)])});
  }
  double abs = 0;
  const std::complex<double> got = thread_shares<N, CX>(re, im, abs);
  const Approx<Complex> want = make_engine("ryser")->permanent(m, {});
  // Within the rounding of |terms| the walk may make, and ryser's own.
  EXPECT_LE(std::abs(got - want.value), 1e-13 * abs * N + want.abs_error) << N << " " << CX;
}

TEST(SmallDense, GpuBatchThreadSharesAddUpToThePermanentOnTheCpu) {
  std::mt19937_64 rng(17);
  check_thread_shares<4, false>(rng), check_thread_shares<4, true>(rng);
  check_thread_shares<7, false>(rng), check_thread_shares<7, true>(rng);
  check_thread_shares<9, true>(rng), check_thread_shares<12, false>(rng), check_thread_shares<13, true>(rng);
}

TEST(SmallDense, GpuBatchAgreesWithTheCpuWithinBothEstimates) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  const auto ryser = make_engine("ryser");
  for (const int n : {4, 9, 16, 20})
    for (const bool cplx : {false, true}) {
      const int k = n == 20 ? 40 : 300;
      std::vector<double> re(static_cast<std::size_t>(k * n * n)), im(cplx ? re.size() : 0);
      for (auto& x : re) x = u(rng);
      for (auto& x : im) x = u(rng);
      const std::vector<SmallDenseValue> got = gpu_dense_permanents(re.data(), cplx ? im.data() : nullptr, n, k);
      ASSERT_EQ(got.size(), static_cast<std::size_t>(k));
      for (int i = 0; i < k; i += (n == 20 ? 13 : 37)) {
        const Approx<Complex> want = ryser->permanent(test::symmetric_helpers::stack_matrix(re, im, n, i), {});
        const SmallDenseValue& v = got[static_cast<std::size_t>(i)];
        EXPECT_EQ(v.kind, cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real);
        EXPECT_LE(std::abs(Complex(v.re, v.im) - want.value), v.abs_error + want.abs_error) << n << " " << cplx << " " << i;
      }
    }
  // Hafnians and loop hafnians of symmetric batches, against the CPU hafnian engine.
  const auto haf = make_graph_engine("hafnian");
  for (const int n : {4, 16, 20})
    for (const bool cplx : {false, true})
      for (const bool loops : {false, true}) {
        const int k = 60;
        std::vector<double> re, im;
        test::symmetric_helpers::symmetric_stack(n, k, cplx, rng, re, im);
        const auto got = gpu_dense_hafnians(re.data(), cplx ? im.data() : nullptr, n, k, loops);
        ASSERT_EQ(got.size(), static_cast<std::size_t>(k));
        for (int b = 0; b < k; b += 7) {
          const Approx<Complex> want = haf->hafnian(test::symmetric_helpers::stack_matrix(re, im, n, b), loops, {});
          const SmallDenseValue& v = got[static_cast<std::size_t>(b)];
          EXPECT_LE(std::abs(Complex(v.re, v.im) - want.value), v.abs_error + want.abs_error)
              << n << " " << cplx << " " << loops << " " << b;
        }
      }
  // A stop request between launches.
  std::vector<double> re(16 * 16 * 8, 0.1);
  EXPECT_THROW(gpu_dense_permanents(re.data(), nullptr, 16, 8, [] { return true; }), Interrupted);
}

/// A .npy file of a complex128 stack (k, n, n), C order.
std::string complex_stack_npy(const std::vector<std::complex<double>>& values, int k, int n) {
  return test::complex_npy(values, "(" + std::to_string(k) + ", " + std::to_string(n) + ", " + std::to_string(n) + ")");
}

TEST(SmallDense, CliHafnianStacksPrintTheEnginesValues) {
  // Stacks of symmetric matrices go to small_dense_hafnian, which gives the pipeline's hafnian
  // engine's values (--engine hafnian takes the pipeline); an asymmetric one is named.
  std::mt19937_64 rng(37);
  std::uniform_real_distribution<double> u(-1, 1);
  const int k = 6, n = 10;
  std::vector<std::complex<double>> v(static_cast<std::size_t>(k * n * n));
  for (int b = 0; b < k; ++b)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        v[static_cast<std::size_t>(b * n * n + i * n + j)] = v[static_cast<std::size_t>(b * n * n + j * n + i)] = {u(rng), u(rng)};
  const std::string file = test::temp_file(complex_stack_npy(v, k, n), ".npy");
  for (const char* question : {"--hafnian", "--loop-hafnian"}) {
    const auto quick = test::run_matchcount(std::string(question) + " '" + file + "'");
    const auto engine = test::run_matchcount(std::string(question) + " --engine hafnian '" + file + "'");
    ASSERT_EQ(quick.exit_code, 0) << quick.err;
    EXPECT_EQ(quick.out, engine.out);
    EXPECT_EQ(std::count(quick.out.begin(), quick.out.end(), '\n'), k);
  }
  v[static_cast<std::size_t>(3 * n * n + 1)] += 0.5;  // matrix 3: entry (0, 1) differs from (1, 0)
  const auto bad = test::run_matchcount("--hafnian '" + test::temp_file(complex_stack_npy(v, k, n), ".npy") + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("matrix 3"), std::string::npos) << bad.err;
}

TEST(SmallDense, CliPermanentStacksPrintTheEnginesValues) {
  // Float stacks of dense permanents go to small_dense_permanent without the pipeline: the
  // glynn engine's values bit for bit (--engine glynn takes the pipeline), complex and real
  // (a real stack is a complex one with zero imaginary parts here: the kind is the file's).
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {3, 8, 13}) {
    const int k = 7;
    std::vector<std::complex<double>> v(static_cast<std::size_t>(k * n * n));
    for (auto& x : v) x = {u(rng), n == 8 ? 0.0 : u(rng)};
    const std::string file = test::temp_file(complex_stack_npy(v, k, n), ".npy");
    const auto quick = test::run_matchcount("--device cpu '" + file + "'");
    const auto engine = test::run_matchcount("--device cpu --engine glynn '" + file + "'");
    ASSERT_EQ(quick.exit_code, 0) << quick.err;
    EXPECT_EQ(quick.out, engine.out) << n;
    EXPECT_EQ(std::count(quick.out.begin(), quick.out.end(), '\n'), k);
  }
}

TEST(SmallDense, CliStacksOnTheGpuGiveTheCpuValues) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  const int k = 300, n = 12;
  std::vector<std::complex<double>> v(static_cast<std::size_t>(k * n * n));
  for (auto& x : v) x = {u(rng), u(rng)};
  const std::string file = test::temp_file(complex_stack_npy(v, k, n), ".npy");
  const auto gpu = test::run_matchcount("--device gpu '" + file + "'");
  const auto cpu = test::run_matchcount("--device cpu '" + file + "'");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  std::istringstream a(gpu.out), b(cpu.out);
  std::string x, y;
  int lines = 0;
  double largest = 0, diff = 0;
  while (std::getline(a, x) && std::getline(b, y)) {
    const auto parse = [](const std::string& t) {  // "re+imi" or "re-imi", as the CLI prints
      std::size_t at = t.size();
      for (std::size_t i = t.size(); i-- > 1;)
        if ((t[i] == '+' || t[i] == '-') && t[i - 1] != 'e' && t[i - 1] != 'E') {
          at = i;
          break;
        }
      if (at == t.size()) return std::complex<double>(std::stod(t), 0.0);
      return std::complex<double>(std::stod(t.substr(0, at)), std::stod(t.substr(at, t.size() - at - 1)));
    };
    const auto p = parse(x), q = parse(y);
    largest = std::max(largest, std::abs(q));
    diff = std::max(diff, std::abs(p - q));
    ++lines;
  }
  EXPECT_EQ(lines, k);
  EXPECT_LE(diff, 1e-11 * largest);
}

}  // namespace
}  // namespace matchcount
