// NumPy .npy files: the "\x93NUMPY" magic, a version, a Python-literal header dict (descr,
// fortran_order, shape) and the raw array. Read in chunks: memory grows with the nonzero entries
// found, never with the shape the header claims.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <istream>

#include "io/npy_header.hpp"
#include "io/reader_impl.hpp"
#include "matchcount/memory.hpp"

namespace matchcount::io_detail {

namespace {

// Longer headers are not written by NumPy (it pads to 64 bytes; version 1 allows 65535).
constexpr std::uint64_t kMaxHeader = std::uint64_t(1) << 20;
constexpr std::size_t kChunk = std::size_t(1) << 20;


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
  const NpyHeader h = parse_npy_header(text, header_at, name, options.vectors);
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
  std::uint64_t k = 0;  // elements done
  // The entries of `got` bytes of elements at p (big-endian where `swap`), after the memory
  // check, in the accumulators (a stack's finished slices leave them).
  const auto consume = [&](const unsigned char* p, std::size_t got, bool swap) {
    check_read_memory(flushed + ints.entries.size() + reals.size() + complexes.size(), options, name,
                      "byte offset " + std::to_string(data_at + k * size + got));
  for (std::size_t at = 0; at < got; at += static_cast<std::size_t>(n), ++k) {
    int r = 0, c = 0;
    if (kind == 'c') {
      const int half = n / 2;
      const double re = to_double(raw_bits(p + at, half, swap), half);
      const double im = to_double(raw_bits(p + at + half, half, swap), half);
      check_finite(re, k, "real part ");
      check_finite(im, k, "imaginary part ");
      if (re == 0.0 && im == 0.0) continue;
      integral = integral && im == 0.0 && std::trunc(re) == re;
      where(k, r, c);
      complexes.push_back({r, c, Complex(re, im)});
    } else if (kind == 'f') {
      const double x = to_double(raw_bits(p + at, n, swap), n);
      check_finite(x, k, "");
      if (x == 0.0) continue;
      integral = integral && std::trunc(x) == x;
      where(k, r, c);
      reals.push_back({r, c, x});
    } else {
      const std::uint64_t bits = raw_bits(p + at, n, swap);
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
  };
  const auto read_chunk = [&](char* to, std::size_t want) {
    in.read(to, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < want)
      fail("truncated .npy data: the " + array + " needs " + std::to_string(bytes) +
           " bytes from byte offset " + std::to_string(data_at) + ", but the input ends at byte offset " +
           std::to_string(offset + got));
    offset += got;
    clock.check(name, [&] { return "byte offset " + std::to_string(offset); });
  };
  // A float stack for the batch kernels: read whole, its values checked (finite? all integers?)
  // and put in native order where they are; kept where they are floats, else read as any array.
  if (h.is_stack && options.dense_stacks && (kind == 'f' || kind == 'c')) {
    const double budget = options.max_memory > 0 ? options.max_memory : default_max_memory();
    if (static_cast<double>(bytes) > budget)
      throw BudgetError(name + ": reading needs more than the memory budget of " + memory_text(budget) +
                        " (--max-memory): the stack's values take " + memory_text(static_cast<double>(bytes)));
    StoredStack& st = result.stored;
    st.values.resize(static_cast<std::size_t>(bytes));
    for (std::uint64_t done = 0; done < bytes; done += kChunk)
      read_chunk(st.values.data() + done, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, bytes - done)));
    auto* p = reinterpret_cast<unsigned char*>(st.values.data());
    const int part = kind == 'c' ? n / 2 : n;
    for (std::uint64_t e = 0; e < bytes / static_cast<std::uint64_t>(part); ++e) {
      unsigned char* at = p + e * static_cast<std::uint64_t>(part);
      if (big) std::reverse(at, at + part);
      const double x = to_double(raw_bits(at, part, false), part);
      const std::uint64_t element = kind == 'c' ? e / 2 : e;
      check_finite(x, element, kind != 'c' ? "" : e % 2 ? "imaginary part " : "real part ");
      integral = integral && (kind == 'c' && e % 2 ? x == 0.0 : std::trunc(x) == x);
    }
    if (!integral && !(kind == 'f' && options.exact)) {
      st.complex = kind == 'c', st.element_bytes = n;
      st.count = static_cast<std::int64_t>(h.stack), st.rows = static_cast<std::int64_t>(h.slice_rows);
      st.cols = static_cast<std::int64_t>(h.cols);
      if (h.fortran) st.s0 = 1, st.s1 = st.count, st.s2 = st.count * st.rows;
      else st.s0 = st.rows * st.cols, st.s1 = st.cols, st.s2 = 1;
    } else {  // integers or exact fractions: the sparse matrices, from the bytes read
      for (std::uint64_t done = 0; done < bytes; done += kChunk)
        consume(p + done, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, bytes - done)), false);
      result.stored = StoredStack{};
    }
  } else {
    std::vector<char> buf(std::min<std::uint64_t>(kChunk, std::max<std::uint64_t>(bytes, 1)));
    for (std::uint64_t left = bytes; left > 0;) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size()));
      read_chunk(buf.data(), want);
      left -= want;
      consume(reinterpret_cast<const unsigned char*>(buf.data()), want, big);
    }
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
  if (result.stored.element_bytes != 0) {  // the matrices are the stored values
    result.matrix = make({}, {}, {}, static_cast<int>(h.slice_rows), cols);
    result.is_stack = true;
    result.format = stack_format;
    return;
  }
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
