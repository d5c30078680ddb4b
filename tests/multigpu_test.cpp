// The GPU walks on every visible device: the same bits as on one, and resumed after an
// interruption. Skipped without a CUDA device (CI); on a machine with several GPUs they
// measure the split (docs/benchmarks.md, "Two GPUs").
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/generate.hpp"
#include "matchcount/gpu.hpp"
#include "memory_journal.hpp"
#include "symmetric_helpers.hpp"

using namespace matchcount;
using matchcount::test::MemoryJournal;

namespace {

/// Walks stopped after their first run of units (one device, then every device), resumed on
/// the other device count, give the bits of an uninterrupted walk: x1 exact, v1 real.
template <class Run, class Exact, class Real>
void expect_resumes(Run run, const Exact& exact, const Integer& x1, const Real& real, double v1) {
  MemoryJournal j;
  j.stop_after = 1;
  EXPECT_THROW(run(exact, 1, &j, nullptr), Interrupted);
  j.stop_after = -1;
  EXPECT_EQ(run(exact, 0, &j, nullptr), x1);
  MemoryJournal jr;
  jr.stop_after = 1;
  EXPECT_THROW(run(real, 0, &jr, nullptr), Interrupted);
  jr.stop_after = -1;
  EXPECT_EQ(run(real, 1, &jr, nullptr).value, v1);
}

}  // namespace

TEST(MultiGpu, AllDevicesGiveTheBitsOfOneAndResume) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto e = make_engine("gpu-ryser");
  const int devices = static_cast<int>(gpu_devices().size());
  // n = 38: long enough (about a second) that the walk is shared out over every device.
  const auto exact = erdos_renyi_bipartite(38, 0.5, 3);
  const auto real = random_real_matrix(38, 1.0, -1.0, 1.0, 4);
  auto run = [&](const auto& a, int gpus, WalkJournal* journal, EngineStats* stats) {
    EngineOptions o;
    o.gpus = gpus;
    o.journal = journal;
    o.stats = stats;
    return e->permanent(a, o);
  };
  EngineStats s1, s_all;
  const Integer x1 = run(exact, 1, nullptr, &s1), x_all = run(exact, 0, nullptr, &s_all);
  EXPECT_EQ(x1, x_all);
  EXPECT_EQ(s1.device, "gpu");
  if (devices > 1) {
    EXPECT_NE(s_all.note.find(std::to_string(devices) + " GPUs took"), std::string::npos) << s_all.note;
  }
  const auto r1 = run(real, 1, nullptr, nullptr), r_all = run(real, 0, nullptr, nullptr);
  EXPECT_EQ(r1.value, r_all.value);  // exact fixed-point sums: the same bits
  EXPECT_NEAR(r1.abs_error, r_all.abs_error, 1e-12 * r1.abs_error);
  std::printf("gpu-ryser n = 38 on %d device(s): exact %s, real %.17g\n", devices, x1.get_str().c_str(), r1.value);

  // Interrupted after the first run of units (its length is sized from a predicted rate and
  // is a fraction of the walk; later runs are sized from the rate seen, and on a fast device
  // the second one can take all the rest), then resumed on every device.
  expect_resumes(run, exact, x1, real, r1.value);
}

TEST(MultiGpu, HafnianWalkGivesTheBitsOfOneAndResumes) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
  const auto e = make_graph_engine("gpu-hafnian");
  const int devices = static_cast<int>(gpu_devices().size());
  std::mt19937_64 rng(8);
  // n = 50 exact and 52 real: most of a second of walk each, over more than one run of units
  // (the first is sized for 0.3 s), shared out over every device.
  const auto exact = test::symmetric_helpers::random_01(50, 0.5, false, rng);
  auto real = test::symmetric_helpers::symmetric<double>(52, [&](int i, int j) {
    return i == j ? 0.0 : std::uniform_real_distribution<double>(-1, 1)(rng);
  });
  auto run = [&](const auto& a, int gpus, WalkJournal* journal, EngineStats* stats) {
    EngineOptions o;
    o.gpus = gpus;
    o.journal = journal;
    o.stats = stats;
    return e->hafnian(a, false, o);
  };
  EngineStats s1, s_all;
  const Integer x1 = run(exact, 1, nullptr, &s1), x_all = run(exact, 0, nullptr, &s_all);
  EXPECT_EQ(x1, x_all);
  EXPECT_EQ(x1, make_graph_engine("hafnian")->hafnian(exact, false, {}));
  EXPECT_EQ(s1.device, "gpu");
  if (devices > 1) {
    EXPECT_NE(s_all.note.find(std::to_string(devices) + " GPUs took"), std::string::npos) << s_all.note;
  }
  const auto r1 = run(real, 1, nullptr, nullptr), r_all = run(real, 0, nullptr, nullptr);
  EXPECT_EQ(r1.value, r_all.value);  // exact fixed-point sums: the same bits
  std::printf("gpu-hafnian n = 50 on %d device(s): exact %s (%s); real n = 52 %.17g\n", devices, x1.get_str().c_str(),
              s_all.note.c_str(), r1.value);
  expect_resumes(run, exact, x1, real, r1.value);
}
