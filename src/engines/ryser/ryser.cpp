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
#include "engines/ryser/row_grid.hpp"
#include "engines/ryser/ryser_low_columns.hpp"
#include "engines/ryser/ryser_policies.hpp"
#include "core/tuning.hpp"

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
/// input and `extra` (primes, or the rows' error bounds, which the walk's deviation sums
/// depend on), so that a saved state is only ever resumed by the same walk.
std::string walk_tag(const char* policy, int m, const GrayPlan& plan, const std::vector<const DenseInput*>& inputs,
                     const std::vector<double>& extra = {}) {
  std::uint64_t h = fnv1a64(extra.data(), extra.size() * sizeof(double));
  for (const DenseInput* in : inputs) {
    h = fnv1a64(in->a2.data(), in->a2.size() * sizeof(double), h);
    h = fnv1a64(in->x0.data(), in->x0.size() * sizeof(double), h);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "ryser/%s/m=%d/k=%d/blocks=%llu/input=%016llx", policy, m, plan.k,
                static_cast<unsigned long long>(plan.blocks), static_cast<unsigned long long>(h));
  return buf;
}

/// The walk over two low columns' additions and multiplications per four subsets,
/// n + (n1 + n2 + 3 n3) + (n0 + 2 n1 + 2 n2 + 4 n3) (n_c: rows of class c), over the plain
/// walk's 8n. The engine takes the walk below kLowColumnWorkMax: dense blocks, near 1, ran
/// slower with it (docs/benchmarks.md, "ryser: the exact walk over two low columns").
double low_column_work(const LowColumnBlock& blk) {
  int rows_of[4];
  for (int c = 0; c < 4; ++c) rows_of[c] = blk.class_start[c + 1] - blk.class_start[c];
  const double n = blk.a.rows;
  return (n + (rows_of[1] + rows_of[2] + 3.0 * rows_of[3]) + (rows_of[0] + 2.0 * (rows_of[1] + rows_of[2]) + 4.0 * rows_of[3])) /
         (8 * n);
}
constexpr double kLowColumnWorkMax = 0.75;

/// The exact walk over two low columns (ryser_low_columns.hpp), or nothing where it does not
/// apply: MATCHCOUNT_RYSER_LOW_COLUMNS below 2, a low column with no entry, too much work
/// (low_column_work), entries whose rows need a walk per prime, or a block too small for
/// chunks of 4 steps.
std::optional<Integer> low_column_count(const SparseMatrix<Integer>& a, const EngineOptions& opt) {
  if (tuning::tuning().ryser_low_columns < 2) return std::nullopt;
  const std::optional<LowColumnBlock> blk = low_column_block(a);
  if (!blk || low_column_work(*blk) > kLowColumnWorkMax) return std::nullopt;
  const int n = a.rows;
  const GrayPlan plan = gray_plan(n - 3, 4 * kExactV);
  std::vector<int> rows(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
  ModPlan mod = make_mod_plan(blk->a, rows);
  if (!mod.shared || plan.blocks == 0) return std::nullopt;
  for (int c = 1; c <= 4; ++c)  // no group holds rows of two classes
    if (blk->class_start[c] > blk->class_start[c - 1]) mod.group_end.push_back(blk->class_start[c]);
  std::sort(mod.group_end.begin(), mod.group_end.end());
  mod.group_end.erase(std::unique(mod.group_end.begin(), mod.group_end.end()), mod.group_end.end());
  const DenseInput full = nw_input(n, convert<double>(blk->a, [](const Integer& v) { return v.get_d(); }).dense());
  DenseInput high;
  high.n = n;
  high.x0 = full.x0;
  high.a2.assign(full.a2.begin() + 2 * n, full.a2.end());
  const std::vector<double> low[2] = {std::vector<double>(full.a2.begin(), full.a2.begin() + n),
                                      std::vector<double>(full.a2.begin() + n, full.a2.begin() + 2 * n)};
  // Class c's groups: those ending at or before its first row come before it.
  int class_groups[5];
  for (int c = 0; c <= 4; ++c)
    class_groups[c] = static_cast<int>(std::count_if(mod.group_end.begin(), mod.group_end.end(),
                                                     [&](int end) { return end <= blk->class_start[c]; }));
  std::vector<int> group_touch(mod.group_end.size());
  for (int c = 0; c < 4; ++c)
    for (int g = class_groups[c]; g < class_groups[c + 1]; ++g) group_touch[static_cast<std::size_t>(g)] = ModLowPolicy<kExactV>::touch(c);
  const std::vector<double> sums = gray_walk(ModLowPolicy<kExactV>{high, low, mod, group_touch, class_groups}, n - 3, plan, opt,
                                             walk_tag("exact-low2", n - 3, plan, {&high}, mod.primes));
  return finish_mod(sums, mod, (n - 1) % 2 == 1, n - 1);
}

}  // namespace

double exact_walk_time_factor(const SparseMatrix<Integer>& a) {
  if (tuning::tuning().ryser_low_columns < 2) return 1.0;
  const std::optional<LowColumnBlock> blk = low_column_block(a);
  if (!blk) return 1.0;
  // Time over the plain walk's, fitted to the measurements (docs/benchmarks.md, "ryser: the
  // exact walk over two low columns").
  const double work = low_column_work(*blk);
  return work > kLowColumnWorkMax ? 1.0 : std::min(1.0, 0.2 + work);
}

namespace {

/// The bound of a float walk (row_grid.hpp) on the gridded block of shift `shift`.
template <class S>
double walk_error(const S& s, double value, int n, double mult, long shift, const GrayPlan& plan, int lanes) {
  const double scale = std::ldexp(1.0, static_cast<int>(shift) + 1 - n);
  const double merges = double(plan.blocks) * (2.0 * lanes + 3);
  return walk_bound(value, s.abs, s.dev, n, mult, scale, merges, std::ldexp(1.0, plan.k)) + 0x1p-1074;
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
    if (mod.shared)
      if (const std::optional<Integer> v = low_column_count(a, opt)) return *v;
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

  // Floats walk the block with exact row sums: rows scaled and rounded to their grid
  // (row_grid.hpp), whose moves count with the entries' own errors in the terms' deviations.
  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    const GriddedRows<double> g = grid_rows(a, opt);
    const double sign = n % 2 ? -1.0 : 1.0;
    GrayPlan plan = gray_plan(n - 1, 4 * kRealV);
    if (plan.blocks == 0) {
      DDSum s = ryser_direct(g.b, g.rows.err).s;
      const double v = std::ldexp(sign * s.value(), static_cast<int>(g.shift));
      return {v, std::ldexp(s.dev + (2.0 * n + 4) * kEps * (s.abs + s.dev), static_cast<int>(g.shift)) + 0x1p-1074};
    }
    DenseInput in = nw_input(n, g.b.dense());
    const std::string tag = walk_tag("real", n - 1, plan, {&in}, g.rows.err);
    DDSum s = g.rows.exact() ? gray_walk(RealPolicy<kRealV>{in}, n - 1, plan, opt, tag)
                             : gray_walk(RealPolicy<kRealV, true>{in, &g.rows}, n - 1, plan, opt, tag);
    const double v = std::ldexp(-sign * s.value(), static_cast<int>(g.shift) + 1 - n);
    return {v, walk_error(s, v, n, 1, g.shift, plan, 4 * kRealV)};
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    const int n = a.rows;
    const GriddedRows<Complex> g = grid_rows(a, opt);
    const double sign = n % 2 ? -1.0 : 1.0;
    GrayPlan plan = gray_plan(n - 1, 4 * kComplexV);
    if (plan.blocks == 0) {
      auto s = ryser_direct(g.b, g.rows.err);
      const Complex v = scaled_sum(sign * s.re.value(), sign * s.im.value(), g.shift);
      return {v, std::ldexp(s.re.dev + 4 * (2.0 * n + 4) * kEps * (s.re.abs + s.re.dev), static_cast<int>(g.shift)) +
                     0x1p-1074};
    }
    std::vector<Complex> d = g.b.dense();
    std::vector<double> re(d.size()), im(d.size());
    for (std::size_t k = 0; k < d.size(); ++k) re[k] = d[k].real(), im[k] = d[k].imag();
    DenseInput in_re = nw_input(n, re), in_im = nw_input(n, im);
    const std::string tag = walk_tag("complex", n - 1, plan, {&in_re, &in_im}, g.rows.err);
    auto s = g.rows.exact() ? gray_walk(ComplexPolicy<kComplexV>{in_re, in_im}, n - 1, plan, opt, tag)
                            : gray_walk(ComplexPolicy<kComplexV, true>{in_re, in_im, &g.rows}, n - 1, plan, opt, tag);
    const Complex v = scaled_sum(-sign * s.re.value(), -sign * s.im.value(), g.shift + 1 - n);
    // The imaginary parts' sums of |terms| join the real parts': sum |p| <= sum |Re p| + |Im p|.
    DDSum both = s.re;
    both.abs += s.im.abs;
    return {v, walk_error(both, std::abs(v), n, 3, g.shift, plan, 2 * 4 * kComplexV)};
  }
};

}  // namespace

}  // namespace matchcount::engines

namespace matchcount::engines {

std::unique_ptr<Engine> make_ryser() { return std::make_unique<RyserEngine>(); }

}  // namespace matchcount::engines
