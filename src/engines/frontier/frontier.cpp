// The frontier engine (frontier.hpp): number policies for the DP of frontier_run.hpp, exact
// counts modulo primes below 2^50 with CRT, and floating counts with a DP of |A| that bounds
// their rounding error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/frontier/frontier.hpp"
#include "engines/frontier/frontier_run.hpp"
#include "engines/modular_tables.hpp"

namespace matchcount::engines {
namespace {

using frontier_detail::FrontierRun;

/// Residues modulo primes below 2^50 (Shoup multiplication by the fixed entry residues;
/// none for 0-1 matrices).
template <bool Unit>
struct ModPolicy {
  using Word = std::uint64_t;
  int words = 0, abs_word = -1;
  std::vector<std::uint64_t> p;  // primes
  ShoupTable factors;            // per distinct value and prime
  const std::vector<std::uint32_t>* value_of = nullptr;  // entry -> distinct value
  std::vector<Word> one() const { return std::vector<Word>(std::size_t(words), 1); }
  std::uint64_t mul(std::uint64_t x, std::size_t i, std::size_t j) const {
    return shoup_mul(x, factors.residue[i + j], factors.quotient[i + j], p[j]);
  }
  std::size_t row(int e) const { return Unit ? 0 : std::size_t((*value_of)[std::size_t(e)]) * std::size_t(words); }
  void set(Word* d, const Word* s, int e) const {
    const std::size_t i = row(e);
    for (std::size_t j = 0; j < std::size_t(words); ++j) d[j] = Unit ? s[j] : mul(s[j], i, j);
  }
  void add(Word* d, const Word* s, int e) const {
    const std::size_t i = row(e);
    for (std::size_t j = 0; j < std::size_t(words); ++j) d[j] = add_mod(d[j], Unit ? s[j] : mul(s[j], i, j), p[j]);
  }
};

/// Value and |value| DP (words: value parts then the absolute bound).
template <class T>
struct FloatPolicy {
  using Word = double;
  static constexpr bool cplx = std::is_same_v<T, Complex>;
  int words = cplx ? 3 : 2, abs_word = words - 1;
  std::vector<T> a;
  std::vector<double> abs_a;
  std::vector<Word> one() const { return cplx ? std::vector<Word>{1, 0, 1} : std::vector<Word>{1, 1}; }
  void set(Word* d, const Word* s, int e) const {
    if constexpr (cplx) {
      const Complex& v = a[std::size_t(e)];  // written out: no __muldc3 call per term
      d[0] = s[0] * v.real() - s[1] * v.imag(), d[1] = s[0] * v.imag() + s[1] * v.real();
      d[2] = s[2] * abs_a[std::size_t(e)];
    } else {
      d[0] = s[0] * a[std::size_t(e)], d[1] = s[1] * abs_a[std::size_t(e)];
    }
  }
  void add(Word* d, const Word* s, int e) const {
    Word t[3];
    set(t, s, e);
    for (int j = 0; j < words; ++j) d[j] += t[j];
  }
};

/// The memory the DP's tables may use: its own limit, or what the count's budget leaves the
/// engine when that is lower, less the engine's other structures.
double memory_limit(const EngineOptions& opt) { return std::min(kFrontierMemoryLimit, opt.max_bytes); }
template <class T>
double table_limit(const SparseMatrix<T>& a, const EngineOptions& opt) {
  return memory_limit(opt) - frontier_other_bytes(a.rows, double(a.nnz()));
}
bool budget_limited(const EngineOptions& opt) { return opt.max_bytes < kFrontierMemoryLimit; }

/// The best plan for `a`; RefusedError when its width exceeds the keys or the states with
/// `words` value words each would not fit the tables' limit (table_limit; BudgetError when the
/// budget set it).
template <class T>
FrontierPlan checked_plan(const SparseMatrix<T>& a, int words, const EngineOptions& opt) {
  FrontierPlan plan = plan_frontier(pattern_of(a), a.rows);
  if (plan.width > kFrontierMaxWidth)
    throw RefusedError("frontier: the best row order found has frontier width " + std::to_string(plan.width) +
                       ", more than the " + std::to_string(kFrontierMaxWidth) + " columns a state key holds");
  const double bytes = frontier_bytes(plan, words), limit = table_limit(a, opt);
  if (bytes > limit)
    refuse_memory(budget_limited(opt),
                  "frontier: the best row order found has frontier width " + std::to_string(plan.width) + " and up to " +
                      three_digits(plan.peak_states) + " live states: " + three_digits(bytes / double(1ull << 30)) +
                      " GiB predicted, over the " +
                      (budget_limited(opt) ? "memory budget (--max-memory), which leaves its tables " : "limit of ") +
                      three_digits(std::max(limit, 0.0) / double(1ull << 30)) + " GiB");
  return plan;
}

/// The DP on a matrix scaled exactly by powers of two (every |entry| <= 1, each row's and
/// column's largest near 1; integer matrices by rows only), so that states neither over- nor
/// underflow unless terms are tiny beside the largest; the result is scaled back.
template <class T>
Approx<T> float_permanent(const SparseMatrix<T>& a, const EngineOptions& opt) {
  FloatPolicy<T> pol;
  const double limit = table_limit(a, opt);
  const FrontierPlan plan = checked_plan(a, pol.words, opt);
  const bool integral = integral_rows(a);
  const auto n = static_cast<std::size_t>(a.rows);
  auto row_of = [&](const Entry<T>& e) { return std::size_t(plan.transposed ? e.col : e.row); };
  auto col_of = [&](const Entry<T>& e) { return std::size_t(plan.transposed ? e.row : e.col); };
  auto scale = [](T v, int sh) {
    if constexpr (FloatPolicy<T>::cplx) return Complex(std::ldexp(v.real(), sh), std::ldexp(v.imag(), sh));
    else return std::ldexp(v, sh);
  };
  std::vector<int> ex;  // exponents first, then one exact ldexp per entry
  for (const auto& e : a.entries) ex.emplace_back(), std::frexp(std::abs(e.value), &ex.back());
  // Max-plus balancing in the two orders (rows then columns, columns then rows); the one with
  // the smaller product of scales bounds the largest term more tightly.
  auto balance = [&](bool rows_first, std::vector<int>& rs, std::vector<int>& cs) {
    rs.assign(n, std::numeric_limits<int>::min()), cs.assign(n, std::numeric_limits<int>::min());
    auto& first = rows_first ? rs : cs;
    auto& second = rows_first ? cs : rs;
    auto first_of = [&](std::size_t i) { return rows_first ? row_of(a.entries[i]) : col_of(a.entries[i]); };
    auto second_of = [&](std::size_t i) { return rows_first ? col_of(a.entries[i]) : row_of(a.entries[i]); };
    for (std::size_t i = 0; i < ex.size(); ++i) first[first_of(i)] = std::max(first[first_of(i)], ex[i]);
    for (std::size_t i = 0; i < ex.size(); ++i)
      second[second_of(i)] = std::max(second[second_of(i)], integral ? 0 : ex[i] - first[first_of(i)]);
    long t = 0;
    for (std::size_t i = 0; i < n; ++i) t += long(rs[i]) + long(cs[i]);
    return t;
  };
  std::vector<int> shift, col_shift, rs, cs;
  long total = balance(true, shift, col_shift);
  if (!integral && balance(false, rs, cs) < total) shift.swap(rs), col_shift.swap(cs);
  total = 0;  // the column scales; the row scales join row by row below
  for (int c : col_shift) total += c;
  for (std::size_t i = 0; i < ex.size(); ++i) {
    const auto& e = a.entries[i];
    pol.a.push_back(scale(e.value, -shift[row_of(e)] - col_shift[col_of(e)]));
    pol.abs_a.push_back(std::abs(pol.a.back()));
  }
  TableMeter meter(limit - 16.0 * double(a.nnz()), budget_limited(opt));  // less the scaled entries
  meter.set_target(frontier_bytes(plan, pol.words));
  FrontierRun<FloatPolicy<T>> run(pol, opt, meter);
  auto r = run.run(frontier_steps(a, plan));
  // Integral entries and every state's |terms| sum below 2^52: no operation rounded (the
  // states after k rows all carry the same scale 2^-(shifts of those rows)).
  bool exact = integral;
  for (std::size_t k = 0; k < run.row_max().size(); ++k) {
    total += shift[std::size_t(plan.row_order[k])];
    exact = exact && std::ldexp(run.row_max()[k], int(std::clamp(total, -4096L, 4096L))) < 0x1p52;
  }
  if (run.row_max().size() < plan.row_order.size()) return {T(0), 0.0};  // no state survived
  auto up = [&](double x) { return std::ldexp(x, int(std::clamp(total, -8192L, 8192L))); };
  T value;
  if constexpr (FloatPolicy<T>::cplx) value = Complex(up(r[0]), up(r[1]));
  else value = up(r[0]);
  // Each term takes n products and at most nnz - n sums (a complex product or sum errs by at
  // most 2u relative, a real one by u), bounded against the same DP of |A| (which itself rounds
  // by as much, upwards here); entries that carry errors move each term by at most
  // relative_perturbation of it (entry_errors.hpp), so the whole by that of perm(|A|).
  const double ops = double(a.nnz() + std::size_t(a.rows)) * (FloatPolicy<T>::cplx ? 2 : 1);
  const double abs_perm = up(r[std::size_t(pol.abs_word)]) * (1 + 2 * kEps * ops);
  const double moved = relative_perturbation(a, opt) * abs_perm;
  if (exact) return {value, moved};
  return {value, 2 * kEps * ops * abs_perm + moved + 0x1p-1074};
}

/// perm(a) modulo each prime, as many primes per pass as the memory limit allows (states
/// and the residue tables of the distinct entry values).
template <bool Unit>
std::vector<std::uint64_t> residues(const SparseMatrix<Integer>& a, const std::vector<std::uint64_t>& primes,
                                    const EngineOptions& opt, const FrontierTuning& tuning) {
  const double limit = table_limit(a, opt);
  FrontierPlan plan = checked_plan(a, 1, opt);
  const auto steps = frontier_steps(a, plan);
  const DistinctValues distinct = Unit ? DistinctValues{} : distinct_values(a);
  const std::vector<Integer>& values = distinct.values;
  // Each prime a pass adds a word to every state and the residue tables of the values: as many
  // a pass as fit the limit, one at least (checked_plan refused the block if one does not).
  const std::size_t K = primes.size();
  std::size_t per_pass = K;
  while (per_pass > 1 && frontier_bytes(plan, int(per_pass)) + 16.0 * double(values.size() * per_pass) > limit) --per_pass;
  if (tuning.max_primes_per_pass > 0) per_pass = std::min(per_pass, tuning.max_primes_per_pass);
  const std::size_t passes = (K + per_pass - 1) / per_pass;
  std::vector<std::uint64_t> out;
  for (std::size_t b = 0; b < passes; ++b) {
    ModPolicy<Unit> pol;
    pol.p.assign(primes.begin() + std::ptrdiff_t(b * per_pass), primes.begin() + std::ptrdiff_t(std::min(K, (b + 1) * per_pass)));
    pol.words = int(pol.p.size());
    pol.value_of = &distinct.index_of;
    pol.factors = ShoupTable(values, pol.p);
    EngineOptions o = opt;
    if (opt.progress) o.progress = [&](double f) { opt.progress((double(b) + f) / double(passes)); };
    TableMeter meter(limit - 16.0 * double(values.size() * pol.p.size()), budget_limited(opt));
    meter.set_target(frontier_bytes(plan, pol.words));
    auto r = FrontierRun<ModPolicy<Unit>>(pol, o, meter, tuning.count_first).run(steps);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

class FrontierEngine final : public Engine {
 public:
  std::string name() const override { return "frontier"; }
  int max_n() const override { return 1 << 20; }

  Integer count(const SparseMatrix<Integer>& a, const EngineOptions& opt) const override {
    return frontier_permanent(a, opt, {});
  }

  Approx<double> count(const SparseMatrix<double>& a, const EngineOptions& opt) const override {
    return float_permanent(a, opt);
  }

  Approx<Complex> count(const SparseMatrix<Complex>& a, const EngineOptions& opt) const override {
    return float_permanent(a, opt);
  }
};

}  // namespace

Integer frontier_permanent(const SparseMatrix<Integer>& a, const EngineOptions& opt, const FrontierTuning& tuning) {
  check_block(a, "frontier", FrontierEngine().max_n());
  if (a.rows == 0) return 1;
  if (has_empty_line(a)) return 0;
  std::vector<std::uint64_t> primes;
  for (double p : choose_primes(permanent_bound(a))) primes.push_back(std::uint64_t(p));
  bool unit = std::all_of(a.entries.begin(), a.entries.end(), [](const auto& e) { return e.value == 1; });
  return crt_symmetric(unit ? residues<true>(a, primes, opt, tuning) : residues<false>(a, primes, opt, tuning), primes);
}

std::unique_ptr<Engine> make_frontier() { return std::make_unique<FrontierEngine>(); }

}  // namespace matchcount::engines
