// NumPy .npy files: the "\x93NUMPY" magic, a version, a Python-literal header dict (descr,
// fortran_order, shape) and the raw array. Read in chunks: memory grows with the nonzero entries
// found, never with the shape the header claims.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <istream>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

// Longer headers are not written by NumPy (it pads to 64 bytes; version 1 allows 65535).
constexpr std::uint64_t kMaxHeader = std::uint64_t(1) << 20;
constexpr std::size_t kChunk = std::size_t(1) << 20;

struct Dtype {
  char order = '<';  // '<', '>' or '|'
  char kind = 'i';   // 'b', 'i', 'u', 'f', 'c'
  int size = 0;      // bytes per element
  std::string text;  // as written, for messages
};

struct Header {
  Dtype dtype;
  bool fortran = false;
  std::uint64_t rows = 0, cols = 0;
  /// A 3-D stack (k, m, n): k matrices of m x n, read as one (k m) x n matrix (in either order
  /// the slices' rows are whole rows of it) and split after; 0 for a 2-D array.
  std::uint64_t stack = 0, slice_rows = 0;
  bool is_stack = false;
};

/// A cursor over the header text with error reporting by byte offset in the file.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, std::uint64_t offset, const std::string& name)
      : s_(text), base_(offset), name_(name) {}

  Header parse() {
    Header h;
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
  void shape(Header& h) {
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
  Dtype dtype(const std::string& text) {
    const std::size_t end = pos_;
    pos_ = value_at_;  // errors point at the dtype string
    Dtype t;
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
};

/// Little-endian unsigned integer of `n` bytes.
std::uint64_t le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = v << 8 | p[k];
  return v;
}

/// The element's bytes as an unsigned integer in the machine's view (byte order applied).
std::uint64_t raw_bits(const unsigned char* p, int n, bool big) {
  if (!big) return le(p, n);
  std::uint64_t v = 0;
  for (int k = 0; k < n; ++k) v = v << 8 | p[k];
  return v;
}

double to_double(std::uint64_t bits, int size) {
  if (size == 4) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  return std::bit_cast<double>(bits);
}

/// The (k m) x n matrix of a stack as its k matrices: row k' of slice s is row s m + k' of it
/// in C order, row s + k k' in Fortran order.
void split_stack(ReadResult& result, std::uint64_t k, std::uint64_t m, bool fortran) {
  std::visit(
      [&](auto& tall) {
        using M = std::decay_t<decltype(tall)>;
        std::vector<M> slices(static_cast<std::size_t>(k));
        for (auto& x : slices) x.rows = static_cast<int>(m), x.cols = tall.cols;
        for (auto& e : tall.entries) {
          const auto row = static_cast<std::uint64_t>(e.row);
          const std::uint64_t s = fortran ? row % k : row / m, r = fortran ? row / k : row % m;
          slices[static_cast<std::size_t>(s)].entries.push_back({static_cast<int>(r), e.col, std::move(e.value)});
        }
        result.stack.clear();
        for (auto& x : slices) {
          std::sort(x.entries.begin(), x.entries.end(), [](const auto& a, const auto& b) {
            return a.row != b.row ? a.row < b.row : a.col < b.col;
          });
          result.stack.emplace_back(std::move(x));
        }
        tall = M{static_cast<int>(m), tall.cols, {}};
      },
      result.matrix);
  result.is_stack = true;
}

}  // namespace

void read_npy(std::istream& in, const std::string& name, const std::string& magic,
              const ReadOptions& options, const ReadClock& clock, ReadResult& result) {
  const auto fail = [&](const std::string& what) -> void { throw InputError(name, 0, what); };
  std::uint64_t offset = magic.size();
  const auto take = [&](char* out, std::size_t n) {
    in.read(out, static_cast<std::streamsize>(n));
    const auto got = static_cast<std::size_t>(in.gcount());
    offset += got;
    return got == n;
  };
  unsigned char version[2];
  if (!take(reinterpret_cast<char*>(version), 2)) fail("truncated .npy file: no version after the magic");
  if (version[0] < 1 || version[0] > 3 || version[1] != 0)
    fail("unsupported .npy version " + std::to_string(version[0]) + "." + std::to_string(version[1]) +
         " (1.0, 2.0 and 3.0 are read)");
  const int len_bytes = version[0] == 1 ? 2 : 4;
  unsigned char len_raw[4];
  if (!take(reinterpret_cast<char*>(len_raw), static_cast<std::size_t>(len_bytes)))
    fail("truncated .npy file: no header length");
  const std::uint64_t header_len = le(len_raw, len_bytes);
  if (header_len > kMaxHeader)
    fail("the .npy header claims " + std::to_string(header_len) + " bytes (at most " +
         std::to_string(kMaxHeader) + " are read)");
  const std::uint64_t header_at = offset;
  std::string text(static_cast<std::size_t>(header_len), '\0');
  if (!take(text.data(), text.size()))
    fail("truncated .npy file: the header of " + std::to_string(header_len) + " bytes at byte offset " +
         std::to_string(header_at) + " ends after " + std::to_string(offset - header_at));
  for (char c : text)
    if (c == '\0') fail("malformed .npy header: a NUL byte in the header text");
  const Header h = HeaderParser(text, header_at, name).parse();
  const std::uint64_t data_at = offset;

  const auto size = static_cast<std::uint64_t>(h.dtype.size);
  std::uint64_t count = 0, bytes = 0;
  if (__builtin_mul_overflow(h.rows, h.cols, &count) || __builtin_mul_overflow(count, size, &bytes))
    fail("shape (" + std::to_string(h.rows) + ", " + std::to_string(h.cols) + ") is too large");
  const std::string array = dims(h.rows, h.cols) + " " + h.dtype.text + " array";
  // Where the input can tell its size, a shape larger than the file fails before any reading.
  const std::streampos here = in.tellg();
  if (here == std::streampos(-1) && !in.bad()) in.clear();  // a pipe: no size to compare
  if (here != std::streampos(-1)) {
    in.seekg(0, std::ios::end);
    const std::streampos end = in.tellg();
    in.seekg(here);
    if (end != std::streampos(-1) && static_cast<std::uint64_t>(end - here) < bytes)
      fail("the " + array + " needs " + std::to_string(bytes) + " bytes of data from byte offset " +
           std::to_string(data_at) + ", but the file has " + std::to_string(end - here));
  }

  const int rows = static_cast<int>(h.rows), cols = static_cast<int>(h.cols);
  const bool big = h.dtype.order == '>';
  const char kind = h.dtype.kind;
  const int n = h.dtype.size;
  SparseMatrix<Integer> ints;
  std::vector<Entry<double>> reals;
  std::vector<Entry<Complex>> complexes;
  bool integral = true;  // every float (or complex) value is a (real) integer
  const auto where = [&](std::uint64_t k, int& r, int& c) {
    if (h.fortran) {
      r = static_cast<int>(k % h.rows);
      c = static_cast<int>(k / h.rows);
    } else {
      r = static_cast<int>(k / h.cols);
      c = static_cast<int>(k % h.cols);
    }
  };
  const auto check_finite = [&](double x, std::uint64_t k, const char* part) {
    if (std::isfinite(x)) return;
    int r = 0, c = 0;
    where(k, r, c);
    fail("entry (row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) + ") " + part +
         (std::isnan(x) ? "is NaN" : "is infinite") + ": only finite values can be counted");
  };

  // A C-order stack's slices leave the accumulators as soon as they are read, each in a vector
  // of its own size (their entries are a prefix): its memory is its slices', not twice that.
  const std::uint64_t slice_elements = h.slice_rows * h.cols;
  const bool by_slice = h.is_stack && !h.fortran && slice_elements > 0;
  std::vector<std::vector<Entry<Complex>>> complex_slices;
  std::vector<std::vector<Entry<double>>> real_slices;
  std::vector<std::vector<Entry<Integer>>> int_slices;
  std::size_t flushed = 0;  // entries moved to slices
  const auto flush = [&](auto& acc, auto& slices, std::uint64_t upto) {  // slices [slices.size(), upto)
    std::size_t from = 0;
    while (slices.size() < upto) {
      const auto first_row = static_cast<int>(slices.size() * h.slice_rows), end_row = first_row + static_cast<int>(h.slice_rows);
      std::size_t to = from;
      while (to < acc.size() && acc[to].row < end_row) ++to;
      slices.emplace_back(std::make_move_iterator(acc.begin() + static_cast<std::ptrdiff_t>(from)),
                          std::make_move_iterator(acc.begin() + static_cast<std::ptrdiff_t>(to)));
      for (auto& e : slices.back()) e.row -= first_row;
      flushed += to - from;
      from = to;
    }
    acc.erase(acc.begin(), acc.begin() + static_cast<std::ptrdiff_t>(from));
  };
  const auto flush_slices = [&](std::uint64_t upto) {
    if (kind == 'c') flush(complexes, complex_slices, upto);
    else if (kind == 'f') flush(reals, real_slices, upto);
    else flush(ints.entries, int_slices, upto);
  };
  std::vector<char> buf(std::min<std::uint64_t>(kChunk, std::max<std::uint64_t>(bytes, 1)));
  std::uint64_t k = 0;  // elements done
  for (std::uint64_t left = bytes; left > 0;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
    in.read(buf.data(), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < want)
      fail("truncated .npy data: the " + array + " needs " + std::to_string(bytes) +
           " bytes from byte offset " + std::to_string(data_at) + ", but the input ends at byte offset " +
           std::to_string(offset + got));
    offset += got;
    left -= got;
    check_read_memory(flushed + ints.entries.size() + reals.size() + complexes.size(), options, name,
                      "byte offset " + std::to_string(offset));
    clock.check(name, [&] { return "byte offset " + std::to_string(offset); });
    const auto* p = reinterpret_cast<const unsigned char*>(buf.data());
    for (std::size_t at = 0; at < got; at += static_cast<std::size_t>(n), ++k) {
      int r = 0, c = 0;
      if (kind == 'c') {
        const int half = n / 2;
        const double re = to_double(raw_bits(p + at, half, big), half);
        const double im = to_double(raw_bits(p + at + half, half, big), half);
        check_finite(re, k, "real part ");
        check_finite(im, k, "imaginary part ");
        if (re == 0.0 && im == 0.0) continue;
        integral = integral && im == 0.0 && std::trunc(re) == re;
        where(k, r, c);
        complexes.push_back({r, c, Complex(re, im)});
      } else if (kind == 'f') {
        const double x = to_double(raw_bits(p + at, n, big), n);
        check_finite(x, k, "");
        if (x == 0.0) continue;
        integral = integral && std::trunc(x) == x;
        where(k, r, c);
        reals.push_back({r, c, x});
      } else {
        const std::uint64_t bits = raw_bits(p + at, n, big);
        if (bits == 0) continue;
        where(k, r, c);
        Integer v;
        if (kind == 'i' && n < 8 && (bits >> (8 * n - 1)) != 0)
          v = -static_cast<long>((std::uint64_t(1) << (8 * n)) - bits);  // sign-extend
        else if (kind == 'i' && n == 8)
          v = static_cast<long>(bits);
        else if (kind == 'b')
          v = 1;
        else
          mpz_set_ui(v.get_mpz_t(), bits);
        ints.entries.push_back({r, c, std::move(v)});
      }
    }
    if (by_slice) flush_slices(k / slice_elements);
  }
  if (in.peek() != std::char_traits<char>::eof())
    fail("trailing data after the " + array + " at byte offset " + std::to_string(offset));
  if (in.bad()) fail("read error");

  // The number kind is the whole array's: complex where some value is not a real integer,
  // double (or exact fractions) likewise, else integers.
  const auto by_position = [](const auto& x, const auto& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; };
  const auto make = [&](std::vector<Entry<Complex>>&& cs, std::vector<Entry<double>>&& rs,
                        std::vector<Entry<Integer>>&& is, int r, int c) -> AnyMatrix {
    const auto finish = [&](auto m) -> AnyMatrix {
      if (h.fortran) std::sort(m.entries.begin(), m.entries.end(), by_position);
      return m;
    };
    if (kind == 'c' && !integral) return finish(SparseMatrix<Complex>{r, c, std::move(cs)});
    if (kind == 'f' && !integral && options.exact) {
      SparseMatrix<Rational> m{r, c, {}};
      m.entries.reserve(rs.size());
      for (const auto& e : rs) m.entries.push_back({e.row, e.col, Rational(e.value)});  // exact
      return finish(std::move(m));
    }
    if (kind == 'f' && !integral) return finish(SparseMatrix<double>{r, c, std::move(rs)});
    SparseMatrix<Integer> m{r, c, std::move(is)};
    if (kind == 'f' || kind == 'c') {
      m.entries.reserve(rs.size() + cs.size());
      for (const auto& e : rs) m.entries.push_back({e.row, e.col, Integer(e.value)});  // exact
      for (const auto& e : cs) m.entries.push_back({e.row, e.col, Integer(e.value.real())});
    }
    return finish(std::move(m));
  };
  const std::string stack_format = "NumPy .npy " + h.dtype.text + " stack of " + std::to_string(h.stack) + " " +
                                   dims(h.slice_rows, h.cols) + " matrices" + (h.fortran ? " (Fortran order)" : " (C order)");
  if (by_slice) {
    flush_slices(h.stack);
    const auto m = static_cast<int>(h.slice_rows);
    result.stack.reserve(static_cast<std::size_t>(h.stack));
    for (std::size_t s = 0; s < static_cast<std::size_t>(h.stack); ++s)
      result.stack.push_back(make(kind == 'c' ? std::move(complex_slices[s]) : std::vector<Entry<Complex>>{},
                                  kind == 'f' ? std::move(real_slices[s]) : std::vector<Entry<double>>{},
                                  kind != 'c' && kind != 'f' ? std::move(int_slices[s]) : std::vector<Entry<Integer>>{}, m, cols));
    result.matrix = make({}, {}, {}, m, cols);
    result.is_stack = true;
    result.format = stack_format;
    return;
  }
  result.matrix = make(std::move(complexes), std::move(reals), std::move(ints.entries), rows, cols);
  result.format = "NumPy .npy " + h.dtype.text + " " + dims(h.rows, h.cols) +
                  (h.fortran ? " (Fortran order)" : " (C order)");
  if (h.is_stack) {
    split_stack(result, h.stack, h.slice_rows, h.fortran);
    result.format = stack_format;
    return;
  }
  matrix_zero_hint(result);
}

}  // namespace matchcount::io_detail
