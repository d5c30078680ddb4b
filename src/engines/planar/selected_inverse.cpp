// Selected inversion through the Cholesky factor of M^T M on its envelope
// (selected_inverse.hpp says what and why).
#include "engines/planar/selected_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#if defined(__FMA__)
#include <immintrin.h>
#endif

#include "engines/planar/planar.hpp"

namespace matchcount::engines::planar {
namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
constexpr double kMaxPerturbation = 1e-3;

// Four doubles in a register, loaded from and stored to any 8-byte aligned address.
typedef double v4 __attribute__((vector_size(32)));
typedef double v4u __attribute__((vector_size(32), aligned(8), may_alias));

inline v4 load(const double* p) { return *reinterpret_cast<const v4u*>(p); }
inline void store(double* p, v4 x) { *reinterpret_cast<v4u*>(p) = x; }
inline v4 madd(v4 a, v4 b, v4 c) {
#if defined(__FMA__)
  return _mm256_fmadd_pd(a, b, c);
#else
  return a * b + c;
#endif
}
inline double hsum(v4 s) { return (s[0] + s[1]) + (s[2] + s[3]); }

/// sum a[k] b[k], k < n.
double dot(const double* a, const double* b, std::ptrdiff_t n) {
  v4 s0 = {0, 0, 0, 0}, s1 = s0;
  std::ptrdiff_t k = 0;
  for (; k + 8 <= n; k += 8) {
    s0 = madd(load(a + k), load(b + k), s0);
    s1 = madd(load(a + k + 4), load(b + k + 4), s1);
  }
  if (k + 4 <= n) s0 = madd(load(a + k), load(b + k), s0), k += 4;
  double r = hsum(s0 + s1);
  for (; k < n; ++k) r += a[k] * b[k];
  return r;
}

/// y[k] -= a[k] * x, k < n.
void axpy_minus(double* y, const double* a, double x, std::ptrdiff_t n) {
  const v4 xv = {-x, -x, -x, -x};
  std::ptrdiff_t k = 0;
  for (; k + 4 <= n; k += 4) store(y + k, madd(load(a + k), xv, load(y + k)));
  for (; k < n; ++k) y[k] -= a[k] * x;
}

/// The symmetric product's row step: y[k] += s[k] * lt for k < n, returns sum s[k] l[k].
double dot_axpy(const double* s, const double* l, double lt, double* y, std::ptrdiff_t n) {
  const v4 lv = {lt, lt, lt, lt};
  v4 acc = {0, 0, 0, 0};
  std::ptrdiff_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const v4 sv = load(s + k);
    acc = madd(sv, load(l + k), acc);
    store(y + k, madd(sv, lv, load(y + k)));
  }
  double r = hsum(acc);
  for (; k < n; ++k) r += s[k] * l[k], y[k] += s[k] * lt;
  return r;
}

/// A symmetric matrix's lower envelope: row i holds columns first[i]..i at v[start[i]...].
struct Envelope {
  int n = 0;
  std::vector<int> first;
  std::vector<std::size_t> start;  // n + 1 offsets
  std::vector<double> v;

  std::size_t at(int i, int j) const { return start[std::size_t(i)] + std::size_t(j - first[std::size_t(i)]); }
  double* row(int i) { return v.data() + start[std::size_t(i)]; }  // row(i)[j - first[i]]
  int len(int i) const { return i - first[std::size_t(i)]; }        // entries left of the diagonal

  /// X := A^-1 X (both = true) or X := L^-T X (both = false) for A = L L^T, L held here, X an
  /// n x `rhs` row-major block (one pass over L serves all the right-hand sides).
  void solve(std::vector<double>& x, int rhs, bool both) {
    const auto w = std::size_t(rhs);
    if (both)
      for (int i = 0; i < n; ++i) {
        const double* r = row(i);
        double* xi = x.data() + std::size_t(i) * w;
        for (int k = first[std::size_t(i)]; k < i; ++k) axpy_minus(xi, x.data() + std::size_t(k) * w, r[k - first[std::size_t(i)]], rhs);
        for (std::size_t q = 0; q < w; ++q) xi[q] /= r[len(i)];
      }
    for (int i = n - 1; i >= 0; --i) {
      const double* r = row(i);
      double* xi = x.data() + std::size_t(i) * w;
      for (std::size_t q = 0; q < w; ++q) xi[q] /= r[len(i)];
      for (int k = first[std::size_t(i)]; k < i; ++k) axpy_minus(x.data() + std::size_t(k) * w, xi, r[k - first[std::size_t(i)]], rhs);
    }
  }
};

/// Row and column factors, powers of two (so that scaling is exact), that bring every row and
/// column of |M| near sum 1 (Sinkhorn-Knopp, until the row sums are within 2% of 1 or for at
/// most kSinkhornSweeps sweeps). D1 M D2 has the same terms M(r, c) (M^-1)(c, r) as M, and for
/// graphs with uneven weights or degrees a much smaller condition number, which the normal
/// equations square; the effect is measured in docs/engines.md ("Which matchings").
struct Scaling {
  std::vector<double> row, col;
};
constexpr int kSinkhornSweeps = 300;
Scaling equilibrate(const SparseMatrix<double>& m) {
  const auto n = std::size_t(m.rows);
  Scaling d{std::vector<double>(n, 1.0), std::vector<double>(n, 1.0)};
  std::vector<double> sum(n);
  auto sweep = [&](bool rows) {  // returns max |sum - 1| before the update
    std::fill(sum.begin(), sum.end(), 0.0);
    for (const auto& e : m.entries)
      sum[std::size_t(rows ? e.row : e.col)] += std::abs(e.value) * d.row[std::size_t(e.row)] * d.col[std::size_t(e.col)];
    std::vector<double>& f = rows ? d.row : d.col;
    double miss = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (sum[i] > 0 && std::isfinite(1 / sum[i])) f[i] /= sum[i], miss = std::max(miss, std::abs(sum[i] - 1));
    return miss;
  };
  for (int it = 0; it < kSinkhornSweeps; ++it) {
    if (sweep(true) < 0.02 && it > 0) break;
    sweep(false);
  }
  for (std::vector<double>* f : {&d.row, &d.col})
    for (double& x : *f) x = std::ldexp(1.0, std::clamp(std::ilogb(x), -400, 400));
  return d;
}

/// The rows of T (the equilibrated M, or its transpose for the rows' Gram matrix) with their
/// columns' positions.
struct Rows {
  int n = 0;
  std::vector<std::size_t> start;
  std::vector<int> pos;            // position of the column
  std::vector<double> value;       // T's entry
  std::vector<double> unscale;     // (M^-1)(c, r) = unscale * (T^-1)(c, r)
  std::vector<std::size_t> entry;  // the entry of M

  /// Y = T X (X by positions, Y by rows; n x `rhs` row-major blocks).
  void apply(const std::vector<double>& x, std::vector<double>& y, int rhs) const {
    const auto w = std::size_t(rhs);
    std::fill(y.begin(), y.end(), 0.0);
    for (int r = 0; r < n; ++r)
      for (std::size_t a = start[std::size_t(r)]; a < start[std::size_t(r) + 1]; ++a)
        axpy_minus(y.data() + std::size_t(r) * w, x.data() + std::size_t(pos[a]) * w, -value[a], rhs);
  }
  /// ||T||_1 ||T||_inf >= ||T^T T||_2.
  double gram_norm_bound() const {
    std::vector<double> col(std::size_t(n), 0.0);
    double rmax = 0;
    for (int r = 0; r < n; ++r) {
      double s = 0;
      for (std::size_t a = start[std::size_t(r)]; a < start[std::size_t(r) + 1]; ++a)
        s += std::abs(value[a]), col[std::size_t(pos[a])] += std::abs(value[a]);
      rmax = std::max(rmax, s);
    }
    return rmax * *std::max_element(col.begin(), col.end());
  }
};

Rows rows_of(const SparseMatrix<double>& m, bool columns, const std::vector<int>& pos, const Scaling& d) {
  const int n = m.rows;
  Rows t;
  t.n = n;
  t.start.assign(std::size_t(n) + 1, 0);
  for (const auto& e : m.entries) ++t.start[std::size_t(columns ? e.row : e.col) + 1];
  for (int r = 0; r < n; ++r) t.start[std::size_t(r) + 1] += t.start[std::size_t(r)];
  const std::size_t nnz = m.entries.size();
  t.pos.resize(nnz), t.value.resize(nnz), t.unscale.resize(nnz), t.entry.resize(nnz);
  std::vector<std::size_t> next(t.start.begin(), t.start.end() - 1);
  for (std::size_t k = 0; k < nnz; ++k) {
    const auto& e = m.entries[k];
    const std::size_t s = next[std::size_t(columns ? e.row : e.col)]++;
    const double f = d.row[std::size_t(e.row)] * d.col[std::size_t(e.col)];
    t.pos[s] = pos[std::size_t(columns ? e.col : e.row)], t.value[s] = e.value * f, t.unscale[s] = f, t.entry[s] = k;
  }
  return t;
}

/// Cholesky in place, row by row: L(i, j) = (A(i, j) - L(i, <j) . L(j, <j)) / L(j, j). False
/// when a pivot is not above the rounding of its own row (A singular to working precision).
/// `column_norm[j]`: ||L(>j, j)||_2 / L(j, j), the multipliers of the recurrence's column j.
bool cholesky(Envelope& env, std::vector<double>& column_norm) {
  std::vector<double>& colsq = column_norm;
  colsq.assign(std::size_t(env.n), 0.0);
  for (int i = 0; i < env.n; ++i) {
    const int fi = env.first[std::size_t(i)];
    double* ri = env.row(i);
    const double aii = ri[i - fi];
    for (int j = fi; j < i; ++j) {
      const double* rj = env.row(j) + (fi - env.first[std::size_t(j)]);
      ri[j - fi] = (ri[j - fi] - dot(ri, rj, j - fi)) / rj[j - fi];
    }
    const double d = aii - dot(ri, ri, i - fi);
    if (!(aii > 0) || !(d > 4 * kUnit * double(i - fi + 1) * aii)) return false;
    ri[i - fi] = std::sqrt(d);
    for (int j = fi; j < i; ++j) colsq[std::size_t(j)] += ri[j - fi] * ri[j - fi];
  }
  for (int j = 0; j < env.n; ++j) colsq[std::size_t(j)] = std::sqrt(colsq[std::size_t(j)]) / env.row(j)[env.len(j)];
  return true;
}

/// Takahashi's recurrence, column j from n-1 down, in place: column j of L is read into l, then
/// replaced by column j of Z = A^-1.
void selected_inverse(Envelope& env, int band) {
  const int n = env.n;
  std::vector<double> l(std::size_t(band) + 4), y(std::size_t(band) + 4);
  int last = n - 1;
  for (int j = n - 1; j >= 0; --j) {
    while (last > j && env.first[std::size_t(last)] > j) --last;
    const int len = last - j;
    const double ljj = env.row(j)[env.len(j)];
    for (int k = 0; k < len; ++k) l[std::size_t(k)] = env.v[env.at(j + 1 + k, j)] / ljj, y[std::size_t(k)] = 0;
    // y = Z(j+1..last, j+1..last) l, by rows of the lower triangle: row j+1+k gives y[k] its
    // dot product and y[<k] its transpose's share.
    for (int k = 0; k < len; ++k) {
      const double* s = env.v.data() + env.at(j + 1 + k, j + 1);  // Z(j+1+k, j+1 .. j+1+k)
      y[std::size_t(k)] += dot_axpy(s, l.data(), l[std::size_t(k)], y.data(), k) + s[k] * l[std::size_t(k)];
    }
    double zjj = 1 / (ljj * ljj);
    for (int k = 0; k < len; ++k) {
      env.v[env.at(j + 1 + k, j)] = -y[std::size_t(k)];
      zjj += l[std::size_t(k)] * y[std::size_t(k)];
    }
    env.row(j)[env.len(j)] = zjj;
  }
}

/// Norms per column position c and per row r of T, estimated from random sign vectors v
/// (Hutchinson: E[(B v)_i^2] = ||row i of B||^2), without `weight`: ||Z e_c|| from B = Z and
/// ||T^-1 e_r|| from B = T Z = T^-T; with it (W = diag(weight)): ||W L^-1 e_c|| from
/// B = L^-T W and ||W L^-1 T^T e_r|| from B = T L^-T W.
struct Probes {
  std::vector<double> col, row;
};
constexpr int kProbes = 16;
Probes probe_norms(Envelope& env, const Rows& t, const std::vector<double>* weight, std::uint64_t seed) {
  const auto n = std::size_t(env.n);
  Probes p{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  std::vector<double> w(n * kProbes), y(n * kProbes);
  for (std::size_t i = 0; i < n * kProbes; ++i) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    w[i] = ((seed >> 40) & 1 ? 1.0 : -1.0) * (weight ? (*weight)[i / kProbes] : 1.0);
  }
  env.solve(w, kProbes, !weight);
  t.apply(w, y, kProbes);
  for (std::size_t i = 0; i < n; ++i) {
    p.col[i] = std::sqrt(dot(&w[i * kProbes], &w[i * kProbes], kProbes) / kProbes);
    p.row[i] = std::sqrt(dot(&y[i * kProbes], &y[i * kProbes], kProbes) / kProbes);
  }
  return p;
}

/// Column r of T^-1 at the positions of row r's entries, by iterative refinement of the normal
/// equations (x += Z T^T (e_r - T x)), which converges to about u cond(T) where the selected
/// inverse has u cond(T)^2: a reference for the estimate.
struct Sample {
  int row;
  std::vector<double> value;  // per entry of row r, in t's order
};
std::vector<Sample> sample_columns(Envelope& env, const Rows& t, const Probes& probes) {
  const int n = env.n;
  // The rows with the largest ||T^-1 e_r|| (where the estimate is largest) and some spread out.
  std::vector<int> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), 0);
  const auto worst = std::ptrdiff_t(std::min<std::size_t>(4, rows.size()));
  std::partial_sort(rows.begin(), rows.begin() + worst, rows.end(),
                    [&](int a, int b) { return probes.row[std::size_t(a)] > probes.row[std::size_t(b)]; });
  rows.resize(std::size_t(worst));
  for (int k = 0; k < 4 && n > 0; ++k) rows.push_back(int((2 * std::int64_t(k) + 1) * n / 8));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());

  const int w = int(rows.size());
  const auto nw = std::size_t(n) * std::size_t(w);
  std::vector<double> x(nw, 0.0), dx(nw), res(nw, 0.0);
  for (int q = 0; q < w; ++q) res[std::size_t(rows[std::size_t(q)]) * std::size_t(w) + std::size_t(q)] = 1;
  for (int it = 0; it < 4; ++it) {
    std::fill(dx.begin(), dx.end(), 0.0);  // dx = T^T res
    for (int r = 0; r < n; ++r)
      for (std::size_t a = t.start[std::size_t(r)]; a < t.start[std::size_t(r) + 1]; ++a)
        axpy_minus(dx.data() + std::size_t(t.pos[a]) * std::size_t(w), res.data() + std::size_t(r) * std::size_t(w), -t.value[a], w);
    env.solve(dx, w, true);
    for (std::size_t i = 0; i < nw; ++i) x[i] += dx[i];
    t.apply(x, res, w);  // res = e_r - T x
    for (double& v : res) v = -v;
    for (int q = 0; q < w; ++q) res[std::size_t(rows[std::size_t(q)]) * std::size_t(w) + std::size_t(q)] += 1;
  }
  std::vector<Sample> out;
  for (int q = 0; q < w; ++q) {
    const int r = rows[std::size_t(q)];
    Sample sm{r, {}};
    for (std::size_t a = t.start[std::size_t(r)]; a < t.start[std::size_t(r) + 1]; ++a)
      sm.value.push_back(x[std::size_t(t.pos[a]) * std::size_t(w) + std::size_t(q)]);
    out.push_back(std::move(sm));
  }
  return out;
}

}  // namespace

GramOrder gram_order(const SparseMatrix<double>& m, bool columns, std::vector<int> pos) {
  const int n = m.rows;
  GramOrder o;
  o.columns = columns;
  o.first.resize(std::size_t(n));
  for (int i = 0; i < n; ++i) o.first[std::size_t(i)] = i;
  // A line's neighbours in the Gram matrix share one of its entries' other lines.
  std::vector<int> low(static_cast<std::size_t>(n), n);
  for (const auto& e : m.entries) {
    const int other = columns ? e.row : e.col, mine = columns ? e.col : e.row;
    low[std::size_t(other)] = std::min(low[std::size_t(other)], pos[std::size_t(mine)]);
  }
  for (const auto& e : m.entries) {
    const int other = columns ? e.row : e.col, mine = columns ? e.col : e.row;
    int& f = o.first[std::size_t(pos[std::size_t(mine)])];
    f = std::min(f, low[std::size_t(other)]);
  }
  for (int i = n - 2; i >= 0; --i) o.first[std::size_t(i)] = std::min(o.first[std::size_t(i)], o.first[std::size_t(i) + 1]);
  // Work: the factorization's dot products (len^2 / 2) and the recurrence's symmetric products
  // (len^2 for the column's len rows below the diagonal).
  int last = -1;
  for (int i = 0; i < n; ++i) {
    const double len = i - o.first[std::size_t(i)];
    o.entries += len + 1;
    o.work += len * len / 2;
  }
  for (int j = 0; j < n; ++j) {
    while (last + 1 < n && o.first[std::size_t(last) + 1] <= j) ++last;
    const double len = std::max(0, last - j);
    o.work += len * len;
  }
  o.pos = std::move(pos);
  return o;
}

GramOrder gram_order(const SparseMatrix<double>& m) {
  const int n = m.rows;
  std::vector<int> natural(static_cast<std::size_t>(n));
  std::iota(natural.begin(), natural.end(), 0);
  EdgeList edges;
  edges.reserve(m.entries.size());
  for (const auto& e : m.entries) edges.emplace_back(e.row, n + e.col);
  const std::vector<std::size_t> cm = reverse_cuthill_mckee(2 * n, edges);
  std::vector<int> rpos(static_cast<std::size_t>(n)), cpos(static_cast<std::size_t>(n));
  int rows = 0, cols = 0;
  for (std::size_t v : cm) {
    if (v < std::size_t(n)) rpos[v] = rows++;
    else cpos[v - std::size_t(n)] = cols++;
  }
  GramOrder best = gram_order(m, true, natural);
  for (GramOrder o : {gram_order(m, true, cpos), gram_order(m, false, natural), gram_order(m, false, rpos)})
    if (o.work < best.work) best = std::move(o);
  return best;
}

double selected_inverse_bytes(const GramOrder& o) {
  // The envelope, and per line: the probes' and samples' blocks of 16 and 8 vectors, scaling,
  // order and norms.
  return 8 * o.entries + 8 * (2 * kProbes + 3 * 8 + 16) * double(o.pos.size());
}

TransposedInverse inverse_at_transposed(const SparseMatrix<double>& m, double max_bytes, const GramOrder* order) {
  TransposedInverse out;
  if (!m.square()) {
    out.why = "the matrix is not square";
    return out;
  }
  const int n = m.rows;
  for (const auto& e : m.entries)
    if (!std::isfinite(e.value)) {
      out.why = "an entry is not finite";
      return out;
    }
  if (n == 0) {
    out.ok = true;
    return out;
  }
  GramOrder own;
  if (!order) own = gram_order(m), order = &own;
  const GramOrder& o = *order;
  out.work = o.work, out.columns = o.columns;
  if (selected_inverse_bytes(o) > max_bytes) {
    out.why = "the envelope of the Gram matrix (" + std::to_string(o.entries) + " entries) needs more memory than allowed";
    return out;
  }
  const Rows t = rows_of(m, o.columns, o.pos, equilibrate(m));
  const auto nz = std::size_t(n);

  Envelope env;
  env.n = n;
  env.first = o.first;
  env.start.resize(nz + 1);
  env.start[0] = 0;
  for (int i = 0; i < n; ++i) env.start[std::size_t(i) + 1] = env.start[std::size_t(i)] + std::size_t(env.len(i)) + 1;
  env.v.assign(env.start[nz], 0.0);
  int band = 0;
  for (int i = 0; i < n; ++i) band = std::max(band, env.len(i));

  // A = T^T T on the envelope (the lower triangle, by positions).
  for (int r = 0; r < n; ++r)
    for (std::size_t a = t.start[std::size_t(r)]; a < t.start[std::size_t(r) + 1]; ++a)
      for (std::size_t b = t.start[std::size_t(r)]; b < t.start[std::size_t(r) + 1]; ++b)
        if (t.pos[b] <= t.pos[a]) env.v[env.at(t.pos[a], t.pos[b])] += t.value[a] * t.value[b];
  std::vector<double> multipliers;
  if (!cholesky(env, multipliers)) {
    out.why = "the matrix is singular to working precision";
    return out;
  }

  // Before the recurrence overwrites L: the norms the estimate needs (probes), and a few
  // columns of T^-1 by iterative refinement to check it against.
  const Probes probes = probe_norms(env, t, nullptr, 0x2545f4914f6cdd1dull);
  // ||Z||_2 <= ||Z||_F = sqrt(sum_c ||Z e_c||^2): the conservative side.
  double zmax = 0;
  for (double x : probes.col) zmax += x * x;
  zmax = std::sqrt(zmax);
  const double gram_norm = t.gram_norm_bound();
  out.sigma_max = std::sqrt(gram_norm), out.sigma_min = 1 / std::sqrt(zmax);
  // First order is all the estimate knows: past a relative perturbation ||E|| ||A^-1|| of
  // about cond(T)^2 u sqrt(band) = kMaxPerturbation the results are not worth returning.
  if (!(kUnit * std::sqrt(double(band) + 1) * gram_norm * zmax <= kMaxPerturbation)) {
    out.why = "the matrix is too ill-conditioned for the normal equations (condition number about " +
              std::to_string(out.sigma_max / out.sigma_min) + " after equilibration)";
    return out;
  }
  const Probes by_multiplier = probe_norms(env, t, &multipliers, 0x9e3779b97f4a7c15ull);
  const Probes by_column = probe_norms(env, t, &probes.col, 0xd1b54a32d192ed03ull);
  const std::vector<Sample> samples = sample_columns(env, t, probes);

  selected_inverse(env, band);

  // (T^-1)(c, r) = sum over row r's entries (r, x) of Z(c, x) T(r, x). Its error estimate has
  // three parts, from first-order models in which rounding errors add like a random walk
  // (u sqrt(band) for sums of up to `band` terms), times 3 against the probes' sampling error:
  // - forming and factoring A perturb it by E, ||E|| ~ u sqrt(band) ||A||, which moves the
  //   value by (Z e_c)^T E (T^-1 e_r): at most ||E|| ||Z e_c|| ||T^-1 e_r||;
  // - the recurrence is the bordering Z_j = [d + l^T Z_b l, -l^T Z_b; -Z_b l, Z_b] (l the
  //   multipliers of column j), so its roundings f_j (in -Z_b l, size u sqrt(band) ||Z e_i||
  //   ||l_j|| in row i) reach Z as L^-T (F + F^T) L^-1 and the value as (L^-1 e_c)^T (F + F^T)
  //   (L^-1 T^T e_r): about u sqrt(band) (||D L^-1 e_c|| ||C L^-1 T^T e_r|| + ||C L^-1 e_c||
  //   ||D L^-1 T^T e_r||), D = diag(||l_j||), C = diag(||Z e_i||), all four from probes;
  // - the sum itself and the rounding of Z's entries: u (entries + 1) sum_x |Z(c, x) T(r, x)|,
  //   four times.
  const double root_band = std::sqrt(double(band) + 1);
  const double gram_noise = 3 * kUnit * root_band * gram_norm;
  const double recurrence_noise = 3 * kUnit * root_band;
  out.value.assign(m.entries.size(), 0.0);
  out.error.assign(m.entries.size(), 0.0);
  std::vector<double> scaled_value(m.entries.size()), scaled_error(m.entries.size());
  for (int r = 0; r < n; ++r) {
    const auto rz = std::size_t(r);
    const std::size_t b0 = t.start[rz], b1 = t.start[rz + 1];
    for (std::size_t a = b0; a < b1; ++a) {
      const auto c = std::size_t(t.pos[a]);
      double s = 0, mag = 0;
      for (std::size_t b = b0; b < b1; ++b) {
        const auto x = std::size_t(t.pos[b]);
        const double z = env.v[env.at(int(std::max(c, x)), int(std::min(c, x)))];
        s += z * t.value[b], mag += std::abs(z * t.value[b]);
      }
      scaled_value[a] = s;
      scaled_error[a] = gram_noise * probes.col[c] * probes.row[rz] +
                        recurrence_noise * (by_multiplier.col[c] * by_column.row[rz] + by_column.col[c] * by_multiplier.row[rz]) +
                        4 * kUnit * double(b1 - b0 + 1) * mag;
    }
  }
  // The sampled columns: where they differ from the values by more than the estimate, all
  // estimates grow by that factor.
  double scale = 1;
  for (const Sample& sm : samples)
    for (std::size_t a = t.start[std::size_t(sm.row)], i = 0; a < t.start[std::size_t(sm.row) + 1]; ++a, ++i) {
      const double miss = std::abs(scaled_value[a] - sm.value[i]);
      if (miss > scaled_error[a]) scale = std::max(scale, scaled_error[a] > 0 ? miss / scaled_error[a] : 1 / kUnit);
    }
  out.sample_scale = scale;
  for (std::size_t a = 0; a < m.entries.size(); ++a) {
    out.value[t.entry[a]] = scaled_value[a] * t.unscale[a];
    out.error[t.entry[a]] = scale * scaled_error[a] * t.unscale[a];
  }
  out.ok = true;
  return out;
}

}  // namespace matchcount::engines::planar
