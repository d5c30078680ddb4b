// All matchings (matchcount/matchings.hpp): a vertex left unmatched is a vertex covered by a
// loop of weight y, so the monomer-dimer sum of a graph is the loop hafnian of its adjacency
// matrix with y on the diagonal, and count_hafnian counts it (components, reductions, the
// hafnian engines, exact over CRT primes). The matching polynomial sum_k m_k x^k comes from
// Z(x) at x = 0 .. floor(n/2) (edges times x, loops 1) by exact Newton interpolation; float
// weights are counted exactly as the binary fractions they are, then rounded, with a bound.
// Graphs of narrow frontier take graph-frontier's one DP whose states carry the polynomial
// instead (graph_frontier_polynomial.cpp), where that is predicted to cost less.
#include "matchcount/matchings.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include <omp.h>

#include "core/arith.hpp"
#include "core/tuning.hpp"
#include "engines/gpu_common.hpp"
#include "engines/graph_frontier/cuda/graph_frontier_job.hpp"
#include "engines/graph_frontier/graph_frontier.hpp"
#include "engines/matchings/tree_polynomial.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/engine.hpp"
#include "matchcount/error.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/one_block.hpp"
#include "pipeline/polynomial_checkpoint.hpp"

namespace matchcount {
namespace {

/// The number kind that holds both the matrix's and the loop's: 0 integer, 1 rational, 2
/// double, 3 complex (AnyMatrix's order).
int joined_kind(const AnyMatrix& a, const PermanentValue& loop) {
  return std::max(static_cast<int>(a.index()), static_cast<int>(loop.value.index()));
}

template <class U>
U value_as(const PermanentValue& v) {
  return std::visit(
      [](const auto& x) -> U {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, U>) return x;
        else if constexpr (std::is_same_v<T, Integer> && std::is_same_v<U, Rational>) return Rational(x);
        else if constexpr ((std::is_same_v<T, Integer> || std::is_same_v<T, Rational>) &&
                           (std::is_same_v<U, double> || std::is_same_v<U, Complex>))
          return U(x.get_d());
        else if constexpr (std::is_same_v<T, double> && std::is_same_v<U, Complex>) return Complex(x);
        else throw std::logic_error("value_as: a narrowing conversion");
      },
      v.value);
}

/// The graph `a` (checked: square, symmetric is count_hafnian's, no diagonal entry) with every
/// edge times `scale` and `loop` on the diagonal, as a matrix of kind U.
template <class U>
AnyMatrix with_loops(const AnyMatrix& a, const U& loop, const U& scale) {
  const int n = rows_of(a);
  if (n != cols_of(a)) throw std::invalid_argument("all matchings need a square symmetric adjacency matrix");
  const std::vector<U> d = detail::dense_as<U>(a);
  SparseMatrix<U> out{n, n, {}};
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const U& x = d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(c)];
      if (r == c) {
        if (!(x == U(0)))
          throw std::invalid_argument("all matchings count a graph without self-loops: entry (" + std::to_string(r + 1) +
                                      ", " + std::to_string(r + 1) + ") is on the diagonal");
        if (!(loop == U(0))) out.entries.push_back({r, r, loop});
      } else if (!(x == U(0)) && !(scale == U(0))) {
        out.entries.push_back({r, c, U(x * scale)});
      }
    }
  return out;
}

/// matching_polynomial, with a note of how it was counted in `notes` (when given).
std::vector<PermanentValue> polynomial_noted(const AnyMatrix& a, const CountOptions& options, std::vector<std::string>* notes,
                                             detail::PolynomialCheckpoint* saved = nullptr);

}  // namespace

CountReport count_matchings_report(const AnyMatrix& a, const PermanentValue& monomer_weight, bool polynomial,
                                   const CountOptions& options) {
  if (monomer_weight.log) throw UsageError("the monomer weight is a value, not a logarithm");
  if (options.log && polynomial)
    throw UsageError("--log gives the logarithm of the total; --polynomial prints the coefficients themselves");
  if (options.explain) throw UsageError("--explain does not apply to --matchings (yet)");
  CountOptions o = options;
  o.perfect_matchings = false;
  CountReport r;
  // With --polynomial the coefficients come first, in pieces kept in the checkpoint; the total
  // then takes no checkpoint of its own (one loop hafnian, as one piece would).
  CountReport pending;
  std::vector<PermanentValue> coefficients;
  std::optional<detail::PolynomialCheckpoint> saved;
  if (polynomial) {
    CountOptions p = o;
    p.checkpoint = nullptr;
    saved.emplace(options.checkpoint, a, monomer_weight, pending);
    coefficients = polynomial_noted(a, p, &pending.notes, &*saved);
    o.checkpoint = nullptr;
  }
  switch (joined_kind(a, monomer_weight)) {
    case 0:
    case 1: {  // exact: as fractions (count_hafnian scales them to integers)
      r = count_hafnian(with_loops<Rational>(a, value_as<Rational>(monomer_weight), Rational(1)), true, o);
      if (!r.value.log) r.value = detail::exact_value(detail::rational_of(r.value));  // --log: the logarithm of the exact total
      break;
    }
    case 2: r = count_hafnian(with_loops<double>(a, value_as<double>(monomer_weight), 1.0), true, o); break;
    default: r = count_hafnian(with_loops<Complex>(a, value_as<Complex>(monomer_weight), Complex(1)), true, o); break;
  }
  r.quantity = "matchings";
  r.rows = rows_of(a), r.cols = cols_of(a), r.nnz = nnz_of(a);
  if (polynomial) {
    r.polynomial = std::move(coefficients);
    r.notes.insert(r.notes.end(), pending.notes.begin(), pending.notes.end());
    saved->finish(r);
  }
  return r;
}

PermanentValue count_matchings(const AnyMatrix& a, const PermanentValue& monomer_weight, const CountOptions& options) {
  return count_matchings_report(a, monomer_weight, false, options).value;
}

namespace {

/// The coefficients by graph-frontier's one DP whose states carry polynomials, where its tables
/// fit in a quarter of the memory budget (and 2 GiB) and it is predicted to take less than the
/// k_max + 1 loop hafnians of the interpolation (each predicted as the planner predicts the
/// largest, at x = k_max), or MATCHCOUNT_MATCHING_POLYNOMIAL says dp; empty otherwise. Rationals are scaled to integers by their common
/// denominator L (m_k of L A is L^k m_k).
std::optional<std::vector<Rational>> by_frontier_dp(const AnyMatrix& a, const CountOptions& options,
                                                    std::vector<std::string>* notes) {
  const int n = rows_of(a), k_max = n / 2;
  const int knob = tuning::tuning().matching_polynomial;  // MATCHCOUNT_MATCHING_POLYNOMIAL
  if (n != cols_of(a) || n < 2 || knob == 2) return std::nullopt;
  const std::vector<Rational> d = detail::dense_as<Rational>(a);
  Integer l = 1;
  for (const auto& x : d) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), x.get_den_mpz_t());
  SparseMatrix<Integer> z{n, n, {}}, top{n, n, {}};
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const Rational& x = d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(c)];
      if (r == c) {
        top.entries.push_back({r, c, Integer(1)});
        if (x != 0) return std::nullopt;  // with_loops refuses it with its message
      } else if (x != 0) {
        z.entries.push_back({r, c, x.get_num() * (l / x.get_den())});
        top.entries.push_back({r, c, z.entries.back().value * k_max});
      }
    }
  const CountOptions budgeted = detail::with_memory_budget(options);
  const engines::GraphFrontierPlan plan = engines::graph_frontier_polynomial_plan(z);
  if (plan.width > engines::kGraphFrontierMaxWidth) return std::nullopt;
  // The CPU run's tables must fit in a quarter of the memory budget (and 2 GiB); the GPU's live
  // on the device (its launcher checks the device's memory).
  const double room = std::min(2.0 * (1ull << 30), budgeted.max_memory > 0 ? budgeted.max_memory / 4 : 2.0 * (1ull << 30));
  const bool cpu_ok = engines::graph_frontier_polynomial_bytes(plan, n) <= room;
  const bool gpu_fits = std::size_t(k_max) + 1 <= gpu::kGraphPolynomialMaxWords && options.device != DevicePolicy::Cpu;
  // Without room on the CPU only the GPU could run it: asking for a device is then worth it.
  if (!cpu_ok && !(gpu_fits && gpu_available())) return std::nullopt;
  SparseMatrix<Integer> moduli = z;
  for (auto& e : moduli.entries) e.value = abs(e.value);
  for (int i = 0; i < n; ++i) moduli.entries.push_back({i, i, Integer(1)});
  moduli.normalize();
  const int cores = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
  const double primes = double(choose_primes(hafnian_bound(moduli, true)).size());
  const double inf = std::numeric_limits<double>::infinity();
  const double cpu = cpu_ok ? engines::graph_frontier_polynomial_seconds(plan, n, primes, cores) : inf;
  // The GPU where asked, where the CPU's tables do not fit, or where the CPU run would take a
  // second or more and the GPU less. Whether a device is present is asked only then: asking
  // starts CUDA (0.1-0.2 s; docs/pipeline.md, "A device only where a GPU engine could win").
  const bool gpu_ok =
      gpu_fits && (options.device == DevicePolicy::Gpu || !cpu_ok || cpu >= 1.0) && gpu_available();
  const double gpu_seconds = gpu_ok ? engines::gpu_graph_polynomial_seconds(plan, n, primes) : inf;
  const bool on_gpu = gpu_ok && (options.device == DevicePolicy::Gpu || !cpu_ok || gpu_seconds < cpu);
  const double one = plan_graph_engine(top, true, options.device, options.threads).predicted_seconds;
  if (knob == 0 && !(std::min(cpu, gpu_seconds) <= (k_max + 1) * one)) return std::nullopt;
  EngineOptions eo = detail::block_options(budgeted, nullptr, nullptr);
  EngineStats stats;
  eo.stats = &stats;
  const auto on_cpu = [&] { return engines::graph_frontier_matching_polynomial(z, eo); };
  const std::vector<Integer> m =
      on_gpu ? engines::gpu_else_cpu(eo, [&] { return engines::gpu_graph_frontier_matching_polynomial(z, eo); }, on_cpu) : on_cpu();
  if (notes) {
    std::string note = "the polynomial: one frontier DP of polynomials (width " + std::to_string(plan.width) + ") on the " +
                       (stats.device == "gpu" ? "GPU" : "CPU");
    if (!stats.note.empty()) note += ", " + stats.note;
    notes->push_back(note);
  }
  std::vector<Rational> out;
  Integer scale = 1;  // L^k
  for (const Integer& x : m) {
    Rational q(x, scale);
    q.canonicalize();
    out.push_back(q);
    scale *= l;
  }
  return out;
}

/// The coefficients of one connected integer or rational graph, exactly; `notes` (if given)
/// says how.
/// With a checkpoint, its interpolation points are the slots from `points` on.
std::vector<Rational> connected_polynomial(const AnyMatrix& a, const CountOptions& options, std::vector<std::string>* notes,
                                           detail::PolynomialCheckpoint* saved, std::size_t points) {
  if (auto m = by_frontier_dp(a, options, notes)) return *m;
  const int n = rows_of(a), k_max = n / 2;
  if (notes) notes->push_back("the polynomial: interpolation over " + std::to_string(k_max) + " loop hafnians");
  CountOptions o = options;
  o.perfect_matchings = false;
  // Z(x) = sum_k m_k x^k at x = 0 .. k_max: edges times x, every loop 1.
  std::vector<Rational> z;
  for (int x = 0; x <= k_max; ++x) {
    if (x == 0) {
      if (n != cols_of(a)) throw std::invalid_argument("all matchings need a square symmetric adjacency matrix");
      (void)with_loops<Rational>(a, Rational(1), Rational(0));  // the checks alone
      z.emplace_back(1);
      continue;
    }
    const std::size_t slot = points + static_cast<std::size_t>(x - 1);
    if (auto kept = saved ? saved->saved(slot) : std::nullopt; kept && kept->size() == 1) {
      z.push_back(kept->front());
      continue;
    }
    const AnyMatrix m = with_loops<Rational>(a, Rational(1), Rational(x));
    z.push_back(detail::rational_of(count_hafnian(m, true, o).value));
    z.back().canonicalize();
    if (saved) saved->save(slot, {z.back()});
  }
  // Newton's divided differences at the points 0 .. k_max, then the power basis.
  std::vector<Rational> c = z;
  for (int j = 1; j <= k_max; ++j)
    for (int i = k_max; i >= j; --i) {
      c[static_cast<std::size_t>(i)] = (c[static_cast<std::size_t>(i)] - c[static_cast<std::size_t>(i - 1)]) / Rational(j);
      c[static_cast<std::size_t>(i)].canonicalize();
    }
  // p(x) = c_0 + (x - 0)(c_1 + (x - 1)(c_2 + ...)): Horner from the top, multiplying by (x - i).
  std::vector<Rational> p(static_cast<std::size_t>(k_max) + 1, Rational(0));
  for (int i = k_max; i >= 0; --i) {
    // p <- p * (x - i) + c_i
    std::vector<Rational> next(p.size(), Rational(0));
    for (std::size_t d = 0; d < p.size(); ++d) {
      if (p[d] == 0) continue;
      if (d + 1 < next.size()) next[d + 1] += p[d];
      next[d] -= p[d] * Rational(i);
    }
    next[0] += c[static_cast<std::size_t>(i)];
    p = std::move(next);
  }
  for (auto& q : p) q.canonicalize();
  return p;
}

/// The weights over their common denominator L: (L A as integers, L).
std::pair<SparseMatrix<Integer>, Integer> over_common_denominator(const SparseMatrix<Rational>& a) {
  Integer l = 1;
  for (const auto& e : a.entries) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), e.value.get_den_mpz_t());
  SparseMatrix<Integer> z{a.rows, a.cols, {}};
  for (const auto& e : a.entries) z.entries.push_back({e.row, e.col, e.value.get_num() * (l / e.value.get_den())});
  return {std::move(z), l};
}

/// The coefficients of an integer or rational graph, exactly: the product of its components'
/// polynomials, trees by the classical recursion (tree_polynomial.hpp), the others by
/// connected_polynomial. `notes` (if given) says how, each way once.
std::vector<Rational> exact_polynomial(const AnyMatrix& a, const CountOptions& options, std::vector<std::string>* notes,
                                       detail::PolynomialCheckpoint* saved) {
  const int n = rows_of(a);
  if (n != cols_of(a)) throw std::invalid_argument("all matchings need a square symmetric adjacency matrix");
  (void)with_loops<Rational>(a, Rational(1), Rational(0));  // the checks alone
  SparseMatrix<Rational> q{n, n, {}};
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        if constexpr (std::is_same_v<T, Integer> || std::is_same_v<T, Rational>)
          for (const auto& e : m.entries) q.entries.push_back({e.row, e.col, Rational(e.value)});
        else throw std::logic_error("exact_polynomial: a float matrix");
      },
      a);
  const auto components = graph_components(GraphPattern::of(q));
  std::vector<std::string> seen;
  const auto note = [&](const std::string& line) {
    if (notes && std::find(seen.begin(), seen.end(), line) == seen.end()) seen.push_back(line), notes->push_back(line);
  };
  std::vector<Rational> product{Rational(1)};
  int trees = 0;
  for (const auto& vertices : components) {
    // The component's slots: its polynomial, then its interpolation points.
    const std::size_t slot = saved ? saved->take(1 + vertices.size() / 2) : 0;
    if (vertices.size() < 2) continue;  // an isolated vertex: the polynomial 1
    std::vector<Rational> m;
    bool kept_piece = false;
    if (auto kept = saved ? saved->saved(slot) : std::nullopt) {
      m = std::move(*kept);
      kept_piece = true;
    } else if (const SparseMatrix<Rational> part = components.size() == 1 ? q : principal_submatrix(q, vertices);
               engines::is_forest(over_common_denominator(part).first)) {
      const auto [z, l] = over_common_denominator(part);
      ++trees;
      Integer scale = 1;  // L^k: m_k of L A is L^k m_k of A
      for (const Integer& c : engines::tree_matching_polynomial(z)) {
        m.emplace_back(c, scale);
        m.back().canonicalize();
        scale *= l;
      }
    } else {
      std::vector<std::string> how;
      m = connected_polynomial(AnyMatrix(part), options, notes ? &how : nullptr, saved, slot + 1);
      for (const auto& line : how) note(line);
    }
    if (saved && !kept_piece) saved->save(slot, m);
    std::vector<Rational> next(product.size() + m.size() - 1, Rational(0));
    for (std::size_t i = 0; i < product.size(); ++i)
      for (std::size_t j = 0; j < m.size(); ++j) next[i + j] += product[i] * m[j];
    for (auto& x : next) x.canonicalize();
    product = std::move(next);
  }
  if (trees > 0) note("the polynomial: " + std::to_string(trees) + (trees == 1 ? " tree" : " trees") + " by the classical recursion");
  if (components.size() > 1) note("the polynomial: the product of " + std::to_string(components.size()) + " components' polynomials");
  product.resize(static_cast<std::size_t>(n / 2) + 1, Rational(0));
  return product;
}

/// Float weights: a double is an exact binary fraction, so the polynomial of the doubles is
/// counted exactly and rounded once (get_d truncates: within 2u of the coefficient). Each double
/// stands for a number within u of itself relatively (the reader's rounding of a decimal, as
/// for every float count), which moves a k-edge matching's product by at most ((1 + u)^k - 1)
/// of its modulus: the bound adds ((1 + u)^k - 1) m_k(|A|), the polynomial of the moduli, also
/// exact. (A subnormal weight would be off by more than u of itself: refused.)
std::vector<PermanentValue> float_polynomial(const SparseMatrix<double>& a, const CountOptions& options,
                                             std::vector<std::string>* notes, detail::PolynomialCheckpoint* saved) {
  SparseMatrix<Rational> exact{a.rows, a.cols, {}}, modulus{a.rows, a.cols, {}};
  for (const auto& e : a.entries) {
    if (!std::isfinite(e.value)) throw std::invalid_argument("the matching polynomial needs finite weights");
    if (e.value != 0 && std::fabs(e.value) < std::numeric_limits<double>::min())
      throw RefusedError("the matching polynomial's bound does not cover subnormal weights (give them exactly, with --exact)");
    exact.entries.push_back({e.row, e.col, Rational(e.value)});
    modulus.entries.push_back({e.row, e.col, Rational(std::fabs(e.value))});
  }
  const std::vector<Rational> m = exact_polynomial(exact, options, notes, saved);
  if (saved) saved->second_pass();
  const std::vector<Rational> moduli = exact_polynomial(modulus, options, nullptr, saved);
  const Rational one_plus_u = Rational(1) + Rational(1, Integer(1) << 53);
  Rational grown = 1;  // (1 + u)^k
  std::vector<PermanentValue> out;
  for (std::size_t k = 0; k < m.size(); ++k) {
    Rational err = (grown - 1) * moduli[k] + Rational(2) * abs(m[k]) / Rational(Integer(1) << 53);
    err.canonicalize();
    PermanentValue v;
    v.value = m[k].get_d();
    v.abs_error = err.get_d() * (1 + 0x1p-50);  // get_d truncates: raised past its own rounding
    out.push_back(v);
    grown *= one_plus_u;
    grown.canonicalize();
  }
  return out;
}

}  // namespace

namespace {

/// Complex weights: both parts of every double are exact binary fractions, so over their common
/// denominator L the weights are Gaussian integers X + iY, whose polynomial the frontier DP counts
/// exactly (graph_frontier_gaussian_polynomial); m_k is that over L^k, rounded once. The bound
/// adds ((1 + u)^k - 1) times the polynomial of |X| + |Y| over L^k (at least that of the moduli:
/// it covers each part's own rounding from the decimals written), and the final rounding. Graphs
/// whose tables do not fit are refused: there is no interpolation for complex weights.
std::vector<PermanentValue> complex_polynomial(const SparseMatrix<Complex>& a, const CountOptions& options,
                                               std::vector<std::string>* notes) {
  const int n = a.rows;
  if (n != a.cols) throw std::invalid_argument("all matchings need a square symmetric adjacency matrix");
  std::vector<std::pair<Rational, Rational>> parts;
  Integer l = 1;
  for (const auto& e : a.entries) {
    if (e.row == e.col)
      throw std::invalid_argument("all matchings count a graph without self-loops: entry (" + std::to_string(e.row + 1) + ", " +
                                  std::to_string(e.row + 1) + ") is on the diagonal");
    for (double x : {e.value.real(), e.value.imag()}) {
      if (!std::isfinite(x)) throw std::invalid_argument("the matching polynomial needs finite weights");
      if (x != 0 && std::fabs(x) < std::numeric_limits<double>::min())
        throw RefusedError("the matching polynomial's bound does not cover subnormal weights");
    }
    parts.emplace_back(Rational(e.value.real()), Rational(e.value.imag()));
    mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), parts.back().first.get_den_mpz_t());
    mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), parts.back().second.get_den_mpz_t());
  }
  SparseMatrix<Integer> re{n, n, {}}, im{n, n, {}}, moduli{n, n, {}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& e = a.entries[i];
    const Integer x = parts[i].first.get_num() * (l / parts[i].first.get_den());
    const Integer y = parts[i].second.get_num() * (l / parts[i].second.get_den());
    if (x != 0) re.entries.push_back({e.row, e.col, x});
    if (y != 0) im.entries.push_back({e.row, e.col, y});
    moduli.entries.push_back({e.row, e.col, abs(x) + abs(y)});
  }
  const CountOptions budgeted = detail::with_memory_budget(options);
  const EngineOptions eo = detail::block_options(budgeted, nullptr, nullptr);
  const auto m = engines::graph_frontier_gaussian_polynomial(re, im, eo);
  const std::vector<Integer> bound = engines::graph_frontier_matching_polynomial(moduli, eo);
  if (notes) notes->push_back("the polynomial: the frontier DP of polynomials over Gaussian integers (complex weights)");
  const Rational one_plus_u = Rational(1) + Rational(1, Integer(1) << 53);
  Rational grown = 1, scale = 1;  // (1 + u)^k, L^k
  std::vector<PermanentValue> out;
  for (std::size_t k = 0; k < m.size(); ++k) {
    Rational x(m[k].first, Integer(scale.get_num())), y(m[k].second, Integer(scale.get_num())), b(bound[k], Integer(scale.get_num()));
    x.canonicalize(), y.canonicalize(), b.canonicalize();
    PermanentValue v;
    v.value = Complex(x.get_d(), y.get_d());
    Rational err = (grown - 1) * b + Rational(2) * (abs(x) + abs(y)) / Rational(Integer(1) << 53);
    err.canonicalize();
    v.abs_error = err.get_d() * (1 + 0x1p-50);
    out.push_back(v);
    grown *= one_plus_u, grown.canonicalize();
    scale *= Rational(l);
  }
  return out;
}

std::vector<PermanentValue> polynomial_noted(const AnyMatrix& a, const CountOptions& options, std::vector<std::string>* notes,
                                             detail::PolynomialCheckpoint* saved) {
  if (a.index() == 3) return complex_polynomial(std::get<SparseMatrix<Complex>>(a), options, notes);
  if (a.index() == 2) return float_polynomial(std::get<SparseMatrix<double>>(a), options, notes, saved);
  std::vector<PermanentValue> out;
  for (const Rational& q : exact_polynomial(a, options, notes, saved)) out.push_back(detail::exact_value(q));
  return out;
}

}  // namespace

std::vector<PermanentValue> matching_polynomial(const AnyMatrix& a, const CountOptions& options) {
  return polynomial_noted(a, options, nullptr);
}

}  // namespace matchcount
