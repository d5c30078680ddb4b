// rect-dp: the rectangular permanent by a dynamic program over the columns whose states are
// the sets S of rows already matched:
//   f_j(S) = f_{j-1}(S) + sum_{i in S} a_ij f_{j-1}(S - i),   perm(A) = f_n(all rows).
// Every value is a sum of products of entries (no cancellation for nonnegative matrices), so
// floats get a forward error bound from the same program run over |A|. A column's new table
// is computed from the old one (two tables), each state independently: parallel over states,
// the same arithmetic whatever the thread count.
#include <cmath>
#include <stdexcept>

#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/rectangular/rectangular.hpp"

namespace matchcount::engines {
namespace {

// Rate of one core (calibrated in docs/benchmarks.md, "Rectangular permanents"): seconds per
// (state, entry) pair and table; a real count keeps a second table for the error bound unless all entries are
// positive, a complex one needs two doubles and the bound, an exact one a table per prime.
constexpr double kPairSeconds = 0.3e-9;

struct Columns {
  std::vector<std::vector<std::pair<int, std::size_t>>> entries;  // per column: (row, entry index)
};

template <class T>
Columns columns_of(const SparseMatrix<T>& a, const EngineOptions& opt) {
  const std::string engine = "rect-dp";
  if (a.rows > a.cols)
    throw std::invalid_argument(engine + " needs rows <= columns, got " + std::to_string(a.rows) + "x" +
                                std::to_string(a.cols));
  const bool exact = std::is_same_v<T, Integer>, cplx = std::is_same_v<T, Complex>;
  // The tables against the engine's limit, or what the memory budget leaves it when that is lower.
  const bool budget = opt.max_bytes < kRectDpMaxBytes;
  const double limit = std::min(kRectDpMaxBytes, opt.max_bytes);
  if (a.rows > 40 || rect_dp_bytes(a.rows, exact, cplx) > limit)
    refuse_memory(budget && a.rows <= 40,
                  engine + ": a " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " block needs tables of 2^" +
                      std::to_string(a.rows) + " row sets, " + three_digits(rect_dp_bytes(a.rows, exact, cplx) / (1u << 30)) +
                      " GiB, more than " +
                      (budget ? "the memory budget (--max-memory) leaves it, " : "its limit of ") +
                      three_digits(limit / (1u << 30)) + " GiB");
  Columns c;
  c.entries.resize(static_cast<std::size_t>(a.cols));
  for (std::size_t k = 0; k < a.entries.size(); ++k)
    c.entries[static_cast<std::size_t>(a.entries[k].col)].push_back({a.entries[k].row, k});
  return c;
}

/// Threads for tables of 2^m states and a matrix of n columns and nnz entries.
int threads_for(const EngineOptions& opt, int m, int n, std::size_t nnz) {
  return thread_count(opt, std::ldexp(double(n) + double(nnz), m));
}

/// One column's step, g(S) = f(S) + sum_{i in S} w_i f(S - i), in blocks of states that stay
/// in the cache while every entry of the column is added: for row i, the states with bit i set
/// take runs of their partners S - i, contiguous runs of 2^i states (or the whole block), so
/// the inner loops are plain vector loops. run(out, src, count, w) adds w * src to out;
/// settle(out, count) is called after every `every` entries and at the end (exact counts
/// reduce there).
template <class V, class W, class Run, class Settle>
void column_step(const std::vector<V>& f, std::vector<V>& g, const std::vector<std::pair<int, W>>& col, int threads,
                 Run run, Settle settle, int every) {
  const std::size_t states = f.size(), block = std::min<std::size_t>(states, 4096);
  const std::int64_t blocks = static_cast<std::int64_t>(states / block);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t base = static_cast<std::size_t>(b) * block;
    V* out = &g[base];
    std::copy(f.begin() + static_cast<std::ptrdiff_t>(base), f.begin() + static_cast<std::ptrdiff_t>(base + block), out);
    int added = 0;
    for (const auto& [i, w] : col) {
      const std::size_t bit = std::size_t{1} << i;
      if (bit >= block) {
        if (base & bit) run(out, &f[base ^ bit], block, w);
      } else {
        for (std::size_t lo = 0; lo < block; lo += 2 * bit) run(out + lo + bit, &f[base + lo], bit, w);
      }
      if (++added % every == 0) settle(out, block);
    }
    settle(out, block);
  }
}

template <class V, class W>
void step(const std::vector<V>& f, std::vector<V>& g, const std::vector<std::pair<int, W>>& col, int threads) {
  column_step(
      f, g, col, threads,
      [](V* out, const V* src, std::size_t count, const W& w) {
        for (std::size_t t = 0; t < count; ++t) out[t] += w * src[t];
      },
      [](V*, std::size_t) {}, 1 << 30);
}

template <class V>
Approx<V> rect_dp_float(const SparseMatrix<V>& a, const EngineOptions& opt) {
  const Columns cols = columns_of(a, opt);
  const int m = a.rows;
  const int threads = threads_for(opt, m, a.cols, a.nnz());
  bool track_abs = false;
  for (const auto& e : a.entries) track_abs = track_abs || !(Complex(e.value).imag() == 0 && Complex(e.value).real() > 0);
  const std::size_t states = std::size_t{1} << m;
  std::vector<V> f(states, V(0)), g(states);
  std::vector<double> fa(track_abs ? states : 0, 0.0), ga(fa.size());
  f[0] = V(1);
  if (track_abs) fa[0] = 1;
  for (std::size_t j = 0; j < cols.entries.size(); ++j) {
    if (cols.entries[j].empty()) continue;
    std::vector<std::pair<int, V>> col;
    std::vector<std::pair<int, double>> cola;
    for (const auto& [i, k] : cols.entries[j]) {
      col.push_back({i, a.entries[k].value});
      cola.push_back({i, std::abs(a.entries[k].value)});
    }
    step(f, g, col, threads);
    f.swap(g);
    if (track_abs) {
      step(fa, ga, cola, threads);
      fa.swap(ga);
    }
    if (opt.progress) opt.progress(double(j + 1) / double(cols.entries.size()));
  }
  const V v = f[states - 1];
  const double bound = track_abs ? fa[states - 1] : std::abs(v);
  // A final term passes m products and, at each of the n columns, at most m + 1 additions;
  // the bound over |A| rounds too (the factor's second half).
  const double roundings = double(a.cols) * (m + 1) + m + 2;
  // Entries off by eta_i of their size in row i move each term (one entry a row) by at most
  // prod_i (1 + eta_i) - 1 of it, the whole by that of perm(|A|).
  const double moved = product_excess(line_relative_errors(a, opt));
  const double factor = 2 * kEps * roundings * (std::is_same_v<V, double> ? 1 : 4) * (1 + moved) + moved;
  return {v, factor * bound + 0x1p-1074};
}

}  // namespace

double rect_dp_bytes(int m, bool exact, bool complex) {
  const double words = exact ? 1 : complex ? 3 : 2;  // value (complex: two doubles) and abs bound
  return 2 * words * 8 * std::ldexp(1.0, m);
}

double rect_dp_seconds(int m, int n, std::size_t nnz, std::size_t primes, bool complex, int threads) {
  if (m > 40 || rect_dp_bytes(m, primes > 0, complex) > kRectDpMaxBytes) return std::numeric_limits<double>::infinity();
  const int cores = std::max(1, threads > 0 ? threads : omp_get_max_threads());
  // Each column reads and writes every state and visits each of its entries in every state.
  const double pairs = std::ldexp(1.0, m) * (double(n) + double(nnz));
  const double per_pair = primes > 0 ? 2.0 * double(primes) : complex ? 4.0 : 2.0;
  return 5e-6 + pairs * per_pair * kPairSeconds / cores;
}

Approx<double> rect_dp(const SparseMatrix<double>& a, const EngineOptions& opt) { return rect_dp_float(a, opt); }
Approx<Complex> rect_dp(const SparseMatrix<Complex>& a, const EngineOptions& opt) { return rect_dp_float(a, opt); }

Integer rect_dp(const SparseMatrix<Integer>& a, const EngineOptions& opt) {
  const Columns cols = columns_of(a, opt);
  const int m = a.rows;
  const int threads = threads_for(opt, m, a.cols, a.nnz());
  const std::size_t states = std::size_t{1} << m;
  bool unit = true;
  for (const auto& e : a.entries) unit = unit && e.value == 1;
  ModPlan mod;
  mod.primes = choose_primes(rect_bound(a));
  for (double p : mod.primes) mod.pinv.push_back(1.0 / p);
  std::vector<double> f(states), g(states), sums;
  for (std::size_t q = 0; q < mod.primes.size(); ++q) {
    const double p = mod.primes[q], pinv = mod.pinv[q];
    std::fill(f.begin(), f.end(), 0.0);
    f[0] = 1;
    for (std::size_t j = 0; j < cols.entries.size(); ++j) {
      if (cols.entries[j].empty()) continue;
      std::vector<std::pair<int, double>> col;
      for (const auto& [i, k] : cols.entries[j]) col.push_back({i, residue_of(a.entries[k].value, p)});
      // Values stay symmetric residues (|v| <= p/2 + 1); four terms of (-p, p) are added
      // between reductions, so every sum is an exact integer below 2^53.
      column_step(
          f, g, col, threads,
          [&](double* out, const double* src, std::size_t count, double w) {
            if (unit)
              for (std::size_t t = 0; t < count; ++t) out[t] += src[t];
            else
              for (std::size_t t = 0; t < count; ++t) out[t] += arith::modmul(w, src[t], p, pinv);
          },
          [&](double* out, std::size_t count) {
            for (std::size_t t = 0; t < count; ++t) out[t] = arith::modreduce(out[t], p, pinv);
          },
          4);
      f.swap(g);
      if (opt.progress)
        opt.progress((double(q) + double(j + 1) / double(cols.entries.size())) / double(mod.primes.size()));
    }
    sums.push_back(f[states - 1]);
  }
  return finish_mod(sums, mod, false, 0);
}

}  // namespace matchcount::engines
