// Collected entries into a matrix: duplicates, zeros and the choice of number system.
#include <algorithm>
#include <cmath>

#include "io/reader_impl.hpp"
#include "matchcount/memory.hpp"

namespace matchcount::io_detail {

void check_read_memory(std::size_t entries, const ReadOptions& options, const std::string& name,
                       const std::string& where) {
  const double budget = options.max_memory > 0 ? options.max_memory : default_max_memory();
  const double bytes = static_cast<double>(entries) * kReadBytesPerEntry;
  if (bytes <= budget) return;
  throw BudgetError(name + ": reading needs more than the memory budget of " + memory_text(budget) +
                     " (--max-memory): the " + std::to_string(entries) + " entries read by " + where + " take about " +
                     memory_text(bytes));
}

void check_read_memory(std::size_t entries, const ReadOptions& options, const LineReader& reader) {
  check_read_memory(entries, options, reader.name(), "line " + std::to_string(reader.line_number()));
}

void merge_duplicates(std::vector<RawEntry>& entries, NumPool& pool, bool sum,
                      const std::function<std::pair<int, int>(const RawEntry&)>& key,
                      const std::function<void(const RawEntry&, const RawEntry&)>& on_duplicate) {
  const std::size_t n = entries.size();
  // (position key, index); entries arrive in file order, so this orders duplicates by line.
  std::vector<std::pair<std::uint64_t, std::size_t>> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto [r, c] = key(entries[i]);
    order[i] = {(static_cast<std::uint64_t>(static_cast<std::uint32_t>(r)) << 32) |
                    static_cast<std::uint32_t>(c),
                i};
  }
  std::sort(order.begin(), order.end());

  if (!sum) {
    std::size_t best = n;  // position in `order` of the repeat that comes first in the file
    for (std::size_t k = 1; k < n; ++k)
      if (order[k].first == order[k - 1].first && (best == n || order[k].second < order[best].second))
        best = k;
    if (best != n) {
      std::size_t first = best;
      while (first > 0 && order[first - 1].first == order[best].first) --first;
      on_duplicate(entries[order[first].second], entries[order[best].second]);
    }
  }

  std::vector<RawEntry> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const RawEntry& e = entries[order[k].second];
    if (k > 0 && order[k].first == order[k - 1].first) {
      RawEntry& acc = out.back();
      acc.re = pool.sum(acc.re, e.re);
      acc.im = pool.sum(acc.im, e.im);
    } else {
      out.push_back(e);
    }
  }
  entries = std::move(out);
}

namespace {

bool same_number(const NumPool& pool, const Num& x, const Num& y) {
  if (x.big < 0 && y.big < 0) return x.mant == y.mant && x.scale == y.scale;
  return pool.to_rational(x) == pool.to_rational(y);
}

/// For the hafnian: the matrix must be square and symmetric. The entry without a mirror image
/// (or with a different one) that comes first in the file is named with its line. Entries are
/// sorted by position and free of zeros.
void check_symmetric(int rows, int cols, const std::vector<RawEntry>& entries, const NumPool& pool,
                     const LineReader& reader) {
  if (rows != cols)
    reader.fail_at(0, "the hafnian needs a square symmetric matrix, got " + dims(std::uint64_t(rows), std::uint64_t(cols)));
  const RawEntry* worst = nullptr;
  for (const RawEntry& e : entries) {
    if (e.a == e.b) continue;
    const auto it = std::lower_bound(entries.begin(), entries.end(), std::pair<int, int>{e.b, e.a},
                                     [](const RawEntry& x, const std::pair<int, int>& k) {
                                       return x.a != k.first ? x.a < k.first : x.b < k.second;
                                     });
    const bool mirrored = it != entries.end() && it->a == e.b && it->b == e.a && same_number(pool, it->re, e.re) &&
                          same_number(pool, it->im, e.im);
    if (!mirrored && (!worst || e.line < worst->line)) worst = &e;
  }
  if (!worst) return;
  const auto it = std::lower_bound(entries.begin(), entries.end(), std::pair<int, int>{worst->b, worst->a},
                                   [](const RawEntry& x, const std::pair<int, int>& k) {
                                     return x.a != k.first ? x.a < k.first : x.b < k.second;
                                   });
  const bool present = it != entries.end() && it->a == worst->b && it->b == worst->a;
  const std::string here = "(" + std::to_string(worst->a + 1) + ", " + std::to_string(worst->b + 1) + ")";
  const std::string there = "(" + std::to_string(worst->b + 1) + ", " + std::to_string(worst->a + 1) + ")";
  reader.fail_at(worst->line, "the matrix is not symmetric: entry " + here +
                                  (present ? " differs from entry " + there + " on line " + std::to_string(it->line)
                                           : " has no entry at " + there) +
                                  " (the hafnian needs a symmetric matrix)");
}

}  // namespace

std::size_t assemble(int rows, int cols, std::vector<RawEntry>& entries, const NumPool& pool,
                     bool complex, const ReadOptions& options, const LineReader& reader,
                     ReadResult& result) {
  reader.check_time();  // the duplicate merge before this sorts every entry
  const std::size_t before = entries.size();
  std::erase_if(entries, [&](const RawEntry& e) {
    return pool.is_zero(e.re) && (!complex || pool.is_zero(e.im));
  });
  const std::size_t zeros = before - entries.size();
  // Entries are unique by position; sort them here (cheap, plain data) so that the matrix is
  // built in normalized order without sorting big numbers.
  const auto by_position = [](const RawEntry& x, const RawEntry& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  };
  if (!std::is_sorted(entries.begin(), entries.end(), by_position))
    std::sort(entries.begin(), entries.end(), by_position);
  reader.check_time();
  if (options.hafnian) check_symmetric(rows, cols, entries, pool, reader);
  if (options.keep_lines) {
    result.entry_lines.clear();
    result.entry_lines.reserve(entries.size());
    for (const RawEntry& e : entries) result.entry_lines.push_back({e.a, e.b, e.line, e.reversed});
  }

  const bool all_integer = std::all_of(entries.begin(), entries.end(), [&](const RawEntry& e) {
    return pool.is_integer(e.re) && (!complex || pool.is_zero(e.im));
  });

  std::size_t underflows = 0;
  auto fill = [&](auto& m, auto&& value) {
    m.rows = rows;
    m.cols = cols;
    m.entries.reserve(entries.size());
    for (const RawEntry& e : entries) {
      auto v = value(e);
      if (v != decltype(v)(0)) m.entries.push_back({e.a, e.b, std::move(v)});  // underflow
    }
  };
  auto real_double = [&](const Num& x, long line) {
    const double d = pool.to_double(x);
    if (!std::isfinite(d)) reader.fail_at(line, "value too large for a double");
    if (d == 0.0) ++underflows;
    return d;
  };

  if (all_integer) {
    SparseMatrix<Integer> m;
    fill(m, [&](const RawEntry& e) { return pool.to_integer(e.re); });
    result.matrix = std::move(m);
  } else if (complex) {
    SparseMatrix<Complex> m;
    fill(m, [&](const RawEntry& e) {
      const double re = pool.is_zero(e.re) ? 0.0 : pool.to_double(e.re);
      const double im = pool.is_zero(e.im) ? 0.0 : pool.to_double(e.im);
      if (!std::isfinite(re) || !std::isfinite(im))
        reader.fail_at(e.line, "value too large for a double");
      if (re == 0.0 && im == 0.0) ++underflows;
      return Complex(re, im);
    });
    result.matrix = std::move(m);
  } else if (options.exact) {
    SparseMatrix<Rational> m;
    fill(m, [&](const RawEntry& e) { return pool.to_rational(e.re); });
    result.matrix = std::move(m);
  } else {
    SparseMatrix<double> m;
    fill(m, [&](const RawEntry& e) { return real_double(e.re, e.line); });
    result.matrix = std::move(m);
  }
  if (underflows > 0)
    result.notes.push_back(std::to_string(underflows) +
                           " nonzero values are below the double range and were read as 0");
  return zeros;
}

}  // namespace matchcount::io_detail
