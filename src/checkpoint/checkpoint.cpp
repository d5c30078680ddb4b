// The checkpoint file: a versioned text file with a checksum, replaced atomically
// (checkpoint_io.cpp does the file system's part).
//
//   matchcount-checkpoint 2
//   fingerprint <16 hex>            hash of the input, options and plan (resume/fingerprint)
//   blocks <count>
//   value <block> <text>            one per finished block (int <hex> | real <bits> <bits> | ...)
//   running <block>                 the block whose walks follow (absent: none)
//   walk <tag> <units> <done ranges b-e,...|-> <sum words hex,...|-> <marks b-e:words;...|->
//   checksum <16 hex>               FNV-1a 64 of everything above
//
// A walk's marks (WalkMark, runtime/work_units.hpp) are partial sums kept so that
// --verify-resume can recompute some of the done units and compare: version 1 had none.
#include <signal.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/checkpoint_io.hpp"
#include "core/hashing.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"

namespace matchcount {
namespace {

using checkpoint_io::kMagic;
constexpr int kVersion = 2;
/// --verify-resume recomputes this share of each resumed walk's done units (and at least the
/// range its total rests on).
constexpr double kVerifyShare = 1.0 / 16;

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

/// Words as "w,w,..." ("-": none), and back (false: malformed).
std::string words_text(const std::vector<std::uint64_t>& w) {
  std::string s;
  for (std::size_t k = 0; k < w.size(); ++k) s += (k ? "," : "") + hex(w[k]);
  return w.empty() ? "-" : s;
}
bool parse_words(const std::string& s, std::vector<std::uint64_t>& w) {
  if (s == "-") return true;
  for (const auto& x : split(s, ',')) {
    std::uint64_t v = 0;
    if (!parse_hex(x, v)) return false;
    w.push_back(v);
  }
  return true;
}
bool parse_range(const std::string& s, UnitRange& u) {
  const auto be = split(s, '-');
  return be.size() == 2 && parse_size(be[0], u.begin) && parse_size(be[1], u.end);
}

}  // namespace

CheckpointFile::CheckpointFile(std::string path, double every_seconds, bool verify)
    // The path is checked before the lock makes FILE.lock beside it.
    : path_(std::move(path)), every_(every_seconds), verify_(verify), lock_((check_checkpoint_path(path_), path_)) {
  last_write_ns_ = now_ns();
}

void CheckpointFile::open(std::uint64_t fingerprint, std::size_t blocks, std::uint64_t max_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  fingerprint_ = fingerprint;
  blocks_ = blocks;
  const std::optional<std::string> text = checkpoint_io::read(path_, max_bytes);
  if (!text || text->empty()) return;  // a fresh start; an empty file holds nothing to lose
  parse(*text, fingerprint);
  resumed_ = true;
  summary_.blocks_saved = values_.size();
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
    const auto malformed = [&] { fail("the checkpoint is malformed (line " + std::to_string(k + 1) + ")"); };
    std::uint64_t i = 0;
    if (f[0] == "value" && f.size() >= 3 && parse_size(f[1], i) && i < blocks_) {
      values_[i] = lines[k].substr(f[0].size() + f[1].size() + 2);
    } else if (f[0] == "running" && f.size() == 2 && parse_size(f[1], i) && i < blocks_) {
      running_ = i;
      has_running_ = true;
    } else if (f[0] == "walk" && f.size() == 6 && has_running_) {
      WalkState s;
      if (!parse_size(f[2], s.units) || !parse_words(f[4], s.sum)) malformed();
      if (f[3] != "-")
        for (const auto& r : split(f[3], ',')) {
          UnitRange u;
          if (!parse_range(r, u)) malformed();
          s.done.push_back(u);
        }
      if (f[5] != "-")
        for (const auto& m : split(f[5], ';')) {
          const std::size_t colon = m.find(':');
          WalkMark mark;
          if (colon == std::string::npos || !parse_range(m.substr(0, colon), mark.range) ||
              !parse_words(m.substr(colon + 1), mark.sum) || mark.sum.empty())
            malformed();
          s.marks.push_back(std::move(mark));
        }
      walks_[f[1]] = std::move(s);
    } else {
      malformed();
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
      s += (w.done.empty() ? "- " : " ") + words_text(w.sum) + " ";
      for (std::size_t k = 0; k < w.marks.size(); ++k)
        s += (k ? ";" : "") + std::to_string(w.marks[k].range.begin) + "-" + std::to_string(w.marks[k].range.end) + ":" +
             words_text(w.marks[k].sum);
      s += w.marks.empty() ? "-\n" : "\n";
    }
  }
  return s + "checksum " + hex(fnv1a64(s.data(), s.size())) + "\n";
}

bool CheckpointFile::write() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string why = checkpoint_io::write(path_, serialise());
  if (!why.empty())
    std::fprintf(stderr, "matchcount: warning: could not write the checkpoint %s: %s\n", path_.c_str(), why.c_str());
  last_write_ns_ = now_ns();
  return why.empty();
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

void CheckpointFile::complete() { checkpoint_io::remove(path_); }

WalkState CheckpointFile::resume(const std::string& tag) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = walks_.find(tag);
  if (it == walks_.end()) return WalkState{};
  if (resumed_walks_.insert(tag).second) summary_.walk_units_saved += it->second.done_units();
  return it->second;
}

double CheckpointFile::verify_share() const { return verify_ ? kVerifyShare : 0.0; }

void CheckpointFile::verified(const std::string&, std::uint64_t units, std::uint64_t ranges, std::uint64_t) {
  std::lock_guard<std::mutex> lock(mutex_);
  summary_.walk_units_recomputed += units;
  summary_.walk_ranges_recomputed += ranges;
}

ResumeSummary CheckpointFile::summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ResumeSummary s = summary_;
  s.resumed = resumed_;
  s.verified = verify_;
  return s;
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
Checkpoint::Checkpoint(std::string path, double every_seconds, bool verify_resume)
    : file_(std::make_unique<CheckpointFile>(std::move(path), every_seconds, verify_resume)) {}
Checkpoint::~Checkpoint() = default;
void Checkpoint::request_stop(int signal) noexcept { file_->request_stop(signal); }
const std::string& Checkpoint::path() const { return file_->path(); }
void Checkpoint::open(std::uint64_t fingerprint, std::size_t blocks, std::uint64_t max_bytes) {
  file_->open(fingerprint, blocks, max_bytes);
}
bool Checkpoint::resumed() const { return file_->resumed(); }
ResumeSummary Checkpoint::summary() const { return file_->summary(); }
std::string Checkpoint::block_value(std::size_t i) const { return file_->block_value(i); }
void Checkpoint::begin_block(std::size_t i) { file_->begin_block(i); }
void Checkpoint::finish_block(std::size_t i, std::string value) { file_->finish_block(i, std::move(value)); }
void Checkpoint::complete() { file_->complete(); }
bool Checkpoint::write() { return file_->write(); }
WalkJournal* Checkpoint::journal() { return file_.get(); }

}  // namespace matchcount
