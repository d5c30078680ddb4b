// Classes of identical lines for the repeated-lines engine (line_classes.hpp): every line is
// hashed once from the entries, lines are grouped by hash, and each group is checked entry by
// entry, so a hash collision can only split a group, never merge two different lines.
#include "engines/repeated/line_classes.hpp"

#include <algorithm>
#include <numeric>

#include "core/hashing.hpp"

namespace matchcount::engines {
namespace {

/// The hash of a value's exact bits (the sign and limbs of an integer, the bits of a double
/// with -0 read as 0, as == reads it).
std::uint64_t value_hash(const Integer& v, std::uint64_t h) {
  const int size = v.get_mpz_t()->_mp_size;
  h = fnv1a64(&size, sizeof size, h);
  return fnv1a64(v.get_mpz_t()->_mp_d, sizeof(mp_limb_t) * std::size_t(size < 0 ? -size : size), h);
}
std::uint64_t value_hash(double v, std::uint64_t h) {
  const double x = v == 0 ? 0.0 : v;
  return fnv1a64(&x, sizeof x, h);
}
std::uint64_t value_hash(const Complex& v, std::uint64_t h) { return value_hash(v.imag(), value_hash(v.real(), h)); }

/// The entries of every line of one side as a compressed list: line l holds the entries
/// order[start[l] .. start[l+1]), sorted by their other index (the entries are sorted by (row,
/// col), so a stable counting sort by line keeps that order for columns too).
struct Lines {
  std::vector<std::size_t> start;
  std::vector<std::size_t> order;
};

template <class T>
Lines lines_of(const SparseMatrix<T>& a, bool by_col) {
  const std::size_t count = std::size_t(by_col ? a.cols : a.rows);
  Lines l;
  l.start.assign(count + 1, 0);
  for (const auto& e : a.entries) ++l.start[std::size_t(by_col ? e.col : e.row) + 1];
  std::partial_sum(l.start.begin(), l.start.end(), l.start.begin());
  l.order.resize(a.entries.size());
  std::vector<std::size_t> next(l.start.begin(), l.start.end() - 1);
  for (std::size_t k = 0; k < a.entries.size(); ++k)
    l.order[next[std::size_t(by_col ? a.entries[k].col : a.entries[k].row)]++] = k;
  return l;
}

}  // namespace

template <class T>
LineClasses line_classes(const SparseMatrix<T>& a, bool by_col) {
  const Lines lines = lines_of(a, by_col);
  const std::size_t count = lines.start.size() - 1;
  auto other = [&](const Entry<T>& e) { return by_col ? e.row : e.col; };
  std::vector<std::uint64_t> hash(count);
  for (std::size_t l = 0; l < count; ++l) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t k = lines.start[l]; k < lines.start[l + 1]; ++k) {
      const Entry<T>& e = a.entries[lines.order[k]];
      const int j = other(e);
      h = value_hash(e.value, fnv1a64(&j, sizeof j, h));
    }
    hash[l] = h;
  }
  auto same = [&](std::size_t x, std::size_t y) {
    const std::size_t dx = lines.start[x + 1] - lines.start[x];
    if (dx != lines.start[y + 1] - lines.start[y]) return false;
    for (std::size_t k = 0; k < dx; ++k) {
      const Entry<T>& p = a.entries[lines.order[lines.start[x] + k]];
      const Entry<T>& q = a.entries[lines.order[lines.start[y] + k]];
      if (other(p) != other(q) || !(p.value == q.value)) return false;
    }
    return true;
  };
  // Lines by (hash, index): each run of one hash holds its lines in index order.
  std::vector<std::uint32_t> by_hash(count);
  std::iota(by_hash.begin(), by_hash.end(), 0u);
  std::sort(by_hash.begin(), by_hash.end(), [&](std::uint32_t x, std::uint32_t y) {
    return hash[x] != hash[y] ? hash[x] < hash[y] : x < y;
  });
  std::vector<int> class_of(count, -1);
  LineClasses out;
  std::vector<int> run_classes;  // the classes of the current run (more than one only after a collision)
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t l = by_hash[k];
    if (k == 0 || hash[l] != hash[by_hash[k - 1]]) run_classes.clear();
    int c = -1;
    for (int r : run_classes)
      if (same(std::size_t(out.rep[std::size_t(r)]), l)) c = r;
    if (c < 0) {
      c = int(out.rep.size());
      out.rep.push_back(int(l));
      out.mult.push_back(0);
      run_classes.push_back(c);
    }
    ++out.mult[std::size_t(c)];
    class_of[l] = c;
  }
  // Classes in the order of their first line (the representative is the class's least index).
  std::vector<std::size_t> by_rep(out.rep.size());
  std::iota(by_rep.begin(), by_rep.end(), 0);
  std::sort(by_rep.begin(), by_rep.end(), [&](std::size_t x, std::size_t y) { return out.rep[x] < out.rep[y]; });
  LineClasses sorted;
  for (std::size_t c : by_rep) sorted.rep.push_back(out.rep[c]), sorted.mult.push_back(out.mult[c]);
  return sorted;
}

template LineClasses line_classes(const SparseMatrix<Integer>&, bool);
template LineClasses line_classes(const SparseMatrix<double>&, bool);
template LineClasses line_classes(const SparseMatrix<Complex>&, bool);

}  // namespace matchcount::engines
