// The examples in README.md and docs/usage.md run as written from the checkout: every command
// line in their code blocks is run in order (one scratch folder per document, where `datasets`
// and `build/bin` point into the checkout and the build), must exit 0, and where its comment
// starts with a number ("# 12988816 dimer coverings") must print that number first.
//
// Command lines are those whose first word is matchcount, matchcount-generate, build/bin/...,
// or mpirun (skipped where MPI is not built or mpirun is missing; --log lines where SuiteSparse
// is not). Not run: `bash
// scripts/setup.sh` (CI runs it around this very test), srun and #SBATCH lines (they need
// Slurm), and lines of file contents shown in code blocks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engines/planar/sparse_logdet.hpp"
#include "matchcount/cluster.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Example {
  int line = 0;
  std::string command;
  std::string expected;  // the number the output starts with ("" when not stated)
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool is_command(const std::string& line) {
  // printf writes the small files some examples read (loop weights, a torontonian's O).
  for (const char* p : {"matchcount ", "matchcount-generate ", "build/bin/", "mpirun ", "printf "})
    if (starts_with(line, p)) return true;
  return false;
}

/// The command lines of a markdown file's code blocks (indented by four spaces, or fenced).
std::vector<Example> examples_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<Example> out;
  std::string line;
  bool fenced = false;
  int number = 0;
  Example pending;  // a command continued with a trailing backslash
  bool continuing = false;
  while (std::getline(in, line)) {
    ++number;
    if (starts_with(line, "```")) {
      fenced = !fenced;
      continue;
    }
    std::string code;
    if (fenced) code = line;
    else if (starts_with(line, "    ")) code = line.substr(4);
    else if (!continuing) continue;
    code.erase(0, code.find_first_not_of(' '));
    if (continuing) {
      pending.command += " " + code;
    } else {
      if (!is_command(code)) continue;
      pending = Example{number, code, ""};
    }
    continuing = !pending.command.empty() && pending.command.back() == '\\';
    if (continuing) {
      pending.command.pop_back();
      continue;
    }
    // "cmd   # 12988816 dimer coverings": the comment's leading number is the expected output.
    const std::size_t hash = pending.command.find("  #");
    if (hash != std::string::npos) {
      std::string comment = pending.command.substr(pending.command.find('#', hash) + 1);
      pending.command.erase(pending.command.find_last_not_of(' ', hash) + 1);
      comment.erase(0, comment.find_first_not_of(' '));
      const std::size_t digits = comment.find_first_not_of("0123456789");
      if (digits > 0 && (digits == std::string::npos || comment[digits] == ' '))
        pending.expected = comment.substr(0, digits);
    }
    out.push_back(pending);
  }
  return out;
}

using matchcount::test::slurp;

void run_examples(const std::string& document) {
  const fs::path source = MATCHCOUNT_SOURCE_DIR;
  const fs::path bin = fs::path(MATCHCOUNT_BINARY).parent_path();
  const std::vector<Example> examples = examples_of((source / document).string());
  ASSERT_GE(examples.size(), 3u) << document << ": no examples found";
  const fs::path scratch = fs::temp_directory_path() / ("mc-examples-" + std::to_string(::getpid()) + "-" +
                                                        fs::path(document).stem().string());
  fs::remove_all(scratch);
  fs::create_directories(scratch / "build");
  fs::create_directory_symlink(source / "datasets", scratch / "datasets");
  fs::create_directory_symlink(bin, scratch / "build" / "bin");
  const bool mpi = matchcount::cluster::built_with_mpi() && std::system("command -v mpirun >/dev/null 2>&1") == 0;
  // mpirun as written: root and more ranks than cores are allowed through its environment.
  const std::string env = "PATH='" + bin.string() +
                          "':\"$PATH\" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                          "OMPI_MCA_rmaps_base_oversubscribe=1 ";
  int ran = 0;
  for (const Example& ex : examples) {
    if (starts_with(ex.command, "mpirun ") && !mpi) continue;
    // --log's planar blocks need the sparse LU (SuiteSparse), which a build may lack.
    if (ex.command.find(" --log") != std::string::npos && !matchcount::engines::planar::sparse_lu_available()) continue;
    const fs::path out = scratch / "stdout", err = scratch / "stderr", script = scratch / "example.sh";
    std::ofstream(script) << ex.command << "\n";
    // Under AddressSanitizer the MPI library's allocations, kept to the end, are no leak of ours.
    const std::string leaks = starts_with(ex.command, "mpirun ") ? "ASAN_OPTIONS=detect_leaks=0 " : "";
    const std::string shell = "cd '" + scratch.string() + "' && " + env + leaks + "timeout 300 bash '" + script.string() +
                              "' >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(shell.c_str());
    EXPECT_EQ(status, 0) << document << ":" << ex.line << ": " << ex.command << "\n" << slurp(err);
    if (!ex.expected.empty()) {
      const std::string printed = slurp(out);
      EXPECT_EQ(printed.substr(0, printed.find_first_of(" \n")), ex.expected)
          << document << ":" << ex.line << ": " << ex.command;
    }
    ++ran;
  }
  EXPECT_GE(ran, 3) << document;
  fs::remove_all(scratch);
}

}  // namespace

TEST(Examples, ReadmeRunsAsWritten) { run_examples("README.md"); }
TEST(Examples, UsageRunsAsWritten) { run_examples("docs/usage.md"); }

TEST(Examples, ExtractionFindsCommandsTheirResultsAndContinuations) {
  const std::string path = matchcount::test::temp_file(
      "text\n\n    matchcount --as graph g.edges   # 42 coverings\n    x y 1\n\n"
      "```\nmpirun -np 2 matchcount \\\n  m.mtx   # 4 ranks\n```\n"
      "    bash scripts/setup.sh demo\n",
      ".md");
  const auto ex = examples_of(path);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].command, "matchcount --as graph g.edges");
  EXPECT_EQ(ex[0].expected, "42");
  EXPECT_EQ(ex[1].command, "mpirun -np 2 matchcount  m.mtx");
  EXPECT_EQ(ex[1].expected, "4");
}
