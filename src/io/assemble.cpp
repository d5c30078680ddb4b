// Collected entries into a matrix: duplicates, zeros and the choice of number system.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "reader_impl.hpp"

namespace matchcount::io_detail {

void merge_duplicates(std::vector<RawEntry>& entries, NumPool& pool, bool sum,
                      const std::function<std::pair<int, int>(const RawEntry&)>& key,
                      const std::function<void(const RawEntry&, const RawEntry&)>& on_duplicate) {
  const std::size_t n = entries.size();
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto [r, c] = key(entries[i]);
    keys[i] = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(r)) << 32) |
              static_cast<std::uint32_t>(c);
  }
  // Entries arrive in file order, so (key, index) orders duplicates by line.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return keys[x] != keys[y] ? keys[x] < keys[y] : x < y;
  });

  if (!sum) {
    std::size_t best = n;  // index into order of the earliest-in-file repeated entry
    for (std::size_t k = 1; k < n; ++k)
      if (keys[order[k]] == keys[order[k - 1]] && (best == n || order[k] < order[best])) best = k;
    if (best != n) {
      std::size_t first = best;
      while (first > 0 && keys[order[first - 1]] == keys[order[best]]) --first;
      on_duplicate(entries[order[first]], entries[order[best]]);
    }
  }

  std::vector<RawEntry> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const RawEntry& e = entries[order[k]];
    if (!out.empty() && k > 0 && keys[order[k]] == keys[order[k - 1]]) {
      RawEntry& acc = out.back();
      acc.re = pool.sum(acc.re, e.re);
      acc.im = pool.sum(acc.im, e.im);
    } else {
      out.push_back(e);
    }
  }
  entries = std::move(out);
}

std::size_t assemble(int rows, int cols, std::vector<RawEntry>& entries, const NumPool& pool,
                     bool complex, const ReadOptions& options, const LineReader& reader,
                     ReadResult& result) {
  const std::size_t before = entries.size();
  std::erase_if(entries, [&](const RawEntry& e) {
    return pool.is_zero(e.re) && (!complex || pool.is_zero(e.im));
  });
  const std::size_t zeros = before - entries.size();

  const bool all_integer = std::all_of(entries.begin(), entries.end(), [&](const RawEntry& e) {
    return pool.is_integer(e.re) && (!complex || pool.is_zero(e.im));
  });

  std::size_t underflows = 0;
  auto fill = [&](auto& m, auto&& value) {
    m.rows = rows;
    m.cols = cols;
    m.entries.reserve(entries.size());
    for (const RawEntry& e : entries) m.entries.push_back({e.a, e.b, value(e)});
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
    m.normalize();
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
    m.normalize();
    result.matrix = std::move(m);
  } else if (options.exact) {
    SparseMatrix<Rational> m;
    fill(m, [&](const RawEntry& e) { return pool.to_rational(e.re); });
    m.normalize();
    result.matrix = std::move(m);
  } else {
    SparseMatrix<double> m;
    fill(m, [&](const RawEntry& e) { return real_double(e.re, e.line); });
    m.normalize();
    result.matrix = std::move(m);
  }
  if (underflows > 0)
    result.notes.push_back(std::to_string(underflows) +
                           " nonzero values are below the double range and were read as 0");
  return zeros;
}

}  // namespace matchcount::io_detail
