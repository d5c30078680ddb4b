#include "test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace matchcount::test {

SparseMatrix<Integer> one_entry_column(SparseMatrix<Integer> a, int col, int row, long value) {
  std::erase_if(a.entries, [&](const Entry<Integer>& e) { return e.col == col; });
  a.entries.push_back({row, col, Integer(value)});
  a.normalize();
  return a;
}

SparseMatrix<Integer> random_integer(std::mt19937_64& rng, int n, double density, long lo, long hi) {
  std::bernoulli_distribution keep(density);
  std::uniform_int_distribution<long> val(lo, hi);
  SparseMatrix<Integer> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (!keep(rng)) continue;
      long v = 0;
      while (v == 0 && (lo != 0 || hi != 0)) v = val(rng);
      m.entries.push_back({i, j, Integer(v)});
    }
  m.normalize();
  return m;
}

SparseMatrix<double> random_real(std::mt19937_64& rng, int n, double density, double lo, double hi) {
  std::bernoulli_distribution keep(density);
  std::uniform_real_distribution<double> val(lo, hi);
  SparseMatrix<double> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (keep(rng)) m.entries.push_back({i, j, val(rng)});
  m.normalize();
  return m;
}

SparseMatrix<Complex> random_complex(std::mt19937_64& rng, int n, double density) {
  std::bernoulli_distribution keep(density);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  SparseMatrix<Complex> m;
  m.rows = m.cols = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (keep(rng)) m.entries.push_back({i, j, Complex(val(rng), val(rng))});
  m.normalize();
  return m;
}

std::optional<std::string> shared_dir() {
  std::string dir;
  if (const char* env = std::getenv("MATCHCOUNT_SHARED")) dir = env;
  else dir = (std::filesystem::path(MATCHCOUNT_SOURCE_DIR) / ".." / "shared").string();
  if (std::filesystem::exists(dir + "/datasets")) return dir;
  return std::nullopt;
}

std::string temp_file(const std::string& text, const std::string& suffix) {
  std::string pattern = (std::filesystem::temp_directory_path() / "matchcount-test-XXXXXX").string() + suffix;
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw std::runtime_error("mkstemps failed");
  close(fd);
  std::ofstream(buf.data(), std::ios::binary) << text;
  return buf.data();
}

std::string complex_npy(const std::vector<std::complex<double>>& values, const std::string& shape) {
  std::string dict = "{'descr': '<c16', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff), out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(std::complex<double>));
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run_matchcount(const std::string& args, const std::string& stdin_text) {
  return run_matchcount_under("", args, stdin_text);
}

std::string slow_matchcount(int delay_us) {
  return "'" + std::string(MATCHCOUNT_SLOW_BINARY) + "' " + std::to_string(delay_us);
}

/// Runs `program` (a command line, possibly under a launcher) with the arguments.
static RunResult run_program(const std::string& program, const std::string& args, const std::string& stdin_text) {
  std::string in = temp_file(stdin_text, ".in");
  std::string out = temp_file("", ".out");
  std::string err = temp_file("", ".err");
  std::string cmd = program + " " + args + " <'" + in + "' >'" + out + "' 2>'" + err + "'";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

RunResult run_matchcount_under(const std::string& launcher, const std::string& args, const std::string& stdin_text) {
  return run_program(launcher + (launcher.empty() ? "'" : " '") + MATCHCOUNT_BINARY + "'", args, stdin_text);
}

RunResult run_slow_matchcount_under(const std::string& launcher, int delay_us, const std::string& args) {
  return run_program(launcher + (launcher.empty() ? "" : " ") + slow_matchcount(delay_us), args, "");
}

}  // namespace matchcount::test
