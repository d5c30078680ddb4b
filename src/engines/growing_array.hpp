// The state tables of the frontier DPs (bipartite frontier and graph frontier), private to
// src/engines, and the meter that holds them to the memory an engine may use.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "matchcount/error.hpp"
#include "matchcount/memory.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace matchcount::engines {

/// Tables from this size on are mapped in transparent huge pages (2 MiB).
constexpr std::size_t kHugeTableBytes = std::size_t{8} << 20, kHugePage = std::size_t{2} << 20;
/// Tables from this size on are mapped by the table itself rather than by malloc (below).
constexpr std::size_t kMappedTableBytes = std::size_t{64} << 10;

/// Bytes a table of `bytes` may hold resident: its pages, 2 MiB ones for huge tables. The
/// engines' predictions add one such page per table to the states' bytes.
inline double table_page(double bytes) { return bytes >= double(kHugeTableBytes) ? double(kHugePage) : 4096.0; }

/// The bytes an engine's tables hold resident, against the memory left to them
/// (EngineOptions::max_bytes less the engine's other structures). Tables charge their pages
/// before they write them, so the meter's figure bounds their share of the resident memory
/// at every moment, not only the predicted peak; the run asks `fits` before it grows a table
/// and refuses the count (BudgetError) rather than pass the limit. Not thread-safe: only the
/// thread that sizes the tables uses it.
class TableMeter {
 public:
  /// `budget`: the limit is what the memory budget leaves the tables (a larger budget may
  /// count the block), not the engine's own limit.
  explicit TableMeter(double limit = std::numeric_limits<double>::infinity(), bool budget = false)
      : limit_(limit), budget_(budget) {}
  bool fits(double more) const { return used_ + more <= limit_; }
  /// The engine's prediction of its tables: beyond it the run gives back the pages its tables
  /// hold beyond their contents before it grows them (which costs faulting them in again), so
  /// that the tables stay within the prediction as long as it holds, and within the limit
  /// always.
  void set_target(double bytes) { target_ = bytes; }
  bool within_target(double more) const { return used_ + more <= std::min(target_, limit_); }
  void add(double bytes) { used_ += bytes, peak_ = std::max(peak_, used_); }
  void sub(double bytes) { used_ -= bytes; }
  double limit() const { return limit_; }
  double used() const { return used_; }
  double peak() const { return peak_; }
  /// Refuses the count when the tables would need `more` bytes beyond what they hold:
  /// BudgetError when the budget set the limit, else RefusedError. `what` names the engine and
  /// the place ("frontier: at row 57 of 98").
  [[noreturn]] void refuse(const std::string& what, double more) const {
    const std::string line = what + ", the state tables would need about " + memory_text(used_ + more) + ", over the " +
                             memory_text(limit_) +
                             (budget_ ? " the memory budget (--max-memory) leaves them" : " of the engine's limit");
    if (budget_) throw BudgetError(line);
    throw RefusedError(line);
  }

 private:
  double limit_;
  bool budget_;
  double target_ = std::numeric_limits<double>::infinity(), used_ = 0, peak_ = 0;
};

/// An uninitialised array that keeps its allocation for the whole count and grows it
/// geometrically: fresh pages cost a fault and zeroing each, while capacity never written
/// costs nothing. With `Headroom`, growth also reserves a quarter more than asked: the
/// bipartite frontier's tables change size from row to row, and the spare capacity spares it
/// reallocations (and faulting pages in again); the graph frontier's tables are powers of two
/// and get no headroom.
///
/// Tables of kMappedTableBytes and more are mapped here, not by malloc: glibc serves blocks
/// below its (dynamic, up to 32 MiB) mmap threshold from its heap and keeps them resident
/// after free, so tables that grew or were freed between passes stayed resident beside their
/// successors (docs/benchmarks.md, "Memory budget against the measured peak"). A mapping is
/// given back whole when
/// freed, and `trim` gives back pages beyond the contents.
///
/// With a meter the array charges the pages it may have touched (from the start of the
/// allocation to the furthest element made writable: the high-water mark) before they are
/// written, and releases them when freed or trimmed.
template <class T, bool Headroom = false>
class GrowingArray {
 public:
  std::size_t n = 0;  // elements in use

  explicit GrowingArray(TableMeter* meter = nullptr) : meter_(meter) {}
  GrowingArray(GrowingArray&& o) noexcept { steal(o); }
  GrowingArray& operator=(GrowingArray&& o) noexcept {
    if (this != &o) release(), steal(o);
    return *this;
  }
  GrowingArray(const GrowingArray&) = delete;
  GrowingArray& operator=(const GrowingArray&) = delete;
  ~GrowingArray() { release(); }

  /// Capacity for k elements, touching none (the contents are lost when it reallocates).
  void reserve(std::size_t k) {
    if (k <= cap_) return;
    release();
    cap_ = std::max(Headroom ? k + k / 4 : k, cap_ * 2);
    allocate(std::max<std::size_t>(cap_, 1) * sizeof(T));
  }
  /// Bytes the meter would be charged to make k elements writable (0 when they already are).
  /// A reallocation frees the old block (and its charge) before it touches the new one.
  double extra(std::size_t k) const {
    const std::size_t cap = k <= cap_ ? cap_ : std::max(Headroom ? k + k / 4 : k, cap_ * 2);
    return std::max(0.0, double(touched(k, k <= cap_ ? bytes_ : cap * sizeof(T))) - double(hw_));
  }
  /// n = k, with [0, k) writable and charged (the contents are lost when it reallocates).
  void resize(std::size_t k) {
    reserve(k);
    prior_hw_ = hw_;
    const std::size_t mark = touched(k, bytes_);
    if (mark > hw_) charge(double(mark - hw_)), hw_ = mark;
    n = k;
  }
  /// After a resize of which only [0, written) was written: n = written, and the pages the
  /// resize charged but nothing touched are released.
  void settle(std::size_t written) {
    const std::size_t mark = std::max(prior_hw_, touched(written, bytes_));
    if (mark < hw_) charge(-double(hw_ - mark)), hw_ = mark;
    n = written;
  }
  /// Gives back the pages beyond the contents (mapped tables only; others keep theirs).
  void trim() {
#if defined(__linux__)
    if (!mapped_) return;
    const std::size_t keep = touched(n, bytes_);
    if (keep >= hw_) return;
    madvise(reinterpret_cast<char*>(p_) + keep, hw_ - keep, MADV_DONTNEED);
    charge(-double(hw_ - keep)), hw_ = keep;
#endif
  }
  /// Bytes charged: the high-water mark.
  std::size_t charged() const { return hw_; }

  T* data() const { return p_; }
  T* begin() const { return p_; }
  T* end() const { return p_ + n; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  /// The high-water mark of k elements in an allocation of `bytes`: whole pages of a mapping
  /// (2 MiB ones for huge tables), whole cache lines of a heap block.
  std::size_t touched(std::size_t k, std::size_t bytes) const {
    const std::size_t used = k * sizeof(T);
    if (used == 0) return 0;
    const std::size_t unit = bytes >= kHugeTableBytes ? kHugePage : bytes >= kMappedTableBytes ? 4096 : 64;
    return std::min(std::max(bytes, used), (used + unit - 1) / unit * unit);
  }
  void charge(double bytes) {
    if (meter_) bytes > 0 ? meter_->add(bytes) : meter_->sub(-bytes);
  }
  void allocate(std::size_t bytes) {
#if defined(__linux__)
    if (bytes >= kMappedTableBytes) {
      const std::size_t align = bytes >= kHugeTableBytes ? kHugePage : 4096;
      bytes = (bytes + align - 1) / align * align;
      // Over-map by the alignment and unmap the ends, so that huge pages line up.
      const std::size_t span = bytes + align - 4096;
      void* q = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (q == MAP_FAILED) throw std::bad_alloc();
      const auto start = reinterpret_cast<std::uintptr_t>(q), at = (start + align - 1) / align * align;
      if (at > start) munmap(q, at - start);
      if (start + span > at + bytes) munmap(reinterpret_cast<void*>(at + bytes), start + span - at - bytes);
      if (align > 4096) madvise(reinterpret_cast<void*>(at), bytes, MADV_HUGEPAGE);
      p_ = reinterpret_cast<T*>(at), bytes_ = bytes, mapped_ = true;
      return;
    }
#endif
    bytes = (bytes + 63) / 64 * 64;
    void* q = std::aligned_alloc(64, bytes);
    if (!q) throw std::bad_alloc();
    p_ = static_cast<T*>(q), bytes_ = bytes, mapped_ = false;
  }
  void release() {
    if (!p_) return;
#if defined(__linux__)
    if (mapped_) munmap(p_, bytes_);
    else std::free(p_);
#else
    std::free(p_);
#endif
    charge(-double(hw_));
    p_ = nullptr, bytes_ = hw_ = prior_hw_ = n = 0;
  }
  void steal(GrowingArray& o) {
    p_ = std::exchange(o.p_, nullptr), meter_ = o.meter_, mapped_ = o.mapped_;
    n = std::exchange(o.n, 0), cap_ = std::exchange(o.cap_, 0), bytes_ = std::exchange(o.bytes_, 0);
    hw_ = std::exchange(o.hw_, 0), prior_hw_ = std::exchange(o.prior_hw_, 0);
  }

  T* p_ = nullptr;
  TableMeter* meter_ = nullptr;
  bool mapped_ = false;
  std::size_t cap_ = 0, bytes_ = 0, hw_ = 0, prior_hw_ = 0;
};

}  // namespace matchcount::engines
