// Reader: NumPy .npy files, written byte by byte here (the tests do not need NumPy).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <streambuf>

#include "io_helpers.hpp"
#include "test_support.hpp"

namespace matchcount {
namespace {

using namespace iotest;

/// A .npy file: magic, version, header length, the header dict padded with spaces to a multiple
/// of 64 bytes and ended by '\n', then `data`.
std::string npy(const std::string& descr, bool fortran, const std::string& shape, const std::string& data,
                int major = 1) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  const std::size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (int k = 0; k < (major == 1 ? 2 : 4); ++k) out += static_cast<char>((dict.size() >> (8 * k)) & 0xff);
  return out + dict + data;
}

/// `v` as `size` bytes in little- or big-endian order (two's complement for negatives).
std::string bytes(std::uint64_t v, int size, bool big = false) {
  std::string out(static_cast<std::size_t>(size), '\0');
  for (int k = 0; k < size; ++k) out[static_cast<std::size_t>(big ? size - 1 - k : k)] = static_cast<char>((v >> (8 * k)) & 0xff);
  return out;
}
std::string f8(double x, bool big = false) { return bytes(std::bit_cast<std::uint64_t>(x), 8, big); }
std::string f4(float x) { return bytes(std::bit_cast<std::uint32_t>(x), 4); }

ReadResult read_npy_bytes(const std::string& data, bool exact = false, InputFormat as = InputFormat::Auto) {
  ReadOptions o;
  o.exact = exact;
  o.as = as;
  return read_text(data, "a.npy", o);
}

std::string npy_error(const std::string& data) { return error_of([&] { read_npy_bytes(data); }); }

// The 2 x 3 matrix [[1 0 -2] [0 5 3]] as a Matrix Market file, to compare readings with.
const Triples<Integer> kSmall = ints({{0, 0, 1}, {0, 2, -2}, {1, 1, 5}, {1, 2, 3}});

TEST(ReaderNpy, IntegerTypesAndByteOrders) {
  const long values[] = {1, 0, -2, 0, 5, 3};
  const auto mm = read_text("%%MatrixMarket matrix array integer general\n2 3\n1\n0\n0\n5\n-2\n3\n");
  ASSERT_EQ(triples<Integer>(mm.matrix), kSmall);
  for (const char* order : {"<", ">"})
    for (int size : {1, 2, 4, 8}) {
      std::string data;
      for (long v : values) data += bytes(static_cast<std::uint64_t>(v), size, order[0] == '>');
      const std::string descr = std::string(size == 1 && order[0] == '<' ? "|" : order) + "i" + std::to_string(size);
      const auto r = read_npy_bytes(npy(descr, false, "(2, 3)", data));
      EXPECT_EQ(triples<Integer>(r.matrix), kSmall) << descr;
      EXPECT_EQ(r.format, "NumPy .npy " + descr + " 2x3 (C order)");
    }
  // Unsigned extremes and the most negative int64.
  const auto u = read_npy_bytes(npy("<u8", false, "(1, 2)", bytes(~0ull, 8) + bytes(7, 8)));
  Integer max64;
  mpz_ui_pow_ui(max64.get_mpz_t(), 2, 64);
  EXPECT_EQ(triples<Integer>(u.matrix), (Triples<Integer>{{0, 0, max64 - 1}, {0, 1, 7}}));
  const auto i = read_npy_bytes(npy(">i8", false, "(1, 1)", bytes(std::uint64_t(1) << 63, 8, true)));
  Integer min64;
  mpz_ui_pow_ui(min64.get_mpz_t(), 2, 63);
  EXPECT_EQ(triples<Integer>(i.matrix), (Triples<Integer>{{0, 0, -min64}}));
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("|u1", false, "(1, 1)", "\xff")).matrix), ints({{0, 0, 255}}));
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("|b1", false, "(2, 2)", std::string("\1\0\0\1", 4))).matrix),
            ints({{0, 0, 1}, {1, 1, 1}}));
}

TEST(ReaderNpy, FortranOrderVersionsAndFiles) {
  // Column-major: 1 0 | 0 5 | -2 3.
  std::string data;
  for (long v : {1L, 0L, 0L, 5L, -2L, 3L}) data += bytes(static_cast<std::uint64_t>(v), 4);
  const auto f = read_npy_bytes(npy("<i4", true, "(2, 3)", data));
  EXPECT_EQ(triples<Integer>(f.matrix), kSmall);
  EXPECT_EQ(f.format, "NumPy .npy <i4 2x3 (Fortran order)");
  for (int major : {2, 3}) EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("<i4", true, "(2, 3)", data, major)).matrix), kSmall);
  // From a file, from --as npy and --as matrix; an empty matrix.
  const std::string path = test::temp_file(npy("<i4", true, "(2, 3)", data), ".bin");
  EXPECT_EQ(triples<Integer>(read_input(path, ReadOptions{}).matrix), kSmall);
  std::filesystem::remove(path);
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("<i4", true, "(2, 3)", data), false, InputFormat::Npy).matrix), kSmall);
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("<i4", true, "(2, 3)", data), false, InputFormat::Matrix).matrix), kSmall);
  const auto e = read_npy_bytes(npy("<f8", false, "(0, 4)", ""));
  EXPECT_EQ(rows_of(e.matrix), 0);
  EXPECT_EQ(cols_of(e.matrix), 4);
}

TEST(ReaderNpy, FloatsAndComplexValues) {
  // Integer-valued floats are exact integers, whatever their size.
  const auto i = read_npy_bytes(npy("<f8", false, "(1, 3)", f8(3) + f8(-0.0) + f8(1e20)));
  EXPECT_EQ(triples<Integer>(i.matrix), (Triples<Integer>{{0, 0, 3}, {0, 2, Integer("100000000000000000000")}}));
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("<f4", false, "(1, 1)", f4(-4.0f))).matrix), ints({{0, 0, -4}}));
  // Otherwise doubles, or with exact the exact binary value.
  const std::string tenth = npy(">f8", false, "(1, 2)", f8(0.1, true) + f8(2, true));
  EXPECT_EQ(triples<double>(read_npy_bytes(tenth).matrix), (Triples<double>{{0, 0, 0.1}, {0, 1, 2.0}}));
  EXPECT_EQ(triples<Rational>(read_npy_bytes(tenth, true).matrix),
            (Triples<Rational>{{0, 0, q("3602879701896397/36028797018963968")}, {0, 1, 2}}));
  EXPECT_EQ(triples<double>(read_npy_bytes(npy("<f4", false, "(1, 1)", f4(0.5f))).matrix), (Triples<double>{{0, 0, 0.5}}));
  // Complex: real integers give an Integer matrix, anything else a complex one.
  EXPECT_EQ(triples<Integer>(read_npy_bytes(npy("<c16", false, "(1, 2)", f8(2) + f8(0) + f8(0) + f8(0))).matrix),
            ints({{0, 0, 2}}));
  const std::string c8 = npy("<c8", false, "(1, 2)", f4(1) + f4(-1) + f4(0.25f) + f4(0));
  EXPECT_EQ(triples<Complex>(read_npy_bytes(c8).matrix), (Triples<Complex>{{0, 0, {1, -1}}, {0, 1, {0.25, 0}}}));
}

TEST(ReaderNpy, BadFilesSayWhatAndWhere) {
  const std::string nan = npy("<f8", false, "(2, 2)", f8(1) + f8(0) + f8(0) + f8(std::nan("")));
  EXPECT_EQ(npy_error(nan), "a.npy: entry (row 2, column 2) is NaN: only finite values can be counted");
  EXPECT_EQ(npy_error(npy("<f8", true, "(2, 2)", f8(1) + f8(INFINITY) + f8(0) + f8(0))),
            "a.npy: entry (row 2, column 1) is infinite: only finite values can be counted");
  EXPECT_EQ(npy_error(npy("<c16", false, "(1, 1)", f8(0) + f8(-INFINITY))),
            "a.npy: entry (row 1, column 1) imaginary part is infinite: only finite values can be counted");
  EXPECT_EQ(npy_error(npy("|O", false, "(1, 1)", "x")),
            "a.npy: malformed .npy header at byte offset 20: dtype '|O' holds Python objects (pickled), not numbers");
  EXPECT_CONTAINS(npy_error(npy("<f2", false, "(1, 1)", "xx")), "unsupported dtype '<f2' (integers i1..i8");
  EXPECT_CONTAINS(npy_error(npy("|i4", false, "(1, 1)", "xxxx")), "unsupported dtype '|i4'");
  std::string structured = npy("<i4", false, "(1, 1)", "xxxx");
  structured.replace(structured.find("'<i4'"), 5, "[('a', '<i4')]");
  EXPECT_CONTAINS(npy_error(structured), "a structured dtype (a record of fields) is not a matrix of numbers");
  for (const auto& [shape, text] : std::vector<std::pair<std::string, std::string>>{
           {"(4,)", "shape (4,) has 1 dimensions"}, {"()", "shape () has 0 dimensions"},
           {"(2, 2, 1, 1)", "shape (2, 2, 1, 1) has 4 dimensions"}})
    EXPECT_CONTAINS(npy_error(npy("<i1", false, shape, "\1\1\1\1")), text + "; a matrix has 2");
  EXPECT_CONTAINS(npy_error(npy("<i1", false, "(3000000000, 1)", "")),
                  "dimension 3000000000 too large (at most 2147483647)");
  EXPECT_EQ(npy_error(npy("<i8", false, "(100000, 100000)", bytes(1, 8))),
            "a.npy: the 100000x100000 <i8 array needs 80000000000 bytes of data from byte offset 128, but the "
            "file has 8");
  EXPECT_EQ(npy_error(npy("<i2", false, "(1, 2)", bytes(1, 2) + bytes(2, 2) + "!")),
            "a.npy: trailing data after the 1x2 <i2 array at byte offset 132");
  EXPECT_EQ(npy_error(std::string("\x93NUMPY\x04\x00", 8)), "a.npy: unsupported .npy version 4.0 (1.0, 2.0 and 3.0 are read)");
  EXPECT_EQ(npy_error(std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12)),
            "a.npy: the .npy header claims 2147483647 bytes (at most 1048576 are read)");
  EXPECT_EQ(npy_error(std::string("\x93NUMPY\x01\x00\x40\x00{'descr'", 19)),
            "a.npy: truncated .npy file: the header of 64 bytes at byte offset 10 ends after 9");
  std::string missing = npy("<i1", false, "(1, 1)", "\1");
  missing.replace(missing.find("'fortran_order': False, "), 24, std::string(24, ' '));
  EXPECT_CONTAINS(npy_error(missing), "the header lacks 'fortran_order'");
  // Text formats are not read from a .npy file, nor a .npy file from text.
  EXPECT_EQ(error_of([&] { read_npy_bytes(npy("<i1", false, "(1, 1)", "\1"), false, InputFormat::Graph); }),
            "a.npy: a NumPy .npy file is a matrix, which --as graph does not read (--as auto or --as npy reads it)");
  EXPECT_EQ(error_text("1 2\n", "x.npy", InputFormat::Npy),
            "x.npy: not a NumPy .npy file: it does not start with \"\\x93NUMPY\"");
}

/// A stream that cannot seek, as a pipe on standard input.
class PipeBuf : public std::streambuf {
 public:
  explicit PipeBuf(std::string data) : data_(std::move(data)) { setg(data_.data(), data_.data(), data_.data() + data_.size()); }

 private:
  std::string data_;
};

TEST(ReaderNpy, TruncatedDataOnAStreamThatCannotSeek) {
  PipeBuf buf(npy("<i4", false, "(2, 2)", bytes(1, 4) + bytes(2, 4) + bytes(3, 2)));
  std::istream in(&buf);
  EXPECT_EQ(error_of([&] { read_input(in, "<stdin>", ReadOptions{}); }),
            "<stdin>: truncated .npy data: the 2x2 <i4 array needs 16 bytes from byte offset 128, but the "
            "input ends at byte offset 138");
  PipeBuf good(npy("<i4", false, "(1, 1)", bytes(9, 4)));
  std::istream in2(&good);
  EXPECT_EQ(triples<Integer>(read_input(in2, "<stdin>", ReadOptions{}).matrix), ints({{0, 0, 9}}));
}

TEST(ReaderNpy, DamagedFilesOnlyThrowInputError) {
  std::string data;
  for (int k = 0; k < 12; ++k) data += f8(k % 3 == 0 ? 0.5 * k : 0);
  const std::vector<std::string> seeds = {npy("<f8", false, "(3, 4)", data), npy(">i2", true, "(2, 2)", "\0\1\0\2\0\3\0\4"),
                                          npy("<c8", false, "(1, 1)", f4(1) + f4(2), 2)};
  std::mt19937_64 rng(7);
  int reads = 0, errors = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string s = seeds[rng() % seeds.size()];
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      const std::size_t pos = 6 + rng() % (s.size() - 6);
      switch (rng() % 3) {
        case 0: s[pos] = static_cast<char>(rng()); break;
        case 1: s.erase(pos, 1 + rng() % 4); break;
        default: s.insert(pos, 1, static_cast<char>(rng())); break;
      }
      if (s.size() <= 6) s = seeds[0];
    }
    try {
      read_npy_bytes(s, (rng() & 1) != 0);
      ++reads;
    } catch (const InputError&) {
      ++errors;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what();
    }
  }
  EXPECT_GT(reads, 0);
  EXPECT_GT(errors, 0);
}

TEST(ReaderNpy, MemoryBudgetStopsTheReadByByteOffset) {
  // 1200 x 1200 ones in int8: 1.4 MB of file, 1.44 million entries of a matrix. Within a 1 GiB
  // budget it is read; within 1 MiB the read stops after its first MiB, naming the offset.
  const std::string ones(1200 * 1200, '\1'), file = npy("|i1", false, "(1200, 1200)", ones);
  ReadOptions o;
  o.max_memory = 1 << 30;
  EXPECT_EQ(nnz_of(read_text(file, "a.npy", o).matrix), 1200u * 1200u);
  o.max_memory = 1 << 20;
  try {
    read_text(file, "a.npy", o);
    FAIL() << "read within 1 MiB";
  } catch (const RefusedError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a.npy: reading needs more than the memory budget of 1 MiB"), std::string::npos) << what;
    // Checked as each MiB of data arrives: the first MiB's entries are over the budget.
    EXPECT_NE(what.find("the 1048576 entries read by byte offset"), std::string::npos) << what;
  }
}

// A 3-D array (k, m, n) is a stack: k matrices, in C and in Fortran order alike.
TEST(ReaderNpy, StacksSplitIntoTheirMatrices) {
  // Slices [[1 2] [3 4]], [[0 5] [6 0]], [[7 0] [0 8]] (2 x 2 each).
  const int v[3][2][2] = {{{1, 2}, {3, 4}}, {{0, 5}, {6, 0}}, {{7, 0}, {0, 8}}};
  std::string c, f;
  for (int s = 0; s < 3; ++s)
    for (int r = 0; r < 2; ++r)
      for (int col = 0; col < 2; ++col) c += bytes(static_cast<std::uint64_t>(v[s][r][col]), 8);
  for (int col = 0; col < 2; ++col)
    for (int r = 0; r < 2; ++r)
      for (int s = 0; s < 3; ++s) f += bytes(static_cast<std::uint64_t>(v[s][r][col]), 8);
  for (const auto& [fortran, data] : std::vector<std::pair<bool, std::string>>{{false, c}, {true, f}}) {
    const auto r = read_npy_bytes(npy("<i8", fortran, "(3, 2, 2)", data));
    ASSERT_TRUE(r.is_stack);
    ASSERT_EQ(r.stack.size(), 3u);
    EXPECT_EQ(triples<Integer>(r.stack[0]), ints({{0, 0, 1}, {0, 1, 2}, {1, 0, 3}, {1, 1, 4}})) << fortran;
    EXPECT_EQ(triples<Integer>(r.stack[1]), ints({{0, 1, 5}, {1, 0, 6}})) << fortran;
    EXPECT_EQ(triples<Integer>(r.stack[2]), ints({{0, 0, 7}, {1, 1, 8}})) << fortran;
    EXPECT_NE(r.format.find("stack of 3 2x2 matrices"), std::string::npos) << r.format;
  }
  const auto empty = read_npy_bytes(npy("<f8", false, "(0, 4, 4)", ""));
  EXPECT_TRUE(empty.is_stack);
  EXPECT_TRUE(empty.stack.empty());
  // The CLI counts each, one value a line, or writes a float64 array with -o.
  const std::string path = test::temp_file(npy("<i8", false, "(3, 2, 2)", c), ".npy");
  auto run = test::run_matchcount("'" + path + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "10\n30\n56\n");  // perm of each: 1*4+2*3, 0+5*6, 7*8
  const std::string sym = test::temp_file(npy("<f8", false, "(2, 2, 2)", f8(0) + f8(2) + f8(2) + f8(0) + f8(1) + f8(0.5) + f8(0.5) + f8(1)), ".npy");
  EXPECT_EQ(test::run_matchcount("--hafnian '" + sym + "'").out, "2\n0.5\n");
  EXPECT_NE(test::run_matchcount("--hafnian '" + path + "'").err.find("matrix 0: "), std::string::npos);
  const std::string out = test::temp_file("", ".npy");
  run = test::run_matchcount("-o '" + out + "' '" + path + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::ifstream written(out, std::ios::binary);
  const std::string bytes_out((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes_out.size(), 128u + 24u);
  EXPECT_NE(bytes_out.find("'descr': '<f8'"), std::string::npos);
  EXPECT_NE(bytes_out.find("'shape': (3,)"), std::string::npos);
  EXPECT_EQ(bytes_out.substr(128), f8(10) + f8(30) + f8(56));
  for (const std::string bad : {"--json", "--estimate", "--explain", "--log"})
    EXPECT_EQ(test::run_matchcount(bad + " '" + path + "'").exit_code, 2) << bad;
  EXPECT_EQ(test::run_matchcount("-o x.npy --as graph '" + std::string(MATCHCOUNT_SOURCE_DIR) + "/datasets/petersen.edges'").exit_code, 2);
}

// A C-order stack leaves the reader slice by slice as its chunks arrive: the same matrices as
// its rows split from the 2-D (k m) x n reading, across chunk boundaries, with empty slices,
// for every number kind the values give (complex, double, exact fractions, integers).
TEST(ReaderNpy, LargeStacksReadSliceBySliceAsTheWholeArraySplits) {
  std::mt19937_64 rng(17);
  const int k = 700, m = 7, n = 6;  // 700 * 42 complex values: 470 KB, several chunks of f8 and c16
  for (const char* descr : {"<c16", "<f8"})
    for (const bool integral : {false, true})
      for (const bool exact : {false, true}) {
        std::string data;
        for (int s = 0; s < k; ++s)
          for (int e = 0; e < m * n; ++e) {
            const bool zero = s % 50 == 3 || rng() % 3 == 0;  // every 50th slice empty
            const double re = zero ? 0 : integral ? double(int(rng() % 9) - 4) : double(rng() % 1000) / 64 - 7;
            data += f8(re);
            if (descr[1] == 'c') data += f8(zero || integral ? 0.0 : double(rng() % 17) / 8);
          }
        const std::string shape = "(" + std::to_string(k) + ", " + std::to_string(m) + ", " + std::to_string(n) + ")";
        const auto stack = read_npy_bytes(npy(descr, false, shape, data), exact);
        const auto tall = read_npy_bytes(npy(descr, false, "(" + std::to_string(k * m) + ", " + std::to_string(n) + ")", data), exact);
        ASSERT_TRUE(stack.is_stack);
        ASSERT_EQ(stack.stack.size(), std::size_t(k));
        EXPECT_EQ(stack.matrix.index(), tall.matrix.index()) << descr << integral << exact;
        EXPECT_EQ(rows_of(stack.matrix), m);
        std::visit(
            [&](const auto& whole) {
              using M = std::decay_t<decltype(whole)>;
              std::vector<M> want(k, M{m, n, {}});
              for (const auto& e : whole.entries) want[std::size_t(e.row / m)].entries.push_back({e.row % m, e.col, e.value});
              for (int s = 0; s < k; ++s) {
                ASSERT_TRUE(std::holds_alternative<M>(stack.stack[std::size_t(s)])) << s;
                const M& got = std::get<M>(stack.stack[std::size_t(s)]);
                EXPECT_EQ(got.rows, m);
                EXPECT_EQ(got.cols, n);
                ASSERT_EQ(got.entries.size(), want[std::size_t(s)].entries.size()) << descr << " slice " << s;
                for (std::size_t i = 0; i < got.entries.size(); ++i) {
                  EXPECT_EQ(got.entries[i].row, want[std::size_t(s)].entries[i].row);
                  EXPECT_EQ(got.entries[i].col, want[std::size_t(s)].entries[i].col);
                  EXPECT_TRUE(got.entries[i].value == want[std::size_t(s)].entries[i].value);
                }
              }
              EXPECT_TRUE(std::get<M>(stack.stack[3]).entries.empty());
            },
            tall.matrix);
      }
}

// ReadOptions::dense_stacks keeps a float stack as stored (native order, its strides), for the
// batch kernels: the same matrices as the sparse reading, in C and Fortran order, float32,
// float64 and big-endian complex128; integral values and exact fractions are read sparse.
TEST(ReaderNpy, DenseStacksKeepFloatStacksAsStored) {
  std::mt19937_64 rng(23);
  const int k = 5, m = 3, n = 4;
  for (const std::string descr : {"<f8", "<f4", ">c16"})
    for (const bool fortran : {false, true}) {
      std::string data;
      const bool cplx = descr[1] == 'c';
      for (int e = 0; e < k * m * n; ++e) {
        const double re = rng() % 4 == 0 ? 0.0 : double(rng() % 200) / 8 - 12.3, im = cplx ? double(rng() % 9) / 4 : 0.0;
        if (descr == "<f4") data += f4(static_cast<float>(re));
        else data += f8(re, descr[0] == '>') + (cplx ? f8(im, true) : "");
      }
      const std::string shape = "(" + std::to_string(k) + ", " + std::to_string(m) + ", " + std::to_string(n) + ")";
      ReadOptions o;
      o.dense_stacks = true;
      const auto kept = read_text(npy(descr, fortran, shape, data), "a.npy", o);
      const auto sparse = read_npy_bytes(npy(descr, fortran, shape, data));
      ASSERT_TRUE(kept.is_stack && kept.stack.empty());
      ASSERT_EQ(kept.stored.count, k);
      EXPECT_EQ(kept.stored.complex, cplx);
      EXPECT_EQ(kept.stored.element_bytes, descr == "<f4" ? 4 : cplx ? 16 : 8);
      EXPECT_EQ(kept.matrix.index(), sparse.matrix.index());
      EXPECT_EQ(kept.format, sparse.format);
      for (int s = 0; s < k; ++s) {
        std::vector<std::complex<double>> want(std::size_t(m * n), 0.0);
        std::visit([&](const auto& a) {
          for (const auto& e : a.entries) {
            using T = std::decay_t<decltype(e.value)>;
            if constexpr (std::is_same_v<T, double> || std::is_same_v<T, Complex>) want[std::size_t(e.row * n + e.col)] = e.value;
            else ADD_FAILURE() << "an exact kind";
          }
        }, sparse.stack[std::size_t(s)]);
        for (int r = 0; r < m; ++r)
          for (int c = 0; c < n; ++c) {
            const char* at = kept.stored.matrix(s) + (r * kept.stored.s1 + c * kept.stored.s2) * kept.stored.element_bytes;
            std::complex<double> got;
            if (descr == "<f4") got = *reinterpret_cast<const float*>(at);
            else if (cplx) got = *reinterpret_cast<const std::complex<double>*>(at);
            else got = *reinterpret_cast<const double*>(at);
            EXPECT_EQ(got, want[std::size_t(r * n + c)]) << descr << fortran << " " << s << " " << r << " " << c;
          }
      }
    }
  ReadOptions o;
  o.dense_stacks = true;
  const auto ints = read_text(npy("<f8", false, "(2, 2, 2)", f8(1) + f8(0) + f8(2) + f8(3) + f8(0) + f8(0) + f8(0) + f8(-4)), "a.npy", o);
  EXPECT_EQ(ints.stored.element_bytes, 0);
  ASSERT_EQ(ints.stack.size(), 2u);
  EXPECT_EQ(triples<Integer>(ints.stack[1]), iotest::ints({{1, 1, -4}}));
  o.exact = true;
  const auto exact = read_text(npy("<f8", false, "(1, 1, 2)", f8(0.5) + f8(1)), "a.npy", o);
  EXPECT_EQ(exact.stored.element_bytes, 0);
  ASSERT_EQ(exact.stack.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<SparseMatrix<Rational>>(exact.stack[0]));
  o.exact = false;
  const std::string nan = npy("<f8", false, "(1, 2, 2)", f8(1) + f8(0.5) + f8(std::nan("")) + f8(1));
  const std::string message = error_of([&] { read_text(nan, "a.npy", o); });
  EXPECT_EQ(message, npy_error(nan));
  EXPECT_NE(message.find("entry (row 2, column 1) is NaN"), std::string::npos) << message;
  o.max_memory = 16;
  EXPECT_THROW(read_text(npy("<f8", false, "(1, 2, 2)", f8(1) + f8(0.5) + f8(2) + f8(1)), "a.npy", o), BudgetError);
}

}  // namespace
}  // namespace matchcount
