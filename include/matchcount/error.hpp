// The error types that decide matchcount's exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace matchcount {

/// Bad input: a file that cannot be read as the format it claims. Exit code 2.
/// what() is "FILE:LINE: message" (LINE omitted when 0, e.g. a missing file).
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, long line, const std::string& message)
      : std::runtime_error(format(file, line, message)), file_(std::move(file)), line_(line) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  static std::string format(const std::string& file, long line, const std::string& message) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
  }
  std::string file_;
  long line_;
};

/// A request matchcount declines rather than answer wrongly or never (a size or bound
/// limit, an engine that cannot take this block). Exit code 3.
class RefusedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A refusal that the count's budget caused (CountOptions::max_memory or max_seconds, the CLI's
/// --max-memory and --max-seconds): planning or an engine predicted to need more memory than
/// the budget, a count predicted to take longer than its time cap, or one stopped at the cap.
/// A larger budget may count it. Exit code 3, as every refusal; Python's BudgetExceeded.
class BudgetError : public RefusedError {
 public:
  using RefusedError::RefusedError;
};

/// Inconsistent options. Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace matchcount
