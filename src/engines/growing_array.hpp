// The state tables of the frontier DPs (bipartite frontier and graph frontier), private to
// src/engines.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace matchcount::engines {

/// An uninitialised array that keeps its allocation for the whole count and grows it
/// geometrically: fresh pages cost a fault and zeroing each, while capacity never written
/// costs nothing. Large ones ask for transparent huge pages. With `Headroom`, growth also
/// reserves a quarter more than asked: the bipartite frontier's tables change size from row
/// to row, and the spare capacity spares it reallocations (and faulting pages in again); the
/// graph frontier's tables are powers of two and get no headroom.
template <class T, bool Headroom = false>
struct GrowingArray {
  struct Free {
    void operator()(T* q) const { std::free(q); }
  };
  std::unique_ptr<T[], Free> p;
  std::size_t n = 0, cap = 0;

  void resize(std::size_t k) {  // the contents are lost
    if (k > cap) {
      p.reset();
      cap = std::max(Headroom ? k + k / 4 : k, cap * 2);
      std::size_t bytes = std::max<std::size_t>(cap, 1) * sizeof(T);
      const std::size_t align = bytes >= (std::size_t{8} << 20) ? std::size_t{2} << 20 : 64;
      bytes = (bytes + align - 1) / align * align;
      void* q = std::aligned_alloc(align, bytes);
      if (!q) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
      if (align > 64) madvise(q, bytes, MADV_HUGEPAGE);
#endif
      p.reset(static_cast<T*>(q));
    }
    n = k;
  }
  T* data() const { return p.get(); }
  T* begin() const { return p.get(); }
  T* end() const { return p.get() + n; }
  T& operator[](std::size_t i) const { return p[i]; }
};

}  // namespace matchcount::engines
