// What the tests of checkpoints share: matchcount-slow started in the background (to be
// stopped by a signal at leisure), a count it runs slowly, and the checkpoint files it leaves.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "matchcount/generate.hpp"
#include "matchcount/pipeline.hpp"
#include "test_support.hpp"

extern char** environ;

namespace matchcount::test {

/// Starts matchcount-slow with `args` (walk units delayed by `delay_us` each), output to files.
inline pid_t spawn_matchcount(const std::vector<std::string>& args, const std::string& out, const std::string& err,
                              int delay_us) {
  std::string delay = std::to_string(delay_us);
  std::vector<char*> argv{const_cast<char*>(MATCHCOUNT_SLOW_BINARY), delay.data()};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, MATCHCOUNT_SLOW_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

/// Units done in the checkpoint's walk (0 when there is none).
inline std::uint64_t saved_units(const std::string& path) {
  const std::string t = slurp(path);
  const auto at = t.find("\nwalk ");
  if (at == std::string::npos) return 0;
  std::istringstream line(t.substr(at + 6));
  std::string tag, units, ranges;
  line >> tag >> units >> ranges;
  if (ranges == "-") return 0;
  return std::stoull(ranges.substr(ranges.find('-') + 1));  // one prefix range "0-N"
}

struct SlowCase {
  std::string matrix, expected, ckpt, out, err;
  std::vector<std::string> args() const {
    return {"--engine", "ryser", "--device", "cpu", "--threads", "2", "--checkpoint", ckpt, "--checkpoint-every", "0.1", matrix};
  }
};

/// A dense 0-1 block of n = 24 (256 blocks of work); with 30 ms per block it takes about 4 s.
inline SlowCase slow_case() {
  SlowCase c;
  std::ostringstream m;
  write_matrix_market(m, AnyMatrix(erdos_renyi_bipartite(24, 0.5, 21)));
  c.matrix = temp_file(m.str(), ".mtx");
  CountOptions o;
  o.engine = "ryser";
  o.device = DevicePolicy::Cpu;
  c.expected = count_permanent(AnyMatrix(erdos_renyi_bipartite(24, 0.5, 21)), o).value.to_string() + "\n";
  c.ckpt = temp_file("", ".ckpt");
  std::filesystem::remove(c.ckpt);
  c.out = temp_file("", ".out");
  c.err = temp_file("", ".err");
  return c;
}

inline int wait_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

}  // namespace matchcount::test
