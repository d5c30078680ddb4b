// The checkpoint file: a versioned text file with a checksum, replaced atomically.
//
//   matchcount-checkpoint 1
//   fingerprint <16 hex>            hash of the input, options and plan (resume/fingerprint)
//   blocks <count>
//   value <block> <text>            one per finished block (int <hex> | real <bits> <bits> | ...)
//   running <block>                 the block whose walks follow (absent: none)
//   walk <tag> <units> <done ranges b-e,...|-> <sum words hex,...|->
//   checksum <16 hex>               FNV-1a 64 of everything above
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checkpoint/checkpoint_file.hpp"
#include "core/hashing.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"

namespace matchcount {
namespace {

constexpr const char* kMagic = "matchcount-checkpoint";
constexpr int kVersion = 1;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string hex(std::uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

bool parse_hex(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s.size() > 16) return false;
  v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  return true;
}

bool parse_size(const std::string& s, std::uint64_t& v) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  v = std::stoull(s);
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t e = s.find(sep, at);
    out.push_back(s.substr(at, e - at));
    if (e == std::string::npos) return out;
    at = e + 1;
  }
}

const char* signal_name(int signal) {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

/// Writes all of `text` to fd.
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

void check_checkpoint_path(const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    throw UsageError("--checkpoint " + path + ": " + why + "; choose another --checkpoint file");
  };
  if (path.empty()) refuse("an empty file name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) refuse("it is a directory");
  // The saves write FILE.tmp beside FILE and rename it: try exactly that, removing only what
  // this check created.
  const std::string tmp = path + ".tmp";
  const bool existed = std::filesystem::exists(tmp, ec);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) refuse(std::string("cannot write there: ") + std::strerror(errno));
  ::close(fd);
  if (!existed) ::unlink(tmp.c_str());
}

CheckpointFile::CheckpointFile(std::string path, double every_seconds) : path_(std::move(path)), every_(every_seconds) {
  last_write_ns_ = now_ns();
}

void CheckpointFile::open(std::uint64_t fingerprint, std::size_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  fingerprint_ = fingerprint;
  blocks_ = blocks;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return;  // a fresh start
  std::stringstream buf;
  buf << in.rdbuf();
  if (buf.str().empty()) return;  // an empty file holds nothing to lose
  parse(buf.str(), fingerprint);
  resumed_ = true;
}

void CheckpointFile::parse(const std::string& text, std::uint64_t fingerprint) {
  auto fail = [&](const std::string& why) { throw InputError(path_, 0, why); };
  const std::string magic = std::string(kMagic) + " ";
  if (text.compare(0, magic.size(), magic) != 0)
    fail("not a matchcount checkpoint file (refusing to overwrite it; choose another --checkpoint file)");
  const std::size_t sum_at = text.rfind("checksum ");
  std::uint64_t sum = 0;
  if (sum_at == std::string::npos || (sum_at > 0 && text[sum_at - 1] != '\n') || text.back() != '\n' ||
      !parse_hex(text.substr(sum_at + 9, text.size() - sum_at - 10), sum) || sum != fnv1a64(text.data(), sum_at))
    fail("the checkpoint is corrupt (checksum mismatch); remove it to start afresh");
  std::vector<std::string> lines = split(text.substr(0, sum_at), '\n');
  lines.pop_back();  // after the last newline
  if (lines[0] != magic + std::to_string(kVersion)) fail("the checkpoint was written by another version of matchcount");
  std::uint64_t fp = 0, n = 0;
  if (lines.size() < 3 || lines[1].rfind("fingerprint ", 0) != 0 || !parse_hex(lines[1].substr(12), fp) ||
      lines[2].rfind("blocks ", 0) != 0 || !parse_size(lines[2].substr(7), n))
    fail("the checkpoint is malformed");
  if (fp != fingerprint || n != blocks_)
    fail("the checkpoint was written for another input, other options or another plan; "
         "remove it or choose another --checkpoint file");
  for (std::size_t k = 3; k < lines.size(); ++k) {
    const std::vector<std::string> f = split(lines[k], ' ');
    std::uint64_t i = 0;
    if (f[0] == "value" && f.size() >= 3 && parse_size(f[1], i) && i < blocks_) {
      values_[i] = lines[k].substr(f[0].size() + f[1].size() + 2);
    } else if (f[0] == "running" && f.size() == 2 && parse_size(f[1], i) && i < blocks_) {
      running_ = i;
      has_running_ = true;
    } else if (f[0] == "walk" && f.size() == 5 && has_running_) {
      WalkState s;
      if (!parse_size(f[2], s.units)) fail("the checkpoint is malformed");
      if (f[3] != "-")
        for (const auto& r : split(f[3], ',')) {
          const auto be = split(r, '-');
          UnitRange u;
          if (be.size() != 2 || !parse_size(be[0], u.begin) || !parse_size(be[1], u.end)) fail("the checkpoint is malformed");
          s.done.push_back(u);
        }
      if (f[4] != "-")
        for (const auto& w : split(f[4], ',')) {
          std::uint64_t v = 0;
          if (!parse_hex(w, v)) fail("the checkpoint is malformed");
          s.sum.push_back(v);
        }
      walks_[f[1]] = std::move(s);
    } else {
      fail("the checkpoint is malformed (line " + std::to_string(k + 1) + ")");
    }
  }
}

std::string CheckpointFile::serialise() const {
  std::string s = std::string(kMagic) + " " + std::to_string(kVersion) + "\nfingerprint " + hex(fingerprint_) +
                  "\nblocks " + std::to_string(blocks_) + "\n";
  for (const auto& [i, v] : values_) s += "value " + std::to_string(i) + " " + v + "\n";
  if (has_running_) {
    s += "running " + std::to_string(running_) + "\n";
    for (const auto& [tag, w] : walks_) {
      s += "walk " + tag + " " + std::to_string(w.units) + " ";
      for (std::size_t k = 0; k < w.done.size(); ++k)
        s += (k ? "," : "") + std::to_string(w.done[k].begin) + "-" + std::to_string(w.done[k].end);
      s += w.done.empty() ? "- " : " ";
      for (std::size_t k = 0; k < w.sum.size(); ++k) s += (k ? "," : "") + hex(w.sum[k]);
      s += w.sum.empty() ? "-\n" : "\n";
    }
  }
  return s + "checksum " + hex(fnv1a64(s.data(), s.size())) + "\n";
}

bool CheckpointFile::write() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string text = serialise();
  const std::string tmp = path_ + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write_all(fd, text) && ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  ok = ok && std::rename(tmp.c_str(), path_.c_str()) == 0;
  if (ok) {  // the rename itself is durable once the directory is synced
    std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  } else {
    std::fprintf(stderr, "matchcount: warning: could not write the checkpoint %s: %s\n", path_.c_str(),
                 std::strerror(err ? err : errno));
  }
  last_write_ns_ = now_ns();
  return ok;
}

std::string CheckpointFile::block_value(std::size_t i) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = values_.find(i);
  return it == values_.end() ? std::string() : it->second;
}

void CheckpointFile::begin_block(std::size_t i) {
  if (const int sig = stop_requested()) {
    write();
    throw Interrupted(sig, interrupted_message(sig));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_running_ || running_ != i) walks_.clear();
  running_ = i;
  has_running_ = true;
}

void CheckpointFile::finish_block(std::size_t i, std::string value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[i] = std::move(value);
    walks_.clear();
    has_running_ = false;
  }
  if (due()) write();
  if (const int sig = stop_requested()) throw Interrupted(sig, interrupted_message(sig));
}

void CheckpointFile::complete() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  std::filesystem::remove(path_ + ".tmp", ec);
}

WalkState CheckpointFile::resume(const std::string& tag) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = walks_.find(tag);
  return it == walks_.end() ? WalkState{} : it->second;
}

bool CheckpointFile::due() const {
  return stop_requested() != 0 || double(now_ns() - last_write_ns_.load()) >= every_ * 1e9;
}

void CheckpointFile::update(const std::string& tag, const WalkState& state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    walks_[tag] = state;
  }
  if (due()) write();
}

std::string CheckpointFile::interrupted_message(int signal) const {
  return std::string("interrupted by ") + signal_name(signal) + "; progress is saved in " + path_ +
         ": run the same command again to resume";
}

// The public face forwards to the file.
Checkpoint::Checkpoint(std::string path, double every_seconds)
    : file_(std::make_unique<CheckpointFile>(std::move(path), every_seconds)) {}
Checkpoint::~Checkpoint() = default;
void Checkpoint::request_stop(int signal) noexcept { file_->request_stop(signal); }
const std::string& Checkpoint::path() const { return file_->path(); }
void Checkpoint::open(std::uint64_t fingerprint, std::size_t blocks) { file_->open(fingerprint, blocks); }
bool Checkpoint::resumed() const { return file_->resumed(); }
std::string Checkpoint::block_value(std::size_t i) const { return file_->block_value(i); }
void Checkpoint::begin_block(std::size_t i) { file_->begin_block(i); }
void Checkpoint::finish_block(std::size_t i, std::string value) { file_->finish_block(i, std::move(value)); }
void Checkpoint::complete() { file_->complete(); }
bool Checkpoint::write() { return file_->write(); }
WalkJournal* Checkpoint::journal() { return file_.get(); }

}  // namespace matchcount
