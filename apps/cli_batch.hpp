// Stacks of matrices on the command line: a 3-D .npy file (k, m, n) is counted matrix by matrix,
// threads across the matrices, one value a line on stdout or a .npy array with -o.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::cli {

struct BatchFlags {
  std::string output;  // -o FILE.npy: the values as a float64 or complex128 array
};
void add_batch_options(CLI::App& app, BatchFlags& flags);

/// What each matrix of a stack is asked.
enum class StackQuestion { Permanent, Hafnian, LoopHafnian, Torontonian };

/// The number of matrices of a stack.
std::size_t stack_size(const ReadResult& input);

/// The loop torontonians' gammas of a stack (--gamma with a stack): one row of 2n values a
/// matrix, or one row for every matrix.
struct StackGammas {
  int per = 0;  // 2n
  bool shared = false, complex = false;
  /// The rows' values: doubles, or complex values as (re, im) pairs of doubles.
  std::vector<double> values;
  /// Row i's first value (float64 or complex128, as `complex` says).
  const double* row(std::int64_t i) const { return values.data() + (shared ? 0 : i * per) * (complex ? 2 : 1); }
  Complex at(std::int64_t i, int j) const { return complex ? Complex(row(i)[2 * j], row(i)[2 * j + 1]) : Complex(row(i)[j]); }
  /// Row i as the 2n x 1 matrix the pipeline reads.
  AnyMatrix column(std::int64_t i) const;
};

/// --gamma's file for a stack of `k` 2n x 2n matrices: a k x 2n array (one row a matrix) or 2n
/// values (the same for each); UsageError naming the shapes otherwise.
StackGammas read_stack_gammas(const std::string& path, const ReadOptions& read, std::int64_t k, int rows);

/// UsageError for -o without a stack, and for a stack with an option that does not apply to it
/// (`refused_option` non-empty: the first such option the caller found, e.g. "--estimate").
void check_batch(const BatchFlags& flags, const ReadResult& input, const std::string& refused_option);

/// Counts every matrix of input.stack (count's options; one thread each, `threads` across them;
/// torontonians with `gammas` the loop torontonians) and prints the values or writes
/// flags.output. Errors name the first matrix they concern.
void run_stack(const ReadResult& input, const std::string& file, StackQuestion question, const BatchFlags& flags,
               const CountOptions& count, int threads, const StackGammas* gammas = nullptr);

}  // namespace matchcount::cli
