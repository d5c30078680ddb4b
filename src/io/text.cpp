// Line reading and tokenising for the readers.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <istream>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

constexpr std::size_t kBlock = std::size_t(1) << 16;
// A longer line is not a line of any format read here; stop before memory runs away.
constexpr std::size_t kMaxLine = std::size_t(1) << 26;

struct ByteTable {
  bool bad[256] = {};
  bool space[256] = {};
  constexpr ByteTable() {
    for (int c = 0; c < 0x20; ++c) bad[c] = true;
    bad[0x7f] = true;
    for (int c : {'\t', '\n', '\v', '\f', '\r'}) bad[c] = false;
    for (int c : {' ', '\t', '\v', '\f', '\r'}) space[c] = true;
  }
};
constexpr ByteTable kBytes;

inline char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

ReadClock::ReadClock(double max_seconds) : capped_(max_seconds > 0), seconds_(max_seconds) {
  if (capped_)
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(
                    std::min(max_seconds, 1e9)));
}

void ReadClock::refuse(const std::string& name, const std::string& where) const {
  char cap[32];
  std::snprintf(cap, sizeof cap, "%g", seconds_);
  throw BudgetError(name + ": reading did not finish within the time cap of " + cap + " s (--max-seconds): stopped at " +
                     where);
}

LineReader::LineReader(std::istream& in, std::string name, std::string prefix)
    : in_(in), name_(std::move(name)), buf_(kBlock), pending_(std::move(prefix)) {}

void LineReader::record(bool on) {
  recording_ = on;
  if (!on) history_ = std::string();
}

void LineReader::rewind() {
  pending_ = history_ + pending_.substr(pending_pos_);
  pending_pos_ = 0;
  history_.clear();
  pos_ = end_ = 0;
  carry_.clear();
  last_ = {};
  pushed_ = false;
  line_ = 0;
  bytes_ = 0;
}

bool LineReader::fill() {
  check_time();
  std::size_t got = 0;
  if (pending_pos_ < pending_.size()) {
    got = std::min(buf_.size(), pending_.size() - pending_pos_);
    std::memcpy(buf_.data(), pending_.data() + pending_pos_, got);
    pending_pos_ += got;
    if (pending_pos_ == pending_.size()) {
      pending_ = std::string();
      pending_pos_ = 0;
    }
  } else if (!stream_eof_) {
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    got = static_cast<std::size_t>(in_.gcount());
    if (in_.bad()) fail_at(line_ + 1, "read error");
    if (got < buf_.size()) stream_eof_ = true;
  }
  if (recording_) history_.append(buf_.data(), got);
  bytes_ += got;
  pos_ = 0;
  end_ = got;
  return got > 0;
}

void LineReader::check_text(const char* p, std::size_t n, long line) const {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (kBytes.bad[u[i]]) fail_at(line, "binary data, not a text file");
}

bool LineReader::next(std::string_view& line) {
  if (pushed_) {
    pushed_ = false;
    ++line_;
    line = last_;
    return true;
  }
  carry_.clear();
  bool partial = false;
  for (;;) {
    if (pos_ == end_ && !fill()) {
      if (!partial) return false;
      line = carry_;
      break;
    }
    const char* start = buf_.data() + pos_;
    const std::size_t avail = end_ - pos_;
    const void* nl = std::memchr(start, '\n', avail);
    if (nl != nullptr) {
      const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      check_text(start, len, line_ + 1);
      pos_ += len + 1;
      if (partial) {
        carry_.append(start, len);
        line = carry_;
      } else {
        line = std::string_view(start, len);
      }
      break;
    }
    check_text(start, avail, line_ + 1);
    carry_.append(start, avail);
    partial = true;
    pos_ = end_;
    if (carry_.size() > kMaxLine) fail_at(line_ + 1, "line too long (over 64 MiB)");
  }
  ++line_;
  if (line_ == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  last_ = line;
  return true;
}

void LineReader::push_back() {
  pushed_ = true;
  --line_;
}

int tokenize(std::string_view line, Tokens& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  const std::size_t n = line.size();
  int count = 0;
  std::size_t i = 0;
  for (;;) {
    while (i < n && kBytes.space[p[i]]) ++i;
    if (i == n) break;
    const std::size_t start = i;
    while (i < n && !kBytes.space[p[i]]) ++i;
    if (count < kMaxTokens) out[static_cast<std::size_t>(count)] = line.substr(start, i - start);
    ++count;
  }
  return count;
}

std::string fields(int n) { return std::to_string(n) + (n == 1 ? " field" : " fields"); }

std::string quote(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string s = "'";
  // What is quoted may hold a tab or CR (an attribute dict, a .npy header): escaped, so that
  // the message stays one line.
  for (const char ch : token.substr(0, kShown)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      s += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      s += buf;
    }
  }
  if (token.size() > kShown) s += "...";
  s += "'";
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

bool is_matrix_market_banner(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return istarts_with(line, "%%MatrixMarket");
}

namespace {

/// Levenshtein distance of two short words, ignoring case (at most 32 characters each).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::array<std::size_t, 33> row{};
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const bool same = iequals(a.substr(i - 1, 1), b.substr(j - 1, 1));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

bool looks_like_matrix_market_banner(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  if (line.empty() || line.front() != '%' || is_matrix_market_banner(line)) return false;
  while (!line.empty() && (line.front() == '%' || line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  Tokens t;
  const int n = std::min(tokenize(line, t), kMaxTokens);
  if (n == 0) return false;
  // "%MatrixMarket", "%% MatrixMarket", "%%MatrixMarkt", "%%Matrix-Market": the word itself,
  // misspelt by a little.
  if (t[0].size() >= 8 && t[0].size() <= 32 && edit_distance(t[0], "MatrixMarket") <= 3) return true;
  // "%%MM matrix coordinate real general": the banner's words after any first word.
  const auto layout = [](std::string_view w) { return iequals(w, "coordinate") || iequals(w, "array"); };
  for (int i = 0; i + 1 < n && i < 2; ++i)
    if (iequals(t[i], "matrix") && layout(t[i + 1])) return true;
  return false;
}

}  // namespace matchcount::io_detail
