// Helpers shared by the tests: random matrices, the shared data folder, running the binary.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <complex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "matchcount/pipeline.hpp"
#include "matchcount/value.hpp"
#include "engines/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/value.hpp"

namespace matchcount::test {

/// A matrix from `make` with an entry in every row and column: the GPU engines leave blocks
/// with an empty line to the CPU.
template <class Make>
auto without_empty_lines(Make make) {
  for (;;) {
    auto a = make();
    std::vector<bool> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
    for (const auto& e : a.entries) row[static_cast<std::size_t>(e.row)] = col[static_cast<std::size_t>(e.col)] = true;
    if (std::find(row.begin(), row.end(), false) == row.end() && std::find(col.begin(), col.end(), false) == col.end())
      return a;
  }
}

/// Engine options with `t` worker threads.
inline EngineOptions threads(int t) {
  EngineOptions o;
  o.threads = t;
  return o;
}

/// The catalog's engines of square blocks (those make_engine makes), in catalog order.
inline std::vector<std::string> square_engines() {
  std::vector<std::string> names;
  for (const auto& row : catalog::rows())
    if (row.make) names.emplace_back(row.name);
  return names;
}

/// Two floats with their errors bit for bit alike (memcmp of the whole struct would compare its
/// padding too).
template <class T>
bool same_bits(const Approx<T>& a, const Approx<T>& b) {
  return std::memcmp(&a.value, &b.value, sizeof(T)) == 0 && std::memcmp(&a.abs_error, &b.abs_error, sizeof(double)) == 0 &&
         a.estimated == b.estimated;
}

/// Random n x n integer matrix: each entry nonzero with probability `density`, values
/// uniform in [lo, hi] excluding 0.
SparseMatrix<Integer> random_integer(std::mt19937_64& rng, int n, double density, long lo, long hi);
/// Random real matrix with values uniform in [lo, hi].
SparseMatrix<double> random_real(std::mt19937_64& rng, int n, double density, double lo, double hi);
/// Random complex matrix, real and imaginary parts uniform in [-1, 1].
SparseMatrix<Complex> random_complex(std::mt19937_64& rng, int n, double density);
/// `a` with column `col` holding row `row` alone, with `value`.
SparseMatrix<Integer> one_entry_column(SparseMatrix<Integer> a, int col, int row, long value);

/// ../shared next to the checkout (or $MATCHCOUNT_SHARED); nullopt when absent.
std::optional<std::string> shared_dir();

/// Result of running the matchcount binary.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
/// Runs the built `matchcount` with the given shell-quoted arguments, optional stdin text.
RunResult run_matchcount(const std::string& args, const std::string& stdin_text = "");
/// The same, started by `launcher` (a command line put before the program, e.g. mpirun ...).
RunResult run_matchcount_under(const std::string& launcher, const std::string& args, const std::string& stdin_text = "");
/// matchcount-slow (tests/slow_main.cpp): the same program, pausing `delay_us` after every
/// unit of a CPU walk, so that a signal or a checkpoint lands in the middle of the walk.
RunResult run_slow_matchcount_under(const std::string& launcher, int delay_us, const std::string& args);
/// matchcount-slow's command line before the arguments: its quoted path and the pause.
std::string slow_matchcount(int delay_us);

/// The symmetric adjacency matrix of n vertices with `edges` (each once), weighted by `w` (all
/// 1 when empty).
inline SparseMatrix<Integer> weighted_adjacency(int n, const std::vector<std::pair<int, int>>& edges,
                                                const std::vector<long>& w = {}) {
  SparseMatrix<Integer> a{n, n, {}};
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const Integer x = w.empty() ? Integer(1) : Integer(w[i]);
    a.entries.push_back({edges[i].first, edges[i].second, x});
    a.entries.push_back({edges[i].second, edges[i].first, x});
  }
  a.normalize();
  return a;
}

/// Whether this build runs under AddressSanitizer or ThreadSanitizer: statistical tests there
/// draw fewer runs (the sanitizers check the code paths; the Release suite checks the rates).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

/// The smallest k with P(Binomial(runs, p) < k) <= 1e-4: fewer covering runs than this would
/// be a one-in-ten-thousand event if the interval covered at rate p.
inline int coverage_floor(int runs, double p) {
  double below = 0;
  for (int k = 0; k <= runs; ++k) {
    const double pk = std::exp(std::lgamma(runs + 1.0) - std::lgamma(k + 1.0) - std::lgamma(runs - k + 1.0) +
                               k * std::log(p) + (runs - k) * std::log1p(-p));
    if (below + pk > 1e-4) return k;
    below += pk;
  }
  return runs;
}

/// The bundled 12 x 12 band matrix (11854 perfect matchings), a quick count for CLI tests.
inline const std::string kBand12 = std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/band12.mtx";

/// `path` in single quotes, for a shell command line.
inline std::string quoted(const std::string& path) { return "'" + path + "'"; }

/// The bytes of the file at `path` ("" when it cannot be read).
std::string slurp(const std::string& path);

/// Whether one of the report's notes contains `part`.
inline bool has_note(const CountReport& r, const std::string& part) {
  for (const auto& n : r.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

/// An exact count (an Integer or a Rational) as a Rational.
inline Rational exact_value(const PermanentValue& v) {
  if (const auto* i = std::get_if<Integer>(&v.value)) return Rational(*i);
  return std::get<Rational>(v.value);
}

/// An integer matrix with its entries as T (double or Complex).
template <class T>
SparseMatrix<T> entries_as(const SparseMatrix<Integer>& a) {
  return convert<T>(a, [](const Integer& v) { return T(v.get_d()); });
}

/// Writes `text` to a fresh temporary file with the given suffix and returns its path.
std::string temp_file(const std::string& text, const std::string& suffix = ".txt");

/// The bytes of a .npy file of complex128 values in C order, of the shape written as NumPy
/// writes it, e.g. "(3, 4, 4)" or "(6,)".
std::string complex_npy(const std::vector<std::complex<double>>& values, const std::string& shape);

}  // namespace matchcount::test
