// The matchcount program run in a child of its own, for its exit code, its output and the peak
// resident memory of that child alone; shared by the memory budget's tests.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "matchcount/generate.hpp"
#include "test_support.hpp"

namespace matchcount::test {

/// The sanitizers' shadow memory and quarantine count as resident, so peak-memory bounds are
/// only asserted without them.
constexpr bool kPeakMemoryMeasurable = !kSanitized;

/// A graph written to a temporary edge list (read with --as graph).
inline std::string edge_file(const EdgeList& g) {
  std::ostringstream out;
  write_edge_list(out, g);
  return temp_file(out.str(), ".edges");
}

/// Whether `s` is exactly one line, ended by its newline.
inline bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }


struct Measured {
  int exit_code = -1;
  std::string out, err;
  double peak_bytes = 0;
};

/// Runs matchcount with the shell-quoted `args`; the peak is wait4's rusage of this child
/// (RUSAGE_CHILDREN would mix in the children of earlier tests).
inline Measured run_measured(const std::string& args) {
  const std::string out = temp_file(""), err = temp_file("");
  const std::string command =
      std::string("exec '") + MATCHCOUNT_BINARY + "' " + args + " >" + quoted(out) + " 2>" + quoted(err);
  Measured m;
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid > 0 && wait4(pid, &status, 0, &usage) == pid && WIFEXITED(status)) m.exit_code = WEXITSTATUS(status);
  m.peak_bytes = double(usage.ru_maxrss) * 1024;
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  m.out = slurp(out), m.err = slurp(err);
  return m;
}

/// What the program holds for a 12-row file: the runtimes' own share (CUDA's driver, OpenMP's
/// threads) is not the count's, and on a GPU machine it is a few hundred MB. Bounds on memory
/// are on what a count adds to it.
inline double baseline_peak_bytes() {
  static const double bytes =
      run_measured("--max-memory 200M '" + std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/band12.mtx'").peak_bytes;
  return bytes;
}

}  // namespace matchcount::test
