// parse_npy_header (npy_header.hpp).
#include "io/npy_header.hpp"

#include <bit>
#include <cctype>
#include <string>
#include <vector>

#include "io/reader_impl.hpp"
#include "matchcount/error.hpp"

namespace matchcount::io_detail {
namespace {

/// A cursor over the header text with error reporting by byte offset in the file.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, std::uint64_t offset, const std::string& name, bool vectors)
      : s_(text), base_(offset), name_(name), vectors_(vectors) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() == '[' || peek() == '(')
          fail("a structured dtype (a record of fields) is not a matrix of numbers");
        value_at_ = pos_;
        h.dtype = dtype(string_literal());
        have_descr = true;
      } else if (key == "fortran_order") {
        skip_space();
        if (take_word("True")) h.fortran = true;
        else if (take_word("False")) h.fortran = false;
        else fail("fortran_order must be True or False");
        have_order = true;
      } else if (key == "shape") {
        shape(h);
        have_shape = true;
      } else {
        fail("unexpected key " + quote(key) + " in the header (descr, fortran_order and shape only)");
      }
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != '}') fail("expected ',' or '}' in the header dict");
    }
    ++pos_;
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the header dict");
    if (!have_descr || !have_order || !have_shape)
      fail(std::string("the header lacks '") + (!have_descr ? "descr" : !have_order ? "fortran_order" : "shape") + "'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_, 0, "malformed .npy header at byte offset " + std::to_string(base_ + pos_) + ": " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool take_word(std::string_view w) {
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  std::string string_literal() {
    skip_space();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const std::size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  std::uint64_t integer() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    std::uint64_t v = 0;
    if (pos_ == start) fail("expected a dimension (a non-negative integer)");
    if (!parse_count(std::string_view(s_).substr(start, pos_ - start), kMaxDim, v))
      fail("dimension " + s_.substr(start, pos_ - start) + " too large (at most " + std::to_string(kMaxDim) + ")");
    if (peek() == 'L') ++pos_;  // Python 2 longs
    return v;
  }
  void shape(NpyHeader& h) {
    expect('(');
    std::vector<std::uint64_t> d;
    for (;;) {
      skip_space();
      if (peek() == ')') break;
      d.push_back(integer());
      skip_space();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') fail("expected ',' or ')' in the shape");
    }
    ++pos_;
    if (d.size() == 1 && vectors_) {  // a vector of values: one column (either order)
      h.rows = d[0], h.cols = 1;
      return;
    }
    if (d.size() != 2 && d.size() != 3) {
      std::string text = "(";
      for (std::size_t k = 0; k < d.size(); ++k) text += (k ? ", " : "") + std::to_string(d[k]);
      text += d.size() == 1 ? ",)" : ")";
      fail("shape " + text + " has " + std::to_string(d.size()) + " dimensions; a matrix has 2 (a stack of matrices 3)");
    }
    if (d.size() == 3) {
      h.is_stack = true;
      h.stack = d[0], h.slice_rows = d[1];
      if (__builtin_mul_overflow(d[0], d[1], &h.rows) || h.rows > kMaxDim)
        fail("a stack of " + std::to_string(d[0]) + " matrices of " + std::to_string(d[1]) + " rows is too large");
      h.cols = d[2];
      return;
    }
    h.rows = d[0];
    h.cols = d[1];
  }
  NpyDtype dtype(const std::string& text) {
    const std::size_t end = pos_;
    pos_ = value_at_;  // errors point at the dtype string
    NpyDtype t;
    t.text = text;
    if (text.size() >= 2 && text[1] == 'O') fail("dtype " + quote(text) + " holds Python objects (pickled), not numbers");
    if (text.size() < 3) fail("unsupported dtype " + quote(text));
    t.order = text[0];
    t.kind = text[1];
    std::uint64_t size = 0;
    const bool sized = parse_count(std::string_view(text).substr(2), 64, size);
    t.size = static_cast<int>(size);
    if (t.order == '=') t.order = std::endian::native == std::endian::little ? '<' : '>';
    const bool ok_size =
        sized && ((t.kind == 'b' && size == 1) ||
                  ((t.kind == 'i' || t.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                  (t.kind == 'f' && (size == 4 || size == 8)) || (t.kind == 'c' && (size == 8 || size == 16)));
    if (!ok_size || (t.order != '<' && t.order != '>' && t.order != '|') || (t.order == '|' && size != 1))
      fail("unsupported dtype " + quote(text) +
           " (integers i1..i8 and u1..u8, bool b1, floats f4 f8, complex c8 c16)");
    pos_ = end;
    return t;
  }

  const std::string& s_;
  std::size_t pos_ = 0;
  std::size_t value_at_ = 0;
  std::uint64_t base_;
  const std::string& name_;
  bool vectors_;
};

}  // namespace

NpyHeader parse_npy_header(const std::string& text, std::uint64_t offset, const std::string& name, bool vectors) {
  return HeaderParser(text, offset, name, vectors).parse();
}

}  // namespace matchcount::io_detail
