// SUPerman's banner-less coordinate files: an 'r c nnz' size line, then 1-based 'i j v' or
// 'i j re im' lines.
#include <algorithm>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

void read_bannerless_coordinate(LineReader& reader, const ReadOptions& options,
                                ReadResult& result) {
  std::string_view line;
  Tokens t;
  int n = 0;
  static const std::string kForm = "rows cols nnz";
  bool found = false;
  while (!found && reader.next(line)) {  // blank lines and '%' or '#' comments come first
    n = tokenize(line, t);
    found = n > 0 && t[0].front() != '%' && t[0].front() != '#';
  }
  if (!found) reader.fail_at(0, "empty input: missing the 'rows cols nnz' size line");
  if (n != 3)
    reader.fail("expected the 'rows cols nnz' size line of a banner-less coordinate file, found " +
                fields(n));
  const std::uint64_t urows = parse_size(t[0], kMaxDim, "rows", reader, kForm);
  const std::uint64_t ucols = parse_size(t[1], kMaxDim, "cols", reader, kForm);
  const std::uint64_t count = parse_size(t[2], ~0ull, "nnz", reader, kForm);
  if (count > urows * ucols)
    reader.fail("nnz " + std::to_string(count) + " exceeds the " + std::to_string(urows * ucols) +
                " positions of a " + dims(urows, ucols) + " matrix");
  const long size_line = reader.line_number();
  const int rows = static_cast<int>(urows), cols = static_cast<int>(ucols);

  NumPool pool;
  std::vector<RawEntry> entries;
  entries.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 20)));
  int width = 0;  // 3 (real) or 4 (complex), set by the first entry
  long width_line = 0;
  std::uint64_t seen = 0;
  while (reader.next(line)) {
    n = tokenize(line, t);
    if (n == 0 || t[0].front() == '%' || t[0].front() == '#') continue;
    if (seen == count)
      reader.fail("more entries than the " + std::to_string(count) + " declared on line " +
                  std::to_string(size_line));
    ++seen;
    if (width == 0) {
      if (n != 3 && n != 4)
        reader.fail("expected 'i j value' or 'i j re im', found " + fields(n));
      width = n;
      width_line = reader.line_number();
    } else if (n != width) {
      reader.fail(std::string("expected '") + (width == 3 ? "i j value" : "i j re im") +
                  "' like line " + std::to_string(width_line) + ", found " + fields(n));
    }
    RawEntry e;
    e.line = reader.line_number();
    e.a = parse_index(t[0], rows, "row", reader);
    e.b = parse_index(t[1], cols, "column", reader);
    e.re = parse_value(t[2], pool, reader);
    if (width == 4) e.im = parse_value(t[3], pool, reader);
    collect(entries, e, options, reader);
  }
  if (seen < count)
    reader.fail_at(reader.line_number(), "only " + std::to_string(seen) + " of the " +
                                             std::to_string(count) + " entries declared on line " +
                                             std::to_string(size_line));
  const bool complex = width == 4;
  result.format = complex ? "SUPerman coordinate (complex)" : "SUPerman coordinate (real)";
  merge_duplicates(entries, pool, options.sum_duplicates, [](const RawEntry& e) {
    return std::pair<int, int>{e.a, e.b};
  }, [&](const RawEntry& first, const RawEntry& later) { duplicate_entry_error(reader, first, later); });
  const std::size_t zeros = assemble(rows, cols, entries, pool, complex, options, reader, result);
  note_zeros(zeros, result);
  matrix_zero_hint(result);
}

}  // namespace matchcount::io_detail
