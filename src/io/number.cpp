// Exact decimal numbers for the readers, and their conversion to the matrix number types.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "io/reader_impl.hpp"

namespace matchcount::io_detail {

namespace {

constexpr std::int64_t kTwo53 = std::int64_t(1) << 53;
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                             1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

Integer pow10(unsigned long k) {
  Integer p;
  mpz_ui_pow_ui(p.get_mpz_t(), 10, k);
  return p;
}

Integer from_int64(std::int64_t v) { return Integer(static_cast<long>(v)); }

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Removes trailing decimal zeros of a small value into its scale.
Num normalized(std::int64_t mant, std::int64_t scale) {
  if (mant == 0) return {};
  while (mant % 10 == 0) {
    mant /= 10;
    ++scale;
  }
  return {mant, static_cast<std::int32_t>(scale), -1};
}

}  // namespace

Num NumPool::add(Rational q) {
  values_.push_back(std::move(q));
  return {0, 0, static_cast<std::int32_t>(values_.size() - 1)};
}

bool NumPool::is_zero(const Num& x) const { return x.big < 0 ? x.mant == 0 : sgn((*this)[x.big]) == 0; }

bool NumPool::is_integer(const Num& x) const {
  return x.big < 0 ? (x.mant == 0 || x.scale >= 0) : (*this)[x.big].get_den() == 1;
}

Num NumPool::negate(const Num& x) {
  if (x.big < 0 && x.mant != std::numeric_limits<std::int64_t>::min()) return {-x.mant, x.scale, -1};
  return add(-to_rational(x));
}

Num NumPool::sum(const Num& x, const Num& y) {
  if (x.big < 0 && y.big < 0) {
    if (x.mant == 0) return y;
    if (y.mant == 0) return x;
    std::int64_t s = 0;
    if (x.scale == y.scale && !__builtin_add_overflow(x.mant, y.mant, &s) &&
        s != std::numeric_limits<std::int64_t>::min())
      return normalized(s, x.scale);
  }
  return add(to_rational(x) + to_rational(y));
}

Integer NumPool::to_integer(const Num& x) const {
  if (x.big >= 0) return (*this)[x.big].get_num();
  Integer z = from_int64(x.mant);
  if (x.scale > 0) z *= pow10(static_cast<unsigned long>(x.scale));
  return z;
}

Rational NumPool::to_rational(const Num& x) const {
  if (x.big >= 0) return (*this)[x.big];
  if (x.scale >= 0) return Rational(to_integer(x));
  Rational q(from_int64(x.mant), pow10(static_cast<unsigned long>(-x.scale)));
  q.canonicalize();
  return q;
}

double NumPool::to_double(const Num& x) const {
  if (x.big < 0) {
    if (x.mant == 0) return 0.0;
    // One correctly rounded operation on exact operands (Clinger's fast path).
    if (x.mant > -kTwo53 && x.mant < kTwo53) {
      const auto m = static_cast<double>(x.mant);
      if (x.scale == 0) return m;
      if (x.scale > 0 && x.scale <= 22) return m * kPow10[x.scale];
      if (x.scale < 0 && x.scale >= -22) return m / kPow10[-x.scale];
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%" PRId64 "e%d", x.mant, static_cast<int>(x.scale));
    return std::strtod(buf, nullptr);
  }
  // A finite decimal p / (2^a 5^b) is N * 10^-m with m = max(a, b); strtod rounds correctly.
  const Rational& q = (*this)[x.big];
  const mpz_srcptr den = q.get_den_mpz_t();
  const auto a = mpz_scan1(den, 0);
  Integer rest;
  mpz_tdiv_q_2exp(rest.get_mpz_t(), den, a);
  Integer odd;
  const auto b = mpz_remove(odd.get_mpz_t(), rest.get_mpz_t(), Integer(5).get_mpz_t());
  if (odd != 1) return q.get_d();  // not a finite decimal (cannot happen for parsed input)
  const auto m = std::max<unsigned long>(a, b);
  Integer n = q.get_num();
  if (m > a) n <<= static_cast<mp_bitcnt_t>(m - a);
  if (m > b) {
    Integer p;
    mpz_ui_pow_ui(p.get_mpz_t(), 5, m - b);
    n *= p;
  }
  const std::string text = n.get_str() + "e-" + std::to_string(m);
  return std::strtod(text.c_str(), nullptr);
}

NumStatus parse_number(std::string_view s, Num& out, NumPool& pool) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  const std::size_t int_begin = i;
  while (i < n && is_digit(s[i])) ++i;
  const std::size_t int_end = i;
  std::size_t frac_begin = i, frac_end = i;
  if (i < n && s[i] == '.') {
    frac_begin = ++i;
    while (i < n && is_digit(s[i])) ++i;
    frac_end = i;
  }
  if (int_end == int_begin && frac_end == frac_begin) return NumStatus::Malformed;
  std::int64_t exp = 0;
  bool exp_overflow = false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    const std::size_t exp_begin = i;
    while (i < n && is_digit(s[i])) {
      if (exp < 1'000'000'000) exp = exp * 10 + (s[i] - '0');
      else exp_overflow = true;
      ++i;
    }
    if (i == exp_begin) return NumStatus::Malformed;
    if (eneg) exp = -exp;
  }
  if (i != n) return NumStatus::Malformed;

  // The digits int_begin..int_end then frac_begin..frac_end, as one sequence.
  const std::size_t int_len = int_end - int_begin, frac_len = frac_end - frac_begin;
  const std::size_t total = int_len + frac_len;
  auto digit = [&](std::size_t k) { return k < int_len ? s[int_begin + k] : s[frac_begin + k - int_len]; };
  std::size_t first = 0;
  while (first < total && digit(first) == '0') ++first;
  if (first == total) {  // zero, whatever the exponent
    out = Num{};
    return NumStatus::Ok;
  }
  std::size_t last = total - 1;
  while (digit(last) == '0') --last;
  if (exp_overflow) return NumStatus::OutOfRange;
  const std::size_t sig = last - first + 1;
  const std::int64_t scale =
      exp - static_cast<std::int64_t>(frac_len) + static_cast<std::int64_t>(total - 1 - last);
  if (scale > kMaxDecimalScale || scale < -kMaxDecimalScale) return NumStatus::OutOfRange;
  if (sig <= 18) {
    std::int64_t m = 0;
    for (std::size_t k = first; k <= last; ++k) m = m * 10 + (digit(k) - '0');
    out = Num{neg ? -m : m, static_cast<std::int32_t>(scale), -1};
    return NumStatus::Ok;
  }
  std::string digits;
  digits.reserve(sig);
  for (std::size_t k = first; k <= last; ++k) digits.push_back(digit(k));
  Integer z(digits, 10);
  if (neg) z = -z;
  Rational q;
  if (scale >= 0) {
    q = Rational(z * pow10(static_cast<unsigned long>(scale)));
  } else {
    q = Rational(z, pow10(static_cast<unsigned long>(-scale)));
    q.canonicalize();
  }
  out = pool.add(std::move(q));
  return NumStatus::Ok;
}

std::string number_error(std::string_view token, NumStatus status) {
  if (status == NumStatus::OutOfRange)
    return "number out of range: " + quote(token) + " (decimal exponent beyond +-" +
           std::to_string(kMaxDecimalScale) + ")";
  return "not a number: " + quote(token);
}

bool parse_count(std::string_view text, std::uint64_t limit, std::uint64_t& out) {
  if (text.empty()) return false;
  std::uint64_t v = 0;
  for (char c : text) {
    if (!is_digit(c)) return false;
    if (__builtin_mul_overflow(v, std::uint64_t(10), &v) ||
        __builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v) || v > limit)
      return false;
  }
  out = v;
  return true;
}

}  // namespace matchcount::io_detail

namespace matchcount {

bool parse_exact_decimal(const std::string& text, Rational& out) {
  io_detail::NumPool pool;
  io_detail::Num x;
  if (io_detail::parse_number(text, x, pool) != io_detail::NumStatus::Ok) return false;
  out = pool.to_rational(x);
  return true;
}

}  // namespace matchcount
