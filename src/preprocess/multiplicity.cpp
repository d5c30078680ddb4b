#include "matchcount/multiplicity.hpp"

#include <limits>

#include "matchcount/error.hpp"

namespace matchcount {

std::vector<std::uint64_t> parse_multiplicities(const std::string& text, const std::string& option) {
  std::vector<std::uint64_t> out;
  std::size_t i = 0;
  const auto skip_spaces = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  for (;;) {
    skip_spaces();
    const std::size_t start = i;
    std::uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      const auto digit = static_cast<std::uint64_t>(text[i] - '0');
      if (v > (std::numeric_limits<std::uint32_t>::max() - digit) / 10)
        throw UsageError(option + ": multiplicity " + text.substr(start, i - start + 1) + "... is too large");
      v = v * 10 + digit;
      ++i;
    }
    if (i == start)
      throw UsageError(option + " takes non-negative whole numbers separated by commas (e.g. 1,0,2), not '" +
                       text + "'");
    out.push_back(v);
    skip_spaces();
    if (i == text.size()) return out;
    if (text[i] != ',')
      throw UsageError(option + " takes non-negative whole numbers separated by commas (e.g. 1,0,2), not '" +
                       text + "'");
    ++i;
  }
}

namespace {

/// New index of each copy: first[i] is where line i's first copy goes.
std::vector<std::uint64_t> first_copies(const std::vector<std::uint64_t>& mult, int size) {
  std::vector<std::uint64_t> first(static_cast<std::size_t>(size) + 1, 0);
  for (int i = 0; i < size; ++i)
    first[static_cast<std::size_t>(i) + 1] =
        first[static_cast<std::size_t>(i)] + (mult.empty() ? 1 : mult[static_cast<std::size_t>(i)]);
  return first;
}

template <class T>
SparseMatrix<T> repeat(const SparseMatrix<T>& a, const std::vector<std::uint64_t>& rm,
                       const std::vector<std::uint64_t>& cm, std::uint64_t max_entries) {
  const auto row_first = first_copies(rm, a.rows), col_first = first_copies(cm, a.cols);
  constexpr auto kMaxLines = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  if (row_first.back() > kMaxLines || col_first.back() > kMaxLines)
    throw RefusedError("the multiplicities give a matrix of " + std::to_string(row_first.back()) + " x " +
                       std::to_string(col_first.back()) + ", more than 2^31 - 1 lines");
  // Counted before anything is allocated: the expansion multiplies entries.
  std::uint64_t entries = 0;
  for (const auto& e : a.entries) {
    const std::uint64_t r = row_first[static_cast<std::size_t>(e.row) + 1] - row_first[static_cast<std::size_t>(e.row)];
    const std::uint64_t c = col_first[static_cast<std::size_t>(e.col) + 1] - col_first[static_cast<std::size_t>(e.col)];
    if (c != 0 && r > (max_entries - entries) / c)
      throw RefusedError("the multiplicities give a matrix of more than " + std::to_string(max_entries) +
                         " stored entries");
    entries += r * c;
  }
  SparseMatrix<T> out;
  out.rows = static_cast<int>(row_first.back());
  out.cols = static_cast<int>(col_first.back());
  out.entries.reserve(entries);
  for (const auto& e : a.entries)
    for (auto r = row_first[static_cast<std::size_t>(e.row)]; r < row_first[static_cast<std::size_t>(e.row) + 1]; ++r)
      for (auto c = col_first[static_cast<std::size_t>(e.col)]; c < col_first[static_cast<std::size_t>(e.col) + 1]; ++c)
        out.entries.push_back({static_cast<int>(r), static_cast<int>(c), e.value});
  out.normalize();
  return out;
}

}  // namespace

AnyMatrix repeat_lines(const AnyMatrix& m, const std::vector<std::uint64_t>& row_mult,
                       const std::vector<std::uint64_t>& col_mult, std::uint64_t max_entries) {
  const int rows = rows_of(m), cols = cols_of(m);
  if (!row_mult.empty() && row_mult.size() != static_cast<std::size_t>(rows))
    throw UsageError("--row-mult has " + std::to_string(row_mult.size()) + " multiplicities but the matrix has " +
                     std::to_string(rows) + " rows");
  if (!col_mult.empty() && col_mult.size() != static_cast<std::size_t>(cols))
    throw UsageError("--col-mult has " + std::to_string(col_mult.size()) + " multiplicities but the matrix has " +
                     std::to_string(cols) + " columns");
  return std::visit([&](const auto& a) { return AnyMatrix(repeat(a, row_mult, col_mult, max_entries)); }, m);
}

}  // namespace matchcount
