// The checkpoint's dealings with the file system (checkpoint_io.hpp). Every name is looked at
// with lstat and opened with O_NOFOLLOW and O_NONBLOCK before anything is read, written,
// renamed or removed: `--checkpoint /dev/null` run as root once read the device as an empty
// checkpoint and then removed it, and a FIFO would have blocked the open for ever.
#include "checkpoint/checkpoint_io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"

namespace matchcount {
namespace checkpoint_io {
namespace {

/// What a non-regular file is, for messages.
std::string kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// lstat: nullopt when nothing is there (errno says why otherwise).
std::optional<struct stat> look(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

/// Opens a regular file without following a link or blocking on a FIFO; -1 when it is not one.
int open_regular(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

/// Up to `most` bytes from fd's current offset.
std::string read_some(int fd, std::uint64_t most) {
  std::string out;
  char buf[65536];
  while (out.size() < most) {
    const ssize_t r = ::read(fd, buf, static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, most - out.size())));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    out.append(buf, static_cast<std::size_t>(r));
  }
  return out;
}

/// True when the regular file at `path` is empty or begins with `magic`: a file matchcount
/// wrote (or began to write when it was killed), which it may replace.
bool ours(const std::string& path, const char* magic) {
  const int fd = open_regular(path, O_RDONLY);
  if (fd < 0) return false;
  const std::string head = read_some(fd, std::strlen(magic) + 1);
  ::close(fd);
  return head.empty() || head == std::string(magic) + " ";
}

bool write_all(int fd, const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t w = ::write(fd, text.data() + at, text.size() - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    at += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

std::optional<std::string> read(const std::string& path, std::uint64_t max_bytes) {
  const auto too_large = [&](std::uint64_t bytes) {
    return InputError(path, 0, "the file is too large to be a checkpoint of this input (" + std::to_string(bytes) +
                                   " bytes or more; at most " + std::to_string(max_bytes) +
                                   " expected); remove it or choose another --checkpoint file");
  };
  const auto st = look(path);
  if (!st) {
    if (errno == ENOENT) return std::nullopt;  // a fresh start
    throw InputError(path, 0, std::string("cannot read the checkpoint: ") + std::strerror(errno));
  }
  if (!S_ISREG(st->st_mode))
    throw InputError(path, 0, "not a regular file (" + kind(st->st_mode) + "); choose another --checkpoint file");
  if (static_cast<std::uint64_t>(st->st_size) > max_bytes) throw too_large(static_cast<std::uint64_t>(st->st_size));
  const int fd = open_regular(path, O_RDONLY);
  if (fd < 0) throw InputError(path, 0, std::string("cannot read the checkpoint: ") + std::strerror(errno));
  // The cap holds even for a file that grows while it is read.
  std::string text = read_some(fd, max_bytes + 1);
  ::close(fd);
  if (text.size() > max_bytes) throw too_large(text.size());
  return text;
}

std::string write(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  if (const auto st = look(tmp)) {
    if (!S_ISREG(st->st_mode) || !ours(tmp, kMagic)) return tmp + " is not a file matchcount wrote; it is left alone";
    ::unlink(tmp.c_str());  // a save cut short: a fresh file below, so that no other name shares it
  }
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  bool ok = write_all(fd, text) && ::fsync(fd) == 0;
  std::string why = ok ? "" : std::strerror(errno);
  ::close(fd);
  if (const auto st = look(path); ok && st && !S_ISREG(st->st_mode)) {
    ok = false;
    why = path + " is " + kind(st->st_mode) + ", not a regular file; it is not replaced";
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    why = std::strerror(errno);
  }
  if (!ok) {
    ::unlink(tmp.c_str());  // ours: made above with O_EXCL
    return why;
  }
  // The rename itself is durable once the directory is synced.
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return "";
}

void remove(const std::string& path) {
  if (const auto st = look(path); st && S_ISREG(st->st_mode)) ::unlink(path.c_str());
  const std::string tmp = path + ".tmp";
  if (const auto st = look(tmp); st && S_ISREG(st->st_mode) && ours(tmp, kMagic)) ::unlink(tmp.c_str());
}

Lock::Lock(const std::string& path) : path_(path + ".lock") {
  const auto refuse = [&](const std::string& why) {
    throw UsageError("--checkpoint " + path + ": " + why + "; choose another --checkpoint file");
  };
  // A run that ends removes the name while it holds the lock; one that opened the old name
  // before may then get a lock on a file no longer there: it looks again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    bool made = true;
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
      made = false;
      if (const auto st = look(path_); st && !S_ISREG(st->st_mode)) refuse(path_ + " is " + kind(st->st_mode));
      fd = open_regular(path_, O_RDWR);
      if (fd < 0 && errno == ENOENT) continue;
    }
    if (fd < 0) refuse(std::string("cannot make the lock file ") + path_ + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        std::string pid = read_some(fd, 64);
        ::close(fd);
        const std::string magic = std::string(kLockMagic) + " ";
        pid = pid.rfind(magic, 0) == 0 ? pid.substr(magic.size(), pid.find('\n') - magic.size()) : "";
        const bool known = !pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos;
        throw RefusedError("the checkpoint " + path + " is in use by another matchcount run" +
                           (known ? " (pid " + pid + ")" : "") + "; wait for it to end or choose another --checkpoint file");
      }
      // No locks on this file system (some network ones): the count goes on unguarded.
      std::fprintf(stderr, "matchcount: warning: cannot lock %s (%s); make sure no other run uses this checkpoint\n",
                   path_.c_str(), std::strerror(errno));
    }
    struct stat held {};
    const auto now = look(path_);
    if (::fstat(fd, &held) != 0 || !now || now->st_ino != held.st_ino || now->st_dev != held.st_dev) {
      ::close(fd);
      continue;
    }
    if (!made && !ours(path_, kLockMagic)) {
      ::close(fd);
      refuse(path_ + " exists and is not a matchcount lock file");
    }
    const std::string text = std::string(kLockMagic) + " " + std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, text.data(), text.size(), 0);
    fd_ = fd;
    remove_ = true;  // made here, or a lock file a killed run left
    return;
  }
  refuse("cannot hold the lock file " + path_ + " (it keeps being replaced)");
}

Lock::~Lock() {
  if (fd_ < 0) return;
  // Removed while it is still held, so that no other run holds this name meanwhile.
  struct stat held {};
  if (const auto now = look(path_);
      remove_ && now && ::fstat(fd_, &held) == 0 && now->st_ino == held.st_ino && now->st_dev == held.st_dev)
    ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace checkpoint_io

void check_checkpoint_path(const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    throw UsageError("--checkpoint " + path + ": " + why + "; choose another --checkpoint file");
  };
  if (path.empty()) refuse("an empty file name");
  // FILE may be only a regular file (saves replace it, and a finished count removes it) or
  // nothing yet; FILE.tmp and FILE.lock, also replaced or removed, only files matchcount wrote.
  if (const auto st = checkpoint_io::look(path)) {
    if (!S_ISREG(st->st_mode)) refuse("it is " + checkpoint_io::kind(st->st_mode) + ", not a regular file");
  } else if (errno != ENOENT) {
    refuse(std::string("cannot write there: ") + std::strerror(errno));
  }
  for (const auto& [name, magic] :
       {std::pair{path + ".tmp", checkpoint_io::kMagic}, std::pair{path + ".lock", checkpoint_io::kLockMagic}})
    if (const auto st = checkpoint_io::look(name)) {
      if (!S_ISREG(st->st_mode)) refuse(name + " is " + checkpoint_io::kind(st->st_mode));
      if (!checkpoint_io::ours(name, magic)) refuse(name + " exists and is not a file matchcount wrote");
    }
  // The saves write FILE.tmp beside FILE and rename it: try exactly that, removing only what
  // this check created.
  const std::string tmp = path + ".tmp";
  const bool existed = checkpoint_io::look(tmp).has_value();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) refuse(std::string("cannot write there: ") + std::strerror(errno));
  ::close(fd);
  if (!existed) ::unlink(tmp.c_str());
}

}  // namespace matchcount
