// Checkpoints of long counts. A Checkpoint keeps the values of the finished blocks and the
// running walk's state (its done work units and their sums) in a file, written atomically
// every few seconds and when a stop is requested (SIGINT/SIGTERM), so that the same command
// resumes (docs/usage.md, "Checkpoints").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <memory>

namespace matchcount {

/// The count stopped at a signal; its progress is in the checkpoint file. what() says so.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, const std::string& message) : std::runtime_error(message), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// Refuses (UsageError, exit code 2) a checkpoint path where no checkpoint can be written (its
/// folder is missing or not writable), or that names anything but a regular file (a folder, a
/// device such as /dev/null, a FIFO, a socket, a symbolic link), or whose FILE.tmp or FILE.lock
/// is not a file matchcount wrote, so that a long count does not find out at its first save and
/// nothing else is ever replaced or removed. Leaves nothing behind.
void check_checkpoint_path(const std::string& path);

/// What a count took from its checkpoint file (CountReport::resume), and what
/// --verify-resume (Checkpoint's `verify_resume`) recomputed of it.
struct ResumeSummary {
  bool resumed = false;  // a checkpoint file was found and taken
  bool verified = false;  // resumed walks recomputed a sample of their saved work
  std::size_t blocks_saved = 0;  // finished blocks' values in the file
  std::uint64_t walk_units_saved = 0;  // done work units of the walks resumed
  std::uint64_t walk_units_recomputed = 0, walk_ranges_recomputed = 0;  // recomputed and found as saved
};

class WalkJournal;        // src/runtime/work_units.hpp
class CheckpointFile;     // src/checkpoint/checkpoint_file.hpp

/// The checkpoint file of one count. The pipeline opens it after planning, takes saved block
/// values from it and records new ones; the running walk keeps its state in journal().
class Checkpoint {
 public:
  /// Writes at most every `every_seconds` (and when a stop is requested). With
  /// `verify_resume`, each resumed walk first recomputes a random sample of its saved work
  /// (about 1/16 of it, and always the part its saved total rests on) and refuses the file
  /// (InputError) when a sum differs. Checks the path (check_checkpoint_path) and takes the
  /// file's lock, held until destruction: throws RefusedError (exit code 3) when another run
  /// holds it, UsageError when the path is refused or FILE.lock is not matchcount's.
  Checkpoint(std::string path, double every_seconds, bool verify_resume = false);
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;
  /// Async-signal-safe (one atomic store): asks the count to save and stop.
  void request_stop(int signal) noexcept;
  const std::string& path() const;

  /// Loads the file when it exists. Throws InputError (exit code 2) when it is not a regular
  /// file, corrupt, of another version, larger than `max_bytes` (what a checkpoint of this
  /// count can hold; checked before reading), or was written for another input, options or
  /// plan (`fingerprint`).
  void open(std::uint64_t fingerprint, std::size_t blocks, std::uint64_t max_bytes);
  /// True when open() found a file.
  bool resumed() const;
  /// What was resumed and recomputed so far.
  ResumeSummary summary() const;
  /// The saved value of block i (its text encoding), or empty.
  std::string block_value(std::size_t i) const;
  /// Block i starts: walk states of any other block are dropped.
  void begin_block(std::size_t i);
  /// Block i is counted; written when due; throws Interrupted when a stop was requested.
  void finish_block(std::size_t i, std::string value);
  /// The count is complete: the file is removed (when it is a regular file).
  void complete();
  /// Writes the file now (temporary file, fsync, rename); false (and a warning on stderr) on
  /// failure.
  bool write();
  /// Where the running block's walks keep their state.
  WalkJournal* journal();

 private:
  std::unique_ptr<CheckpointFile> file_;
};

}  // namespace matchcount
