// The complex float walk's error estimate on a Gaussian-boson-sampling-like matrix, checked
// against the exact hafnian of the same matrix: B = U diag(tanh r) U^T (U from a complex
// Gaussian matrix by Gram-Schmidt), rounded to Gaussian integers G times 2^-k, so A = G 2^-k is
// the float input exactly and haf(A) = haf(G) 2^(-k n/2). haf(G) is computed exactly on the GPU
// modulo primes p = 1 (mod 4), where i has square roots +-r: the walks with i -> r and
// i -> -r give Re + r Im and Re - r Im, hence Re and Im modulo p, then CRT.
// MATCHCOUNT_GBS_N sets n (default 30; docs/benchmarks.md has n = 50). Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "catalog/catalog.hpp"
#include "core/arith.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/gpu.hpp"

using namespace matchcount;

namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

u64 pow_mod(u64 a, u64 e, u64 p) {
  u64 r = 1;
  for (a %= p; e; e >>= 1, a = static_cast<u64>(static_cast<u128>(a) * a % p))
    if (e & 1) r = static_cast<u64>(static_cast<u128>(r) * a % p);
  return r;
}

/// B = U diag(t) U^T for a random unitary U (Gram-Schmidt of a complex Gaussian matrix).
std::vector<Complex> gbs_matrix(int n, double squeezing, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<Complex> u(static_cast<std::size_t>(n * n));
  for (auto& x : u) x = Complex(g(rng), g(rng));
  auto at = [&](int i, int j) -> Complex& { return u[static_cast<std::size_t>(i * n + j)]; };
  for (int c = 0; c < n; ++c) {
    for (int p = 0; p < c; ++p) {
      Complex dot = 0;
      for (int i = 0; i < n; ++i) dot += std::conj(at(i, p)) * at(i, c);
      for (int i = 0; i < n; ++i) at(i, c) -= dot * at(i, p);
    }
    double norm = 0;
    for (int i = 0; i < n; ++i) norm += std::norm(at(i, c));
    for (int i = 0; i < n; ++i) at(i, c) /= std::sqrt(norm);
  }
  std::vector<Complex> b(static_cast<std::size_t>(n * n));
  const double t = std::tanh(squeezing);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      Complex s = 0;
      for (int k = 0; k < n; ++k) s += at(i, k) * t * at(j, k);
      b[static_cast<std::size_t>(i * n + j)] = s;
    }
  return b;
}

/// The exact hafnian of the Gaussian-integer matrix (re, im), n even, on the GPU.
std::complex<Integer> gaussian_hafnian(int n, const std::vector<long>& re, const std::vector<long>& im) {
  SparseMatrix<Integer> mag;  // |re| + |im| >= |z|: its bound covers Re and Im
  mag.rows = mag.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) mag.entries.push_back({i, j, Integer(std::labs(re[i * n + j]) + std::labs(im[i * n + j]))});
  mag.normalize();
  const Integer need = 2 * hafnian_bound(mag, false) + 1;
  const int bits = engines::haf::prime_bits(n / 2);
  std::vector<u64> primes, roots;
  Integer product = 1;
  for (u64 p = (u64{1} << bits) - 3; product <= need; p -= 4) {  // p = 1 (mod 4)
    if (!is_prime(p)) continue;
    u64 r = 0;
    for (u64 a = 2; r == 0; ++a) {
      const u64 c = pow_mod(a, (p - 1) / 4, p);
      if (static_cast<u128>(c) * c % p == p - 1) r = c;
    }
    primes.push_back(p), roots.push_back(r);
    product *= Integer(static_cast<unsigned long>(p));
  }
  gpu::HafJob job;
  job.n = n;
  job.walk_fmas = engines::hafnian_work(n, false);
  job.tag = "test/gaussian";
  gpu::HafGroup g;
  g.channels = 2 * primes.size();
  for (std::size_t k = 0; k < primes.size(); ++k)
    for (int sign : {1, -1}) {
      const auto p = static_cast<long double>(primes[k]);
      const long double r = sign > 0 ? roots[k] : primes[k] - roots[k];
      gpu::append_haf_root(g.roots, n, false, 1, [&](int i, int j, int) {
        long double v = std::fmod(re[i * n + j] + r * std::fmod(static_cast<long double>(im[i * n + j]), p), p);
        if (v < 0) v += p;
        return static_cast<double>(v > p / 2 ? v - p : v);
      });
      g.prime.push_back(static_cast<double>(primes[k]));
      g.pinv.push_back(1.0 / static_cast<double>(primes[k]));
    }
  job.groups.push_back(g);
  const gpu::HafResult res = gpu::run_hafnian_walk(job);
  std::vector<u64> re_mod, im_mod;
  for (std::size_t k = 0; k < primes.size(); ++k) {
    const u64 p = primes[k], v1 = res.words[2 * k], v2 = res.words[2 * k + 1];
    const u64 inv2 = (p + 1) / 2, inv2r = pow_mod(2 * roots[k] % p, p - 2, p);
    re_mod.push_back(static_cast<u64>(static_cast<u128>(v1 + v2) % p * inv2 % p));
    im_mod.push_back(static_cast<u64>(static_cast<u128>((v1 + p - v2) % p) * inv2r % p));
  }
  return {crt_symmetric(re_mod, primes), crt_symmetric(im_mod, primes)};
}

double times_pow2(const Integer& x, long e) {
  long ex = 0;
  const double d = mpz_get_d_2exp(&ex, x.get_mpz_t());
  return std::ldexp(d, static_cast<int>(ex + e));
}

}  // namespace

TEST(GpuHafnian, ComplexEstimateCoversTheExactValueOfAGbsMatrix) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const char* env = std::getenv("MATCHCOUNT_GBS_N");
  const int n = env ? std::atoi(env) : 30, k = 24;
  const std::vector<Complex> b = gbs_matrix(n, 1.0, 11);
  std::vector<long> re(b.size()), im(b.size());
  SparseMatrix<Complex> a;
  a.rows = a.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::size_t e = static_cast<std::size_t>(i * n + j);
      re[e] = std::lround(std::ldexp(b[e].real(), k)), im[e] = std::lround(std::ldexp(b[e].imag(), k));
      if (i != j) a.entries.push_back({i, j, Complex(std::ldexp(double(re[e]), -k), std::ldexp(double(im[e]), -k))});
    }
  a.normalize();
  const std::complex<Integer> h = gaussian_hafnian(n, re, im);
  const Complex exact(times_pow2(h.real(), -long(k) * n / 2), times_pow2(h.imag(), -long(k) * n / 2));
  EngineStats stats;
  EngineOptions o;
  o.stats = &stats;
  const auto r = make_graph_engine("gpu-hafnian")->hafnian(a, false, o);
  const double err = std::abs(r.value - exact);
  std::printf("GBS-like n = %d: haf = (%.17g, %.17g), error %.3g, estimate %.3g, |haf| %.3g\n", n, r.value.real(),
              r.value.imag(), err, r.abs_error, std::abs(exact));
  EXPECT_EQ(stats.device, "gpu");
  EXPECT_LE(err, r.abs_error);
}
