// Counts as logarithms (log_count.hpp): LogApprox arithmetic, the choice of the
// log-determinant for planar blocks, and the entry points by number kind.
#include "pipeline/log_count.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <variant>

#include "catalog/catalog.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/kasteleyn/kasteleyn.hpp"
#include "engines/pfaffian/pfaffian.hpp"
#include "matchcount/error.hpp"
#include "pipeline/evaluated.hpp"

namespace matchcount::detail {
namespace {

constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Blocks from this many rows get a note with their factorization: a count has few such
/// blocks, while a note for each of thousands of small blocks would bury the others.
constexpr int kNoteFromRows = 1000;
/// Seconds of one Ryser row-step on one core, the unit of EnginePlan::work.
constexpr double kRowStepSeconds = 2.6e-10;

/// The error of a logarithm whose count has relative error r (infinite from r = 1).
double log_error_of(double r) { return r < 1 ? -std::log1p(-r) : kInf; }

EnginePlan plan_of(const char* engine, int n, std::size_t nnz) {
  EnginePlan p;
  p.engine = engine;
  p.predicted_seconds = engines::planar::log_det_seconds(n, nnz);
  p.predicted_bytes = engines::planar::log_det_bytes(n, nnz);
  p.work = p.predicted_seconds / kRowStepSeconds;
  return p;
}

void describe(const engines::planar::LogDet& r, int n, const EngineOptions& eo) {
  if (eo.progress) eo.progress(1.0);
  if (!eo.stats || n < kNoteFromRows || r.ordering.empty()) return;
  char buf[300];
  std::snprintf(buf, sizeof buf, "log-determinant by sparse LU (%s ordering): %.3g entries in L+U, %.3g flops; "
                "seconds: ordering %.3g, factorization %.3g, error bound %.3g; error bound %.2g", r.ordering.c_str(),
                r.lu_entries, r.flops, r.analyse_seconds, r.factor_seconds, r.error_seconds, r.error);
  eo.stats->note = buf;
}

// The error of a sparse LU log-determinant rests on an estimate of max |(S^-1)_ij|
// (sparse_logdet.cpp), so it is an estimate, not a bound.
LogApprox from(const engines::planar::LogDet& r) { return {r.sign, r.log_abs, r.error, r.error > 0}; }

/// 1 / x for a positive integer x (a scale taken out of the matrix).
LogApprox inverse(const Integer& x) {
  const LogApprox l(x);
  return {1, -l.log, l.err, l.estimated};
}

void store(CountReport& report, const LogApprox& v) {
  LogValue log;
  log.sign = v.sign;
  log.log_abs = v.log;
  log.error = v.err;
  log.estimated = v.estimated;
  report.value.log = log;
  const double x = v.sign == 0 ? 0.0 : v.sign * std::exp(v.log);  // infinite beyond double range
  report.value.value = x;
  const double rel = std::expm1(v.err);
  report.value.abs_error = x == 0 ? (v.err > 0 ? kInf : 0.0) : std::isfinite(x) ? std::fabs(x) * rel : kInf;
  report.value.error_estimated = v.estimated;
}

void refuse_checkpoint(const CountOptions& options) {
  if (options.checkpoint)
    throw UsageError("--checkpoint applies to exact counts, not to --log (logarithms are kept by no checkpoint)");
}

}  // namespace

LogApprox::LogApprox(const Integer& v) : sign(sgn(v)) {
  if (sign == 0) return;
  long e = 0;
  const double d = mpz_get_d_2exp(&e, v.get_mpz_t());  // |d| in [1/2, 1), truncated
  log = std::log(std::fabs(d)) + double(e) * std::numbers::ln2;
  err = kUnit * (4 + 3 * std::fabs(log));
}

LogApprox::LogApprox(const Approx<double>& v) : estimated(v.estimated) {
  if (v.value == 0) {
    err = v.abs_error > 0 ? kInf : 0.0;  // a floating 0 that may not be one: nothing known
    return;
  }
  sign = v.value > 0 ? 1 : -1;
  log = std::log(std::fabs(v.value));
  err = log_error_of(v.abs_error / std::fabs(v.value)) + kUnit * (1 + std::fabs(log));
}

LogApprox mul(const LogApprox& a, const LogApprox& b) {
  const bool est = a.estimated || b.estimated;
  if (a.sign == 0 || b.sign == 0) return {0, -kInf, (a.sign == 0 ? a.err : 0.0) + (b.sign == 0 ? b.err : 0.0), est};
  const double l = a.log + b.log;
  return {a.sign * b.sign, l, a.err + b.err + kUnit * std::fabs(l), est};
}

LogApprox add(const LogApprox& a, const LogApprox& b) {
  if (a.sign == 0 && a.err == 0) return b;
  if (b.sign == 0 && b.err == 0) return a;
  const bool est = a.estimated || b.estimated;
  if (a.sign == 0 || b.sign == 0) return {a.sign == 0 ? b.sign : a.sign, a.sign == 0 ? b.log : a.log, kInf, est};
  // Scaled by e^-m, m the larger logarithm: each term carries its own error and the rounding of
  // (log - m), which is about u |log| for logarithms in the thousands.
  const double m = std::max(a.log, b.log);
  const double x = a.sign * std::exp(a.log - m), y = b.sign * std::exp(b.log - m);
  const double sum = x + y;
  const double abs_err = std::fabs(x) * std::expm1(a.err + kUnit * (2 + std::fabs(a.log))) +
                         std::fabs(y) * std::expm1(b.err + kUnit * (2 + std::fabs(b.log))) + kUnit * std::fabs(sum);
  if (sum == 0) return {0, -kInf, abs_err > 0 ? kInf : 0.0, est};
  const double l = m + std::log(std::fabs(sum));
  return {sum > 0 ? 1 : -1, l, log_error_of(abs_err / std::fabs(sum)) + kUnit * std::fabs(l), est};
}

template <class T>
std::optional<EnginePlan> log_det_plan(const SparseMatrix<T>& block, const CountOptions& options) {
  if constexpr (std::is_same_v<T, Complex>) return std::nullopt;
  else {
    if (!options.log || !(options.engine.empty() || options.engine == "kasteleyn")) return std::nullopt;
    if (!engines::planar_pattern(engines::pattern_of(block), block.rows)) return std::nullopt;
    return plan_of("kasteleyn", block.rows, block.nnz());
  }
}

template <class T>
std::optional<EnginePlan> log_pfaffian_plan(const SparseMatrix<T>& block, bool loops, const CountOptions& options) {
  if constexpr (std::is_same_v<T, Complex>) return std::nullopt;
  else {
    if (!options.log || loops || !(options.engine.empty() || options.engine == "pfaffian")) return std::nullopt;
    if (!engines::plan_pfaffian(engines::pattern_of(block), block.rows).planar) return std::nullopt;
    return plan_of("pfaffian", block.rows, block.nnz());
  }
}

template <class E, class T>
E count_leaf(const Engine& engine, const SparseMatrix<T>& leaf, const EngineOptions& eo) {
  if constexpr (std::is_same_v<E, LogApprox>) {
    if (engine.name() == "kasteleyn") {
      const auto r = engines::kasteleyn_log_permanent(leaf, eo.max_bytes, engines::planar::Ordering::Auto,
                                                      engines::max_relative_error(leaf, eo));
      describe(r, leaf.rows, eo);
      return from(r);
    }
  }
  return engine.permanent(leaf, eo);
}

template <class E, class T>
E count_graph_leaf(const GraphEngine& engine, const SparseMatrix<T>& leaf, bool loops, const EngineOptions& eo) {
  if constexpr (std::is_same_v<E, LogApprox>) {
    if (engine.name() == "pfaffian" && !loops) {
      const auto r = engines::pfaffian_log_hafnian(leaf, eo.max_bytes, engines::planar::Ordering::Auto,
                                                   engines::max_relative_error(leaf, eo));
      describe(r, leaf.rows, eo);
      return from(r);
    }
  }
  return engine.hafnian(leaf, loops, eo);
}

LogApprox log_of_report(const CountReport& r) {
  if (r.value.log) return {r.value.log->sign, r.value.log->log_abs, r.value.log->error, r.value.log->estimated};
  // Counts settled before any engine (no perfect matching) keep their plain value.
  if (const auto* i = std::get_if<Integer>(&r.value.value)) return *i;
  if (const auto* d = std::get_if<double>(&r.value.value)) return Approx<double>{*d, r.value.abs_error, r.value.error_estimated};
  if (const auto* q = std::get_if<Rational>(&r.value.value))
    return q->get_num() == 0 ? LogApprox(Integer(0)) : mul(q->get_num(), inverse(q->get_den()));
  if (std::get<Complex>(r.value.value) == 0.0) return Integer(0);
  throw UsageError("--log counts integer, rational and real weights: a complex count has no real logarithm");
}

void finish_log(CountReport& report) {
  if (!report.value.log && !report.explained) store(report, log_of_report(report));
}

// Log counts take no checkpoint (refuse_checkpoint): their block values are never saved or
// resumed, and these exist for the block loops' shared code.
std::string encode_value(const LogApprox&) { throw std::logic_error("a --log count has no checkpoint"); }
bool decode_value(const std::string&, LogApprox&) { return false; }
template <class T>
bool within_permanent_bound(const SparseMatrix<T>&, const LogApprox&) { return false; }
template <class T>
bool within_hafnian_bound(const SparseMatrix<T>&, bool, const LogApprox&) { return false; }

void count_permanent_log(const AnyMatrix& input, const CountOptions& options, CountReport& report) {
  refuse_checkpoint(options);
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        if constexpr (std::is_same_v<T, Complex>) {
          throw UsageError("--log counts integer, rational and real weights: a complex count has no real logarithm");
        } else if constexpr (std::is_same_v<T, Rational>) {
          // perm(A) = perm(D A) / det(D), D = diag(lcm of each row's denominators), as count_permanent.
          std::vector<Integer> scale(static_cast<std::size_t>(m.rows), 1);
          for (const auto& e : m.entries)
            mpz_lcm(scale[std::size_t(e.row)].get_mpz_t(), scale[std::size_t(e.row)].get_mpz_t(), e.value.get_den_mpz_t());
          SparseMatrix<Integer> a = convert<Integer>(m, [](const Rational&) { return Integer(0); });
          for (std::size_t k = 0; k < m.entries.size(); ++k)
            a.entries[k].value = m.entries[k].value.get_num() * (scale[std::size_t(m.entries[k].row)] / m.entries[k].value.get_den());
          LogApprox v = count_blocks_log(a, options, report);
          for (const Integer& s : scale) v = mul(v, inverse(s));
          store(report, v);
        } else {
          store(report, count_blocks_log(m, options, report));
        }
      },
      input);
}

template <class T>
void count_hafnian_log(const SparseMatrix<T>& m, bool loops, const CountOptions& options, CountReport& report) {
  refuse_checkpoint(options);
  if constexpr (std::is_same_v<T, Complex>) {
    throw UsageError("--log counts integer, rational and real weights: a complex count has no real logarithm");
  } else if constexpr (std::is_same_v<T, Rational>) {
    // Edges times L^2 and loops times L, L the common denominator: lhaf(A) = lhaf(Z) / L^n.
    Integer l = 1;
    for (const auto& e : m.entries) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), e.value.get_den_mpz_t());
    SparseMatrix<Integer> z = convert<Integer>(m, [](const Rational&) { return Integer(0); });
    for (std::size_t k = 0; k < m.entries.size(); ++k) {
      const auto& e = m.entries[k];
      z.entries[k].value = e.value.get_num() * ((e.row == e.col ? l : Integer(l * l)) / e.value.get_den());
    }
    const LogApprox inv = inverse(l);
    store(report, mul(count_graph_blocks_log(z, loops, options, report), {1, inv.log * m.rows, inv.err * m.rows}));
  } else {
    store(report, count_graph_blocks_log(m, loops, options, report));
  }
}

#define MATCHCOUNT_LOG_COUNT(T)                                                                                 \
  template std::optional<EnginePlan> log_det_plan(const SparseMatrix<T>&, const CountOptions&);               \
  template std::optional<EnginePlan> log_pfaffian_plan(const SparseMatrix<T>&, bool, const CountOptions&);    \
  template bool within_permanent_bound(const SparseMatrix<T>&, const LogApprox&);                             \
  template bool within_hafnian_bound(const SparseMatrix<T>&, bool, const LogApprox&);                         \
  template void count_hafnian_log(const SparseMatrix<T>&, bool, const CountOptions&, CountReport&);          \
  template typename Evaluated<T>::type count_leaf(const Engine&, const SparseMatrix<T>&, const EngineOptions&); \
  template typename Evaluated<T>::type count_graph_leaf(const GraphEngine&, const SparseMatrix<T>&, bool,       \
                                                        const EngineOptions&);
template void count_hafnian_log(const SparseMatrix<Rational>&, bool, const CountOptions&, CountReport&);
MATCHCOUNT_LOG_COUNT(Integer)
MATCHCOUNT_LOG_COUNT(double)
MATCHCOUNT_LOG_COUNT(Complex)
template LogApprox count_leaf(const Engine&, const SparseMatrix<Integer>&, const EngineOptions&);
template LogApprox count_leaf(const Engine&, const SparseMatrix<double>&, const EngineOptions&);
template LogApprox count_graph_leaf(const GraphEngine&, const SparseMatrix<Integer>&, bool, const EngineOptions&);
template LogApprox count_graph_leaf(const GraphEngine&, const SparseMatrix<double>&, bool, const EngineOptions&);

}  // namespace matchcount::detail
