// permanent_minors: every perm(A - i - j) = dperm/da_ij of a dense integer matrix, exactly, from
// one forward Gray-code walk of Glynn's formula, for all primes at once:
//   perm A = 2^(1-n) sum over d in {+-1}^n, d_0 = 1, of (prod_k d_k) prod_i r_i(d),
//   r_i = sum_j d_j a_ij,   so   dperm/da_ij = 2^(1-n) sum_d d_j c_i(d),
//   c_i = (prod_k d_k) prod_{k != i} r_k(d).
//
// Row sums shared by the primes (as the count's ModSharedPolicy): when every row's absolute sum
// R_i is below 2^49, r_i stays an exact integer in a double whatever the signs, and moves by
// 2 a_ij exactly, once a step for every prime. Rows form groups whose product of R_k stays
// below 2^49 (make_mod_plan): within a group the products before and after each row, and
// Inner_i = prod_{k in group, k != i} r_k, are exact and below every prime. Only Out_g, the
// product of the other groups, is taken modulo each prime (a few modular products a step, none
// with up to two groups), and c_i = Out_g * Inner_i joins its row's sum in one fused modular
// multiply-add per row and prime. Wider rows keep r_i as residues, one per prime, each row its
// own group: the same walk with Inner_i = 1, and the primes' chains of modular products side
// by side.
//
// The sums weighted by d_j: between two flips of column j every step has the same d_j, so with
// T_i the running sum of c_i, column j's intervals add up to D_ij = sum_d d_j c_i(d), and one
// running sum per row serves every column (close_interval). The first three walked columns,
// which flip on seven steps in eight, close no intervals: a step's terms go to one of eight
// sums per row by those columns' signs, whose total is T_i and whose signed totals are their
// D_ij, so intervals close on one step in eight.
//
// Lanes: the four lanes of a vector are four subsets (the last two free columns, fixed per
// lane); work units fix the next columns; the Gray code walks the rest. Arithmetic is FP64
// modular (core/modmul.hpp) over the 50-bit primes of choose_primes.
#include <algorithm>
#include <bit>

#include "core/arith.hpp"
#include "core/modmul.hpp"
#include "engines/common.hpp"
#include "engines/polled_units.hpp"
#include "engines/ryser/ryser.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

v4d splat(double x) { return v4d{x, x, x, x}; }

/// The product ab of two integers exactly, as h = RN(ab) plus l = ab - h (one FMA).
struct Product {
  v4d h, l;
};
inline Product two_product(v4d a, v4d b) {
  const v4d h = a * b;
  return {h, arith::fmadd(a, b, -h)};
}

/// t + ab mod p in (-p, p), for |ab| < p 2^49 and |t| < p (p a prime in (2^49, 2^50)):
/// arith::modmul with t joined to the high product before the quotient, which saves reducing
/// the sum apart. |l| <= 2^45 as |ab| < 2^99; RN(h + t) is within 3 * 2^45 < 3p/16 of ab + t,
/// and the quotient being below 2^49 + 2, q = RN(RN(h + t) * pinv) is within 1/2 + 1/8 of
/// RN(h + t)/p: |ab + t - qp| < 13p/16. So h - qp is an integer below 2^51, exact out of one
/// FMA, and adding t and then l stays exact.
inline v4d add_mod(Product ab, v4d t, v4d p, v4d pinv) {
  const v4d q = arith::round_nearest((ab.h + t) * pinv);
  return (arith::fmadd(-q, p, ab.h) + t) + ab.l;
}

/// The columns' roles: 0 fixed at +1, 1..walked walked by the Gray code, then `unit_bits`
/// columns fixed per unit, then `lane_bits` fixed per lane.
struct Layout {
  int n = 0, walked = 0, unit_bits = 0, lane_bits = 0;
  int unit_col(int b) const { return 1 + walked + b; }
  int lane_col(int b) const { return 1 + walked + unit_bits + b; }
};

Layout layout_of(int n) {
  Layout L;
  L.n = n;
  const int free_cols = n - 1;
  L.lane_bits = std::min(2, free_cols);
  L.unit_bits = std::clamp(free_cols - L.lane_bits - 12, 0, 10);  // units of 2^12 steps or more
  L.walked = free_cols - L.lane_bits - L.unit_bits;
  return L;
}

/// What the walk multiplies: the entries once, exactly, or as residues once per prime ("lines").
struct WalkInput {
  std::vector<double> primes;
  std::vector<int> group_end;  // rows [group_end[g-1], group_end[g]) multiply exactly
  bool residues = false;       // a row sum reaches 2^49: r_i held modulo each prime
  std::size_t lines = 1;       // 1, or one per prime with residues
  std::vector<double> column;  // [line][j][i]: a_ij (residues in (-p/2, p/2])
  std::vector<double> moves;   // [2j + (d_j < 0)][line][i]: 2 d_j a_ij, r_i's move as column j flips to d_j
};

/// One thread's sums D_ij (per prime, per lane) for the units it walks.
class MinorsWalk {
  // The first walked columns pick which of kPatterns sums per row a step's terms go to (those
  // beyond the walked columns stay empty).
  static constexpr int kPatternCols = 3;
  static constexpr std::size_t kPatterns = std::size_t{1} << kPatternCols;

 public:
  MinorsWalk(const Layout& L, const WalkInput& in)
      : L_(L), in_(in), n_(static_cast<std::size_t>(L.n)), primes_(in.primes.size()), groups_(in.group_end.size()),
        pattern_cols_(std::min(kPatternCols, L.walked)) {
    for (double p : in.primes) p_.push_back(splat(p)), pinv_.push_back(splat(1 / p));
    sign_.resize(n_), r_.resize(in.lines * n_), partial_.resize(n_), group_product_.resize(in.lines * groups_);
    others_.resize(primes_ * groups_), before_.resize(primes_), after_.resize(primes_);
    acc_.resize(primes_ * kPatterns * n_);
    d_.assign(primes_ * n_ * n_, v4d{});
    no_move_.assign(in.lines * n_, 0.0);
  }

  void run_unit(std::uint64_t unit) {
    // Signs per column (per lane for the lane columns), and the row sums of the first subset.
    for (std::size_t j = 0; j < n_; ++j) sign_[j] = splat(1);
    for (int b = 0; b < L_.unit_bits; ++b)
      if ((unit >> b) & 1) sign_[static_cast<std::size_t>(L_.unit_col(b))] = splat(-1);
    for (int b = 0; b < L_.lane_bits; ++b)
      for (int l = 0; l < 4; ++l)
        if ((l >> b) & 1) sign_[static_cast<std::size_t>(L_.lane_col(b))][l] = -1;
    v4d sgn = splat(1);
    for (std::size_t j = 0; j < n_; ++j) sgn *= sign_[j];
    for (std::size_t line = 0; line < in_.lines; ++line)
      for (std::size_t i = 0; i < n_; ++i) {
        v4d s{};
        for (std::size_t j = 0; j < n_; ++j) {
          s = arith::fmadd(sign_[j], splat(in_.column[(line * n_ + j) * n_ + i]), s);
          if (in_.residues) s = arith::modreduce(s, p_[line], pinv_[line]);
        }
        r_[line * n_ + i] = s;
      }
    pattern_ = 0;
    std::fill(acc_.begin(), acc_.end(), v4d{});
    // The usual prime counts get their own loops, with the primes held in registers. With one
    // or two groups sgn * Out_g is the exact product of the other group, below 2^49: c_i is
    // an exact product of two integers, formed once for every prime.
    if (in_.residues) walk<0, true>(sgn);
    else if (primes_ == 1) walk<1, false>(sgn);
    else if (primes_ == 2 && groups_ <= 2) walk<2, false, true>(sgn);
    else if (primes_ == 2) walk<2, false>(sgn);
    else if (primes_ == 3) walk<3, false>(sgn);
    else walk<0, false>(sgn);
    close();
  }

  /// D_ij of prime q, per lane, reduced.
  v4d sum(std::size_t q, std::size_t i, std::size_t j) const { return d_[(q * n_ + j) * n_ + i]; }

 private:
  /// The sum over patterns k of sign(k) * acc_k for row i and prime q, reduced; sign(k) = -1
  /// where k has bit `minus` (none: kPatterns). Halves of four sums (each below 13p/16) keep
  /// every partial sum below 2^52, as modreduce needs.
  v4d pattern_sum(std::size_t q, std::size_t i, std::size_t minus = kPatterns) const {
    const v4d* acc = acc_.data() + q * kPatterns * n_ + i;
    const v4d p = p_[q], pinv = pinv_[q];
    v4d x[kPatterns];
    for (std::size_t k = 0; k < kPatterns; ++k) x[k] = (k >> minus) & 1 ? -acc[k * n_] : acc[k * n_];
    const v4d half0 = (x[0] + x[1]) + (x[2] + x[3]), half1 = (x[4] + x[5]) + (x[6] + x[7]);  // a tree: short latency
    return arith::modreduce(arith::modreduce(half0, p, pinv) + half1, p, pinv);
  }

  /// The unit's steps, with Q primes (0: primes_). Each step's pass over the rows also moves
  /// the row sums to the next step and takes their products in its own direction, which the
  /// next step's pass, in the other direction, needs: the chain of dependent products runs
  /// alongside the modular work instead of before it.
  template <std::size_t Q, bool Residues, bool ExactOut = false>
  void walk(v4d sgn) {
    const std::uint64_t steps = std::uint64_t{1} << L_.walked;
    // Products before each row (within its group) for the first step, whose pass runs backward.
    pass<Q, Residues, ExactOut, false, false>(no_move_.data());
    set_others<Residues>(sgn);
    for (std::uint64_t g = 0; g < steps; ++g) {
      const bool last = g + 1 == steps;
      const int j = last ? 0 : 1 + std::countr_zero(g + 1);  // the column the next step flips
      v4d& s = sign_[static_cast<std::size_t>(j)];
      // The column's new sign -s is the same in every lane.
      const double* move = last ? no_move_.data() : in_.moves.data() + (2 * static_cast<std::size_t>(j) + (s[0] > 0)) * in_.lines * n_;
      if (g % 2 == 0) pass<Q, Residues, ExactOut, true, true>(move);
      else pass<Q, Residues, ExactOut, true, false>(move);
      if (last) break;
      close_interval(j, s), s = -s, sgn = -sgn;
      set_others<Residues>(sgn);
    }
  }

  /// Column j, of sign s until now, flips. With T_i(e_k) the running sums at its flips e_1 <
  /// e_2 < ... (e_0 the unit's start, T_i = 0), its intervals add up to
  ///   sum_k s_k (T_i(e_k) - T_i(e_{k-1})) = sum_{k < last} 2 s_k T_i(e_k) + s_last T_i(end),
  /// as s_{k+1} = -s_k: each flip adds 2 s T_i, and close() the last term, with no snapshots.
  /// Pattern columns only change which sum the terms go to.
  void close_interval(int j, v4d s) {
    if (j <= pattern_cols_) {
      pattern_ ^= std::size_t{1} << (j - 1);
      return;
    }
    const v4d two = 2.0 * s;
    for (std::size_t q = 0; q < primes_; ++q) {
      v4d* d = d_.data() + (q * n_ + static_cast<std::size_t>(j)) * n_;
      for (std::size_t i = 0; i < n_; ++i)
        d[i] = arith::modreduce(arith::fmadd(two, pattern_sum(q, i), d[i]), p_[q], pinv_[q]);
    }
  }

  /// One pass over the rows, backward (groups and rows in reverse order) or forward. With
  /// `Add`, this step's c_i = sgn * Out_g * Inner_i join the current pattern's sums, Inner_i
  /// being the product of the stored partial_ (the group's rows on the far side of i) and the
  /// running product over the near side. Then r_i moves to the next step's, and partial_ and
  /// the groups' products become the next step's, over the rows passed. With residues every
  /// row is its own group (Inner_i = 1) and has one row sum per prime.
  template <std::size_t Q, bool Residues, bool ExactOut, bool Add, bool Backward>
  void pass(const double* move) {
    const std::size_t primes = Q ? Q : primes_, G = groups_, stride = kPatterns * n_;
    v4d* acc = acc_.data() + pattern_ * n_;
    if constexpr (Residues) {
      for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t q = 0; q < primes; ++q) {
          if constexpr (Add) acc[q * stride + i] = arith::modreduce(acc[q * stride + i] + others_[q * G + i], p_[q], pinv_[q]);
          const v4d r = arith::modreduce(r_[q * n_ + i] + splat(move[q * n_ + i]), p_[q], pinv_[q]);
          r_[q * n_ + i] = group_product_[q * G + i] = r;
        }
      return;
    }
    const int* end = in_.group_end.data();
    // With Q known the loop over primes unrolls and its operands stay in registers.
    v4d p[Q ? Q : 1], pinv[Q ? Q : 1], out[Q ? Q : 1];
    for (std::size_t q = 0; q < Q; ++q) p[q] = p_[q], pinv[q] = pinv_[q];
    for (std::size_t k = 0; k < G; ++k) {
      const std::size_t g = Backward ? G - 1 - k : k;
      const auto begin = static_cast<std::size_t>(g ? end[g - 1] : 0), size = static_cast<std::size_t>(end[g]) - begin;
      for (std::size_t q = 0; q < Q; ++q) out[q] = others_[q * G + g];
      v4d run = splat(1), next_run = splat(1);
      for (std::size_t t = 0; t < size; ++t) {
        const std::size_t i = Backward ? begin + size - 1 - t : begin + t;
        if constexpr (Add) {
          const v4d inner = partial_[i] * run;
          run *= r_[i];
          if constexpr (ExactOut) {
            const Product c = two_product(out[0], inner);
            for (std::size_t q = 0; q < Q; ++q) acc[q * stride + i] = add_mod(c, acc[q * stride + i], p[q], pinv[q]);
          } else if constexpr (Q > 0) {
            for (std::size_t q = 0; q < Q; ++q)
              acc[q * stride + i] = add_mod(two_product(out[q], inner), acc[q * stride + i], p[q], pinv[q]);
          } else {  // unrolled: the loop's own steps cost as much as a short multiply-add
#pragma GCC unroll 4
            for (std::size_t q = 0; q < primes; ++q)
              acc[q * stride + i] = add_mod(two_product(others_[q * G + g], inner), acc[q * stride + i], p_[q], pinv_[q]);
          }
        }
        const v4d r = r_[i] + splat(move[i]);
        r_[i] = r, partial_[i] = next_run, next_run *= r;
      }
      group_product_[g] = next_run;
    }
  }

  /// Per prime, sgn times the product of the other groups; a plain product while a factor is
  /// sgn or missing (none modular with one or two groups). Up to three groups multiply the
  /// others directly, more take prefix and suffix products, with the primes' independent
  /// chains of modular products side by side.
  template <bool Residues>
  void set_others(v4d sgn) {
    const std::size_t G = groups_, Q = primes_;
    auto product = [&](std::size_t q, std::size_t g) { return group_product_[(Residues ? q * G : 0) + g]; };
    auto out = [&](std::size_t q, std::size_t g) -> v4d& { return others_[q * G + g]; };
    if (G <= 3) {
      for (std::size_t q = 0; q < Q; ++q)
        for (std::size_t g = 0; g < G; ++g) {
          v4d o = sgn;
          for (std::size_t h = 0, first = 1; h < G; ++h)
            if (h != g) o = first ? o * product(q, h) : arith::modmul(o, product(q, h), p_[q], pinv_[q]), first = 0;
          out(q, g) = o;
        }
      return;
    }
    for (std::size_t q = 0; q < Q; ++q) before_[q] = sgn, after_[q] = product(q, G - 1);
    for (std::size_t g = 0; g + 1 < G; ++g)
      for (std::size_t q = 0; q < Q; ++q) {
        out(q, g) = before_[q];
        before_[q] = g == 0 ? before_[q] * product(q, 0) : arith::modmul(before_[q], product(q, g), p_[q], pinv_[q]);
      }
    for (std::size_t q = 0; q < Q; ++q) out(q, G - 1) = before_[q];
    for (std::size_t g = G - 1; g-- > 0;)
      for (std::size_t q = 0; q < Q; ++q) {
        out(q, g) = g == 0 ? out(q, 0) * after_[q] : arith::modmul(out(q, g), after_[q], p_[q], pinv_[q]);
        if (g > 0) after_[q] = arith::modmul(after_[q], product(q, g), p_[q], pinv_[q]);
      }
  }

  /// The pattern columns' sums, and the last interval of every other column (close_interval).
  void close() {
    for (std::size_t q = 0; q < primes_; ++q)
      for (std::size_t i = 0; i < n_; ++i) {
        const v4d t = pattern_sum(q, i);
        for (std::size_t j = 0; j < n_; ++j) {
          const bool pattern = j >= 1 && j <= static_cast<std::size_t>(pattern_cols_);
          v4d& d = d_[(q * n_ + j) * n_ + i];
          d = arith::modreduce(d + (pattern ? pattern_sum(q, i, j - 1) : sign_[j] * t), p_[q], pinv_[q]);
        }
      }
  }

  const Layout& L_;
  const WalkInput& in_;
  const std::size_t n_, primes_, groups_;
  const int pattern_cols_;          // walked columns 1..pattern_cols_ pick the sum a term goes to
  std::size_t pattern_ = 0;         // bit j-1 set while pattern column j is -1
  std::vector<v4d> p_, pinv_;       // per prime
  std::vector<v4d> sign_;           // per column
  std::vector<v4d> r_;              // [line][row]: row sums (exact, or residues)
  std::vector<v4d> partial_;        // [row]: exact product of its group's rows on one side of it
  std::vector<v4d> group_product_;  // [line][group]: exact, or residues
  std::vector<v4d> others_;         // [prime][group]: sgn * product of the other groups, mod p
  std::vector<v4d> before_, after_; // [prime]: set_others' running products
  std::vector<v4d> acc_;            // [prime][pattern][row]: sum of c_i over the pattern's steps
  std::vector<v4d> d_;              // [prime][column][row]: D_ij
  std::vector<double> no_move_;     // [line][row]: zeros, the first step's move
};

/// The walk's input: one exact line when every row's absolute sum is below 2^49 (then every
/// r_i is an exact integer, and the groups' products too), else a line of residues per prime.
WalkInput walk_input(const SparseMatrix<Integer>& a, const ModPlan& plan) {
  const auto N = static_cast<std::size_t>(a.rows);
  const std::vector<Integer> dense = a.dense();
  WalkInput in;
  in.primes = plan.primes, in.residues = !plan.shared, in.lines = plan.shared ? 1 : plan.primes.size();
  if (plan.shared) in.group_end = plan.group_end;
  for (std::size_t i = 0; !plan.shared && i < N; ++i) in.group_end.push_back(static_cast<int>(i + 1));
  in.column.resize(in.lines * N * N), in.moves.resize(2 * in.lines * N * N);
  for (std::size_t line = 0; line < in.lines; ++line)
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t i = 0; i < N; ++i) {
        const Integer& v = dense[i * N + j];
        double x = v.get_d();  // below 2^49 when shared: exact
        if (in.residues) {
          const double p = plan.primes[line], res = residue_of(v, p);
          x = res > p / 2 ? res - p : res;
        }
        in.column[(line * N + j) * N + i] = x;
        in.moves[((2 * j) * in.lines + line) * N + i] = 2 * x;
        in.moves[((2 * j + 1) * in.lines + line) * N + i] = -2 * x;
      }
  return in;
}

ModPlan plan_of(const SparseMatrix<Integer>& a) {
  std::vector<int> rows(static_cast<std::size_t>(a.rows));
  for (int i = 0; i < a.rows; ++i) rows[static_cast<std::size_t>(i)] = i;
  return make_mod_plan(a, rows);
}

}  // namespace

std::vector<Integer> permanent_minors(const SparseMatrix<Integer>& a, const EngineOptions& opt,
                                      const std::function<bool()>& stop) {
  const int n = a.rows;
  if (n != a.cols || n < 1 || n > kPermanentMinorsMaxN)
    throw UsageError("permanent minors: need an n x n block, 1 <= n <= " + std::to_string(kPermanentMinorsMaxN));
  std::vector<char> row(static_cast<std::size_t>(n), 0), col(static_cast<std::size_t>(n), 0);
  for (const auto& e : a.entries)
    if (e.value != 0) row[static_cast<std::size_t>(e.row)] = col[static_cast<std::size_t>(e.col)] = 1;
  // permanent_bound takes products of row (or column) sums: with every line nonzero each factor
  // is at least 1, and no factor grows when a row and a column go, so it bounds every minor.
  if (std::count(row.begin(), row.end(), 0) || std::count(col.begin(), col.end(), 0))
    throw RefusedError("permanent minors: a row or column without an entry");
  const ModPlan plan = plan_of(a);
  const Layout L = layout_of(n);
  const std::uint64_t units = std::uint64_t{1} << L.unit_bits;
  const std::size_t Q = plan.primes.size();
  const int threads = std::min<int>(thread_count(opt, 20.0 * n * std::ldexp(1.0, n - 1) * double(Q)), static_cast<int>(units));
  const auto N = static_cast<std::size_t>(n);
  const WalkInput in = walk_input(a, plan);
  std::vector<v4d> total(Q * N * N, v4d{});  // [prime][row][column]
  polled_units(
      units, threads, stop, "permanent minors stopped", [&] { return MinorsWalk(L, in); },
      [](MinorsWalk& walk, std::uint64_t u) { walk.run_unit(u); },
      [&](const MinorsWalk& walk) {
        for (std::size_t q = 0; q < Q; ++q)
          for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j) {
              v4d& t = total[(q * N + i) * N + j];
              t = arith::modreduce(t + walk.sum(q, i, j), splat(plan.primes[q]), splat(plan.pinv[q]));
            }
      });
  // Lanes beyond 2^lane_bits repeat subsets (n <= 2): they are left out.
  const int lanes = 1 << L.lane_bits;
  std::vector<std::vector<std::uint64_t>> residue(N * N, std::vector<std::uint64_t>(Q));
  for (std::size_t q = 0; q < Q; ++q) {
    const double p = plan.primes[q];
    const auto P = static_cast<std::uint64_t>(p);
    const std::uint64_t scale = inv_mod(pow_mod(2, static_cast<std::uint64_t>(n - 1), P), P);
    for (std::size_t k = 0; k < N * N; ++k) {
      double s = 0;
      for (int l = 0; l < lanes; ++l) s = arith::modreduce(s + total[q * N * N + k][l], p, plan.pinv[q]);
      residue[k][q] = static_cast<std::uint64_t>(static_cast<unsigned __int128>(to_residue(s, P)) * scale % P);
    }
  }
  std::vector<std::uint64_t> ps;
  for (double p : plan.primes) ps.push_back(static_cast<std::uint64_t>(p));
  std::vector<Integer> out(N * N);
  for (std::size_t k = 0; k < N * N; ++k) out[k] = crt_symmetric(residue[k], ps);
  return out;
}

double permanent_minors_seconds(const SparseMatrix<Integer>& a, int cores) {
  // Seconds on one core, measured on the walk (random 0-1 and integer blocks, n = 18..26):
  // per subset and row, the shared row sums and exact products, and per prime the fused
  // multiply-add and the intervals' closing; per subset, prime and group beyond two, the
  // modular products of Out_g. With residues every row is a group.
  constexpr double kPerRowStep = 2.3e-10, kPerRowStepPrime = 1.7e-10, kPerGroupStepPrime = 7.7e-10, kFixed = 1e-4;
  const ModPlan plan = plan_of(a);
  const double primes = double(plan.primes.size()), groups = double(plan.shared ? plan.group_end.size() : std::size_t(a.rows));
  const double step = a.rows * (kPerRowStep + kPerRowStepPrime * primes) + kPerGroupStepPrime * primes * std::max(groups - 2, 0.0);
  return kFixed + std::ldexp(step, a.rows - 1) / std::max(cores, 1);
}

}  // namespace matchcount::engines
