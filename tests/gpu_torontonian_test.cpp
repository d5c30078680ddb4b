// The GPU torontonian walk (src/engines/torontonian/cuda/) against the CPU walk: the same
// values within both bounds for real and loop torontonians over the GPU walk's splits (one
// unit, units with roots, blocks of fewer threads than 128), the same bits on one GPU and on
// all, and the refusal of an input that is not positive definite. Skips without a GPU. The small
// path (small_dense_torontonian and small_dense_loop_torontonian on the CPU, the GPU batches
// gpu_dense_torontonians and gpu_dense_loop_torontonians): the engine's bits on the CPU, within
// the bounds on the GPU, and what it leaves to the engine.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "engines/torontonian/cuda/tor_small.cuh"
#include "matchcount/pipeline.hpp"
#include "matchcount/small_dense.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

/// O of a Gaussian state in thewalrus's (a, a^dagger) order: in the x/p basis of each mode,
/// M = I - O = P diag(l) P^T with P a random orthogonal matrix (Gram-Schmidt) and l in (0, 1]
/// (squeezing r and loss set the smallest), brought back by M = W^* M_xp W, W = diag(W_i),
/// W_i = [[1, 1], [-i, i]] / sqrt 2 on (a_i, a_i^dagger). Complex in general, real in the x/p
/// basis: what the GPU walk takes.
SparseMatrix<Complex> squeezed_o(int n, double r, double loss, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  const int d = 2 * n;
  std::vector<double> p(static_cast<std::size_t>(d * d));
  for (auto& x : p) x = g(rng);
  for (int i = 0; i < d; ++i) {
    double* row = &p[static_cast<std::size_t>(i * d)];
    for (int j = 0; j < i; ++j) {
      const double* q = &p[static_cast<std::size_t>(j * d)];
      double dot = 0;
      for (int k = 0; k < d; ++k) dot += row[k] * q[k];
      for (int k = 0; k < d; ++k) row[k] -= dot * q[k];
    }
    double norm = 0;
    for (int k = 0; k < d; ++k) norm += row[k] * row[k];
    for (int k = 0; k < d; ++k) row[k] /= std::sqrt(norm);
  }
  std::vector<double> l(static_cast<std::size_t>(d));
  for (int i = 0; i < d; ++i) l[static_cast<std::size_t>(i)] = 1 - (1 - loss) * std::tanh(r) * (0.6 + 0.4 * (i % 3) / 2.0);
  // M_xp in pair order (x_i at 2i, p_i at 2i + 1).
  std::vector<double> mxp(static_cast<std::size_t>(d * d));
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < d; ++b)
      for (int k = 0; k < d; ++k)
        mxp[static_cast<std::size_t>(a * d + b)] += p[static_cast<std::size_t>(k * d + a)] * l[static_cast<std::size_t>(k)] * p[static_cast<std::size_t>(k * d + b)];
  const double s = std::sqrt(0.5);
  const Complex w[2][2] = {{s, s}, {Complex(0, -s), Complex(0, s)}};  // rows x, p; columns a, a^dagger
  SparseMatrix<Complex> o{d, d, {}};
  const auto index = [n](int mode, int which) { return which ? mode + n : mode; };  // (a, a^dagger) order
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 2; ++a)
      for (int j = 0; j < n; ++j)
        for (int b = 0; b < 2; ++b) {
          // M[(i,a), (j,b)] = sum over x/p rows u, v of conj(W_i[u][a]) M_xp[(i,u), (j,v)] W_j[v][b].
          Complex m = 0;
          for (int u = 0; u < 2; ++u)
            for (int v = 0; v < 2; ++v)
              m += std::conj(w[u][a]) * mxp[static_cast<std::size_t>((2 * i + u) * d + 2 * j + v)] * w[v][b];
          const bool diag = i == j && a == b;
          o.entries.push_back({index(i, a), index(j, b), (diag ? 1.0 : 0.0) - m});
        }
  return o;
}

CountReport count_on(const SparseMatrix<Complex>& o, const AnyMatrix* gamma, DevicePolicy device, int gpus = 0) {
  CountOptions opt;
  opt.device = device;
  opt.gpus = gpus;
  return count_torontonian(AnyMatrix(o), gamma, opt);
}

TEST(GpuTorontonian, AgreesWithTheCpuWalkWithinBothBounds) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  for (const int n : {1, 5, 12, 17, 21, 26}) {
    for (const bool loop : {false, true}) {
      const SparseMatrix<Complex> o = squeezed_o(n, 2.0, 0.05, 40 + n);
      // A displacement: gamma_{i+n} = conj(gamma_i), real in the x/p basis too.
      SparseMatrix<Complex> g{2 * n, 1, {}};
      std::mt19937_64 rng(n);
      std::normal_distribution<double> nd(0, 0.2);
      for (int i = 0; i < n; ++i) {
        const Complex z(nd(rng), nd(rng));
        g.entries.push_back({i, 0, z}), g.entries.push_back({i + n, 0, std::conj(z)});
      }
      const AnyMatrix gm(g);
      const CountReport gpu = count_on(o, loop ? &gm : nullptr, DevicePolicy::Gpu);
      const CountReport cpu = count_on(o, loop ? &gm : nullptr, DevicePolicy::Cpu);
      ASSERT_EQ(gpu.engine_runs.size(), 1u);
      EXPECT_EQ(gpu.engine_runs[0].stats.device, "gpu") << n;
      const double a = std::get<double>(gpu.value.value), b = std::get<double>(cpu.value.value);
      EXPECT_LE(std::fabs(a - b), gpu.value.abs_error + cpu.value.abs_error) << "n " << n << " loop " << loop;
      EXPECT_LT(gpu.value.abs_error, 1e-3 * std::fabs(a)) << n;
    }
  }
}

TEST(GpuTorontonian, SameBitsOnOneGpuAndOnAll) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const SparseMatrix<Complex> o = squeezed_o(31, 2.0, 0.05, 7);
  const CountReport one = count_on(o, nullptr, DevicePolicy::Gpu, 1);
  const CountReport all = count_on(o, nullptr, DevicePolicy::Gpu, 0);
  EXPECT_EQ(std::get<double>(one.value.value), std::get<double>(all.value.value));
  EXPECT_EQ(one.value.abs_error, all.value.abs_error);
}

/// O dense (row-major complex) from the sparse squeezed_o.
std::vector<std::complex<double>> dense_of(const SparseMatrix<Complex>& o) {
  std::vector<std::complex<double>> a(static_cast<std::size_t>(o.rows * o.cols));
  for (const auto& e : o.entries) a[static_cast<std::size_t>(e.row * o.cols + e.col)] = e.value;
  return a;
}

TEST(SmallTorontonian, TheEnginesBitsOnTheCpuAndWhatItLeavesToIt) {
  for (int n = 1; n <= 12; ++n)
    for (const std::uint64_t seed : {1u, 2u}) {
      const SparseMatrix<Complex> o = squeezed_o(n, 0.3 + 0.2 * static_cast<double>(seed), 0.1, 100 * seed + static_cast<std::uint64_t>(n));
      const auto a = dense_of(o);
      const int d = 2 * n;
      const SmallDenseValue v = small_dense_torontonian(a.data(), DenseElement::Complex128, d, d, d, 1);
      const CountReport want = count_on(o, nullptr, DevicePolicy::Cpu);
      ASSERT_EQ(v.kind, SmallDenseValue::Real) << n;
      EXPECT_EQ(v.re, std::get<double>(want.value.value)) << n;
      EXPECT_NEAR(v.abs_error, want.value.abs_error, 1e-9 * want.value.abs_error) << n;
      // The kernels' smaller instantiations count the same on the host (this file is compiled
      // without the library's -march, so without its fused multiply-adds: within the bound).
      std::vector<double> re, im;
      for (const auto& x : a) re.push_back(x.real()), im.push_back(x.imag());
      std::vector<double> scratch(8 * 16 * 16 + gpu::tor_small::walk_doubles(16));
      const auto r12 = gpu::tor_small::torontonian<12>(re.data(), im.data(), n, scratch.data(), scratch.data() + 4 * 144,
                                                       scratch.data() + 8 * 144);
      EXPECT_EQ(r12.status, gpu::tor_small::kDone);
      EXPECT_LE(std::fabs(r12.value - v.re), r12.error + v.abs_error) << n;
    }
  // Left to the engine: not Hermitian, not positive definite, not square or odd, NaN.
  const auto a = dense_of(squeezed_o(3, 0.5, 0.1, 9));
  auto bad = a;
  bad[1] += 0.25;
  EXPECT_EQ(small_dense_torontonian(bad.data(), DenseElement::Complex128, 6, 6, 6, 1).kind, SmallDenseValue::None);
  bad = a;
  bad[0] = 1.5;  // I - O with a negative diagonal entry
  EXPECT_EQ(small_dense_torontonian(bad.data(), DenseElement::Complex128, 6, 6, 6, 1).kind, SmallDenseValue::None);
  EXPECT_EQ(small_dense_torontonian(a.data(), DenseElement::Complex128, 5, 5, 6, 1).kind, SmallDenseValue::None);
  bad = a;
  bad[7] = std::nan("");
  EXPECT_EQ(small_dense_torontonian(bad.data(), DenseElement::Complex128, 6, 6, 6, 1).kind, SmallDenseValue::None);
}

/// A displacement's gamma (gamma_{i+n} = conj(gamma_i): real in the x/p basis too) of scale
/// `scale`, the modes' sizes spread over two orders of magnitude, as dense complex values.
std::vector<std::complex<double>> displacement(int n, double scale, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0, scale);
  std::vector<std::complex<double>> g(static_cast<std::size_t>(2 * n));
  for (int i = 0; i < n; ++i) {
    const Complex z = Complex(nd(rng), nd(rng)) * std::pow(10.0, -(i % 3));
    g[static_cast<std::size_t>(i)] = z, g[static_cast<std::size_t>(i + n)] = std::conj(z);
  }
  return g;
}

AnyMatrix column_of(const std::vector<std::complex<double>>& g) {
  SparseMatrix<Complex> m{static_cast<int>(g.size()), 1, {}};
  for (std::size_t i = 0; i < g.size(); ++i) m.entries.push_back({static_cast<int>(i), 0, g[i]});
  return m;
}

TEST(SmallTorontonian, LoopTorontoniansTheEnginesBitsOnTheCpu) {
  namespace ts = gpu::tor_small;
  int kernel_counted = 0;
  for (int n = 1; n <= 12; ++n)
    for (const double scale : {0.2, 1.5}) {
      const SparseMatrix<Complex> o = squeezed_o(n, 0.5 + scale / 3, 0.1, 300 + static_cast<std::uint64_t>(n));
      const auto a = dense_of(o);
      const auto g = displacement(n, scale, static_cast<std::uint64_t>(n));
      const int d = 2 * n;
      const SmallDenseValue v =
          small_dense_loop_torontonian(a.data(), DenseElement::Complex128, d, d, d, 1, g.data(), DenseElement::Complex128, 1);
      const AnyMatrix gm = column_of(g);
      const CountReport want = count_on(o, &gm, DevicePolicy::Cpu);
      ASSERT_EQ(v.kind, SmallDenseValue::Real) << n;
      EXPECT_EQ(v.re, std::get<double>(want.value.value)) << n << " " << scale;
      EXPECT_NEAR(v.abs_error, want.value.abs_error, 1e-9 * want.value.abs_error) << n << " " << scale;
      // The kernel itself (not the engine behind it) counts these, here without the library's
      // fused multiply-adds: within both bounds.
      std::vector<double> re, im, g_re, g_im;
      for (const auto& x : a) re.push_back(x.real()), im.push_back(x.imag());
      for (const auto& x : g) g_re.push_back(x.real()), g_im.push_back(x.imag());
      std::vector<double> scratch(8 * 16 * 16 + ts::walk_doubles(16));
      const auto r = ts::torontonian<12>(re.data(), im.data(), n, scratch.data(), scratch.data() + 4 * 144,
                                         scratch.data() + 8 * 144, g_re.data(), g_im.data());
      if (r.status != ts::kDone) continue;  // a bound above 1e-3 of the value: the engine's retry
      ++kernel_counted;
      EXPECT_LE(std::fabs(r.value - v.re), r.error + v.abs_error) << n << " " << scale;
      // Without gamma the kernel counts the torontonian, which a displacement changes.
      const auto plain = ts::torontonian<12>(re.data(), im.data(), n, scratch.data(), scratch.data() + 4 * 144,
                                             scratch.data() + 8 * 144);
      EXPECT_GT(std::fabs(plain.value - r.value), r.error + plain.error) << n << " " << scale;
    }
  EXPECT_GT(kernel_counted, 20);
  // Left to the engine: a gamma that is not real in the x/p basis (complex arithmetic), a NaN.
  const auto a = dense_of(squeezed_o(3, 0.5, 0.1, 9));
  auto g = displacement(3, 0.3, 4);
  std::vector<double> re, im, g_re, g_im;
  for (const auto& x : a) re.push_back(x.real()), im.push_back(x.imag());
  g[4] += Complex(0, 0.5);
  for (const auto& x : g) g_re.push_back(x.real()), g_im.push_back(x.imag());
  std::vector<double> scratch(8 * 16 * 16 + ts::walk_doubles(16));
  EXPECT_EQ(ts::torontonian<8>(re.data(), im.data(), 3, scratch.data(), scratch.data() + 256, scratch.data() + 512, g_re.data(),
                               g_im.data())
                .status,
            ts::kRefer);
  const SmallDenseValue complex_basis =
      small_dense_loop_torontonian(a.data(), DenseElement::Complex128, 6, 6, 6, 1, g.data(), DenseElement::Complex128, 1);
  const AnyMatrix gm = column_of(g);
  EXPECT_EQ(complex_basis.re, std::get<double>(count_on(squeezed_o(3, 0.5, 0.1, 9), &gm, DevicePolicy::Cpu).value.value));
  g_re[2] = std::nan("");
  EXPECT_EQ(ts::torontonian<8>(re.data(), im.data(), 3, scratch.data(), scratch.data() + 256, scratch.data() + 512, g_re.data(),
                               g_im.data())
                .status,
            ts::kRefer);
}

TEST(SmallTorontonian, GpuBatchWithinTheCpusBounds) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  for (const int n : {1, 4, 8, 12, 16}) {
    const int k = 300, d = 2 * n;
    std::vector<double> re, im;
    std::vector<SmallDenseValue> cpu;
    for (int b = 0; b < k; ++b) {
      const auto a = dense_of(squeezed_o(n, 0.6, 0.1, 1000 + static_cast<std::uint64_t>(b)));
      for (const auto& x : a) re.push_back(x.real()), im.push_back(x.imag());
      cpu.push_back(small_dense_torontonian(a.data(), DenseElement::Complex128, d, d, d, 1));
    }
    re[3] = std::nan("");  // matrix 0 goes to the engine
    const std::vector<SmallDenseValue> gpu = gpu_dense_torontonians(re.data(), im.data(), n, k);
    ASSERT_EQ(gpu.size(), static_cast<std::size_t>(k));
    EXPECT_EQ(gpu[0].kind, SmallDenseValue::None);
    for (int b = 1; b < k; ++b) {
      ASSERT_EQ(gpu[static_cast<std::size_t>(b)].kind, cpu[static_cast<std::size_t>(b)].kind) << n << " " << b;
      const auto& g = gpu[static_cast<std::size_t>(b)];
      const auto& c = cpu[static_cast<std::size_t>(b)];
      EXPECT_LE(std::fabs(g.re - c.re), g.abs_error + c.abs_error) << n << " " << b;
      EXPECT_LE(g.abs_error, 1.01 * c.abs_error) << n << " " << b;
    }
  }
}

TEST(SmallTorontonian, GpuLoopBatchWithinTheCpusBounds) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  for (const int n : {1, 4, 8, 12, 16}) {
    const int k = 300, d = 2 * n;
    std::vector<double> re, im, g_re, g_im;
    std::vector<SmallDenseValue> cpu;
    for (int b = 0; b < k; ++b) {
      const auto a = dense_of(squeezed_o(n, 0.6, 0.1, 2000 + static_cast<std::uint64_t>(b)));
      const auto g = displacement(n, b % 2 ? 1.0 : 0.2, static_cast<std::uint64_t>(b));
      for (const auto& x : a) re.push_back(x.real()), im.push_back(x.imag());
      for (const auto& x : g) g_re.push_back(x.real()), g_im.push_back(x.imag());
      cpu.push_back(small_dense_loop_torontonian(a.data(), DenseElement::Complex128, d, d, d, 1, g.data(),
                                                 DenseElement::Complex128, 1));
    }
    g_re[1] = std::nan("");  // matrix 0 goes to the engine
    const std::vector<SmallDenseValue> gpu = gpu_dense_loop_torontonians(re.data(), im.data(), g_re.data(), g_im.data(), n, k);
    ASSERT_EQ(gpu.size(), static_cast<std::size_t>(k));
    EXPECT_EQ(gpu[0].kind, SmallDenseValue::None);
    int counted = 0;
    for (int b = 1; b < k; ++b) {
      const auto& g = gpu[static_cast<std::size_t>(b)];
      const auto& c = cpu[static_cast<std::size_t>(b)];
      if (g.kind == SmallDenseValue::None) continue;  // the engine's retry in long double (large gammas)
      ++counted;
      EXPECT_LE(std::fabs(g.re - c.re), g.abs_error + c.abs_error) << n << " " << b;
      // CUDA's exp is within one ulp where glibc's is within half: u more a term.
      EXPECT_LE(g.abs_error, 1.25 * c.abs_error) << n << " " << b;
    }
    EXPECT_GE(counted, (k - 1) / 2) << n;  // at least the small displacements'
  }
}

/// The command's outputs `got` and `want`, one value a line: k lines each, within 1e-9.
void expect_same_values(const std::string& got, const std::string& want, int k) {
  std::istringstream a(got), b(want);
  std::string x, y;
  int lines = 0;
  while (std::getline(a, x) && std::getline(b, y)) {
    EXPECT_NEAR(std::stod(x), std::stod(y), 1e-9 * std::fabs(std::stod(y)));
    ++lines;
  }
  EXPECT_EQ(lines, k) << "got:\n" << got << "want:\n" << want;
}

TEST(SmallTorontonian, CliLoopStacksPrintEachMatrixsValue) {
  // --torontonian with a stack and --gamma: one row of gamma a matrix, or one gamma for all
  // (a 1-D array), each value the single matrix's count bit for bit; wrong shapes are usage
  // errors naming both; on a GPU, the same values within the bounds.
  const int k = 5, n = 3, d = 2 * n;
  std::vector<std::complex<double>> os, gs;
  for (int b = 0; b < k; ++b) {
    const auto a = dense_of(squeezed_o(n, 0.6, 0.1, 500 + static_cast<std::uint64_t>(b)));
    const auto g = displacement(n, 0.8, static_cast<std::uint64_t>(b));
    os.insert(os.end(), a.begin(), a.end()), gs.insert(gs.end(), g.begin(), g.end());
  }
  const std::string shape = "(" + std::to_string(k) + ", " + std::to_string(d) + ", " + std::to_string(d) + ")";
  const std::string stack = test::temp_file(test::complex_npy(os, shape), ".npy");
  const std::string rows = test::temp_file(test::complex_npy(gs, "(" + std::to_string(k) + ", " + std::to_string(d) + ")"), ".npy");
  const std::vector<std::complex<double>> g0(gs.begin(), gs.begin() + d);
  const std::string one = test::temp_file(test::complex_npy(g0, "(" + std::to_string(d) + ",)"), ".npy");
  const auto by_rows = test::run_matchcount("--torontonian '" + stack + "' --gamma '" + rows + "' --device cpu");
  const auto shared = test::run_matchcount("--torontonian '" + stack + "' --gamma '" + one + "' --device cpu");
  ASSERT_EQ(by_rows.exit_code, 0) << by_rows.err;
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  std::string want_rows, want_shared;
  for (int b = 0; b < k; ++b) {
    const std::vector<std::complex<double>> o(os.begin() + b * d * d, os.begin() + (b + 1) * d * d);
    const std::vector<std::complex<double>> g(gs.begin() + b * d, gs.begin() + (b + 1) * d);
    const std::string of = test::temp_file(test::complex_npy(o, "(" + std::to_string(d) + ", " + std::to_string(d) + ")"), ".npy");
    const std::string gf = test::temp_file(test::complex_npy(g, "(" + std::to_string(d) + ",)"), ".npy");
    want_rows += test::run_matchcount("--torontonian '" + of + "' --gamma '" + gf + "'").out;
    want_shared += test::run_matchcount("--torontonian '" + of + "' --gamma '" + one + "'").out;
  }
  EXPECT_EQ(by_rows.out, want_rows);
  EXPECT_EQ(shared.out, want_shared);
  EXPECT_NE(by_rows.out, shared.out);
  const auto wrong = test::run_matchcount("--torontonian '" + stack + "' --gamma '" + stack + "'");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(wrong.out.empty());
  EXPECT_NE(wrong.err.find("5x6 (one row a matrix) or 6"), std::string::npos) << wrong.err;
  if (!gpu_available()) return;
  const auto gpu = test::run_matchcount("--torontonian '" + stack + "' --gamma '" + rows + "' --device gpu");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  expect_same_values(gpu.out, by_rows.out, k);
}

TEST(SmallTorontonian, CliStacksGoToTheGpuByDefaultOnlyWhereThatPaysForTheContext) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  // 300 torontonians of 8 modes take milliseconds on the CPU: by default the command keeps them
  // there; with MATCHCOUNT_GPU_STACK_SECONDS=0 (any CPU time is enough) the GPU counts them.
  const int k = 300, n = 8, d = 2 * n;
  std::vector<std::complex<double>> os;
  for (int b = 0; b < k; ++b) {
    const auto a = dense_of(squeezed_o(n, 0.6, 0.1, 700 + static_cast<std::uint64_t>(b % 20)));
    os.insert(os.end(), a.begin(), a.end());
  }
  const std::string stack = test::temp_file(
      test::complex_npy(os, "(" + std::to_string(k) + ", " + std::to_string(d) + ", " + std::to_string(d) + ")"), ".npy");
  const auto cpu = test::run_matchcount_under("MATCHCOUNT_GPU_VERBOSE=1", "--torontonian '" + stack + "'");
  const auto gpu = test::run_matchcount_under("MATCHCOUNT_GPU_VERBOSE=1 MATCHCOUNT_GPU_STACK_SECONDS=0", "--torontonian '" + stack + "'");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(cpu.err.find("gpu-torontonian batch"), std::string::npos) << cpu.err;
  EXPECT_NE(gpu.err.find("gpu-torontonian batch"), std::string::npos) << gpu.err;
  expect_same_values(gpu.out, cpu.out, k);
}

TEST(GpuTorontonian, RefusesWhatIsNotPositiveDefinite) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  SparseMatrix<Complex> o = squeezed_o(27, 0.8, 0.3, 3);
  for (auto& e : o.entries)
    if (e.row == e.col && e.row == 40) e.value = 1.5;  // I - O has a negative diagonal entry
  EXPECT_THROW(count_on(o, nullptr, DevicePolicy::Gpu), RefusedError);
}

}  // namespace
}  // namespace matchcount
