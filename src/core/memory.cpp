// GMP allocation that throws instead of aborting, and the terminate handler that turns an
// uncatchable std::bad_alloc into one line and exit code 1 (matchcount/memory.hpp).
//
// Throwing through GMP is sound here: its C functions are built with unwind tables (the
// x86-64 and AArch64 ABIs), the allocators are called only from C code (never from the
// assembly mpn kernels), and _mpz_realloc assigns the new limb pointer only after the
// allocator returns, so a number whose growth failed still owns its old limbs and is freed
// normally when the exception unwinds through its owner.
#include "matchcount/memory.hpp"

#include <gmp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

namespace matchcount {
namespace {

std::atomic<long long> g_fail_after{-1};  // the countdown of the test hook; -1: off
char g_message[256] = "out of memory";
std::terminate_handler g_previous = nullptr;

void maybe_fail() {
  if (g_fail_after.load(std::memory_order_relaxed) < 0) return;
  if (g_fail_after.fetch_sub(1, std::memory_order_relaxed) == 0) throw std::bad_alloc();
}

void* gmp_allocate(std::size_t size) {
  maybe_fail();
  void* p = std::malloc(size);
  if (!p) throw std::bad_alloc();
  return p;
}

void* gmp_reallocate(void* old, std::size_t, std::size_t size) {
  maybe_fail();
  void* p = std::realloc(old, size);
  if (!p) throw std::bad_alloc();  // `old` is still valid and still owned by its number
  return p;
}

void gmp_free(void* p, std::size_t) { std::free(p); }

[[noreturn]] void on_terminate() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      // No allocation here: memory is what ran out.
      if (::write(STDERR_FILENO, g_message, std::strlen(g_message)) < 0) {}
      _exit(1);
    } catch (...) {
    }
  }
  if (g_previous) g_previous();
  std::abort();
}

}  // namespace

void install_allocation_failure_handlers(const std::string& message) {
  const std::size_t n = std::min(message.size(), sizeof g_message - 2);
  std::memcpy(g_message, message.data(), n);
  g_message[n] = '\n';
  g_message[n + 1] = '\0';
  mp_set_memory_functions(gmp_allocate, gmp_reallocate, gmp_free);
  const std::terminate_handler previous = std::set_terminate(on_terminate);
  if (previous != on_terminate) g_previous = previous;
}

void fail_gmp_allocation_after(long long calls) {
  g_fail_after.store(calls < 0 ? -1 : calls, std::memory_order_relaxed);
}

}  // namespace matchcount
