// The kernel switch of walks that compile a kernel beside their runs
// (src/runtime/kernel_switch.hpp): a build runs on its own thread, polls never wait for it,
// exactly one poll adopts it, a second build asked for by the adoption follows, and failures
// leave the walk on the kernel it has. No device needed: kernels here are ints.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/kernel_switch.hpp"

using matchcount::runtime::Built;
using Switch = matchcount::runtime::KernelSwitch<int>;
using namespace std::chrono_literals;

namespace {

/// Polls until the switch leaves State::Building (or ten seconds pass); the last poll's result.
std::optional<int> poll_until_settled(Switch& s) {
  const auto end = std::chrono::steady_clock::now() + 10s;
  std::optional<int> k;
  while ((k = s.poll()), s.state() == Switch::State::Building && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(1ms);
  return k;
}

Built binary(const std::string& code, double seconds, bool now = true) { return Built{code, seconds, now, {}}; }

}  // namespace

TEST(KernelSwitch, PollsDoNotWaitAndOnePollAdopts) {
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::atomic<int> adopted{0};
  Switch s([open] { open.wait(); return binary("cubin", 0.25); },
           [&](const Built& b) {
             ++adopted;
             EXPECT_EQ(b.binary, "cubin");
             return Switch::Step{static_cast<int>(b.binary.size()), nullptr, {}};
           });
  // The build is held: polls return at once with nothing.
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(s.poll());
  EXPECT_EQ(s.state(), Switch::State::Building);
  EXPECT_EQ(adopted, 0);
  gate.set_value();
  EXPECT_EQ(poll_until_settled(s), 5);
  EXPECT_EQ(s.state(), Switch::State::Ready);
  EXPECT_EQ(s.poll(), 5);  // later polls share the adopted kernel
  EXPECT_EQ(adopted, 1);
  EXPECT_DOUBLE_EQ(s.seconds(), 0.25);
  EXPECT_TRUE(s.built_now());
}

TEST(KernelSwitch, FailedBuildKeepsItsReason) {
  std::atomic<int> adopted{0};
  Switch s([] { return Built{{}, 0.5, false, "NVRTC library not found"}; },
           [&](const Built& b) {
             ++adopted;
             EXPECT_TRUE(b.binary.empty());  // failures are adopted too: the caller may fall back
             return Switch::Step{};
           });
  EXPECT_FALSE(poll_until_settled(s));
  EXPECT_EQ(s.state(), Switch::State::Failed);
  EXPECT_EQ(s.why(), "NVRTC library not found");
  EXPECT_FALSE(s.poll());
  EXPECT_EQ(adopted, 1);
  EXPECT_DOUBLE_EQ(s.seconds(), 0.5);
}

TEST(KernelSwitch, AdoptionMayAskForASecondBuild) {
  // The first kernel "spills": the adoption asks for the other variant, built in the background too.
  std::vector<std::string> seen;
  Switch s([] { return binary("register", 0.5); },
           [&](const Built& b) {
             seen.push_back(b.binary);
             if (b.binary == "register") return Switch::Step{std::nullopt, [] { return binary("hybrid", 0.25, false); }, {}};
             return Switch::Step{7, nullptr, {}};
           });
  EXPECT_EQ(poll_until_settled(s), 7);
  EXPECT_EQ(seen, (std::vector<std::string>{"register", "hybrid"}));
  EXPECT_DOUBLE_EQ(s.seconds(), 0.75);
  EXPECT_TRUE(s.built_now());  // one of the two was compiled now
}

TEST(KernelSwitch, ExceptionsAreFailures) {
  Switch thrown_build([]() -> Built { throw std::runtime_error("out of memory"); },
                      [](const Built& b) { return Switch::Step{std::nullopt, nullptr, b.why}; });
  EXPECT_FALSE(poll_until_settled(thrown_build));
  EXPECT_EQ(thrown_build.state(), Switch::State::Failed);
  EXPECT_EQ(thrown_build.why(), "out of memory");

  Switch thrown_adopt([] { return binary("cubin", 0.1); },
                      [](const Built&) -> Switch::Step { throw std::runtime_error("could not load"); });
  EXPECT_FALSE(poll_until_settled(thrown_adopt));
  EXPECT_EQ(thrown_adopt.state(), Switch::State::Failed);
  EXPECT_EQ(thrown_adopt.why(), "could not load");
}

TEST(KernelSwitch, FinishWaitsWithoutAdopting) {
  std::atomic<bool> built{false};
  std::atomic<int> adopted{0};
  Switch s([&] {
             std::this_thread::sleep_for(50ms);
             built = true;
             return binary("cubin", 0.05);
           },
           [&](const Built&) {
             ++adopted;
             return Switch::Step{1, nullptr, {}};
           });
  s.finish();
  EXPECT_TRUE(built);
  EXPECT_EQ(adopted, 0);
  EXPECT_EQ(s.state(), Switch::State::Unused);
  EXPECT_FALSE(s.poll());
  EXPECT_DOUBLE_EQ(s.seconds(), 0.05);
}

TEST(KernelSwitch, DestructionWaitsForTheBuild) {
  std::atomic<bool> built{false};
  {
    Switch s([&] {
               std::this_thread::sleep_for(50ms);
               built = true;
               return binary("cubin", 0.05);
             },
             [](const Built&) { return Switch::Step{1, nullptr, {}}; });
  }
  EXPECT_TRUE(built);  // no thread outlives the switch
}

TEST(KernelSwitch, DevicesPollingTogetherShareOneAdoption) {
  std::atomic<int> adopted{0};
  Switch s([] { return binary("cubin", 0.01); },
           [&](const Built&) {
             ++adopted;
             std::this_thread::sleep_for(5ms);  // a module load
             return Switch::Step{42, nullptr, {}};
           });
  std::vector<std::thread> devices;
  std::atomic<int> got{0};
  for (int d = 0; d < 4; ++d)
    devices.emplace_back([&] {
      if (poll_until_settled(s) == 42) ++got;
    });
  for (auto& t : devices) t.join();
  EXPECT_EQ(got, 4);
  EXPECT_EQ(adopted, 1);
}
