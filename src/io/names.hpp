// Vertex names of edge lists: a compact table that numbers names in order of first appearance.
// Private to src/io.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline std::uint64_t hash_name(std::string_view s) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t k = 0;
    std::memcpy(&k, p, 8);
    h = (h ^ mix64(k)) * 0x9fb21c651e98df25ull;
  }
  std::uint64_t k = 0;
  std::memcpy(&k, p, n);
  return mix64(h ^ k ^ (n << 56));
}

/// Vertex names numbered in order of first appearance: the names lie end to end in one string
/// and an open-addressing table finds them (no allocation per name). A slot holds the hash tag,
/// the id and where the name lies, so a lookup touches the table and the name only. Names that
/// are small decimal numbers without leading zeros (most files) are found in a plain array.
class NameTable {
 public:
  int id(std::string_view name, const LineReader& reader) {
    const std::size_t n = name.size();
    if (std::size_t v = 0; direct_index(name, v)) {
      if (v >= direct_.size()) direct_.resize(std::min(kDirect, std::max(2 * direct_.size(), v + 1)), -1);
      int& k = direct_[v];
      if (k < 0) k = add(name, 0, true, reader);
      return k;
    }
    if (2 * (hashed_ + 1) > slots_.size()) grow();
    const std::uint64_t h = hash_name(name);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id1 == 0) {
        const int k = add(name, h, false, reader);
        slot = Slot{tag, static_cast<std::uint32_t>(k) + 1, where(static_cast<std::size_t>(k))};
        ++hashed_;
        return k;
      }
      if (slot.tag == tag && (slot.where & kSizeMask) == size_field(name.size())) {
        const int k = static_cast<int>(slot.id1 - 1);
        const std::string_view known = size_field(name.size()) == kSizeMask
                                           ? this->name(k)
                                           : std::string_view(arena_).substr(slot.where >> 24, n);
        if (known == name) return k;
      }
    }
  }
  /// The id of a name seen before, or -1 (never adds one).
  int find(std::string_view name) const {
    if (std::size_t v = 0; direct_index(name, v)) return v < direct_.size() ? direct_[v] : -1;
    if (slots_.empty()) return -1;
    const std::uint64_t h = hash_name(name);
    const auto tag = static_cast<std::uint32_t>(h >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id1 == 0) return -1;
      const int k = static_cast<int>(slot.id1 - 1);
      if (slot.tag == tag && this->name(k) == name) return k;
    }
  }
  std::size_t count() const { return ends_.size() - 1; }
  std::string_view name(int k) const {
    const std::size_t b = ends_[static_cast<std::size_t>(k)];
    return std::string_view(arena_).substr(b, ends_[static_cast<std::size_t>(k) + 1] - b);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(count());
    for (std::size_t k = 0; k < count(); ++k) out.emplace_back(name(static_cast<int>(k)));
    return out;
  }

 private:
  /// Small decimal numbers without leading zeros are found in direct_ at their value.
  static bool direct_index(std::string_view name, std::size_t& v) {
    const std::size_t n = name.size();
    if (n == 0 || n > 7 || name[0] < '0' || name[0] > '9' || (name[0] == '0' && n > 1)) return false;
    v = 0;
    for (char c : name) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    return v < kDirect;
  }
  struct Slot {
    std::uint32_t tag = 0;
    std::uint32_t id1 = 0;    // id + 1; 0 = empty
    std::uint64_t where = 0;  // start in the arena << 24 | size (kSizeMask: look in ends_)
  };
  static constexpr std::uint64_t kSizeMask = (std::uint64_t(1) << 24) - 1;
  static std::uint64_t size_field(std::size_t size) { return std::min<std::uint64_t>(size, kSizeMask); }
  std::uint64_t where(std::size_t k) const {
    return static_cast<std::uint64_t>(ends_[k]) << 24 | size_field(ends_[k + 1] - ends_[k]);
  }
  static constexpr std::size_t kDirect = std::size_t(1) << 20;

  int add(std::string_view name, std::uint64_t h, bool direct, const LineReader& reader) {
    if (count() >= static_cast<std::size_t>(std::numeric_limits<int>::max()) - 1)
      reader.fail("too many vertices");
    arena_.append(name);
    ends_.push_back(arena_.size());
    hashes_.push_back(h);
    direct_name_.push_back(direct);
    return static_cast<int>(count() - 1);
  }
  void grow() {
    slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = 0; k < count(); ++k) {
      if (direct_name_[k]) continue;
      std::size_t i = hashes_[k] & mask;
      while (slots_[i].id1 != 0) i = (i + 1) & mask;
      slots_[i] = Slot{static_cast<std::uint32_t>(hashes_[k] >> 32),
                       static_cast<std::uint32_t>(k) + 1, where(k)};
    }
  }
  std::string arena_;
  std::vector<std::size_t> ends_{0};
  std::vector<std::uint64_t> hashes_;
  std::vector<bool> direct_name_;  // found through direct_, not the table
  std::vector<Slot> slots_;
  std::size_t hashed_ = 0;
  std::vector<int> direct_;
};

// Tuple names: networkx writes a vertex (0, 1) as "(0, 1)", with a space inside. A name that
// starts with '(' runs to its matching ')' (quotes inside are skipped over, as in "('a b', 1)")
// and on to the next whitespace; it is kept in Python's spelling, so that "(0,1)" and
// "(0,  1)" are the vertex "(0, 1)" too.

inline bool is_name_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

/// The end of the tuple name that starts at line[start] == '(': the first whitespace (or the
/// end of the line) after its matching ')'. npos when a '(' or a quote is not closed.
inline std::size_t tuple_name_end(std::string_view line, std::size_t start) {
  std::size_t i = start;
  int depth = 0;
  while (i < line.size()) {
    const char ch = line[i];
    if (depth == 0 && is_name_space(ch)) break;
    if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      if (depth > 0) --depth;
    } else if ((ch == '\'' || ch == '"') && depth > 0) {
      std::size_t j = i + 1;
      while (j < line.size() && line[j] != ch) j += line[j] == '\\' ? 2 : 1;
      if (j >= line.size()) return std::string_view::npos;
      i = j;
    }
    ++i;
  }
  return depth == 0 ? i : std::string_view::npos;
}

/// `name` (a tuple name, whitespace inside) in Python's spelling: no space after an opening
/// or before a closing bracket or a comma, one space after a comma, other whitespace runs one
/// space; quoted parts as they are (but for whitespace control characters, spaces there too).
inline void canonical_tuple_name(std::string_view name, std::string& out) {
  out.clear();
  const auto closing = [](char ch) { return ch == ')' || ch == ']' || ch == '}' || ch == ','; };
  const auto opening = [](char ch) { return ch == '(' || ch == '[' || ch == '{'; };
  for (std::size_t i = 0; i < name.size();) {
    const char ch = name[i];
    if (ch == '\'' || ch == '"') {
      std::size_t j = i + 1;
      while (j < name.size() && name[j] != ch) j += name[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, name.size());
      // Quoted parts as they are, but whitespace control characters as spaces: a name never
      // holds a line break (Python's repr escapes them anyway), so that the lines and messages
      // that print it stay one line each.
      for (std::size_t k = i; k < j; ++k) out += is_name_space(name[k]) ? ' ' : name[k];
      i = j;
    } else if (is_name_space(ch) || ch == ',') {
      std::size_t j = i;
      while (j < name.size() && is_name_space(name[j])) ++j;
      if (j < name.size() && name[j] == ',') {
        out += ',';
        for (++j; j < name.size() && is_name_space(name[j]);) ++j;
        if (j < name.size() && !closing(name[j])) out += ' ';
      } else if (j < name.size() && !closing(name[j]) && !out.empty() && !opening(out.back())) {
        out += ' ';
      }
      i = j;
    } else {
      out += ch;
      ++i;
    }
  }
}

/// A vertex name as shown in messages (shortened when long).
inline std::string shown(std::string_view name) {
  return name.size() > 40 ? std::string(name.substr(0, 40)) + "..." : std::string(name);
}

}  // namespace matchcount::io_detail
