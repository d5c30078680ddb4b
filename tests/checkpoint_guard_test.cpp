// What --checkpoint may touch and read: only a regular file (never a device, FIFO or link, which
// it once read as an empty checkpoint and then removed), no more bytes than a checkpoint of the
// input can have, and only while no other run holds it (FILE.lock).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "checkpoint_helpers.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

namespace fs = std::filesystem;
using test::run_matchcount;
using test::slurp;

using test::kBand12;


/// A fresh, empty folder of this test's own.
std::string temp_dir() {
  const std::string file = test::temp_file("", ".d");
  fs::remove(file);
  fs::create_directory(file);
  return file;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

void expect_one_line(const test::RunResult& r, int code, const std::string& why) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
}

TEST(CheckpointGuard, DevicesFifosAndLinksAreRefusedAndLeftAlone) {
  const std::string dir = temp_dir();
  std::vector<std::string> nodes;
  if (S_ISCHR(mode_of("/dev/null"))) nodes.push_back("/dev/null");
  const std::string fifo = dir + "/fifo.ckpt", link = dir + "/link.ckpt";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  nodes.push_back(fifo);
  fs::create_symlink(fifo, link);
  nodes.push_back(link);
  for (const std::string& node : nodes) {
    SCOPED_TRACE(node);
    const mode_t before = mode_of(node);
    expect_one_line(run_matchcount("--checkpoint " + test::quoted(node) + " " + test::quoted(kBand12)), 2,
                    "not a regular file");
    EXPECT_EQ(mode_of(node), before) << "the node is still there, as it was";
  }
  EXPECT_TRUE(S_ISLNK(mode_of(link)));
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
  EXPECT_FALSE(fs::exists(fs::symlink_status(link + ".lock")));

  // FILE.tmp and FILE.lock, which the saves replace and the end removes, are guarded the same.
  const std::string ckpt = dir + "/run.ckpt";
  ASSERT_EQ(::mkfifo((ckpt + ".tmp").c_str(), 0600), 0);
  expect_one_line(run_matchcount("--checkpoint " + test::quoted(ckpt) + " " + test::quoted(kBand12)), 2,
                  "run.ckpt.tmp is a FIFO");
  EXPECT_TRUE(S_ISFIFO(mode_of(ckpt + ".tmp")));
  fs::remove(ckpt + ".tmp");
  std::ofstream(ckpt + ".lock") << "my notes\n";
  expect_one_line(run_matchcount("--checkpoint " + test::quoted(ckpt) + " " + test::quoted(kBand12)), 2,
                  "run.ckpt.lock exists and is not a file matchcount wrote");
  EXPECT_EQ(slurp(ckpt + ".lock"), "my notes\n");
  fs::remove(ckpt + ".lock");
  EXPECT_FALSE(fs::exists(ckpt));
  fs::remove_all(dir);
}

TEST(CheckpointGuard, SavesAndTheEndReplaceOrRemoveOnlyRegularFiles) {
  // The path turns into a FIFO after the checks (a race, or a library caller that skips them):
  // the save neither renames over it nor removes it, nor does the end of the count.
  const std::string dir = temp_dir(), ckpt = dir + "/run.ckpt";
  {
    Checkpoint cp(ckpt, 60.0);
    ASSERT_EQ(::mkfifo(ckpt.c_str(), 0600), 0);
    EXPECT_FALSE(cp.write());
    EXPECT_TRUE(S_ISFIFO(mode_of(ckpt)));
    EXPECT_FALSE(fs::exists(ckpt + ".tmp")) << "the save's own temporary file is gone";
    cp.complete();
    EXPECT_TRUE(S_ISFIFO(mode_of(ckpt)));
    EXPECT_THROW(cp.open(1, 1, 1 << 20), InputError);  // and it is never read
  }
  fs::remove(ckpt);
  // A FILE.tmp of someone else's that appears meanwhile is not replaced nor removed.
  {
    Checkpoint cp(ckpt, 60.0);
    std::ofstream(ckpt + ".tmp") << "not mine\n";
    EXPECT_FALSE(cp.write());
    cp.complete();
    EXPECT_EQ(slurp(ckpt + ".tmp"), "not mine\n");
    fs::remove(ckpt + ".tmp");
    EXPECT_TRUE(cp.write());
    EXPECT_TRUE(fs::is_regular_file(ckpt));
    cp.complete();
    EXPECT_FALSE(fs::exists(ckpt));
  }
  EXPECT_FALSE(fs::exists(ckpt + ".lock")) << "the lock file made by the run goes with it";
  fs::remove_all(dir);
}

TEST(CheckpointGuard, FilesLargerThanACheckpointOfTheInputAreNotRead) {
  const std::string dir = temp_dir(), big = dir + "/big.ckpt";
  std::ofstream(big) << "matchcount-checkpoint 2\n";
  std::error_code ec;
  fs::resize_file(big, 5ull << 30, ec);  // sparse: takes no space
  if (ec) GTEST_SKIP() << "no sparse 5 GB file here: " << ec.message();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_matchcount("--checkpoint " + test::quoted(big) + " " + test::quoted(kBand12));
  expect_one_line(r, 2, "big.ckpt: the file is too large to be a checkpoint of this input");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0) << "read unread";
  EXPECT_EQ(fs::file_size(big), 5ull << 30);

  // The limit is the caller's; a file one byte over it is refused, one at it is read.
  const std::string small = dir + "/small.ckpt";
  std::ofstream(small) << std::string(100, 'x');
  {
    Checkpoint cp(small, 60.0);
    EXPECT_THROW(cp.open(1, 1, 99), InputError);
  }
  {
    Checkpoint cp(small, 60.0);
    try {
      cp.open(1, 1, 100);
      ADD_FAILURE() << "a file of x's is no checkpoint";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("not a matchcount checkpoint"), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

TEST(CheckpointGuard, ASecondRunOnACheckpointInUseIsRefused) {
  const std::string dir = temp_dir(), ckpt = dir + "/run.ckpt";
  const std::string text = "matchcount-checkpoint 2\nleft as it is\n";
  {
    Checkpoint mine(ckpt, 60.0);  // this process holds the lock
    std::ofstream(ckpt) << text;
    expect_one_line(run_matchcount("--checkpoint " + test::quoted(ckpt) + " " + test::quoted(kBand12)), 3,
                    "the checkpoint " + ckpt + " is in use by another matchcount run (pid " + std::to_string(::getpid()) + ")");
    EXPECT_EQ(slurp(ckpt), text);
    EXPECT_TRUE(fs::exists(ckpt + ".lock"));
    // In one process too: the lock is per open file, not per process.
    EXPECT_THROW({ Checkpoint again(ckpt, 60.0); }, RefusedError);
  }
  EXPECT_FALSE(fs::exists(ckpt + ".lock"));
  fs::remove(ckpt);

  // A lock file left by a run that was killed holds no lock: the next run takes it, counts
  // and removes it.
  std::ofstream(ckpt + ".lock") << "matchcount-checkpoint-lock 999999\n";
  const auto r = run_matchcount("--checkpoint " + test::quoted(ckpt) + " " + test::quoted(kBand12));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "11854\n");
  EXPECT_FALSE(fs::exists(ckpt + ".lock"));
  fs::remove_all(dir);
}

TEST(CheckpointGuard, ARunningCountKeepsOthersOffItsCheckpoint) {
  test::SlowCase c = test::slow_case();
  const pid_t pid = test::spawn_matchcount(c.args(), c.out, c.err, 30000);
  for (int i = 0; i < 100 && !fs::exists(c.ckpt); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(c.ckpt)) << slurp(c.err);
  const std::string args = "--engine ryser --device cpu --checkpoint " + test::quoted(c.ckpt) + " " + test::quoted(c.matrix);
  const auto second = run_matchcount(args);
  expect_one_line(second, 3, "is in use by another matchcount run (pid " + std::to_string(pid) + ")");
  ::kill(pid, SIGTERM);
  const int status = test::wait_status(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143) << slurp(c.err);
  EXPECT_GT(test::saved_units(c.ckpt), 0u);
  EXPECT_FALSE(fs::exists(c.ckpt + ".lock"));
  const auto resumed = run_matchcount(args);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(resumed.out, c.expected);
}

}  // namespace
}  // namespace matchcount
