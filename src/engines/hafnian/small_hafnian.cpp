// matchcount::small_dense_hafnian (matchcount/small_dense.hpp): the "hafnian" engine's float
// walks on one small dense symmetric matrix without the pipeline. Batches of small hafnians
// spent most of their time outside the walk: the sparse matrix, preprocessing, planning and a
// fresh walk's frames for every matrix. Here each thread keeps its root and walk for the last
// size and writes only the root's degree-1 coefficients (and degree-0 loops) per matrix; the
// value and estimate are the engine's (the four vertex orders of haf::float_orders in the
// lanes, haf::float_estimate), so a matrix counted here or by the pipeline's engine gets the
// same number.
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "engines/dense_input.hpp"
#include "engines/hafnian/haf_setup.hpp"
#include "engines/hafnian/haf_walk.hpp"
#include "matchcount/small_dense.hpp"

namespace matchcount {
namespace {

using engines::haf::ComplexArith;
using engines::haf::cv4;
using engines::haf::RealArith;

/// A thread's root and walk for one size (n rounded up to even) and loop setting.
template <class Ar>
struct CachedWalk {
  using V = typename Ar::V;
  Ar ar;
  int n = -1;
  bool loops = false;
  engines::haf::Root<V> root;
  std::unique_ptr<engines::haf::WalkBase<Ar>> walk;
  std::vector<std::vector<int>> orders;
};

template <class Ar>
CachedWalk<Ar>& walk_for(int n0, bool loops) {
  thread_local CachedWalk<Ar> c;
  if (c.n != n0 || c.loops != loops) {
    c.walk.reset();
    c.root = engines::haf::root_of<typename Ar::V>(n0 + n0 % 2, loops, [](int, int) { return typename Ar::V{}; },
                                                   [](int) { return typename Ar::V{}; });
    c.walk = engines::haf::make_walk(c.ar, c.root, 0);
    c.orders = engines::haf::float_orders(n0);
    c.n = n0, c.loops = loops;
  }
  return c;
}

/// The hafnian of the n0 x n0 matrix (re, im row-major, symmetric) by the float walks: lane l
/// holds a_{o(i) o(j)} for order o = orders[l], the last lane its modulus.
template <class Ar>
SmallDenseValue walk(const double* re, const double* im, int n0, bool loops) {
  constexpr bool cplx = std::is_same_v<Ar, ComplexArith>;
  CachedWalk<Ar>& c = walk_for<Ar>(n0, loops);
  const std::size_t S = static_cast<std::size_t>(c.root.stride());
  const auto lane = [&](typename Ar::V& v, int l, int i, int j) {
    const int at = c.orders[l][i] * n0 + c.orders[l][j];
    const std::complex<double> x(re[at], cplx ? im[at] : 0.0);
    const bool modulus = l >= engines::haf::kSpreadWalks;
    if constexpr (cplx) v.re[l] = modulus ? std::abs(x) : x.real(), v.im[l] = modulus ? 0.0 : x.imag();
    else v[l] = modulus ? std::abs(x.real()) : x.real();
  };
  // Degree 1 of b (edges) and degree 0 of d (loops); the extra vertex of an odd loop block
  // keeps the zero edges and the loop 1 it was made with.
  for (int i = 1; i < n0; ++i)
    for (int j = 0; j < i; ++j)
      for (int l = 0; l < 4; ++l) lane(c.root.b[(engines::haf::tri(i) + static_cast<std::size_t>(j)) * S + engines::haf::kPad + 1], l, i, j);
  if (loops) {
    for (int i = 0; i < n0; ++i)
      for (int l = 0; l < 4; ++l) lane(c.root.d[static_cast<std::size_t>(i) * S + engines::haf::kPad], l, i, i);
    if (n0 % 2) {
      auto& one = c.root.d[static_cast<std::size_t>(n0) * S + engines::haf::kPad];
      if constexpr (cplx) one = cv4{{1, 1, 1, 1}, {0, 0, 0, 0}};
      else one = v4d{1, 1, 1, 1};
    }
  }
  const auto acc = c.walk->run(0);
  std::vector<std::conditional_t<cplx, Complex, double>> lanes;
  for (int l = 0; l < 4; ++l) {
    if constexpr (cplx) lanes.emplace_back(acc.re_hi[l] + acc.re_lo[l], acc.im_hi[l] + acc.im_lo[l]);
    else lanes.push_back(acc.hi[l] + acc.lo[l]);
  }
  const auto e = engines::haf::float_estimate(lanes, 0.0);  // entries of a NumPy array are exact
  SmallDenseValue out;
  out.kind = cplx ? SmallDenseValue::Cplx : SmallDenseValue::Real;
  out.re = std::real(e.value), out.im = std::imag(e.value);
  out.abs_error = e.abs_error;
  out.estimated = e.estimated;
  return out;
}

/// Hafnians of at most 3 vertices by their closed forms, where a walk's three orders would share
/// every rounding: lhaf of 1 vertex a_00, haf of 2 a_01, lhaf of 2 a_01 + a_00 a_11, lhaf of 3
/// a_00 a_12 + a_11 a_02 + a_22 a_01 + a_00 a_11 a_22 (odd hafnians without loops are 0, and the
/// empty hafnian 1). The error is a bound, not an estimate: gamma_k of the terms' moduli, k
/// counting each term's products and the sum's additions (a complex product as 4 roundings, a
/// complex sum as 2), doubled for the bound's own roundings; the entries are exact, as
/// everywhere here.
template <class T>
SmallDenseValue closed_form(const double* re, const double* im, int n, bool loops, SmallDenseValue::Kind kind) {
  constexpr bool cplx = std::is_same_v<T, Complex>;
  using Term = std::vector<std::pair<int, int>>;
  std::vector<Term> terms;
  if (n == 0) terms = {{}};
  if (n == 1) terms = {{{0, 0}}};
  if (n == 2) terms = loops ? std::vector<Term>{{{0, 1}}, {{0, 0}, {1, 1}}} : std::vector<Term>{{{0, 1}}};
  if (n == 3) terms = {{{0, 0}, {1, 2}}, {{1, 1}, {0, 2}}, {{2, 2}, {0, 1}}, {{0, 0}, {1, 1}, {2, 2}}};
  const auto at = [&](std::pair<int, int> e) {
    const int k = e.first * n + e.second;
    if constexpr (cplx) return T(re[k], im[k]);
    else return re[k];
  };
  T value{};
  double modulus = 0;
  std::size_t factors = 0;
  for (const Term& t : terms) {
    T product(1.0);
    double size = 1;
    for (const auto& e : t) product *= at(e), size *= std::abs(at(e));
    value += product, modulus += size;
    factors = std::max(factors, t.size());
  }
  const double k = double(factors > 1 ? factors - 1 : 0) * (cplx ? 4 : 1) + double(terms.size() - 1) * (cplx ? 2 : 1);
  const double u = 0x1p-53, gamma = 2 * k * u / (1 - 2 * k * u);
  SmallDenseValue out;
  out.kind = kind;
  out.re = std::real(value), out.im = std::imag(value);
  out.abs_error = k > 0 ? gamma * modulus : 0.0;
  return out;
}

}  // namespace

SmallDenseValue small_dense_hafnian(const void* data, DenseElement type, std::int64_t rows, std::int64_t cols,
                                    std::int64_t s0, std::int64_t s1, bool loops, DenseMode mode) {
  SmallDenseValue none;
  if (rows != cols || rows > kSmallHafnianMax) return none;
  const int n = static_cast<int>(rows);
  thread_local std::vector<double> re, im;
  bool integral = true, any_imag = false;
  if (!engines::dense::read_square(data, type, n, s0, s1, re, im, integral, any_imag)) return none;
  if (!engines::dense::exactly_symmetric(re, im, n)) return none;  // the pipeline names the entry
  const SmallDenseValue::Kind kind = engines::dense::number_kind(type, integral, mode);
  if (kind != SmallDenseValue::Real && kind != SmallDenseValue::Cplx) return none;  // exact: the pipeline's CRT walk
  SmallDenseValue out;
  out.kind = kind;
  if (n % 2 && !loops) return out;  // no perfect matching: 0 exactly
  for (int i = 0; i < n; ++i) {  // a vertex nothing covers: 0 exactly, where the walk would round
    bool covered = loops && (re[static_cast<std::size_t>(i * n + i)] != 0 || im[static_cast<std::size_t>(i * n + i)] != 0);
    for (int j = 0; j < n && !covered; ++j)
      covered = j != i && (re[static_cast<std::size_t>(i * n + j)] != 0 || im[static_cast<std::size_t>(i * n + j)] != 0);
    if (!covered) return out;
  }
  if (n <= 3)
    return kind == SmallDenseValue::Cplx ? closed_form<Complex>(re.data(), im.data(), n, loops, kind)
                                         : closed_form<double>(re.data(), im.data(), n, loops, kind);
  return kind == SmallDenseValue::Cplx ? walk<ComplexArith>(re.data(), im.data(), n, loops)
                                       : walk<RealArith>(re.data(), im.data(), n, loops);
}

}  // namespace matchcount
