// GPU batches of small float hafnians walked one (matrix, vertex order) a thread
// (haf_lanes.cu) against the same batches as channels of the big hafnian's walk and against
// the CPU hafnian engine; closed forms where the floats are exact; and the same bits however
// a batch's size splits a matrix's leaf pairs over lanes. The device tests skip without a CUDA
// device (CI); the roots' layout and the channel sums need none.
// The complete graphs matter: every vertex order of J is J, so the float walks' estimate (their
// spread) is no check there, and a wrong term shows in the value itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <complex>
#include <random>

#include "catalog/catalog.hpp"
#include "engines/hafnian/cuda/haf_gpu_job.hpp"
#include "engines/hafnian/gpu_haf_common.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "core/tuning.hpp"
#include "matchcount/error.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/small_dense.hpp"
#include "lane_job_helpers.hpp"
#include "symmetric_helpers.hpp"
#include "tuning_helpers.hpp"

using namespace matchcount;
using matchcount::test::tuning_with;
using matchcount::test::with_tuning;
using matchcount::test::symmetric_helpers::stack_matrix;
using matchcount::test::symmetric_helpers::symmetric_stack;

namespace {

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
        symmetric_stack(n, k, cplx, rng, re, im);
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
          const Approx<Complex> want = cpu->hafnian(stack_matrix(re, im, n, b), loops, {});
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
      symmetric_stack(n, 1, cplx, rng, re1, im1);
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


TEST(GpuHafnianLanes, AStopBetweenJobsLeavesTheNextBatchWhole) {
  // A batch of several jobs stopped between them throws Interrupted, and the next batch,
  // reusing the page-locked roots the process kept, gives the values of a batch that was never
  // stopped.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1);
  std::mt19937_64 rng(61);
  const int n = 10, k = 3 * 4096 + 5;
  std::vector<double> re, im;
  symmetric_stack(n, k, true, rng, re, im);
  int asked = 0;
  const auto stop_second = [&] { return ++asked == 2; };
  EXPECT_THROW(with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), im.data(), n, k, false, stop_second); }),
               Interrupted);
  const auto all = with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), im.data(), n, k, false); });
  ASSERT_EQ(all.size(), static_cast<std::size_t>(k));
  for (const int b : {0, 4095, 4096, 8191, 8192, k - 1}) {
    const auto one = with_tuning(lanes, [&] {
      return gpu_dense_hafnians(&re[static_cast<std::size_t>(b * n * n)], &im[static_cast<std::size_t>(b * n * n)], n, 1, false);
    });
    // Alone, a matrix sets its own fixed-point exponent: the values agree within the estimates.
    EXPECT_LE(std::abs(value_of(one[0]) - value_of(all[static_cast<std::size_t>(b)])), one[0].abs_error + all[static_cast<std::size_t>(b)].abs_error) << b;
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

TEST(GpuHafnianLanes, TheModuliWalkCarriesTheEntriesErrors) {
  // Blocks whose entries carry errors walk |A| too (the fourth order, on the device's moduli of
  // the entries), and their estimates hold what those errors move: the CPU engine's, to the
  // rounding of the walks.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  const auto cpu = make_graph_engine("hafnian");
  std::mt19937_64 rng(47);
  EngineOptions opt;
  opt.entry_error = [](const Complex& x) { return 1e-9 * std::abs(x); };
  for (const int n : {9, 16})
    for (const bool cplx : {false, true}) {
      std::vector<double> re, im;
      symmetric_stack(n, 5, cplx, rng, re, im);
      std::vector<SparseMatrix<Complex>> cblocks;
      std::vector<SparseMatrix<double>> rblocks;
      for (int b = 0; b < 5; ++b) {
        cblocks.push_back(stack_matrix(re, im, n, b));
        SparseMatrix<double> r{n, n, {}};
        for (const auto& e : cblocks.back().entries) r.entries.push_back({e.row, e.col, e.value.real()});
        rblocks.push_back(r);
      }
      const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1);
      std::vector<Approx<Complex>> got;
      with_tuning(lanes, [&] {
        if (cplx) got = engines::gpu_hafnian_batch(cblocks, true, opt);
        else
          for (const auto& a : engines::gpu_hafnian_batch(rblocks, true, opt)) got.push_back({Complex(a.value), a.abs_error, a.estimated});
        return 0;
      });
      for (int b = 0; b < 5; ++b) {
        const Approx<Complex> want = cpu->hafnian(cblocks[static_cast<std::size_t>(b)], true, opt);
        const Approx<Complex>& x = got[static_cast<std::size_t>(b)];
        EXPECT_LE(std::abs(x.value - want.value), want.abs_error + x.abs_error) << n << " " << cplx << " " << b;
        EXPECT_GT(x.abs_error, 1e-10 * std::abs(x.value)) << n << " " << cplx << " " << b;  // the errors' share
        EXPECT_NEAR(x.abs_error, want.abs_error, 1e-3 * want.abs_error) << n << " " << cplx << " " << b;
      }
    }
}

TEST(GpuHafnianLanes, WalksReadTheirOrdersFromTheMatrixRoot) {
  // The device reads a walk's entry (i, j) at lane_root_edge of the matrix's own root, its
  // loop i at order[i], and the walk of |A| the moduli: the values the walk's own root holds
  // (float_walk_value's), the padding vertex of an odd block included (no device needed).
  std::mt19937_64 rng(53);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const int n0 : {5, 6, 7, 12})
    for (const int W : {1, 2}) {
      const int n = n0 + n0 % 2, E = n * (n - 1) / 2;
      std::vector<Complex> d(static_cast<std::size_t>(n0 * n0));
      for (int i = 0; i < n0; ++i)
        for (int j = 0; j <= i; ++j)
          d[static_cast<std::size_t>(i * n0 + j)] = d[static_cast<std::size_t>(j * n0 + i)] = Complex(u(rng), W == 2 ? u(rng) : 0.0);
      const std::size_t per = gpu::HafLaneJob::root_values(n, true) * static_cast<std::size_t>(W);
      std::vector<double> root(per);
      gpu::write_lane_root(root.data(), n0, true, W, [&](int i, int j, int w) {
        const Complex x = d[static_cast<std::size_t>(i * n0 + j)];
        return w ? x.imag() : x.real();
      });
      const std::vector<int> orders = engines::gpu_haf::lane_orders(n0, engines::haf::kFloatWalks);
      const auto float_orders = engines::haf::float_orders(n0);
      const auto read = [&](int v, bool modulus) {
        const Complex x(root[static_cast<std::size_t>(v * W)], W == 2 ? root[static_cast<std::size_t>(v * W + 1)] : 0.0);
        return modulus ? Complex(std::abs(x)) : x;
      };
      for (int c = 0; c < engines::haf::kFloatWalks; ++c) {
        const int* order = &orders[static_cast<std::size_t>(c * n)];
        const bool modulus = c >= engines::haf::kSpreadWalks;
        const auto want = [&](int i, int j) {
          if (i >= n0 || j >= n0) return Complex(i == j ? 1.0 : 0.0);
          return engines::haf::walk_entry(d, n0, float_orders, c, i, j);
        };
        for (int i = 1; i < n; ++i)
          for (int j = 0; j < i; ++j) EXPECT_EQ(read(gpu::lane_root_edge(order, i, j), modulus), want(i, j)) << n0 << " " << c;
        for (int i = 0; i < n; ++i) EXPECT_EQ(read(E + order[i], modulus), want(i, i)) << n0 << " " << c << " " << i;
      }
    }
}

TEST(GpuHafnianLanes, TheRootsExponentIsTheBlocksOwn) {
  // lane_fixed_exponent from a lane root: the largest off-diagonal row sum of |A| and the
  // largest |loop| of the block's own vertices (not the padding vertex's loop of 1).
  std::mt19937_64 rng(59);
  std::uniform_real_distribution<double> u(-3, 3);
  for (const int n0 : {5, 8})
    for (const int W : {1, 2})
      for (const bool loops : {false, true}) {
        std::vector<Complex> d(static_cast<std::size_t>(n0 * n0));
        for (int i = 0; i < n0; ++i)
          for (int j = 0; j <= i; ++j)
            d[static_cast<std::size_t>(i * n0 + j)] = d[static_cast<std::size_t>(j * n0 + i)] =
                Complex(u(rng) * (i == j ? 0.1 : 1.0), W == 2 ? u(rng) : 0.0);
        const int n = n0 + n0 % 2;
        std::vector<double> root(gpu::HafLaneJob::root_values(n, loops) * static_cast<std::size_t>(W));
        gpu::write_lane_root(root.data(), n0, loops, W, [&](int i, int j, int w) {
          const Complex x = d[static_cast<std::size_t>(i * n0 + j)];
          return w ? x.imag() : x.real();
        });
        double max_row = 0, max_loop = 0;
        for (int i = 0; i < n0; ++i) {
          double row = 0;
          for (int j = 0; j < n0; ++j)
            if (j != i) row += std::abs(d[static_cast<std::size_t>(i * n0 + j)]);
          max_row = std::max(max_row, row);
          max_loop = std::max(max_loop, std::abs(d[static_cast<std::size_t>(i * n0 + i)]));
        }
        EXPECT_EQ(engines::gpu_haf::lane_fixed_exponent(root.data(), n0, loops, W),
                  engines::gpu_haf::fixed_exponent((n0 + 1) / 2, engines::gpu_haf::walk_rho(max_row, max_loop, loops)))
            << n0 << " " << W << " " << loops;
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

TEST(GpuHafnianLanes, StacksReadInPlaceGiveTheSplitArraysBits) {
  // gpu_dense_hafnians of a DenseStack (NumPy's layout, any float element type, strides, a list
  // of the matrices to count) reads each entry where it is: the same bits as the split arrays
  // of the same numbers, on every path (expansion at 8, one walk a thread at 16, the big walk's
  // channels at 34) and for a transposed layout.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(61);
  EXPECT_THROW(gpu_dense_hafnians(DenseStack{nullptr, DenseElement::Int64, 16, 4, 1, nullptr}, 4, 1, false), std::invalid_argument);
  for (const int n : {8, 16, 34})
    for (const bool cplx : {false, true})
      for (const bool single : {false, true}) {
        const int k = n == 34 ? 5 : 300;
        std::vector<double> re, im;
        symmetric_stack(n, k, cplx, rng, re, im);
        const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
        if (single)  // numbers a float holds, so both layouts stand for the same matrices
          for (std::size_t e = 0; e < re.size(); ++e) {
            re[e] = static_cast<float>(re[e]);
            if (cplx) im[e] = static_cast<float>(im[e]);
          }
        // The stack's matrix m is the split arrays' matrix k - 1 - m, stored column-major.
        std::vector<std::int64_t> which;
        for (int b = 0; b < k; ++b) which.push_back(k - 1 - b);
        std::vector<float> f;
        std::vector<double> d;
        std::vector<std::complex<float>> cf;
        std::vector<std::complex<double>> cd;
        for (int m = 0; m < k; ++m)
          for (int c = 0; c < n; ++c)
            for (int r = 0; r < n; ++r) {
              const std::size_t at = static_cast<std::size_t>(m) * nn + static_cast<std::size_t>(r * n + c);
              if (cplx && single) cf.emplace_back(static_cast<float>(re[at]), static_cast<float>(im[at]));
              else if (cplx) cd.emplace_back(re[at], im[at]);
              else if (single) f.push_back(static_cast<float>(re[at]));
              else d.push_back(re[at]);
            }
        const void* data = cplx ? (single ? static_cast<const void*>(cf.data()) : cd.data()) : (single ? static_cast<const void*>(f.data()) : d.data());
        const DenseElement type = cplx ? (single ? DenseElement::Complex64 : DenseElement::Complex128)
                                       : (single ? DenseElement::Float32 : DenseElement::Float64);
        const DenseStack stack{data, type, static_cast<std::int64_t>(nn), 1, n, which.data()};
        for (const bool loops : {false, true}) {
          if (n == 34 && loops) continue;
          const auto split = gpu_dense_hafnians(re.data(), cplx ? im.data() : nullptr, n, k, loops);
          const auto in_place = gpu_dense_hafnians(stack, n, k, loops);
          ASSERT_EQ(in_place.size(), split.size());
          for (int b = 0; b < k; ++b) {
            const SmallDenseValue& want = split[static_cast<std::size_t>(k - 1 - b)];
            const SmallDenseValue& got = in_place[static_cast<std::size_t>(b)];
            EXPECT_EQ(got.kind, want.kind) << n << " " << b;
            EXPECT_EQ(got.re, want.re) << n << " " << cplx << " " << single << " " << loops << " " << b;
            EXPECT_EQ(got.im, want.im) << n << " " << b;
            EXPECT_EQ(got.abs_error, want.abs_error) << n << " " << b;
          }
        }
      }
}

TEST(GpuHafnianLanes, TheQueueGivesBackEachJobInOrder) {
  // Two lanes jobs of different sizes and kinds on the device at once, taken back in the order
  // they started, each with run_hafnian_lanes's words; a third start and a take with none in
  // flight are refused. Then a batch of three jobs (each root buffer half and each slot used
  // again) gives every matrix its bits alone.
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device visible";
  std::mt19937_64 rng(83);
  struct Case {
    std::vector<double> roots;
    gpu::HafLaneJob job;
  };
  std::vector<Case> cases;
  for (const auto& [n, cplx, loops] : {std::tuple{16, false, false}, {18, true, false}, {20, true, true}, {16, true, true}}) {
    Case c;
    c.job = test::random_lane_job(n, cplx, loops, 77, engines::haf::kSpreadWalks, rng, c.roots);
    cases.push_back(std::move(c));
  }
  for (Case& c : cases) c.job.roots = c.roots.data();
  gpu::LaneQueue queue;
  EXPECT_THROW(queue.take(), GpuError);
  ASSERT_TRUE(queue.start(cases[0].job));
  ASSERT_TRUE(queue.start(cases[1].job));
  EXPECT_EQ(queue.in_flight(), gpu::LaneQueue::kInFlight);
  EXPECT_THROW(queue.start(cases[2].job), GpuError);
  std::size_t next = 2;
  for (std::size_t want = 0; want < cases.size(); ++want) {
    const gpu::LaneSums got = queue.take();
    const std::vector<std::uint64_t> alone = gpu::run_hafnian_lanes(cases[want].job);
    ASSERT_EQ(got.size, alone.size()) << want;
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), got.data)) << want;
    if (next < cases.size()) {
      ASSERT_TRUE(queue.start(cases[next++].job));
    }
  }
  EXPECT_EQ(queue.in_flight(), 0);

  const tuning::Tuning lanes = tuning_with(&tuning::Tuning::haf_batch, 1);
  const int n = 16, k = 2 * 4096 + 100;  // three jobs of complex 16-vertex matrices
  std::vector<double> re, im;
  symmetric_stack(n, k, true, rng, re, im);
  const auto all = with_tuning(lanes, [&] { return gpu_dense_hafnians(re.data(), im.data(), n, k, true); });
  ASSERT_EQ(all.size(), static_cast<std::size_t>(k));
  for (const int b : {0, 4095, 4096, 8191, 8192, k - 1}) {
    const std::size_t at = static_cast<std::size_t>(b) * n * n;
    const auto one = with_tuning(lanes, [&] { return gpu_dense_hafnians(&re[at], &im[at], n, 1, true); });
    EXPECT_EQ(one[0].re, all[static_cast<std::size_t>(b)].re) << b;
    EXPECT_EQ(one[0].im, all[static_cast<std::size_t>(b)].im) << b;
    EXPECT_EQ(one[0].abs_error, all[static_cast<std::size_t>(b)].abs_error) << b;
  }
}
