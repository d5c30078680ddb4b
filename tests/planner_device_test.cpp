// When the planner asks whether a GPU is present: the first question starts CUDA, 0.1-0.2 s
// on a GPU machine, so --device auto asks only for blocks whose best CPU engine is predicted
// at kLeastGpuSeconds or more (catalog::ask_for_a_device_late). That is sound only while no
// GPU engine's model predicts less, which these tests check on many blocks (no device needed:
// --device gpu weighs the GPU engines without one).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "catalog/catalog.hpp"
#include "matchcount/generate.hpp"
#include "symmetric_helpers.hpp"
#include "test_support.hpp"

using namespace matchcount;
using namespace matchcount::test::symmetric_helpers;

namespace {

// Every candidate of a GPU engine in `plan` is predicted at kLeastGpuSeconds or more; returns
// how many there were.
int gpu_candidates_at_least_the_least(const EnginePlan& plan, const std::string& what) {
  int seen = 0;
  for (const auto& [name, seconds] : plan.candidates) {
    if (!catalog::entry(name).gpu) continue;
    ++seen;
    EXPECT_GE(seconds, catalog::kLeastGpuSeconds) << what << ": " << name;
  }
  return seen;
}

}  // namespace

TEST(PlannerDevice, NoGpuModelPredictsLessThanTheLeastGpuSeconds) {
  std::mt19937_64 rng(71);
  int seen = 0;
  for (int n : {17, 20, 24, 28, 32, 40, 48, 60}) {
    for (double density : {0.15, 0.5, 1.0}) {
      const auto a = test::random_integer(rng, n, density, 0, 1);
      seen += gpu_candidates_at_least_the_least(plan_engine(a, DevicePolicy::Gpu, 2), "permanent n=" + std::to_string(n));
      const auto r = random_real_matrix(n, density, -1.0, 1.0, rng());
      seen += gpu_candidates_at_least_the_least(plan_engine(r, DevicePolicy::Gpu, 2), "real n=" + std::to_string(n));
    }
  }
  for (int n : {6, 12, 20, 30, 40, 50, 60}) {
    for (double density : {0.1, 0.5, 1.0}) {
      const bool loops = n % 4 == 2;
      const auto g = random_01(n, density, loops, rng);
      seen += gpu_candidates_at_least_the_least(plan_graph_engine(g, loops, DevicePolicy::Gpu, 2),
                                                "hafnian n=" + std::to_string(n));
    }
  }
  EXPECT_GT(seen, 40);  // the GPU engines were weighed
}

TEST(PlannerDevice, AutoAsksForADeviceOnlyBeyondTheLeastGpuSeconds) {
  struct Plan {
    double predicted_seconds;
  };
  for (const bool device : {true, false}) {
    for (const double cpu_seconds : {0.0, 0.019, 0.02, 5.0}) {
      std::vector<DevicePolicy> asked;
      int looked = 0;  // times the device was asked for
      const auto plan = [&](DevicePolicy p) {
        asked.push_back(p);
        return Plan{p == DevicePolicy::Cpu ? cpu_seconds : 1.0};
      };
      const auto present = [&] { return ++looked, device; };
      const Plan got = catalog::ask_for_a_device_late<Plan>(DevicePolicy::Auto, plan, present);
      if (cpu_seconds < catalog::kLeastGpuSeconds) {
        EXPECT_EQ(asked, std::vector<DevicePolicy>{DevicePolicy::Cpu}) << cpu_seconds;
        EXPECT_EQ(got.predicted_seconds, cpu_seconds);
        EXPECT_EQ(looked, 0) << cpu_seconds;
      } else if (device) {
        EXPECT_EQ(asked, (std::vector<DevicePolicy>{DevicePolicy::Cpu, DevicePolicy::Auto})) << cpu_seconds;
        EXPECT_EQ(got.predicted_seconds, 1.0);
      } else {  // no device: the auto plan would be the CPU plan, so it is not planned again
        EXPECT_EQ(asked, std::vector<DevicePolicy>{DevicePolicy::Cpu}) << cpu_seconds;
        EXPECT_EQ(got.predicted_seconds, cpu_seconds);
        EXPECT_EQ(looked, 1) << cpu_seconds;
      }
    }
  }
  for (const DevicePolicy d : {DevicePolicy::Cpu, DevicePolicy::Gpu}) {
    std::vector<DevicePolicy> asked;
    catalog::ask_for_a_device_late<Plan>(
        d,
        [&](DevicePolicy p) {
          asked.push_back(p);
          return Plan{0.0};
        },
        [] { return true; });
    EXPECT_EQ(asked, std::vector<DevicePolicy>{d});
  }
}

// A block planned twice (the CPU plan, then the auto plan with a device present) shares what
// depends on the block alone: each Lazy value is made once, and a second get returns the first.
TEST(PlannerDevice, TheSecondPlanOfABlockReusesTheFirstsFacts) {
  struct Plan {
    double predicted_seconds;
  };
  catalog::Lazy<std::vector<int>> order;
  int made = 0;
  const auto plan = [&](DevicePolicy p) {
    const std::vector<int>& o = order.get([&] {
      ++made;
      return std::vector<int>{3, 1, 2};
    });
    return Plan{p == DevicePolicy::Cpu ? 5.0 : double(o.size())};
  };
  const Plan got = catalog::ask_for_a_device_late<Plan>(DevicePolicy::Auto, plan, [] { return true; });
  EXPECT_EQ(got.predicted_seconds, 3.0);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(order.get([] { return std::vector<int>{}; }), (std::vector<int>{3, 1, 2}));
}

TEST(PlannerDevice, SmallBlocksPlanAsOnTheCpu) {
  // Auto plans of blocks below the threshold are the CPU plans, engine and prediction alike.
  std::mt19937_64 rng(73);
  for (int n : {4, 10, 16, 20}) {
    const auto a = test::random_integer(rng, n, 0.6, 0, 1);
    const EnginePlan cpu = plan_engine(a, DevicePolicy::Cpu, 2), auto_plan = plan_engine(a, DevicePolicy::Auto, 2);
    if (cpu.predicted_seconds >= catalog::kLeastGpuSeconds) continue;
    EXPECT_EQ(auto_plan.engine, cpu.engine) << "n=" << n;
    EXPECT_EQ(auto_plan.predicted_seconds, cpu.predicted_seconds) << "n=" << n;
  }
}

TEST(PlannerDevice, ComplexBlocksPayTheGpuWalksComplexSteps) {
  // gpu-ryser's model prices a complex row-step at about 3.45 real ones (measured: complex 40
  // against real 40), as the CPU walk's model prices its complex steps above its real ones.
  std::mt19937_64 rng(73);
  for (const int n : {24, 30, 36}) {
    const auto gpu_seconds = [](const EnginePlan& plan) {
      for (const auto& [name, seconds] : plan.candidates)
        if (name == "gpu-ryser") return seconds;
      return -1.0;
    };
    const double real = gpu_seconds(plan_engine(random_real_matrix(n, 1.0, -1.0, 1.0, rng()), DevicePolicy::Gpu, 2));
    const double cplx = gpu_seconds(plan_engine(test::random_complex(rng, n, 1.0), DevicePolicy::Gpu, 2));
    ASSERT_GT(real, catalog::kLeastGpuSeconds) << n;
    ASSERT_GT(cplx, real) << n;
    EXPECT_NEAR((cplx - catalog::kLeastGpuSeconds) / (real - catalog::kLeastGpuSeconds), 3.45, 0.01) << n;
  }
}
