// The batch's look at its stack (batch_scan.hpp).
#include "batch_scan.hpp"

#include <omp.h>

#include <cmath>
#include <type_traits>

namespace matchcount::py {
namespace {

int thread_count(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

template <class E>
std::uint8_t flags_of(const E* d, std::int64_t n, std::int64_t s1, std::int64_t s2, bool symmetric) {
  bool integral = true, finite = true, same = true;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t c = 0; c < n; ++c) {
      const std::complex<double> x(d[a * s1 + c * s2]);
      integral = integral && x.imag() == 0 && std::trunc(x.real()) == x.real();
      finite = finite && std::isfinite(x.real()) && std::isfinite(x.imag());
      if (symmetric && c < a) same = same && d[a * s1 + c * s2] == d[c * s1 + a * s2];
    }
  return static_cast<std::uint8_t>((integral ? kIntegral : 0) | (finite ? kFinite : 0) | (same ? kSymmetric : 0));
}

/// np.isclose(x, y, rtol, atol): |x − y| ≤ atol + rtol |y| where both are finite, else x == y
/// (so NaN is never close). Compared in squares, without the hypot of std::abs (most of the
/// test's time), except where a square would overflow.
template <class E>
bool close(const E& x, const E& y, double rtol, double atol) {
  const std::complex<double> a(x), b(y);
  const bool finite = std::isfinite(a.real()) && std::isfinite(a.imag()) && std::isfinite(b.real()) && std::isfinite(b.imag());
  if (!finite) return a == b;
  const double d2 = std::norm(a - b), b2 = std::norm(b);
  if (!std::isfinite(d2) || !std::isfinite(b2) || d2 < 0x1p-900) return std::abs(a - b) <= atol + rtol * std::abs(b);
  const double bound = atol + rtol * std::sqrt(b2);
  return d2 <= bound * bound;
}

template <class E>
bool near(const E* d, std::int64_t n, std::int64_t s1, std::int64_t s2, double rtol, double atol) {
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t c = 0; c < a; ++c) {
      const E& x = d[a * s1 + c * s2];
      const E& y = d[c * s1 + a * s2];
      if (!close(x, y, rtol, atol) || !close(y, x, rtol, atol)) return false;
    }
  return true;
}

/// (x + y) / 2 in the stored type, part by part for complex, as NumPy's (A + A.T) / 2.
template <class E>
E half_sum(const E& x, const E& y) {
  if constexpr (std::is_floating_point_v<E>) return (x + y) / E(2);
  else return E((x.real() + y.real()) / 2, (x.imag() + y.imag()) / 2);
}

}  // namespace

std::vector<std::uint8_t> scan_stack(const StackLayout& s, bool symmetric, int threads) {
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(s.count), 0);
  with_element(s.dtype, [&](auto element) {
    using E = decltype(element);
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
    for (std::int64_t i = 0; i < s.count; ++i)
      flags[static_cast<std::size_t>(i)] = flags_of(reinterpret_cast<const E*>(s.at(i)), s.n, s.s1, s.s2, symmetric);
  });
  return flags;
}

bool symmetrise_near(StackLayout& s, std::vector<std::uint8_t>& flags, double rtol, double atol, int threads,
                     std::unique_ptr<char[]>& copy) {
  std::vector<char> mend(static_cast<std::size_t>(s.count), 0);
  bool any = false;
  with_element(s.dtype, [&](auto element) {
    using E = decltype(element);
#pragma omp parallel for schedule(dynamic, 64) reduction(|| : any) num_threads(thread_count(threads))
    for (std::int64_t i = 0; i < s.count; ++i)
      if (!(flags[static_cast<std::size_t>(i)] & kSymmetric) &&
          near(reinterpret_cast<const E*>(s.at(i)), s.n, s.s1, s.s2, rtol, atol))
        mend[static_cast<std::size_t>(i)] = 1, any = true;
  });
  if (!any) return false;
  const std::int64_t n = s.n, nn = n * n;
  // Not value-initialised: each thread's first touch of its matrices is its own write.
  copy.reset(new char[static_cast<std::size_t>(s.count * nn * s.item)]);
  with_element(s.dtype, [&](auto element) {
    using E = decltype(element);
    E* out = reinterpret_cast<E*>(copy.get());
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
    for (std::int64_t i = 0; i < s.count; ++i) {
      const E* d = reinterpret_cast<const E*>(s.at(i));
      E* o = out + i * nn;
      const bool m = mend[static_cast<std::size_t>(i)];
      for (std::int64_t a = 0; a < n; ++a)
        for (std::int64_t c = 0; c < n; ++c)
          o[a * n + c] = m ? half_sum(d[a * s.s1 + c * s.s2], d[c * s.s1 + a * s.s2]) : d[a * s.s1 + c * s.s2];
      if (m) flags[static_cast<std::size_t>(i)] = flags_of(static_cast<const E*>(o), n, n, 1, true);
    }
  });
  s.base = copy.get();
  s.s0 = nn, s.s1 = n, s.s2 = 1;
  return true;
}

}  // namespace matchcount::py
