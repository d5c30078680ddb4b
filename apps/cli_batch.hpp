// Stacks of matrices on the command line: a 3-D .npy file (k, m, n) is counted matrix by matrix,
// threads across the matrices, one value a line on stdout or a .npy array with -o.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "matchcount/io.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::cli {

struct BatchFlags {
  std::string output;  // -o FILE.npy: the values as a float64 or complex128 array
};
void add_batch_options(CLI::App& app, BatchFlags& flags);

/// What each matrix of a stack is asked.
enum class StackQuestion { Permanent, Hafnian, LoopHafnian, Torontonian };

/// UsageError for -o without a stack, and for a stack with an option that does not apply to it
/// (`refused_option` non-empty: the first such option the caller found, e.g. "--estimate").
void check_batch(const BatchFlags& flags, const ReadResult& input, const std::string& refused_option);

/// Counts every matrix of input.stack (count's options; one thread each, `threads` across them)
/// and prints the values or writes flags.output. Errors name the first matrix they concern.
void run_stack(const ReadResult& input, const std::string& file, StackQuestion question, const BatchFlags& flags,
               const CountOptions& count, int threads);

}  // namespace matchcount::cli
