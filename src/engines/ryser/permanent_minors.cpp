// permanent_minors: every perm(A - i - j) = dperm/da_ij of a dense integer matrix, exactly, from
// one forward Gray-code walk of Glynn's formula a prime:
//   perm A = 2^(1-n) sum over d in {+-1}^n, d_0 = 1, of (prod_k d_k) prod_i r_i(d),
//   r_i = sum_j d_j a_ij,   so   dperm/da_ij = 2^(1-n) sum_d d_j c_i(d),
//   c_i = (prod_k d_k) prod_{k != i} r_k(d).
// c_i comes from prefix and suffix products (three modular products a row and a step, against
// the count's one). The sums weighted by d_j cost nothing per step and column: between two
// flips of column j every step has the same d_j, so with T_i the running sum of c_i, each flip
// of j adds d_j (T_i - T_i at j's last flip) to D_ij, n additions a step in all.
//
// Lanes: the four lanes of a vector are four subsets (the last two free columns, fixed per
// lane); work units fix the next columns; the Gray code walks the rest. Arithmetic is FP64
// modular (core/modmul.hpp) over the 50-bit primes of choose_primes, one prime a pass.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>

#include "core/arith.hpp"
#include "core/modmul.hpp"
#include "engines/common.hpp"
#include "engines/ryser/ryser.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

struct Prime {
  v4d p, pinv;
  v4d reduce(v4d x) const { return arith::modreduce(x, p, pinv); }
  v4d mul(v4d a, v4d b) const { return arith::modmul(a, b, p, pinv); }
};

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

/// One thread's sums D_ij (row-major, per lane) for the units it walks, modulo one prime.
class MinorsWalk {
 public:
  MinorsWalk(const Layout& L, const Prime& pr, const std::vector<double>& a) : L_(L), pr_(pr), a_(a) {
    const auto n = static_cast<std::size_t>(L.n);
    d_.assign(n * n, v4d{});
    r_.resize(n), t_.resize(n), pre_.resize(n + 1), suf_.resize(n + 1), sign_.resize(n);
    snap_.assign(static_cast<std::size_t>(L.walked) * n, v4d{});
  }

  void run_unit(std::uint64_t unit) {
    const int n = L_.n;
    const auto N = static_cast<std::size_t>(n);
    // Signs per column (per lane for the lane columns), and the row sums of the first subset.
    for (int j = 0; j < n; ++j) sign_[static_cast<std::size_t>(j)] = v4d{1, 1, 1, 1};
    for (int b = 0; b < L_.unit_bits; ++b)
      if ((unit >> b) & 1) sign_[static_cast<std::size_t>(L_.unit_col(b))] = v4d{-1, -1, -1, -1};
    for (int b = 0; b < L_.lane_bits; ++b)
      for (int l = 0; l < 4; ++l)
        if ((l >> b) & 1) sign_[static_cast<std::size_t>(L_.lane_col(b))][l] = -1;
    v4d sgn{1, 1, 1, 1};
    for (int j = 0; j < n; ++j) sgn *= sign_[static_cast<std::size_t>(j)];
    for (std::size_t i = 0; i < N; ++i) {
      v4d s{};
      for (std::size_t j = 0; j < N; ++j) s = pr_.reduce(arith::fmadd(sign_[j], splat(a_[i * N + j]), s));
      r_[i] = s, t_[i] = v4d{};
    }
    std::fill(snap_.begin(), snap_.end(), v4d{});
    const std::uint64_t steps = std::uint64_t{1} << L_.walked;
    for (std::uint64_t g = 0; g < steps; ++g) {
      if (g > 0) flip(1 + std::countr_zero(g));
      sgn = g > 0 ? -sgn : sgn;
      pre_[0] = suf_[N] = v4d{1, 1, 1, 1};
      for (std::size_t i = 0; i < N; ++i) pre_[i + 1] = pr_.mul(pre_[i], r_[i]);
      for (std::size_t i = N; i-- > 0;) suf_[i] = pr_.mul(suf_[i + 1], r_[i]);
      for (std::size_t i = 0; i < N; ++i) t_[i] = pr_.reduce(arith::fmadd(sgn, pr_.mul(pre_[i], suf_[i + 1]), t_[i]));
    }
    // The intervals still open, and the fixed columns' one interval.
    for (int j = 0; j < n; ++j) {
      const bool walked = j >= 1 && j <= L_.walked;
      for (std::size_t i = 0; i < N; ++i) {
        const v4d since = walked ? t_[i] - snap_[static_cast<std::size_t>(j - 1) * N + i] : t_[i];
        v4d& d = d_[i * N + static_cast<std::size_t>(j)];
        d = pr_.reduce(arith::fmadd(sign_[static_cast<std::size_t>(j)], since, d));
      }
    }
  }

  /// D_ij of lane l, reduced.
  v4d sum(std::size_t i, std::size_t j) const { return d_[i * static_cast<std::size_t>(L_.n) + j]; }

 private:
  static v4d splat(double x) { return v4d{x, x, x, x}; }

  /// Column j flips: its interval since the last flip closes, then the row sums move by 2 a_ij.
  void flip(int j) {
    const auto N = static_cast<std::size_t>(L_.n), J = static_cast<std::size_t>(j);
    v4d& s = sign_[J];
    v4d* snap = snap_.data() + (J - 1) * N;
    for (std::size_t i = 0; i < N; ++i) {
      v4d& d = d_[i * N + J];
      d = pr_.reduce(arith::fmadd(s, t_[i] - snap[i], d));
      snap[i] = t_[i];
    }
    s = -s;
    const v4d two = 2.0 * s;
    for (std::size_t i = 0; i < N; ++i) r_[i] = pr_.reduce(arith::fmadd(two, splat(a_[i * N + J]), r_[i]));
  }

  const Layout& L_;
  const Prime& pr_;
  const std::vector<double>& a_;  // residues, row-major
  std::vector<v4d> d_, r_, t_, pre_, suf_, sign_, snap_;
};

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
  const std::vector<double> primes = choose_primes(permanent_bound(a));
  const Layout L = layout_of(n);
  const std::uint64_t units = std::uint64_t{1} << L.unit_bits;
  const int threads = std::min<int>(thread_count(opt, 20.0 * n * std::ldexp(1.0, n - 1) * double(primes.size())),
                                    static_cast<int>(units));
  const std::vector<Integer> dense = a.dense();
  const auto N = static_cast<std::size_t>(n);
  std::vector<std::vector<std::uint64_t>> residue(N * N, std::vector<std::uint64_t>(primes.size()));
  std::atomic<bool> stopped{false};
  for (std::size_t q = 0; q < primes.size(); ++q) {
    const double p = primes[q];
    const Prime pr{v4d{p, p, p, p}, v4d{1 / p, 1 / p, 1 / p, 1 / p}};
    std::vector<double> res(N * N);
    for (std::size_t k = 0; k < N * N; ++k) {
      const double v = residue_of(dense[k], p);
      res[k] = v > p / 2 ? v - p : v;
    }
    std::vector<v4d> total(N * N, v4d{});
    std::atomic<std::uint64_t> next{0};
#pragma omp parallel num_threads(threads)
    {
      MinorsWalk walk(L, pr, res);
      for (std::uint64_t u; !stopped.load() && (u = next.fetch_add(1)) < units;) {
        if (stop && omp_get_thread_num() == 0 && stop()) stopped = true;
        if (!stopped.load()) walk.run_unit(u);
      }
#pragma omp critical
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) total[i * N + j] = pr.reduce(total[i * N + j] + walk.sum(i, j));
    }
    // Thread 0 (the caller: Python checks its signals there) may have found no unit to walk.
    if (stopped || (stop && stop())) throw Interrupted(2, "permanent minors stopped");
    // Lanes beyond 2^lane_bits repeat subsets (n <= 2): they are left out.
    const int lanes = 1 << L.lane_bits;
    const auto P = static_cast<std::uint64_t>(p);
    const std::uint64_t scale = inv_mod(pow_mod(2, static_cast<std::uint64_t>(n - 1), P), P);
    for (std::size_t k = 0; k < N * N; ++k) {
      double s = 0;
      for (int l = 0; l < lanes; ++l) s = arith::modreduce(s + total[k][l], p, 1 / p);
      residue[k][q] = static_cast<std::uint64_t>(static_cast<unsigned __int128>(to_residue(s, P)) * scale % P);
    }
  }
  std::vector<std::uint64_t> ps;
  for (double p : primes) ps.push_back(static_cast<std::uint64_t>(p));
  std::vector<Integer> out(N * N);
  for (std::size_t k = 0; k < N * N; ++k) out[k] = crt_symmetric(residue[k], ps);
  return out;
}

double permanent_minors_seconds(const SparseMatrix<Integer>& a, int cores) {
  // Seconds per subset, row and prime on one core, measured on the walk (docs/benchmarks.md,
  // "Which matchings: dense graphs").
  constexpr double kPerRowStep = 4.4e-9, kFixed = 1e-4;
  const double primes = double(choose_primes(permanent_bound(a)).size());
  return kFixed + kPerRowStep * std::ldexp(1.0, a.rows - 1) * a.rows * primes / std::max(cores, 1);
}

}  // namespace matchcount::engines
