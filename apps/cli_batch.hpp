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
  std::vector<double> re, im;  // row i at i * per (im empty for real gammas)
  std::vector<Complex> z;      // the same, interleaved, for complex gammas
  std::int64_t row(std::int64_t i) const { return shared ? 0 : i * per; }
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
