// GPU batches of small float hafnians walked one (matrix, vertex order) a thread
// (haf_lanes.cu) against the same batches as channels of the big hafnian's walk and against
// the CPU hafnian engine; closed forms where the floats are exact; and the same bits however
// a batch's size splits a matrix's leaf pairs over lanes. The device tests skip without a CUDA
// device (CI); the roots' layout and the channel sums need none.
// The complete graphs matter: every vertex order of J is J, so the float walks' estimate (their
// spread) is no check there, and a wrong term shows in the value itself.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "catalog/catalog.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "core/tuning.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/small_dense.hpp"
#include "tuning_helpers.hpp"

using namespace matchcount;
using matchcount::test::tuning_with;
using matchcount::test::with_tuning;

namespace {

/// k random symmetric n x n matrices, entries uniform in (-0.3, 0.3) (imaginary parts too).
void symmetric_batch(int n, int k, bool cplx, std::mt19937_64& rng, std::vector<double>& re, std::vector<double>& im) {
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  re.assign(static_cast<std::size_t>(k * n * n), 0.0);
  im.assign(cplx ? re.size() : 0, 0.0);
  for (int b = 0; b < k; ++b)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        const double x = u(rng), y = u(rng);
        for (const int at : {b * n * n + i * n + j, b * n * n + j * n + i}) {
          re[static_cast<std::size_t>(at)] = x;
          if (cplx) im[static_cast<std::size_t>(at)] = y;
        }
      }
}

Complex value_of(const SmallDenseValue& v) { return Complex(v.re, v.im); }

}  // namespace

TEST(GpuHafnianLanes, AgreeWithTheWalkAndTheCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1), walk = tuning_with(&tuning::Tuning::haf_batch, 2);
  const auto cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(41);
  int checked = 0;
  for (const int n : {2, 3, 5, 8, 13, 16, 21, 24, 32})
    for (const bool cplx : {false, true})
      for (const bool loops : {false, true}) {
        if (n % 2 == 1 && !loops) continue;  // zero
        const int k = n >= 24 ? 9 : 37;      // not a multiple of a warp's lanes
        std::vector<double> re, im;
        symmetric_batch(n, k, cplx, rng, re, im);
        const double* pim = cplx ? im.data() : nullptr;
        const auto by_lanes = with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), pim, n, k, loops); });
        const auto by_walk = with_tuning(walk, [&] { return gpu_dense_hafnians(re.data(), pim, n, k, loops); });
        ASSERT_EQ(by_lanes.size(), static_cast<std::size_t>(k));
        for (int b = 0; b < k; ++b) {
          const SmallDenseValue &x = by_lanes[static_cast<std::size_t>(b)], &y = by_walk[static_cast<std::size_t>(b)];
          EXPECT_EQ(x.kind, cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real);
          // Against the others' estimates only: a wrong walk in one vertex order would widen
          // the lanes' own estimate (the spread of the orders) and hide itself.
          EXPECT_LE(std::abs(value_of(x) - value_of(y)), 4 * y.abs_error)
              << "n=" << n << " cplx=" << cplx << " loops=" << loops << " b=" << b;
          if (b % 4 != 0) continue;
          SparseMatrix<Complex> m{n, n, {}};
          for (int e = 0; e < n * n; ++e) {
            const std::size_t at = static_cast<std::size_t>(b * n * n + e);
            m.entries.push_back({e / n, e % n, Complex(re[at], cplx ? im[at] : 0.0)});
          }
          const Approx<Complex> want = cpu->hafnian(m, loops, {});
          EXPECT_LE(std::abs(value_of(x) - want.value), want.abs_error + y.abs_error)
              << "n=" << n << " cplx=" << cplx << " loops=" << loops << " b=" << b;
          ++checked;
        }
      }
  EXPECT_GT(checked, 200);
}

TEST(GpuHafnianLanes, CompleteGraphsGiveTheirDoubleFactorials) {
  // haf(J - I) of K_n is (n - 1)!!, and with loops of 1 the loop hafnian of J is the number of
  // matchings of K_n (the telephone numbers): integers the walks hold exactly in doubles.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1);
  for (const int n : {4, 12, 20, 24}) {
    double df = 1, tel_prev = 1, tel = 1;  // telephone numbers: T(i) = T(i-1) + (i-1) T(i-2)
    for (int i = n - 1; i > 1; i -= 2) df *= i;
    for (int i = 2; i <= n; ++i) {
      const double next = tel + (i - 1) * tel_prev;
      tel_prev = tel, tel = next;
    }
    for (const bool cplx : {false, true}) {
      std::vector<double> re(static_cast<std::size_t>(n * n), 1.0), im(cplx ? re.size() : 0, 0.0);
      std::vector<double> zero_diag = re;
      for (int i = 0; i < n; ++i) zero_diag[static_cast<std::size_t>(i * n + i)] = 0.0;
      const double* pim = cplx ? im.data() : nullptr;
      const auto haf = with_tuning(lanes, [&] { return gpu_dense_hafnians(zero_diag.data(), pim, n, 1, false); });
      const auto lhaf = with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), pim, n, 1, true); });
      EXPECT_EQ(haf[0].re, df) << n;
      EXPECT_EQ(haf[0].im, 0.0) << n;
      EXPECT_EQ(lhaf[0].re, tel) << n;
    }
  }
}

TEST(GpuHafnianLanes, TheBitsDoNotDependOnTheBatch) {
  // A batch's size sets how many lanes split a matrix's leaf pairs; the leaves are summed in
  // fixed point, so a matrix alone and among 3000 copies of itself (the same fixed-point
  // exponent, which the batch's largest matrix sets) gives the same bits.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1);
  std::mt19937_64 rng(43);
  for (const int n : {14, 22})
    for (const bool cplx : {false, true}) {
      const int k = 3000;
      std::vector<double> re1, im1;
      symmetric_batch(n, 1, cplx, rng, re1, im1);
      std::vector<double> re, im;
      for (int b = 0; b < k; ++b) {
        re.insert(re.end(), re1.begin(), re1.end());
        im.insert(im.end(), im1.begin(), im1.end());
      }
      const auto all = with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), cplx ? im.data() : nullptr, n, k, true); });
      const auto one = with_tuning(lanes, [&] { return gpu_dense_hafnians(re1.data(), cplx ? im1.data() : nullptr, n, 1, true); });
      for (const int b : {0, 1234, k - 1}) {
        EXPECT_EQ(one[0].re, all[static_cast<std::size_t>(b)].re) << n << " " << b;
        EXPECT_EQ(one[0].im, all[static_cast<std::size_t>(b)].im) << n << " " << b;
        EXPECT_EQ(one[0].abs_error, all[static_cast<std::size_t>(b)].abs_error) << n << " " << b;
      }
    }
}


TEST(GpuHafnianLanes, LaneRootsHoldTheWalksRootValues) {
  // The lanes' compact root and append_haf_root's coefficient rows hold the same values, the
  // padding vertex of an odd loop block included (no device needed).
  for (const int n0 : {5, 6})
    for (const int W : {1, 2}) {
      const int n = n0 + n0 % 2, E = n * (n - 1) / 2, L = n, R = gpu::haf_stride(n / 2), P = gpu::kHafPad;
      const auto value = [](int i, int j, int w) { return 100.0 * i + j + 0.5 * w + 1; };
      std::vector<double> walk, lanes(gpu::HafLaneJob::root_values(n, true) * static_cast<std::size_t>(W));
      gpu::append_haf_root(walk, n0, true, W, value);
      gpu::write_lane_root(lanes.data(), n0, true, W, value);
      for (int e = 0; e < E; ++e)
        for (int w = 0; w < W; ++w)
          EXPECT_EQ(lanes[static_cast<std::size_t>(e * W + w)], walk[static_cast<std::size_t>(((P + 1) * E + e) * W + w)]) << n0 << " " << e;
      for (int i = 0; i < L; ++i)
        for (int w = 0; w < W; ++w)
          EXPECT_EQ(lanes[static_cast<std::size_t>((E + i) * W + w)], walk[static_cast<std::size_t>((R * E + P * L + i) * W + w)]) << n0 << " " << i;
    }
}

TEST(GpuHafnianLanes, ChannelSumsCarryWithinEachNumber) {
  // A complex channel's words are two 512-bit numbers: -1 + 1 carries out of the real part,
  // and nothing of it reaches the imaginary part (no device needed).
  std::vector<std::uint64_t> total(16, 0), one(16, 0);
  for (int i = 0; i < 8; ++i) total[static_cast<std::size_t>(i)] = ~0ULL;  // re = -1, im = 0
  one[0] = 1, one[8] = 1;                                                 // re = 1, im = 1
  gpu::add_channel(gpu::HafArith::Complex, 0, total.data(), one.data());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(total[static_cast<std::size_t>(i)], i == 8 ? 1u : 0u) << i;
  std::vector<std::uint64_t> real(8, 0), minus(8, ~0ULL);
  real[0] = 5;
  gpu::add_channel(gpu::HafArith::Real, 0, real.data(), minus.data());  // 5 - 1
  EXPECT_EQ(real[0], 4u);
  for (int i = 1; i < 8; ++i) EXPECT_EQ(real[static_cast<std::size_t>(i)], 0u);
}
