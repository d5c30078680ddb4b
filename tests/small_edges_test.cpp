// Small edges of issue 22: option values that are not numbers a cap can take, an unwritable
// checkpoint path, file names and values with control bytes, whole-file errors, and a
// checkpoint whose saved value no count of its matrix can reach. Every refusal is one line on
// stderr with nothing on stdout.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/hashing.hpp"
#include "measured_run.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using test::kBand12;

using test::quoted;

/// Exit code 2, nothing on stdout and exactly one line on stderr, an error.
void expect_single_line_error(const test::RunResult& r, int code = 2) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("matchcount: error: ", 0), 0u) << r.err;
}

TEST(SmallEdges, NonFiniteCheckpointIntervalIsAUsageError) {
  for (const char* v : {"nan", "inf", "-inf", "NaN", "-1"}) {
    const auto r = test::run_matchcount(std::string("--checkpoint-every ") + v + " " + quoted(kBand12));
    expect_single_line_error(r);
    EXPECT_NE(r.err.find("--checkpoint-every"), std::string::npos) << v;
  }
}

TEST(SmallEdges, NegativeSampleCapIsAUsageError) {
  for (const char* v : {"-1", "0", "nan", "1e3x"}) {
    const auto r = test::run_matchcount(std::string("--estimate --max-samples ") + v + " " + quoted(kBand12));
    expect_single_line_error(r);
    EXPECT_NE(r.err.find("--max-samples"), std::string::npos) << v;
  }
  EXPECT_EQ(test::run_matchcount("--estimate --samples 100 --max-samples 5 " + quoted(kBand12)).exit_code, 0);
}

TEST(SmallEdges, UnwritableCheckpointIsRefusedBeforeTheCount) {
  const std::string file = test::temp_file("x");
  const std::string dir = std::filesystem::path(file).parent_path().string();
  for (const std::string& path : {std::string("/nonexistent-matchcount-dir/run.ckpt"), file + "/run.ckpt", dir}) {
    const auto r = test::run_matchcount("--checkpoint " + quoted(path) + " " + quoted(kBand12));
    expect_single_line_error(r);
    EXPECT_NE(r.err.find("--checkpoint"), std::string::npos) << r.err;
  }
  // Refused before reading: even an input that does not exist is not looked at.
  const auto r = test::run_matchcount("--checkpoint /nonexistent-matchcount-dir/run.ckpt /nonexistent-input");
  EXPECT_NE(r.err.find("--checkpoint"), std::string::npos) << r.err;
  // A writable place is accepted and left as it was (the count removes its file at the end).
  const std::string ok = dir + "/matchcount-writable-check.ckpt";
  std::filesystem::remove(ok);
  const auto fine = test::run_matchcount("--checkpoint " + quoted(ok) + " " + quoted(kBand12));
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_FALSE(std::filesystem::exists(ok));
  EXPECT_FALSE(std::filesystem::exists(ok + ".tmp"));
  std::filesystem::remove(file);
}

TEST(SmallEdges, ControlBytesInNamesAndValuesStayOnOneLine) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string name = dir + "/matchcount bad\nname\r.txt";
  std::ofstream(name, std::ios::binary) << "a b x\n";
  const auto r = test::run_matchcount(quoted(name));
  expect_single_line_error(r);
  EXPECT_NE(r.err.find("bad\\nname\\r.txt:1:"), std::string::npos) << r.err;
  std::filesystem::remove(name);

  for (const std::string& text : {std::string("a b 1\r5\n"), std::string("a b 1.5\r\r\n"), std::string("1 1 2\r\x0c" "7\n"),
                                  std::string("a\rb c\n")}) {
    const auto bad = test::run_matchcount("-", text + "zz 1 2 3 4\n");
    expect_single_line_error(bad);
  }
}

TEST(SmallEdges, WholeFileErrorsNameTheFileWithoutALine) {
  const std::string empty = test::temp_file("");
  const std::string empty_mtx = test::temp_file("", ".mtx");
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string missing = dir + "/matchcount-no-such-file.txt";
  for (const std::string& path : {empty, empty_mtx, missing, dir}) {
    const auto r = test::run_matchcount(quoted(path));
    expect_single_line_error(r);
    // "matchcount: error: FILE: what" (docs/usage.md, "Exit codes and errors"): no line number.
    EXPECT_EQ(r.err.rfind("matchcount: error: " + path + ": ", 0), 0u) << r.err;
  }
  const auto in = test::run_matchcount("-", "");
  expect_single_line_error(in);
  EXPECT_EQ(in.err.rfind("matchcount: error: <stdin>: ", 0), 0u) << in.err;
  std::filesystem::remove(empty);
  std::filesystem::remove(empty_mtx);
}

/// The checkpoint of band12 stopped part-way (by the time cap), with its running walk replaced
/// by a finished value for block 0 and the checksum made right.
std::string checkpoint_with_value(const std::string& path, const std::string& value) {
  std::ifstream in(path);
  std::string line, text;
  while (std::getline(in, line))
    if (line.rfind("matchcount-checkpoint", 0) == 0 || line.rfind("fingerprint", 0) == 0 || line.rfind("blocks", 0) == 0)
      text += line + "\n";
  text += "value 0 int " + value + "\n";
  char sum[20];
  std::snprintf(sum, sizeof sum, "%016llx", static_cast<unsigned long long>(fnv1a64(text)));
  return text + "checksum " + sum + "\n";
}

TEST(SmallEdges, CheckpointValueBeyondTheBoundIsCorrupt) {
  const std::string ckpt = test::temp_file("", ".ckpt");
  std::filesystem::remove(ckpt);
  const auto stopped = test::run_slow_matchcount_under(
      "", 100000, "--threads 1 --max-seconds 0.3 --checkpoint " + quoted(ckpt) + " " + quoted(kBand12));
  ASSERT_EQ(stopped.exit_code, 3) << stopped.err;
  ASSERT_TRUE(std::filesystem::exists(ckpt));
  const std::string base = ckpt + ".base";
  std::filesystem::copy_file(ckpt, base);

  // A value within the bound is taken as the block's (0 here: the count prints it).
  std::ofstream(ckpt, std::ios::trunc) << checkpoint_with_value(base, "0");
  const auto taken = test::run_matchcount("--checkpoint " + quoted(ckpt) + " " + quoted(kBand12));
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
  EXPECT_EQ(taken.out, "0\n");

  // 2^160 is far over any 12 x 12 0-1 permanent (at most 12! < 2^29).
  std::ofstream(ckpt, std::ios::trunc) << checkpoint_with_value(base, "1" + std::string(40, '0'));
  const auto refused = test::run_matchcount("--checkpoint " + quoted(ckpt) + " " + quoted(kBand12));
  expect_single_line_error(refused);
  EXPECT_NE(refused.err.find("corrupt"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("bound"), std::string::npos) << refused.err;
  EXPECT_TRUE(std::filesystem::exists(ckpt));  // a refused checkpoint is left as it is
  std::filesystem::remove(ckpt);
  std::filesystem::remove(base);
}

}  // namespace
}  // namespace matchcount
