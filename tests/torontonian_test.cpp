// Torontonians (count_torontonian, --torontonian): closed forms of Gaussian states, the direct
// subset sum in long double on random Hermitian positive definite I - O, the loop torontonian,
// and the refusals (not Hermitian, not positive definite, cancelling beyond double precision).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "engines/torontonian/cuda/tor_gpu_job.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using LComplex = std::complex<long double>;

/// A dense 2n x 2n matrix as an AnyMatrix (complex unless every imaginary part is 0).
AnyMatrix matrix_of(const std::vector<Complex>& o, int d, bool complex_kind) {
  if (complex_kind) {
    SparseMatrix<Complex> m{d, d, {}};
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c)
        if (o[static_cast<std::size_t>(r * d + c)] != 0.0) m.entries.push_back({r, c, o[static_cast<std::size_t>(r * d + c)]});
    return m;
  }
  SparseMatrix<double> m{d, d, {}};
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c)
      if (o[static_cast<std::size_t>(r * d + c)] != 0.0) m.entries.push_back({r, c, o[static_cast<std::size_t>(r * d + c)].real()});
  return m;
}

AnyMatrix complex_column_of(const std::vector<Complex>& v) {
  SparseMatrix<Complex> m{static_cast<int>(v.size()), 1, {}};
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0.0) m.entries.push_back({static_cast<int>(i), 0, v[i]});
  return m;
}

/// The direct sum over subsets, each determinant and solve by Gaussian elimination with partial
/// pivoting in long double, and the sum of |terms| (the oracle's own error scale).
long double direct(const std::vector<Complex>& o, int n, const std::vector<Complex>& gamma, long double& abs_sum) {
  const int d = 2 * n;
  long double total = 0;
  abs_sum = 0;
  for (std::uint32_t z = 0; z < (1u << n); ++z) {
    std::vector<int> idx;
    for (int i = 0; i < n; ++i)
      if ((z >> i) & 1) idx.push_back(i);
    for (int i = 0; i < n; ++i)
      if ((z >> i) & 1) idx.push_back(i + n);
    const int k = static_cast<int>(idx.size());
    std::vector<LComplex> a(static_cast<std::size_t>(k * (k + 1)));
    for (int r = 0; r < k; ++r) {
      for (int c = 0; c < k; ++c)
        a[static_cast<std::size_t>(r * (k + 1) + c)] =
            LComplex(r == c ? 1 : 0) - LComplex(o[static_cast<std::size_t>(idx[r] * d + idx[c])]);
      a[static_cast<std::size_t>(r * (k + 1) + k)] = gamma.empty() ? 0 : LComplex(std::conj(gamma[static_cast<std::size_t>(idx[r])]));
    }
    LComplex det = 1;
    for (int c = 0; c < k; ++c) {  // elimination with the right-hand side v = conj(gamma_Z) beside
      int p = c;
      for (int r = c + 1; r < k; ++r)
        if (std::abs(a[static_cast<std::size_t>(r * (k + 1) + c)]) > std::abs(a[static_cast<std::size_t>(p * (k + 1) + c)])) p = r;
      if (p != c) {
        for (int j = 0; j <= k; ++j) std::swap(a[static_cast<std::size_t>(p * (k + 1) + j)], a[static_cast<std::size_t>(c * (k + 1) + j)]);
        det = -det;
      }
      const LComplex piv = a[static_cast<std::size_t>(c * (k + 1) + c)];
      det *= piv;
      for (int r = c + 1; r < k; ++r) {
        const LComplex f = a[static_cast<std::size_t>(r * (k + 1) + c)] / piv;
        for (int j = c; j <= k; ++j) a[static_cast<std::size_t>(r * (k + 1) + j)] -= f * a[static_cast<std::size_t>(c * (k + 1) + j)];
      }
    }
    long double t = 1 / std::sqrt(std::abs(det));
    if (!gamma.empty()) {  // x = M^-1 v by back substitution; q = gamma^T x
      std::vector<LComplex> x(static_cast<std::size_t>(k));
      for (int r = k - 1; r >= 0; --r) {
        LComplex s = a[static_cast<std::size_t>(r * (k + 1) + k)];
        for (int j = r + 1; j < k; ++j) s -= a[static_cast<std::size_t>(r * (k + 1) + j)] * x[static_cast<std::size_t>(j)];
        x[static_cast<std::size_t>(r)] = s / a[static_cast<std::size_t>(r * (k + 1) + r)];
      }
      LComplex q = 0;
      for (int r = 0; r < k; ++r) q += LComplex(gamma[static_cast<std::size_t>(idx[r])]) * x[static_cast<std::size_t>(r)];
      t *= std::exp(0.5L * q.real());
    }
    total += ((n - k / 2) % 2 ? -t : t);
    abs_sum += t;
  }
  return total;
}

/// A random O with I - O Hermitian and its eigenvalues in [0.3, 1.7] (Gershgorin).
std::vector<Complex> random_o(std::mt19937_64& rng, int n, bool complex_kind) {
  const int d = 2 * n;
  std::normal_distribution<double> g;
  std::vector<Complex> h(static_cast<std::size_t>(d * d));
  for (int r = 0; r < d; ++r)
    for (int c = 0; c <= r; ++c) {
      const Complex x = r == c ? Complex(g(rng)) : Complex(g(rng), complex_kind ? g(rng) : 0.0);
      h[static_cast<std::size_t>(r * d + c)] = x;
      h[static_cast<std::size_t>(c * d + r)] = std::conj(x);
    }
  double most = 0;
  for (int r = 0; r < d; ++r) {
    double row = 0;
    for (int c = 0; c < d; ++c) row += std::abs(h[static_cast<std::size_t>(r * d + c)]);
    most = std::max(most, row);
  }
  for (auto& x : h) x *= 0.7 / most;
  return h;
}

TEST(Torontonian, ClosedFormsOfGaussianStates) {
  // Single-mode squeezers with phases: O = [[0, t e^{i phi}], [t e^{-i phi}, 0]] per mode; the
  // product of cosh r_i - 1.
  const std::vector<double> r = {0.3, 0.8, 1.1};
  const int n = 3, d = 6;
  std::vector<Complex> o(36, 0.0);
  long double want = 1;
  for (int i = 0; i < n; ++i) {
    const Complex x = std::tanh(r[static_cast<std::size_t>(i)]) * std::polar(1.0, 0.7 * i);
    o[static_cast<std::size_t>(i * d + i + n)] = x;
    o[static_cast<std::size_t>((i + n) * d + i)] = std::conj(x);
    want *= std::cosh(static_cast<long double>(r[static_cast<std::size_t>(i)])) - 1;
  }
  auto v = count_torontonian(matrix_of(o, d, true), nullptr).value;
  EXPECT_LE(std::fabs(std::get<double>(v.value) - static_cast<double>(want)), v.abs_error);
  EXPECT_FALSE(v.error_estimated);
  // Thermal states: O = n/(n+1) I per mode, the product of the mean photon numbers.
  std::vector<Complex> th(36, 0.0);
  for (int i = 0; i < d; ++i) th[static_cast<std::size_t>(i * d + i)] = (0.5 + i % 3) / (1.5 + i % 3);
  v = count_torontonian(matrix_of(th, d, false), nullptr).value;
  EXPECT_LE(std::fabs(std::get<double>(v.value) - 0.5 * 1.5 * 2.5), v.abs_error);
  // Two-mode squeezed vacuum: sinh^2 r.
  const double t = std::tanh(0.9);
  std::vector<Complex> tm(16, 0.0);
  tm[3] = tm[12] = tm[6] = tm[9] = t;
  v = count_torontonian(matrix_of(tm, 4, false), nullptr).value;
  EXPECT_LE(std::fabs(std::get<double>(v.value) - std::pow(std::sinh(0.9), 2)), v.abs_error);
  // The loop torontonian of O = 0: prod_i (e^{(|g_i|^2 + |g_{i+n}|^2) / 2} - 1).
  const std::vector<Complex> gamma = {Complex(0.3, 0.1), 0.5, Complex(0, -0.2), Complex(0.3, -0.1), 0.5, Complex(0, 0.2)};
  long double loop_want = 1;
  for (int i = 0; i < n; ++i)
    loop_want *= std::expm1(0.5L * (std::norm(gamma[static_cast<std::size_t>(i)]) + std::norm(gamma[static_cast<std::size_t>(i + n)])));
  const AnyMatrix g = complex_column_of(gamma);
  v = count_torontonian(matrix_of(std::vector<Complex>(36, 0.0), d, false), &g).value;
  EXPECT_LE(std::fabs(std::get<double>(v.value) - static_cast<double>(loop_want)), v.abs_error);
}

TEST(Torontonian, RandomInputsAgainstTheDirectSumWithinTheBound) {
  std::mt19937_64 rng(21);
  int counted = 0;
  for (int trial = 0; trial < 160; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 6);
    const bool cplx = trial % 2;
    const std::vector<Complex> o = random_o(rng, n, cplx);
    std::vector<Complex> gamma;
    if (trial % 3 == 0) {
      std::normal_distribution<double> g(0, 0.4);
      for (int i = 0; i < 2 * n; ++i) gamma.emplace_back(g(rng), cplx ? g(rng) : 0.0);
    }
    long double abs_sum = 0;
    const long double want = direct(o, n, gamma, abs_sum);
    const AnyMatrix gm = complex_column_of(gamma);
    try {
      const auto v = count_torontonian(matrix_of(o, 2 * n, cplx), gamma.empty() ? nullptr : &gm).value;
      const double got = std::get<double>(v.value);
      EXPECT_LE(std::fabs(got - static_cast<double>(want)), v.abs_error + 1e-17 * static_cast<double>(abs_sum))
          << "trial " << trial << " n " << n << " got " << got << " want " << static_cast<double>(want);
      EXPECT_LT(v.abs_error, std::fabs(got));
      ++counted;
    } catch (const RefusedError& e) {
      // Only where the terms cancel far below their size.
      EXPECT_GT(abs_sum, 1e6L * std::fabs(want)) << e.what();
    }
  }
  EXPECT_GT(counted, 120);
}

/// O = P diag(o) P^* with P a random unitary (real orthogonal unless complex_kind, by
/// Gram-Schmidt) and o in [0.3, 0.8]: positive semidefinite below 1, as a Gaussian state's, so
/// the terms grow with |Z| and the sum does not cancel to nothing.
std::vector<Complex> gaussian_like_o(std::mt19937_64& rng, int n, bool complex_kind) {
  const int d = 2 * n;
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0.3, 0.8);
  std::vector<Complex> p(static_cast<std::size_t>(d * d));
  for (auto& x : p) x = Complex(g(rng), complex_kind ? g(rng) : 0.0);
  for (int i = 0; i < d; ++i) {
    Complex* row = &p[static_cast<std::size_t>(i * d)];
    for (int j = 0; j < i; ++j) {
      const Complex* q = &p[static_cast<std::size_t>(j * d)];
      Complex dot = 0;
      for (int k = 0; k < d; ++k) dot += row[k] * std::conj(q[k]);
      for (int k = 0; k < d; ++k) row[k] -= dot * q[k];
    }
    double norm = 0;
    for (int k = 0; k < d; ++k) norm += std::norm(row[k]);
    for (int k = 0; k < d; ++k) row[k] /= std::sqrt(norm);
  }
  std::vector<double> o(static_cast<std::size_t>(d));
  for (auto& x : o) x = u(rng);
  std::vector<Complex> out(static_cast<std::size_t>(d * d), 0.0);
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c)
      for (int k = 0; k < d; ++k)
        out[static_cast<std::size_t>(r * d + c)] += std::conj(p[static_cast<std::size_t>(k * d + r)]) * o[static_cast<std::size_t>(k)] * p[static_cast<std::size_t>(k * d + c)];
  return out;
}

TEST(Torontonian, WorkUnitsWithRootsAgainstTheDirectSum) {
  // From 15 modes on, a CPU unit's root eliminates the first modes it includes.
  std::mt19937_64 rng(5);
  for (const bool cplx : {false, true}) {
    const int n = 15;
    const std::vector<Complex> o = gaussian_like_o(rng, n, cplx);
    std::vector<Complex> gamma;
    std::normal_distribution<double> g(0, 0.3);
    for (int i = 0; i < 2 * n && cplx; ++i) gamma.emplace_back(g(rng), g(rng));
    long double abs_sum = 0;
    const long double want = direct(o, n, gamma, abs_sum);
    const AnyMatrix gm = complex_column_of(gamma);
    const auto v = count_torontonian(matrix_of(o, 2 * n, cplx), gamma.empty() ? nullptr : &gm).value;
    const double got = std::get<double>(v.value);
    EXPECT_LE(std::fabs(got - static_cast<double>(want)), v.abs_error + 1e-17 * static_cast<double>(abs_sum)) << cplx;
    EXPECT_LT(v.abs_error, 1e-3 * std::fabs(got)) << cplx;
  }
}

TEST(Torontonian, ExactSumsOfDoublesInAnyOrder) {
  // The GPU walk adds its units' sums exactly: any order gives the same bits, and the total
  // is the exact sum.
  std::mt19937_64 rng(9);
  std::vector<double> xs;
  for (int i = 0; i < 400; ++i) {
    const double m = std::ldexp(static_cast<double>(rng() >> 11), -53);
    const int e = static_cast<int>(rng() % 40) - 20;
    xs.push_back((rng() % 2 ? -1 : 1) * std::ldexp(m, e));
  }
  xs.push_back(1e300), xs.push_back(-1e300), xs.push_back(5e-324), xs.push_back(-0x1p-1060);
  std::vector<std::uint64_t> a(gpu::kExactLimbs, 0), b(gpu::kExactLimbs, 0), half(gpu::kExactLimbs, 0);
  for (double x : xs) gpu::exact_add(a.data(), x);
  for (std::size_t i = xs.size(); i-- > 0;) (i % 2 ? gpu::exact_add(b.data(), xs[i]) : gpu::exact_add(half.data(), xs[i]));
  gpu::exact_merge(b.data(), half.data());
  EXPECT_EQ(a, b);
  // A sum known exactly, and every term taken away again.
  std::vector<std::uint64_t> c(gpu::kExactLimbs, 0);
  gpu::exact_add(c.data(), 1.5), gpu::exact_add(c.data(), -0.25), gpu::exact_add(c.data(), -3.0);
  std::vector<std::uint64_t> want(gpu::kExactLimbs, 0);
  gpu::exact_add(want.data(), -1.75);
  EXPECT_EQ(c, want);
  std::vector<std::uint64_t> zero(gpu::kExactLimbs, 0), d(gpu::kExactLimbs, 0);
  for (double x : xs) gpu::exact_add(d.data(), x);
  for (double x : xs) gpu::exact_add(d.data(), -x);
  EXPECT_EQ(d, zero);
}

TEST(Torontonian, RefusalsAndUsageErrors) {
  std::vector<Complex> o(16, 0.0);
  o[1] = 0.3;  // I - O not Hermitian
  EXPECT_THROW(count_torontonian(matrix_of(o, 4, false), nullptr), RefusedError);
  std::vector<Complex> big(16, 0.0);
  for (int i = 0; i < 4; ++i) big[static_cast<std::size_t>(i * 5)] = 2.0;  // I - O = -I
  EXPECT_THROW(count_torontonian(matrix_of(big, 4, false), nullptr), RefusedError);
  const std::string path = test::temp_file("%%MatrixMarket matrix array real general\n2 2\n0\n0.5\n0.5\n0\n", ".mtx");
  auto r = test::run_matchcount("--torontonian '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 1 / std::sqrt(0.75) - 1, 1e-15);
  EXPECT_EQ(r.err.find("--exact"), std::string::npos) << r.err;
  for (const std::string bad : {"--gamma x.mtx", "--torontonian --hafnian", "--torontonian --estimate",
                                "--torontonian --exact", "--torontonian --engine ryser", "--torontonian --log"}) {
    r = test::run_matchcount(bad + " '" + path + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
  }
  const std::string odd = test::temp_file("%%MatrixMarket matrix array real general\n3 3\n0\n0\n0\n0\n0\n0\n0\n0\n0\n", ".mtx");
  EXPECT_EQ(test::run_matchcount("--torontonian '" + odd + "'").exit_code, 2);
}

}  // namespace
}  // namespace matchcount
