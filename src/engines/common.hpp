// Helpers shared by the CPU engines (private to src/engines).
#pragma once

#include <algorithm>

#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/modmul.hpp"
#include "core/arith.hpp"
#include "engines/engine.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {

/// C(w, p) in floating point (0 outside 0 <= p <= w), for cost models and walk plans.
inline double binomial(int w, int p) {
  if (p < 0 || p > w) return 0;
  p = std::min(p, w - p);
  double r = 1;
  for (int i = 1; i <= p; ++i) r = r * double(w - p + i) / double(i);
  return r;
}

constexpr double kEps = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff u

/// Allocates whole cache lines (64-byte aligned, sizes rounded up to 64 bytes), for the
/// working arrays each thread writes: on lines of their own, one thread's writes never evict
/// another's data. Left to malloc, small arrays of two threads could share a line, and the
/// sparse walks would lose time to the threads invalidating each other's lines (measurements
/// in docs/engines.md).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t count) {
    const std::size_t bytes = std::max<std::size_t>(64, (count * sizeof(T) + 63) / 64 * 64);
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
  friend bool operator!=(const CacheLineAllocator&, const CacheLineAllocator&) { return false; }
};
template <class T>
using LineVector = std::vector<T, CacheLineAllocator<T>>;

/// Threads for a job of about `work` basic steps: at most one per 2e6 steps (about half a
/// millisecond), because starting and joining a team costs more than it saves on small jobs:
/// waking every thread of a many-core host can cost more than such a block takes on one thread,
/// and far more when oversubscribed (docs/benchmarks.md, "GPU engines, one H100").
inline int thread_count(const EngineOptions& opt, double work) {
  const int most = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  return static_cast<int>(std::clamp(work / 2e6, 1.0, static_cast<double>(std::max(most, 1))));
}

/// x with three significant digits, for messages ("4.5e+09").
inline std::string three_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// An engine's refusal of tables that would not fit: BudgetError when the count's memory budget
/// (EngineOptions::max_bytes) was the limit, so that a larger budget may count it, else
/// RefusedError (the engine's own limit).
[[noreturn]] inline void refuse_memory(bool budget, const std::string& message) {
  if (budget) throw BudgetError(message);
  throw RefusedError(message);
}

/// The pattern of a matrix as (row, col) pairs, for the structure planners (frontier order,
/// planarity).
template <class T>
std::vector<std::pair<int, int>> pattern_of(const SparseMatrix<T>& a) {
  std::vector<std::pair<int, int>> p;
  p.reserve(a.entries.size());
  for (const auto& e : a.entries) p.emplace_back(e.row, e.col);
  return p;
}

/// Throws unless `a` is square and at most max_n wide.
template <class T>
void check_block(const SparseMatrix<T>& a, const std::string& engine, int max_n) {
  if (!a.square())
    throw std::invalid_argument(engine + ": the permanent needs a square matrix, got " +
                                std::to_string(a.rows) + "x" + std::to_string(a.cols));
  if (a.rows > max_n)
    throw RefusedError(engine + ": a " + std::to_string(a.rows) + "x" + std::to_string(a.rows) +
                       " block is larger than its limit n <= " + std::to_string(max_n));
}

/// True when some row or column has no nonzero entry (then the permanent is 0).
template <class T>
bool has_empty_line(const SparseMatrix<T>& a) {
  std::vector<char> row(static_cast<std::size_t>(a.rows)), col(static_cast<std::size_t>(a.cols));
  for (const auto& e : a.entries) row[static_cast<std::size_t>(e.row)] = col[static_cast<std::size_t>(e.col)] = 1;
  for (char c : row) if (!c) return true;
  for (char c : col) if (!c) return true;
  return false;
}

/// True when all parts of all entries are integers and every row's absolute sum is below
/// 2^52: then the engines' row sums (which are signed sub-sums, doubled at most) are exact,
/// and only the products round.
template <class T>
bool integral_rows(const SparseMatrix<T>& a) {
  std::vector<double> r(static_cast<std::size_t>(a.rows));
  for (const auto& e : a.entries) {
    Complex v(e.value);
    if (v.real() != std::trunc(v.real()) || v.imag() != std::trunc(v.imag())) return false;
    r[static_cast<std::size_t>(e.row)] += std::abs(v.real()) + std::abs(v.imag());
  }
  for (double x : r) if (!(x < 0x1p52)) return false;
  return true;
}

/// Double-double sum (TwoSum on every addition) plus the sum of |terms| added with add_term and,
/// for the walks' error bounds, the sum of the terms' deviations (src/engines/ryser/row_grid.hpp).
struct DDSum {
  double hi = 0, lo = 0, abs = 0, dev = 0;
  void add(double x) {
    double s = hi + x, bp = s - hi;
    lo += (hi - (s - bp)) + (x - bp);
    hi = s;
  }
  void add_term(double x) { add(x); abs += std::fabs(x); }
  void merge(const DDSum& o) { add(o.hi); add(o.lo); abs += o.abs; dev += o.dev; }
  double value() const { return hi + lo; }
};

/// The sum of an enumeration's terms (the brute-force oracles): exact for integers (GMP, or
/// 128 bits where the caller has shown that no term or partial sum overflows), compensated for
/// floats, with the sum of |terms| that bounds the rounding error.
template <class T>
struct TermSum;
template <>
struct TermSum<__int128> {
  __int128 s = 0;
  void add(__int128 t) { s += t; }
  void merge(const TermSum& o) { s += o.s; }
};
template <>
struct TermSum<Integer> {
  Integer s = 0;
  void add(const Integer& t) { s += t; }
  void merge(const TermSum& o) { s += o.s; }
};
template <>
struct TermSum<double> {
  DDSum s;
  void add(double t) { s.add_term(t); }
  void merge(const TermSum& o) { s.merge(o.s); }
};
template <>
struct TermSum<Complex> {
  DDSum re, im;
  double abs = 0;
  void add(const Complex& t) { re.add(t.real()), im.add(t.imag()), abs += std::abs(t); }
  void merge(const TermSum& o) { re.merge(o.re), im.merge(o.im), abs += o.abs; }
};

/// Reports progress from OpenMP thread 0 only, counting units done by all threads.
class Progress {
 public:
  Progress(const EngineOptions& opt, std::uint64_t total) : opt_(opt), total_(total) {}
  void tick() {
    std::uint64_t d = done_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (opt_.progress && omp_get_thread_num() == 0) opt_.progress(double(d) / double(total_));
  }

 private:
  const EngineOptions& opt_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
};

/// How the exact engines count modulo primes.
struct ModPlan {
  std::vector<double> primes, pinv;
  /// Every row's absolute sum is < 2^49: Ryser's row sums stay exact integers in doubles
  /// and in (-p, p) for every prime, so one walk serves all primes.
  bool shared = false;
  /// Row groups [group_end[g-1], group_end[g]) whose abs-sum product is < 2^49: their
  /// products are exact in FP64 and lie in (-p, p) (only when shared).
  std::vector<int> group_end;
};

/// Rows must be those of `a` in the order the engine multiplies them (row_order[k] = row).
ModPlan make_mod_plan(const SparseMatrix<Integer>& a, const std::vector<int>& row_order);
/// perm = factor * (per-prime sums): combine residue sums (doubles in (-p, p)) with
/// factor = sign * 2^-shift mod p and reconstruct by CRT.
Integer finish_mod(const std::vector<double>& sums, const ModPlan& plan, bool negate, int shift);
/// a mod p as a double in [0, p).
inline double residue_of(const Integer& v, double p) {
  return static_cast<double>(mpz_fdiv_ui(v.get_mpz_t(), static_cast<unsigned long>(p)));
}

}  // namespace matchcount::engines
