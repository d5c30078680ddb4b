// Torontonians (torontonian.hpp): the input brought to M = I - O in pair order (in real
// arithmetic where a change of basis per mode makes it real), the certified error bound, and
// the walk of tor_walk.hpp in work units (threads, checkpoints, MPI) through runtime::run_units,
// or of cuda/ on the GPUs (the same numbers: outer-product Cholesky of every M_Z).
//
// The bound. Let u = 2^-53 and M_Z the principal submatrix of the Hermitian positive definite
// M of a set Z (dimension k = 2|Z|). The computed Cholesky factor L of M_Z satisfies
// L L^* = M_Z + E with ||E||_2 <= ||E||_F <= g ||L||_F^2, g = gamma_{k+1} (Higham, Accuracy and
// Stability, Thm 10.3; for complex arithmetic gamma of 4(k+1), as its products and sums take
// several roundings), and ||L||_F^2 = tr(L L^*) <= tr(M_Z) / (1 - g) <= tr(M) / (1 - g).
// The entries of M themselves lie within e_in (2-norm) of the matrix the input stands for (the
// input's decimals, the symmetrization and the change of basis). By Cauchy interlacing
// lambda_min(M_Z) >= lambda_min(M) >= lam, a lower bound certified once: the Cholesky of
// M - sigma I succeeds in floating point, so M - sigma I + E' = L' L'^* is positive
// semidefinite and lambda_min(M) >= sigma - ||E'||_2. Then every det(L L^*) = det(M_Z) det(I + F),
// F = M_Z^-1 (E + input's error), ||F||_F <= eta = (g tr(M) / (1 - g) + e_in) / lam < 1/2:
// |ln det(I + F)| <= |tr F| + sum |mu_i|^2 / (2 (1 - eta)) <= sqrt(k) eta + eta^2 / (2 (1 - eta))
// (mu_i the eigenvalues of F; |tr F| <= ||M_Z^-1||_F ||E||_F, Schur's inequality). A term
// 1 / prod diag L is off by at most expm1 of half that, plus its own roundings, of itself,
// uniformly bounded by its value at k = 2n.
// The loop torontonian's q_Z = v^* M_Z^-1 v is computed from (L + dL) y = v, |dL| <= gamma_k |L|:
// q_hat = v^* (M_Z + F')^-1 v with ||F'|| <= (3 gamma + gamma^2) ||L||_F^2 + e_in, so
// |q_hat - q| <= eta' q_hat (eta' = ||F'|| / lam) plus the rounding of |y|^2 and the input v's
// own (2 sqrt(q) u |v| / sqrt(lam)); exp(q/2) is off by expm1 of half that. The signed sum is
// kept in double-double: a chain of N terms added by two-sums is off by at most N^2 u^2 of its
// |terms| (the low words' own sum), plus u^2 per merge of chains; |terms| are summed in double,
// off by (N + merges) u. The error printed is eps * sum |terms| / (1 - eps) plus those and the
// final roundings: it holds.
#include "engines/torontonian/torontonian.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "core/hashing.hpp"
#include "core/tuning.hpp"
#include "engines/common.hpp"
#include "engines/gpu_common.hpp"
#include "engines/torontonian/cuda/tor_gpu_job.hpp"
#include "engines/torontonian/tor_walk.hpp"
#include "matchcount/error.hpp"
#include "runtime/team.hpp"
#include "runtime/thread_walk.hpp"

namespace matchcount::engines {
namespace {

constexpr double kU = 0x1p-53;
/// CPU units walk every subset of the last 14 modes (2^14 nodes); a unit's root eliminates the
/// first modes it includes.
constexpr int kUnitFreeModes = 14;
/// Asymmetry of I - O accepted (and symmetrized), relative to its largest entry.
constexpr double kHermitianTolerance = 1e-12;

double gamma_of(double k, double unit) { return k * unit / (1 - k * unit); }

/// |x| from above (sqrt of the norm, within 3u of |x|, raised by 4u): std::abs of a complex
/// calls hypot, slow beside the few operations of a small torontonian (docs/benchmarks.md).
double mag_up(const Complex& x) { return std::sqrt(std::norm(x)) * (1 + 4 * kU); }

/// M = I - O in pair order (mode i at rows 2i, 2i + 1), Hermitian-symmetrized; e_in gets what
/// that and the input's rounding move M by (Frobenius norm).
template <class T>
std::vector<Complex> pair_order(const TorontonianInput<T>& in, double& e_in) {
  const int n = in.modes, d = 2 * n;
  const auto at = [&](int r, int c) { return Complex(in.o[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(c)]); };
  const auto src = [&](int p) { return p % 2 ? p / 2 + n : p / 2; };
  std::vector<Complex> m(static_cast<std::size_t>(d) * static_cast<std::size_t>(d));
  double largest = 0, asym = 0, frob = 0, asym_frob = 0;
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) largest = std::max(largest, mag_up(at(r, c)));
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) {
      const Complex x = (r == c ? 1.0 : 0.0) - at(src(r), src(c));
      const Complex y = (r == c ? 1.0 : 0.0) - at(src(c), src(r));
      asym = std::max(asym, mag_up(x - std::conj(y)));
      asym_frob += std::norm(0.5 * (x - std::conj(y)));
      const Complex h = 0.5 * (x + std::conj(y));
      m[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(c)] = h;
      frob += std::norm(mag_up(at(src(r), src(c))) + (r == c ? 1.0 : 0.0));
    }
  if (asym > kHermitianTolerance * std::max(largest, 1.0)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the torontonian needs I - O Hermitian (a Gaussian state's); it is off by %.3g", asym);
    throw RefusedError(buf);
  }
  // Entries within u of the decimals they stand for, then 1 - o and the average: 4u of the
  // entry sizes (plus 1 on the diagonal), and the asymmetry averaged away (half of it an entry).
  e_in = 4 * kU * std::sqrt(frob) + std::sqrt(asym_frob);
  return m;
}

/// Per mode, x = (a + a^dag) / sqrt 2 and p = (a - a^dag) / (i sqrt 2) make a Gaussian state's
/// M real; W M W^* with W = diag(W_i) keeps every det(M_Z). Real when every imaginary part is
/// below `tol` (then dropped, into e_in).
std::vector<double> real_basis(const std::vector<Complex>& m, int n, double& e_in, bool& ok) {
  const int d = 2 * n;
  const double s = std::sqrt(0.5);
  const Complex w[2][2] = {{s, s}, {Complex(0, -s), Complex(0, s)}};
  std::vector<double> out(m.size());
  double imag = 0, scale = 0, rounding = 0, dropped = 0;
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) {
      Complex x = 0;
      double size = 0;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          const Complex e = m[static_cast<std::size_t>(2 * (r / 2) + a) * static_cast<std::size_t>(d) + static_cast<std::size_t>(2 * (c / 2) + b)];
          x += w[r % 2][a] * e * std::conj(w[c % 2][b]);
          size += 0.5 * mag_up(e);
        }
      imag = std::max(imag, std::abs(x.imag()));
      scale = std::max(scale, mag_up(x));
      // Four products of three factors (1/sqrt 2 itself rounded) and three sums: within 16u of
      // the sum of their sizes; the dropped imaginary part moves the entry by its size.
      rounding += std::pow(16 * kU * size, 2);
      dropped += std::pow(x.imag(), 2);
      out[static_cast<std::size_t>(r) * static_cast<std::size_t>(d) + static_cast<std::size_t>(c)] = x.real();
    }
  ok = imag <= 1e-14 * std::max(scale, 1.0);
  e_in += std::sqrt(rounding) + std::sqrt(dropped);
  return out;
}

/// lambda_min(M) >= returned value (> 0), or 0 when no positive lower bound was certified.
template <class T>
double certified_least_eigenvalue(const std::vector<T>& m, int d, double g, double unit) {
  // A first guess from the diagonal's Gershgorin-free scale: halve sigma until the shifted
  // Cholesky succeeds, starting from the least pivot of the plain Cholesky.
  using R = tor::Real<T>;
  const auto cholesky_ok = [&](double sigma, double& trace) {
    std::vector<T> l(m.size());
    trace = 0;
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j <= i; ++j) {
        T a = m[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)] - T(i == j ? R(sigma) : R(0));
        for (int k = 0; k < j; ++k)
          a -= l[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(k)] *
               tor::conj_of(l[static_cast<std::size_t>(j) * static_cast<std::size_t>(d) + static_cast<std::size_t>(k)]);
        if (i == j) {
          const R p = std::real(a);
          if (!(p > 0)) return false;
          l[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(i)] = T(std::sqrt(p));
        } else {
          l[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)] =
              a / l[static_cast<std::size_t>(j) * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)];
        }
      }
      trace += static_cast<double>(std::real(m[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(i)])) - sigma;
    }
    return true;
  };
  double trace = 0;
  double least_diag = std::numeric_limits<double>::infinity();
  for (int i = 0; i < d; ++i)
    least_diag = std::min(least_diag, static_cast<double>(std::real(m[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(i)])));
  for (double sigma = least_diag * 0.999; sigma > least_diag * 1e-12; sigma *= 0.5)
    if (cholesky_ok(sigma, trace)) {
      // ||E'|| <= g ||L'||_F^2 <= g tr / (1 - g), and forming M - sigma I rounds the diagonal by u.
      const double bound = sigma - (g / (1 - g) + 2 * unit) * std::fabs(trace) * (1 + 4 * kU);
      return bound > 0 ? bound : 0.0;
    }
  return 0.0;
}

std::string tag_of(int n, bool real, int bytes, bool loop, int fixed, std::uint64_t h) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "torontonian/%s%d/modes=%d/loop=%d/fixed=%d/input=%016llx", real ? "real" : "complex",
                8 * bytes, n, loop ? 1 : 0, fixed, static_cast<unsigned long long>(h));
  return buf;
}

/// A walk's sums (tor::Word) and how they were added: terms were summed in chains of at most
/// `chain` (double-double, and |terms| in double), whose sums were merged `merges` times.
struct WalkSums {
  std::vector<double> s;
  double chain = 1, merges = 1;
};

/// The walk in arithmetic T over M (pair order) and v = conj(gamma) (pair order, or empty), on
/// the CPU's threads.
template <class T>
WalkSums walk(const std::vector<T>& m, const std::vector<T>& v, int n, const EngineOptions& opt) {
  const int fixed = std::max(0, n - kUnitFreeModes);
  const std::uint64_t units = std::uint64_t{1} << fixed;
  std::uint64_t h = fnv1a64(m.data(), m.size() * sizeof(T));
  h = fnv1a64(v.data(), v.size() * sizeof(T), h);
  const double work = std::ldexp(1.0, n) * 40 * (std::is_floating_point_v<T> ? 1 : 4);
  const int threads = thread_count(opt, work);
  const std::vector<double> zero(tor::kWords, 0.0);
  auto make = [&] { return tor::Walk<T>(n, m, v, fixed); };
  auto walk_unit = [](tor::Walk<T>& w, std::uint64_t b) { return w.run(b); };
  auto combine = [&](std::vector<double>& total, const std::vector<double>& s) {
    if (total.empty()) total = zero;
    for (int w : {tor::kPosHi, tor::kNegHi}) {
      DDSum x{total[static_cast<std::size_t>(w)], total[static_cast<std::size_t>(w) + 1], 0, 0};
      x.add(s[static_cast<std::size_t>(w)]), x.add(s[static_cast<std::size_t>(w) + 1]);
      total[static_cast<std::size_t>(w)] = x.hi, total[static_cast<std::size_t>(w) + 1] = x.lo;
    }
    total[tor::kAbs] += s[tor::kAbs];
    total[tor::kMaxQ] = std::max(total[tor::kMaxQ], s[tor::kMaxQ]);
    total[tor::kFailed] = std::max(total[tor::kFailed], s[tor::kFailed]);
  };
  if (opt.stats) opt.stats->device = "cpu";
  WalkSums r;
  r.s = runtime::run_units<std::vector<double>>(units, threads, opt, tag_of(n, std::is_floating_point_v<T>, static_cast<int>(sizeof(tor::Real<T>)), !v.empty(), fixed, h),
                                                zero, make, walk_unit, combine);
  r.chain = std::ldexp(1.0, n - fixed), r.merges = 2.0 * static_cast<double>(units);
  return r;
}

/// The exact sum of a GPU walk's words at w as a double-double (hi + lo), rounded toward zero.
std::pair<double, double> exact_value(const std::uint64_t* w) {
  Integer x;
  mpz_import(x.get_mpz_t(), gpu::kExactLimbs, -1, sizeof(std::uint64_t), 0, 0, w);
  if (w[gpu::kExactLimbs - 1] >> 63) x -= Integer(1) << (64 * gpu::kExactLimbs);
  const double hi = scaled(x, -1074);
  int e = 0;
  const double f = std::frexp(hi, &e);  // hi = f 2^e: as an integer times 2^-1074
  Integer h(static_cast<long>(std::ldexp(f, 53)));
  const int shift = e - 53 + 1074;
  if (shift >= 0) h <<= shift;
  else h >>= -shift;  // hi is a multiple of 2^-1074: exact
  return {hi, scaled(x - h, -1074)};
}

/// The walk on the CUDA devices (real arithmetic): GpuError when it cannot run there.
WalkSums walk_gpu(const std::vector<double>& m, const std::vector<double>& v, int n, const EngineOptions& opt) {
  gpu::TorJob job;
  job.n = n;
  job.split = gpu::tor_split(n);
  job.m = m, job.v = v;
  job.verbose = tuning::tuning().gpu_verbose;
  job.gpus = opt.gpus;
  job.progress = opt.progress;
  job.journal = opt.journal;
  job.team = opt.team;
  std::uint64_t h = fnv1a64(m.data(), m.size() * sizeof(double));
  h = fnv1a64(v.data(), v.size() * sizeof(double), h);
  char buf[200];
  std::snprintf(buf, sizeof buf, "gpu-torontonian/real64/modes=%d/loop=%d/split=%d,%d,%d/input=%016llx", n, v.empty() ? 0 : 1,
                job.split.fixed, job.split.middle, job.split.free, static_cast<unsigned long long>(h));
  job.tag = buf;
  const gpu::TorResult r = gpu::run_torontonian_walk(job);
  WalkSums out;
  out.s.assign(tor::kWords, 0.0);
  const auto [hi, lo] = exact_value(&r.words[gpu::kTorSigned]);
  out.s[tor::kPosHi] = hi, out.s[tor::kPosLo] = lo;
  out.s[tor::kAbs] = exact_value(&r.words[gpu::kTorAbs]).first * (1 + 2 * kU);  // rounded up
  std::memcpy(&out.s[tor::kMaxQ], &r.words[gpu::kTorMaxQ], sizeof(double));
  out.s[tor::kFailed] = static_cast<double>(r.words[gpu::kTorFailed]);
  out.chain = std::ldexp(1.0, job.split.free), out.merges = 2.0 * std::ldexp(1.0, job.split.middle);
  if (opt.stats) {
    opt.stats->device = "gpu";
    opt.stats->kernel = "generic";
    std::string note = "units of " + std::to_string(job.split.middle + job.split.free) + " modes";
    if (r.units_per_device.size() > 1) {
      note += "; " + std::to_string(r.units_per_device.size()) + " GPUs took";
      for (std::size_t d = 0; d < r.units_per_device.size(); ++d) note += (d ? " + " : " ") + std::to_string(r.units_per_device[d]);
      note += " units";
    }
    if (!r.units_by_rank.empty()) note += "; " + cluster::ranks_note(r.units_by_rank);
    if (!r.note.empty()) note += "; " + r.note;
    opt.stats->note = note;
  }
  return out;
}

/// The walk where `gpu` asks for it (real double arithmetic only), else on the CPU.
template <class T>
WalkSums walk_on(const std::vector<T>& m, const std::vector<T>& v, int n, bool gpu, const EngineOptions& opt) {
  if constexpr (std::is_same_v<T, double>)
    if (gpu) return gpu_else_cpu(opt, [&] { return walk_gpu(m, v, n, opt); }, [&] { return walk(m, v, n, opt); });
  return walk(m, v, n, opt);
}

/// What the bound needs besides the arithmetic: the size, the input's rounding (e_in, 2-norm),
/// tr M, and |gamma|.
struct Bounds {
  int n;
  bool loop;
  double e_in, trace, v_norm;
  bool gpu;  // the walk may run on the GPUs
};

/// The walk in arithmetic T (unit roundoff `unit`) and its certified bound; an infinite error
/// where the bound cannot be made (M not certified positive definite, eta too large).
template <class T>
Approx<double> attempt(const std::vector<T>& m, const std::vector<T>& v, const Bounds& b, double unit,
                       const EngineOptions& opt) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const int n = b.n, d = 2 * n;
  const bool real = std::is_floating_point_v<T>;
  // gamma_{k+2}: the walk multiplies by a rounded 1 / L_cc where Cholesky divides.
  const double g = real ? gamma_of(d + 2.0, unit) : gamma_of(4.0 * (d + 2), unit);
  // lambda_min of the matrix the input stands for: the stored one's, less what the input's
  // rounding moved it by.
  const double lam = certified_least_eigenvalue(m, d, g, unit) - b.e_in;
  if (!(lam > 0)) throw RefusedError("the torontonian needs I - O positive definite (a Gaussian state's); it is not, or too nearly singular to certify");
  const double l_frob = b.trace / (1 - g) * (1 + 4 * kU);
  const double eta = (g * l_frob + b.e_in) / lam;
  const double eta_q = ((3 * g + g * g) * l_frob + b.e_in) / lam;
  if (!(eta < 0.5) || !(eta_q < 0.5)) return {0.0, inf};
  const WalkSums sums = walk_on(m, v, n, b.gpu, opt);
  const std::vector<double>& s = sums.s;
  if (s[tor::kFailed] > 0) throw RefusedError("the torontonian needs I - O positive definite: a pivot was not positive");
  DDSum total{s[tor::kPosHi], s[tor::kPosLo], 0, 0};
  total.add(-s[tor::kNegHi]), total.add(-s[tor::kNegLo]);
  const double value = total.value();
  // Per-term relative error, uniform over Z (its largest at |Z| = n); the running product of
  // the pivots and q are kept in double (kU).
  // |ln det(I + F)| = |sum ln(1 + mu_i)| <= |tr F| + sum |mu_i|^2 / (2 (1 - eta)), with
  // |tr F| = |tr(M_Z^-1 E)| <= ||M_Z^-1||_F ||E||_F <= sqrt(2n) eta and sum |mu_i|^2 <= ||F||_F^2
  // <= eta^2 (Schur): a factor sqrt(2n) / 2 tighter than n eta from the 2-norm alone.
  const double log_det = std::sqrt(2.0 * n) * eta + eta * eta / (2 * (1 - eta));
  double eps = std::expm1(0.5 * log_det + (2.0 * n + 4) * kU * (real ? 1 : 4));
  if (b.loop) {
    const double q = s[tor::kMaxQ];
    const double dq = q * (eta_q + (d + 2) * kU) + 2 * std::sqrt(q) * 2 * kU * b.v_norm / std::sqrt(lam) +
                      std::pow(2 * kU * b.v_norm, 2) / lam;
    // exp's rounding and the product's: glibc's exp is within half an ulp (u), CUDA's within one (2u).
    eps = (1 + eps) * (std::expm1(0.5 * dq) + (b.gpu ? 3 : 2) * kU) + eps;
  }
  // |terms| were summed in double in chains and merges; the signed sum in double-double, whose
  // chains of N terms are off by at most N^2 u^2 of their |terms| (the low parts' own sum).
  const double sum_abs = s[tor::kAbs] * (1 + (2.0 * n + 6 + sums.chain + sums.merges) * kU);
  const double dd = 0x1p-104 * (sums.chain * sums.chain + sums.merges) * sum_abs;
  const double error = eps * sum_abs / std::max(1 - eps, 1e-300) + dd + 2 * kU * std::fabs(value);
  if (!std::isfinite(value) || !std::isfinite(error)) return {value, inf};
  return {value, error * (1 + 1e-12)};
}

template <class T>
Approx<double> count(const TorontonianInput<T>& in, const EngineOptions& opt) {
  const int n = in.modes, d = 2 * n;
  if (n < 0 || in.o.size() != static_cast<std::size_t>(d) * static_cast<std::size_t>(d))
    throw std::invalid_argument("torontonian: O must be 2n x 2n");
  if (n > kTorontonianMaxModes)
    throw RefusedError("torontonian: more than " + std::to_string(kTorontonianMaxModes) + " modes (2^n terms)");
  const bool loop = !in.gamma.empty();
  if (loop && in.gamma.size() != static_cast<std::size_t>(d)) throw std::invalid_argument("torontonian: gamma must have 2n values");
  if (n == 0) return {1.0, 0.0};
  double e_in = 0;
  const std::vector<Complex> mc = pair_order(in, e_in);
  // v = conj(gamma) in pair order, and its 2-norm (for the input's own rounding).
  std::vector<Complex> vc;
  double v_norm = 0;
  for (int p = 0; p < (loop ? d : 0); ++p) {
    vc.push_back(std::conj(Complex(in.gamma[static_cast<std::size_t>(p % 2 ? p / 2 + n : p / 2)])));
    v_norm += std::norm(vc.back());
  }
  v_norm = std::sqrt(v_norm);
  bool real = false;
  double e_real = e_in;
  std::vector<double> mr = real_basis(mc, n, e_real, real);
  std::vector<double> vr;
  if (real && loop) {  // v in the same basis: W v must be real too
    const double s = std::sqrt(0.5);
    for (int i = 0; i < n && real; ++i) {
      const Complex a = vc[static_cast<std::size_t>(2 * i)], b = vc[static_cast<std::size_t>(2 * i + 1)];
      const Complex x = s * (a + b), y = Complex(0, -s) * a + Complex(0, s) * b;
      real = std::abs(x.imag()) <= 1e-14 * std::max(v_norm, 1.0) && std::abs(y.imag()) <= 1e-14 * std::max(v_norm, 1.0);
      vr.push_back(x.real()), vr.push_back(y.real());
    }
  }
  if (real) e_in = e_real;
  double trace = 0;
  for (int i = 0; i < d; ++i) trace += std::real(mc[static_cast<std::size_t>(i) * static_cast<std::size_t>(d) + static_cast<std::size_t>(i)]);
  const bool gpu = in.device == DevicePolicy::Gpu ||
                   (in.device == DevicePolicy::Auto && n >= kTorontonianGpuMinModes && gpu_available());
  const Bounds b{n, loop, e_in, trace, v_norm, gpu};
  // Double precision first; where the terms cancel so far that fewer than three digits are
  // certain, again with the factor in long double on the CPU (the input's own rounding stays)
  // where that takes seconds, or where the double bound does not determine the value at all
  // and it takes at most ten minutes.
  Approx<double> v = real ? attempt(mr, vr, b, kU, opt) : attempt(mc, vc, b, kU, opt);
  // Shared over MPI ranks: every rank walks the same walks, and only rank 0 has the value, so
  // none decides on a second walk (the pipeline refuses a bound that does not determine it).
  if (opt.team) return v;
  const int cores = std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads());
  const double wide_seconds = 3 * torontonian_seconds(n, real, cores);  // long double: about 3x
  const bool undetermined = !(v.abs_error < std::fabs(v.value));
  if (undetermined && wide_seconds > 600) {
    char buf[300];
    std::snprintf(buf, sizeof buf, "the torontonian's terms cancel beyond double precision (the value %.3g has an error bound of %.3g), "
                  "and the long double walk would take about %.0f s on %d cores", v.value, v.abs_error, wide_seconds, cores);
    throw RefusedError(buf);
  }
  if (!(v.abs_error <= 1e-3 * std::fabs(v.value)) && (undetermined || wide_seconds <= 10)) {
    const auto widen = [](const auto& x) {
      using U = std::conditional_t<std::is_same_v<std::decay_t<decltype(x[0])>, double>, long double, std::complex<long double>>;
      return std::vector<U>(x.begin(), x.end());
    };
    const Approx<double> wide = real ? attempt(widen(mr), widen(vr), b, 0x1p-64, opt) : attempt(widen(mc), widen(vc), b, 0x1p-64, opt);
    if (wide.abs_error < v.abs_error || !std::isfinite(v.abs_error)) v = wide;
  }
  if (!std::isfinite(v.value) || !std::isfinite(v.abs_error))
    throw RefusedError("the torontonian's error bound cannot be met: I - O is too ill-conditioned, or the value beyond the range of double precision");
  return v;
}

}  // namespace

Approx<double> torontonian(const TorontonianInput<double>& in, const EngineOptions& opt) { return count(in, opt); }
Approx<double> torontonian(const TorontonianInput<Complex>& in, const EngineOptions& opt) { return count(in, opt); }

double torontonian_seconds(int modes, bool real, int cores, bool gpu) {
  // About 19 ns a subset on one core (docs/benchmarks.md; complex: 4 times); a GPU's rate is
  // gpu_walk's first guess.
  const double subsets = std::ldexp(1.0, modes);
  if (gpu) return 0.2 + subsets / 2e10;
  return 1e-4 + subsets * 19e-9 * (real ? 1 : 4) / std::max(cores, 1);
}

}  // namespace matchcount::engines
