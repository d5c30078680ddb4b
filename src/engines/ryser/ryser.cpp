// The dense Ryser engine: Nijenhuis-Wilf form in doubled values, Gray-code order, SIMD lanes.
//
// With y_i = 2 x_i = 2 a_{i,n-1} - sum_j a_ij + 2 sum_{j in S} a_ij (so y_i = sum_j +-a_ij is
// an integer for integer input and |y_i| <= r_i = sum_j |a_ij|):
//   perm(A) = (-1)^(n-1) 2^(1-n) sum_{S subset of [n-1]} (-1)^|S| prod_i y_i(S).
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>

#include "core/hashing.hpp"
#include "engines/ryser/ryser.hpp"
#include "engines/ryser/direct.hpp"
#include "engines/ryser/ryser_policies.hpp"

namespace matchcount::engines {
namespace {

constexpr int kRealV = 4;     // 16 lanes: four independent product chains hide mul latency
constexpr int kExactV = 4;
constexpr int kComplexV = 2;

/// Doubled NW input from a dense row-major matrix of doubles.
DenseInput nw_input(int n, const std::vector<double>& d) {
  DenseInput in;
  in.n = n;
  in.a2.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1));
  in.x0.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) row += d[static_cast<std::size_t>(i * n + j)];
    in.x0[static_cast<std::size_t>(i)] = 2 * d[static_cast<std::size_t>(i * n + n - 1)] - row;
    for (int j = 0; j + 1 < n; ++j) in.a2[static_cast<std::size_t>(j * n + i)] = 2 * d[static_cast<std::size_t>(i * n + j)];
  }
  return in;
}

/// The same input modulo p, computed exactly in GMP; residues in [0, p).
DenseInput nw_input_mod(const SparseMatrix<Integer>& a, double p) {
  const int n = a.rows;
  std::vector<Integer> d = a.dense();
  DenseInput in;
  in.n = n;
  in.a2.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1));
  in.x0.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    Integer row = 0;
    for (int j = 0; j < n; ++j) row += d[static_cast<std::size_t>(i * n + j)];
    in.x0[static_cast<std::size_t>(i)] = residue_of(2 * d[static_cast<std::size_t>(i * n + n - 1)] - row, p);
    for (int j = 0; j + 1 < n; ++j)
      in.a2[static_cast<std::size_t>(j * n + i)] = residue_of(2 * d[static_cast<std::size_t>(i * n + j)], p);
  }
  return in;
}

/// A checkpoint name for the walk: engine, number policy, chunking and a hash of the walk's
/// input (and primes), so that a saved state is only ever resumed by the same walk.
std::string walk_tag(const char* policy, int m, const GrayPlan& plan, const std::vector<const DenseInput*>& inputs,
                     const std::vector<double>& primes = {}) {
  std::uint64_t h = fnv1a64(primes.data(), primes.size() * sizeof(double));
  for (const DenseInput* in : inputs) {
    h = fnv1a64(in->a2.data(), in->a2.size() * sizeof(double), h);
    h = fnv1a64(in->x0.data(), in->x0.size() * sizeof(double), h);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "ryser/%s/m=%d/k=%d/blocks=%llu/input=%016llx", policy, m, plan.k,
                static_cast<unsigned long long>(plan.blocks), static_cast<unsigned long long>(h));
  return buf;
}

/// The walk's error estimate in units of sum |terms|: products of n factors (n u), start
/// sums of up to n additions (n u), and the drift of y over the T = 2^k steps of a chunk,
/// modelled as a random walk of roundings (sqrt(n T) u); no drift for integral input,
/// whose row sums are exact.
template <class T>
double walk_error_factor(const SparseMatrix<T>& a, const GrayPlan& plan) {
  double drift = integral_rows(a) ? 0.0 : std::sqrt(double(a.rows) * double(std::uint64_t{1} << plan.k));
  return 2 * kEps * (2.0 * a.rows + 2 + drift);
}

class RyserEngine final : public Engine {
 public:
  std::string name() const override { return "ryser"; }
  int max_n() const override { return 62; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    GrayPlan plan = gray_plan(n - 1, 4 * kExactV);
    if (plan.blocks == 0) {
      Integer s = ryser_direct(a).s;
      return n % 2 ? Integer(-s) : s;
    }
    std::vector<int> rows(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
    ModPlan mod = make_mod_plan(a, rows);
    std::vector<double> sums;
    if (mod.shared) {
      // Entries and row sums are < 2^49: exact as doubles, and every y stays exact.
      DenseInput in = nw_input(n, convert<double>(a, [](const Integer& v) { return v.get_d(); }).dense());
      sums = gray_walk(ModSharedPolicy<kExactV>{in, mod}, n - 1, plan, opt,
                       walk_tag("exact-shared", n - 1, plan, {&in}, mod.primes));
    } else {
      for (std::size_t k = 0; k < mod.primes.size(); ++k) {
        DenseInput in = nw_input_mod(a, mod.primes[k]);
        sums.push_back(gray_walk(ModPrimePolicy<kExactV>{in, mod.primes[k], mod.pinv[k]}, n - 1, plan, opt,
                                 walk_tag("exact-prime", n - 1, plan, {&in}, {mod.primes[k]})));
      }
    }
    return finish_mod(sums, mod, (n - 1) % 2 == 1, n - 1);
  }

  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    GrayPlan plan = gray_plan(n - 1, 4 * kRealV);
    if (plan.blocks == 0) {
      DDSum s = ryser_direct(a).s;
      return {n % 2 ? -s.value() : s.value(), (2.0 * n + 4) * kEps * s.abs};
    }
    DenseInput in = nw_input(n, a.dense());
    DDSum s = gray_walk(RealPolicy<kRealV>{in}, n - 1, plan, opt, walk_tag("real", n - 1, plan, {&in}));
    double scale = std::ldexp((n - 1) % 2 ? -1.0 : 1.0, 1 - n);
    return {s.value() * scale, walk_error_factor(a, plan) * s.abs * std::fabs(scale)};
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    GrayPlan plan = gray_plan(n - 1, 4 * kComplexV);
    if (plan.blocks == 0) {
      auto s = ryser_direct(a);
      Complex v(s.re.value(), s.im.value());
      return {n % 2 ? -v : v, 4 * (2.0 * n + 4) * kEps * s.re.abs};
    }
    std::vector<Complex> d = a.dense();
    std::vector<double> re(d.size()), im(d.size());
    for (std::size_t k = 0; k < d.size(); ++k) re[k] = d[k].real(), im[k] = d[k].imag();
    DenseInput in_re = nw_input(n, re), in_im = nw_input(n, im);
    auto s = gray_walk(ComplexPolicy<kComplexV>{in_re, in_im}, n - 1, plan, opt,
                       walk_tag("complex", n - 1, plan, {&in_re, &in_im}));
    double scale = std::ldexp((n - 1) % 2 ? -1.0 : 1.0, 1 - n);
    return {Complex(s.re.value(), s.im.value()) * scale,
            2 * walk_error_factor(a, plan) * (s.re.abs + s.im.abs) * std::fabs(scale)};
  }
};

}  // namespace

}  // namespace matchcount::engines

namespace matchcount::engines {

std::unique_ptr<Engine> make_ryser() { return std::make_unique<RyserEngine>(); }

}  // namespace matchcount::engines
