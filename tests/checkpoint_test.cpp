// Work units, checkpoints and resume: the walks' results do not depend on threads or on being
// interrupted; the matchcount program survives SIGKILL, saves on SIGTERM/SIGINT, and refuses
// corrupt or foreign checkpoint files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "matchcount/checkpoint.hpp"
#include "catalog/catalog.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "runtime/work_units.hpp"
#include "matchcount/generate.hpp"
#include "engines/ryser/cuda/walk_job.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/resume.hpp"
#include "checkpoint_helpers.hpp"
#include "memory_journal.hpp"
#include "test_support.hpp"

namespace {

using namespace matchcount;
using namespace matchcount::test;

template <class T>
auto count_with(const Engine& e, const SparseMatrix<T>& a, int threads, WalkJournal* journal) {
  EngineOptions o;
  o.threads = threads;
  o.journal = journal;
  return e.permanent(a, o);
}

bool same(const Integer& a, const Integer& b) { return a == b; }
bool same(const Approx<double>& a, const Approx<double>& b) {
  return std::memcmp(&a.value, &b.value, sizeof(double)) == 0 && std::memcmp(&a.abs_error, &b.abs_error, sizeof(double)) == 0 &&
         a.estimated == b.estimated;
}
bool same(const Approx<Complex>& a, const Approx<Complex>& b) {
  return std::memcmp(&a.value, &b.value, sizeof(Complex)) == 0 && std::memcmp(&a.abs_error, &b.abs_error, sizeof(double)) == 0 &&
         a.estimated == b.estimated;
}

/// Interrupts the walk(s) of `a` after `stop_after` units done, resumes with another thread
/// count, and expects the bits of an uninterrupted run. The interrupted run has one thread:
/// with two, a descheduled thread holding the next block in order lets the other finish all
/// the rest, handed in at once, and the stop never falls inside the walk (seen under load).
template <class T>
void expect_resume_identical(const std::string& engine, const SparseMatrix<T>& a, std::uint64_t stop_after) {
  const auto e = make_engine(engine);
  const auto plain = count_with(*e, a, 1, nullptr);
  MemoryJournal j;
  j.stop_after_units = stop_after;
  EXPECT_THROW(count_with(*e, a, 1, &j), Interrupted);
  ASSERT_FALSE(j.saved.empty());
  bool partial = false;
  for (const auto& [tag, s] : j.saved) partial = partial || (s.done_units() > 0 && !s.complete());
  EXPECT_TRUE(partial) << "the stop should fall inside a walk";
  j.stop_after_units = 0;
  const auto resumed = count_with(*e, a, 2, &j);
  EXPECT_TRUE(same(plain, resumed));
  for (const auto& [tag, s] : j.saved) EXPECT_TRUE(s.complete()) << tag;
}

}  // namespace

// A block value's error keeps its kind across a checkpoint: an estimate stays one.
TEST(CheckpointValues, ErrorEstimatesSurviveTheText) {
  for (const bool estimated : {false, true}) {
    const Approx<double> real{1.25, 3e-16, estimated};
    Approx<double> real_back{};
    ASSERT_TRUE(detail::decode_value(detail::encode_value(real), real_back));
    EXPECT_TRUE(same(real, real_back)) << estimated;
    const Approx<Complex> cplx{Complex(1, -2), 5e-16, estimated};
    Approx<Complex> cplx_back{};
    ASSERT_TRUE(detail::decode_value(detail::encode_value(cplx), cplx_back));
    EXPECT_TRUE(same(cplx, cplx_back)) << estimated;
  }
  Approx<double> v{};
  EXPECT_FALSE(detail::decode_value(detail::encode_value(Approx<double>{1, 0}) + " bogus", v));
}

TEST(WorkUnits, RangesMergeAndQueueHandsOutTheRest) {
  WalkState s;
  s.units = 100;
  s.add({10, 20});
  s.add({30, 40});
  s.add({20, 30});
  ASSERT_EQ(s.done.size(), 1u);
  EXPECT_EQ(s.done[0], (UnitRange{10, 40}));
  EXPECT_THROW(s.add({35, 45}), std::logic_error);
  const auto rest = s.remaining();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0], (UnitRange{0, 10}));
  EXPECT_EQ(rest[1], (UnitRange{40, 100}));

  UnitQueue q(rest);
  EXPECT_EQ(q.left(), 70u);
  EXPECT_EQ(*q.take(50, 1), (UnitRange{0, 10}));  // never across a gap
  auto r = q.take(50, 2);                          // at most left / (2 workers) = 15
  EXPECT_EQ(*r, (UnitRange{40, 55}));
  q.give_back(*r);
  EXPECT_EQ(*q.take(1, 1), (UnitRange{40, 41}));
  std::uint64_t taken = 1;
  while (auto x = q.take(1000, 1)) taken += x->size();
  EXPECT_EQ(taken, 60u);
  EXPECT_EQ(q.left(), 0u);
}

TEST(WorkUnits, GpuUnitsDependOnTheWalkOnly) {
  for (int m = 1; m <= 62; ++m) {
    const int k = gpu::chunk_log2(m), u = gpu::unit_log2(m, k);
    EXPECT_GE(u, 0);
    EXPECT_LE(m - k - u, 14);
    if (m - k >= 14) {
      EXPECT_EQ(m - k - u, 14);
    }
  }
}

TEST(WorkUnits, GpuSumsAddExactlyInAnyOrder) {
  // Two's-complement 512-bit sums: -1 + 1 carries through every limb; residues wrap at p.
  std::vector<std::uint64_t> minus_one(9, ~0ULL), one(9, 0), total;
  minus_one[8] = one[8] = 0;
  one[0] = 1;
  gpu::add_sums(gpu::WalkKind::Real, {}, total, minus_one);
  gpu::add_sums(gpu::WalkKind::Real, {}, total, one);
  for (int l = 0; l < 8; ++l) EXPECT_EQ(total[static_cast<std::size_t>(l)], 0u);
  const double p = 1125899906842597.0;  // 2^50 - 27, prime
  std::vector<std::uint64_t> mod;
  double raw[2] = {-5.0, 7.0};  // per-thread sums in (-p, p) as a kernel leaves them
  std::uint64_t raw_words[2];
  std::memcpy(raw_words, raw, sizeof raw);
  gpu::add_thread_sums(gpu::WalkKind::ModPrime, {p}, raw_words, 2, mod);
  EXPECT_EQ(mod[0], 2u);
  gpu::add_sums(gpu::WalkKind::ModPrime, {p}, mod, {static_cast<std::uint64_t>(p) - 1});
  EXPECT_EQ(mod[0], 1u);
}

TEST(WorkUnits, CpuUnitsAndSumsDoNotDependOnThreads) {
  std::mt19937_64 rng(11);
  const auto a = test::random_real(rng, 20, 1.0, -1, 1);
  const auto e = make_engine("ryser");
  MemoryJournal one, two;
  const auto r1 = count_with(*e, a, 1, &one);
  const auto r2 = count_with(*e, a, 2, &two);
  EXPECT_TRUE(same(r1, r2));
  ASSERT_EQ(one.saved.size(), 1u);
  EXPECT_EQ(one.saved.begin()->first, two.saved.begin()->first);  // the same walk
  EXPECT_EQ(one.saved.begin()->second.units, two.saved.begin()->second.units);
  EXPECT_EQ(one.saved.begin()->second.sum, two.saved.begin()->second.sum);
  // One thread finishes the blocks in order: every state is a prefix one block longer.
  for (std::size_t i = 0; i + 1 < one.history.size(); ++i) {
    ASSERT_EQ(one.history[i].done.size(), 1u);
    EXPECT_EQ(one.history[i].done[0], (UnitRange{0, i + 1}));
  }
  for (const auto& s : two.history) EXPECT_LE(s.done.size(), 1u);  // always a prefix
}

TEST(WorkUnits, CpuRyserResumesBitIdentically) {
  std::mt19937_64 rng(5);
  expect_resume_identical("ryser", test::random_real(rng, 20, 1.0, -1, 1), 100);
  expect_resume_identical("ryser", test::random_complex(rng, 18, 1.0), 77);
  expect_resume_identical("ryser", test::random_integer(rng, 20, 0.6, 1, 1), 130);
  // Entries so large that each prime walks on its own: the stop falls in the second walk.
  auto big = test::random_integer(rng, 20, 1.0, -(1L << 46), 1L << 46);
  expect_resume_identical("ryser", big, 300);
}

TEST(WorkUnits, CpuSparseWalksResumeBitIdentically) {
  // SpaRyser and SkipPer walk 2^10 chunks (units) of 2^(n-10) Gray steps each.
  std::mt19937_64 rng(6);
  for (const char* engine : {"sparyser", "skipper"}) {
    SCOPED_TRACE(engine);
    expect_resume_identical(engine, test::random_real(rng, 16, 0.7, -1, 1), 300);
    expect_resume_identical(engine, test::random_complex(rng, 14, 0.8), 411);
    expect_resume_identical(engine, test::random_integer(rng, 16, 0.7, 1, 1), 700);
    // One walk per prime: the stop falls in the second walk.
    expect_resume_identical(engine, test::random_integer(rng, 14, 1.0, -(1L << 46), 1L << 46), 1500);
  }
}

TEST(WorkUnits, PipelineResumesFromTheCheckpointFile) {
  // Two diagonal blocks: the first one's value and the second one's walk are saved.
  std::mt19937_64 rng(8);
  const auto b1 = test::random_real(rng, 19, 1.0, 0.5, 1.5), b2 = test::random_real(rng, 20, 1.0, 0.5, 1.5);
  SparseMatrix<double> a;
  a.rows = a.cols = 39;
  for (const auto& x : b1.entries) a.entries.push_back(x);
  for (auto x : b2.entries) a.entries.push_back({x.row + 19, x.col + 19, x.value});
  a.normalize();
  CountOptions o;
  o.engine = "ryser";
  o.device = DevicePolicy::Cpu;
  o.threads = 1;  // blocks finish in order: progress (and the stop below) moves block by block
  const CountReport plain = count_permanent(AnyMatrix(a), o);
  ASSERT_EQ(plain.engine_runs.size(), 2u);

  const std::string path = temp_file("", ".ckpt");
  std::filesystem::remove(path);
  {
    Checkpoint cp(path, 0.0);
    o.checkpoint = &cp;
    o.progress = [&](double f) {
      if (f > 0.8) cp.request_stop(SIGTERM);  // inside the second block, whichever goes first
    };
    EXPECT_THROW(count_permanent(AnyMatrix(a), o), Interrupted);
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\nvalue "), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("\nwalk ryser/real/"), std::string::npos) << text.str();
  Checkpoint cp(path, 60.0);
  o.checkpoint = &cp;
  o.progress = nullptr;
  const CountReport resumed = count_permanent(AnyMatrix(a), o);
  EXPECT_EQ(std::get<double>(resumed.value.value), std::get<double>(plain.value.value));
  EXPECT_EQ(resumed.value.abs_error, plain.value.abs_error);
  EXPECT_EQ(resumed.engine_runs[0].stats.note, "value from the checkpoint");
  EXPECT_FALSE(std::filesystem::exists(path)) << "a finished count removes its checkpoint";
}

// ---- the matchcount program ----

TEST(CheckpointCli, SurvivesSigkillAtRandomMoments) {
  const SlowCase c = slow_case();
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> when(300, 1200);
  std::uint64_t last = 0;
  int kills = 0;
  for (int round = 0; round < 4; ++round) {
    const pid_t pid = spawn_matchcount(c.args(), c.out, c.err, 30000);
    std::this_thread::sleep_for(std::chrono::milliseconds(when(rng)));
    kill(pid, SIGKILL);
    const int status = wait_status(pid);
    if (!WIFSIGNALED(status)) break;  // it finished first
    ++kills;
    const std::uint64_t done = saved_units(c.ckpt);
    EXPECT_GE(done, last) << "seed " << seed;
    last = done;
  }
  EXPECT_GT(kills, 0) << "seed " << seed;
  EXPECT_GT(last, 0u) << "the killed runs saved nothing; seed " << seed;
  const auto r = run_matchcount("--engine ryser --device cpu --checkpoint '" + c.ckpt + "' '" + c.matrix + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.expected) << "seed " << seed;
  EXPECT_FALSE(std::filesystem::exists(c.ckpt));
}

TEST(CheckpointCli, SigtermAndSigintSaveAndResume) {
  const SlowCase c = slow_case();
  auto args = c.args();
  args.insert(args.begin(), {"--progress", "--progress-every", "0.5"});  // lines into the log file
  pid_t pid = spawn_matchcount(args, c.out, c.err, 30000);
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));
  kill(pid, SIGTERM);
  int status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  const std::string err = slurp(c.err);
  EXPECT_NE(err.find("matchcount: interrupted by SIGTERM; progress is saved in " + c.ckpt), std::string::npos) << err;
  EXPECT_NE(err.find("% done, "), std::string::npos) << "progress with a rate: " << err;
  EXPECT_EQ(slurp(c.out), "");
  const std::uint64_t done = saved_units(c.ckpt);
  EXPECT_GT(done, 0u);

  pid = spawn_matchcount(c.args(), c.out, c.err, 30000);  // resumes, then SIGINT
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGINT);
  status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(c.err);
  EXPECT_GE(saved_units(c.ckpt), done);

  const auto r = run_matchcount("-v --engine ryser --device cpu --checkpoint '" + c.ckpt + "' '" + c.matrix + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.expected);
  EXPECT_NE(r.err.find("resumed from the checkpoint"), std::string::npos) << r.err;
}

// GNU timeout and `kill 0` signal the command and then its process group: the same signal
// from the same process at once is one stop, and the final save is made. Another signal at
// once is a second one: exit without it.
TEST(CheckpointCli, TheSameSignalTwiceFromOneSenderIsOneStop) {
  const SlowCase c = slow_case();
  pid_t pid = spawn_matchcount(c.args(), c.out, c.err, 30000);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  kill(pid, SIGTERM);
  kill(pid, SIGTERM);
  int status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143) << slurp(c.err);
  std::string err = slurp(c.err);
  EXPECT_NE(err.find("interrupted by SIGTERM; progress is saved"), std::string::npos) << err;
  EXPECT_EQ(err.find("second signal"), std::string::npos) << err;
  const std::uint64_t done = saved_units(c.ckpt);
  EXPECT_GT(done, 0u);

  pid = spawn_matchcount(c.args(), c.out, c.err, 30000);  // resumes; then two different signals
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGTERM);
  kill(pid, SIGINT);
  status = wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  // Pending together, the lower-numbered SIGINT may be handled first: the code is the second's.
  EXPECT_TRUE(WEXITSTATUS(status) == 130 || WEXITSTATUS(status) == 143) << WEXITSTATUS(status) << slurp(c.err);
  err = slurp(c.err);
  EXPECT_NE(err.find("second signal: exiting without a final checkpoint"), std::string::npos) << err;
  EXPECT_GE(saved_units(c.ckpt), done);  // the last save stands

  const auto r = run_matchcount("--engine ryser --device cpu --checkpoint '" + c.ckpt + "' '" + c.matrix + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.expected);
}

TEST(CheckpointCli, RefusesCorruptForeignAndNonCheckpointFiles) {
  const SlowCase c = slow_case();
  const pid_t pid = spawn_matchcount(c.args(), c.out, c.err, 30000);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  kill(pid, SIGTERM);
  ASSERT_EQ(WEXITSTATUS(wait_status(pid)), 143) << slurp(c.err);
  const std::string good = slurp(c.ckpt);
  ASSERT_NE(good.find("\nwalk "), std::string::npos) << good;

  auto expect_refused = [&](const std::string& args, const std::string& why) {
    const auto r = run_matchcount(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  };
  const std::string run_args = "--engine ryser --device cpu --checkpoint '" + c.ckpt + "' ";
  // Foreign: another matrix.
  std::ostringstream other;
  write_matrix_market(other, AnyMatrix(erdos_renyi_bipartite(24, 0.5, 22)));
  expect_refused(run_args + "'" + temp_file(other.str(), ".mtx") + "'", "written for another input");
  // Foreign: the same matrix with other options.
  expect_refused("--branch-degree 3 " + run_args + "'" + c.matrix + "'", "written for another input");
  // Corrupt: one digit of the saved sums changed, or the file cut short.
  std::string bad = good;
  const std::size_t at = bad.find("\nwalk ") + 20;
  bad[at] = bad[at] == '1' ? '2' : '1';
  std::ofstream(c.ckpt) << bad;
  expect_refused(run_args + "'" + c.matrix + "'", "checkpoint is corrupt");
  std::ofstream(c.ckpt) << good.substr(0, good.size() / 2);
  expect_refused(run_args + "'" + c.matrix + "'", "checkpoint is corrupt");
  // Not a checkpoint at all (say, the input given by mistake): left untouched.
  const std::string matrix_text = slurp(c.matrix);
  expect_refused("--engine ryser --device cpu --checkpoint '" + c.matrix + "' '" + c.matrix + "'",
                 "not a matchcount checkpoint file");
  EXPECT_EQ(slurp(c.matrix), matrix_text);
  // The intact file still resumes.
  std::ofstream(c.ckpt) << good;
  const auto r = run_matchcount(run_args + "'" + c.matrix + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.expected);
}

TEST(CheckpointCli, GpuCountOption) {
  auto r = run_matchcount("--gpus 0 -", "a x\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpus takes a positive number or 'all'"), std::string::npos) << r.err;
  r = run_matchcount("--gpus all -", "a x\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  r = run_matchcount("--gpus 1 --device cpu -", "a x\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}
