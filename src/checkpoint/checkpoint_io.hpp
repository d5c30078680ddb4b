// What the checkpoint file does to the file system, kept apart from its format: the checkpoint
// path may name only a regular file (or nothing yet), and the program replaces or removes only
// that file, its FILE.tmp and its FILE.lock (docs/usage.md, "Checkpoints").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace matchcount::checkpoint_io {

/// The first bytes of every checkpoint file and of every lock file.
inline constexpr const char* kMagic = "matchcount-checkpoint";
inline constexpr const char* kLockMagic = "matchcount-checkpoint-lock";

/// The text of the checkpoint at `path`, or nullopt when there is none. Throws InputError
/// (naming the file) when it is not a regular file, cannot be read, or holds more than
/// `max_bytes` (judged from its size before reading, and by reading at most max_bytes + 1).
std::optional<std::string> read(const std::string& path, std::uint64_t max_bytes);

/// Writes `text` to a fresh path.tmp, syncs it and renames it over `path`. Never touches a
/// path.tmp that matchcount did not write, nor replaces a `path` that is not a regular file.
/// Empty on success, else why not.
std::string write(const std::string& path, const std::string& text);

/// Removes `path` when it is a regular file, and path.tmp when it is one that matchcount left.
void remove(const std::string& path);

/// The lock that keeps two runs off one checkpoint: an exclusive flock on FILE.lock, held
/// while the object lives. Not on FILE itself, since every save renames a new inode over FILE,
/// and a lock on the old one would no longer keep anyone out. FILE.lock holds the holder's pid
/// (for the refusal's message); it is removed at the end when this run made it or it was a
/// lock file left by a run that was killed.
class Lock {
 public:
  /// Throws RefusedError when another process holds the lock, UsageError when FILE.lock is
  /// not a lock file (a file of someone else's, a device, a link, ...) or cannot be made.
  explicit Lock(const std::string& path);
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
  bool remove_ = false;
};

}  // namespace matchcount::checkpoint_io
