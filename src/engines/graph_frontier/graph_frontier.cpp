// The graph frontier engine (graph_frontier.hpp): number policies for the DP of
// graph_frontier_run.hpp, exact counts modulo primes below 2^50 with CRT, and floating counts
// with a DP of |A| that bounds their rounding error.
#include "engines/graph_frontier/graph_frontier.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/arith.hpp"
#include "engines/common.hpp"
#include "engines/entry_errors.hpp"
#include "engines/graph_frontier/graph_frontier_run.hpp"
#include "engines/modular_tables.hpp"
#include "matchcount/error.hpp"

namespace matchcount::engines {
namespace {

using graph_frontier_detail::GraphRun;
using graph_frontier_detail::GraphStep;

/// Residues modulo W primes below 2^50 (W fixed at compile time, so that a state's words stay
/// in registers), summed lazily: a new value gathers at most 65 terms (63 frontier neighbours,
/// a loop, or the open case alone), each below 2p < 2^51 (a Shoup product left unreduced), so
/// the sum stays below 2^58 and is reduced once, by Barrett.
template <bool Unit, int W>
struct ModPolicy {
  using Word = std::uint64_t;
  static constexpr int abs_word = -1, words = W;
  std::array<std::uint64_t, W> p{}, barrett{};  // per prime: p, barrett_factor(p)
  ShoupTable factors;                           // per distinct value and prime
  const std::vector<std::uint32_t>* value_of = nullptr;  // entry -> distinct value
  std::vector<Word> one() const { return std::vector<Word>(std::size_t(W), 1); }
  void zero(Word* d) const {
    for (int j = 0; j < W; ++j) d[j] = 0;
  }
  void add(Word* d, const Word* s, int e) const {
    if (Unit || e < 0) {
      for (int j = 0; j < W; ++j) d[j] += s[j];
      return;
    }
    const std::size_t i = std::size_t((*value_of)[std::size_t(e)]) * W;
    for (std::size_t j = 0; j < W; ++j) d[j] += shoup_mul_lazy(s[j], factors.residue[i + j], factors.quotient[i + j], p[j]);
  }
  void finish(Word* d) const {
    for (std::size_t j = 0; j < W; ++j) d[j] = barrett_reduce(d[j], p[j], barrett[j]);
  }
};

/// Most primes a pass: more would not stay in registers.
constexpr std::size_t kMaxWords = 8;

/// Value and |value| DP (words: the value's parts, then the bound on the sum of |terms|).
template <class T>
struct FloatPolicy {
  using Word = double;
  static constexpr bool cplx = std::is_same_v<T, Complex>;
  static constexpr int abs_word = cplx ? 2 : 1, words = abs_word + 1;
  std::vector<T> a;
  std::vector<double> abs_a;
  std::vector<Word> one() const { return cplx ? std::vector<Word>{1, 0, 1} : std::vector<Word>{1, 1}; }
  void zero(Word* d) const { std::fill(d, d + words, 0.0); }
  void add(Word* d, const Word* s, int e) const {
    if (e < 0) {
      for (int j = 0; j < words; ++j) d[j] += s[j];
    } else if constexpr (cplx) {
      const Complex& v = a[std::size_t(e)];  // written out: no __muldc3 call per term
      d[0] += s[0] * v.real() - s[1] * v.imag();
      d[1] += s[0] * v.imag() + s[1] * v.real();
      d[2] += s[2] * abs_a[std::size_t(e)];
    } else {
      d[0] += s[0] * a[std::size_t(e)];
      d[1] += s[1] * abs_a[std::size_t(e)];
    }
  }
  void finish(Word*) const {}
};

/// The memory the DP's tables may use: its own limit, or what the count's budget leaves the
/// engine when that is lower, less the engine's other structures.
template <class T>
double table_limit(const SparseMatrix<T>& a, const EngineOptions& opt) {
  return std::min(kGraphFrontierMemoryLimit, opt.max_bytes) - graph_frontier_other_bytes(a.rows, double(a.nnz()));
}
bool budget_limited(const EngineOptions& opt) { return opt.max_bytes < kGraphFrontierMemoryLimit; }

/// The best plan for `a`; RefusedError when its width exceeds the state bits or its tables with
/// `words` words a state would not fit the tables' limit (table_limit; BudgetError when the
/// budget set it).
template <class T>
GraphFrontierPlan checked_plan(const SparseMatrix<T>& a, bool loops, int words, const EngineOptions& opt) {
  std::vector<std::pair<int, int>> pattern;
  pattern.reserve(a.entries.size());
  for (const auto& e : a.entries)
    if (e.row != e.col) pattern.emplace_back(e.row, e.col);
  GraphFrontierPlan plan = plan_graph_frontier(pattern, a.rows);
  if (plan.width > kGraphFrontierMaxWidth)
    throw RefusedError("graph-frontier: the best vertex order found has frontier width " + std::to_string(plan.width) +
                       ", more than the " + std::to_string(kGraphFrontierMaxWidth) + " vertices a state holds");
  const double bytes = graph_frontier_bytes(plan, words, loops), limit = table_limit(a, opt);
  if (bytes > limit)
    refuse_memory(budget_limited(opt),
                  "graph-frontier: the best vertex order found has frontier width " + std::to_string(plan.width) +
                      ": tables of " + three_digits(bytes / double(1ull << 30)) + " GiB predicted, over the " +
                      (budget_limited(opt) ? "memory budget (--max-memory), which leaves its tables " : "limit of ") +
                      three_digits(std::max(limit, 0.0) / double(1ull << 30)) + " GiB");
  return plan;
}

/// Whether an entry takes part in the count (the diagonal only with loops).
template <class T>
bool counted(const Entry<T>& e, bool loops) {
  return loops || e.row != e.col;
}

/// The DP in doubles. Entries are scaled exactly by powers of two per vertex (a_ij by
/// 2^(e_i + e_j), a loop a_ii by 2^e_i, so every term of the hafnian carries 2^(sum e)) to
/// at most 1 in absolute value; integer entries below 2^64 are left as they are, so that the
/// count is known exact when every state's sum of |terms| stays below 2^53.
template <class T>
Approx<T> float_hafnian(const SparseMatrix<T>& a, bool loops, const EngineOptions& opt) {
  FloatPolicy<T> pol;
  const GraphFrontierPlan plan = checked_plan(a, loops, pol.words, opt);
  const auto steps = graph_frontier_steps(a, loops, plan);
  const auto n = std::size_t(a.rows);
  bool integral = true;
  for (const auto& e : a.entries) {
    const Complex v(e.value);
    if (!counted(e, loops)) continue;
    integral = integral && v.real() == std::trunc(v.real()) && v.imag() == std::trunc(v.imag()) &&
               std::abs(v) < 0x1p64;
  }
  std::vector<int> ex(n, 0);
  if (!integral) {
    std::vector<int> edge(n, INT_MIN), self(n, INT_MIN);
    for (const auto& e : a.entries) {
      if (!counted(e, loops)) continue;
      int x = 0;
      std::frexp(std::abs(e.value), &x);  // |value| < 2^x
      auto& m = e.row == e.col ? self[std::size_t(e.row)] : edge[std::size_t(e.row)];
      m = std::max(m, x);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int m = edge[i] == INT_MIN ? INT_MIN : edge[i] >= 0 ? (edge[i] + 1) / 2 : -(-edge[i] / 2);  // ceil(x/2)
      const int top = std::max(m, self[i]);
      ex[i] = top == INT_MIN ? 0 : -top;
    }
  }
  long total = 0;  // the result is the DP's value times 2^-total
  for (int x : ex) total += x;
  for (const auto& e : a.entries) {
    const int sh = ex[std::size_t(e.row)] + (e.row == e.col ? 0 : ex[std::size_t(e.col)]);
    if constexpr (FloatPolicy<T>::cplx) pol.a.push_back(Complex(std::ldexp(e.value.real(), sh), std::ldexp(e.value.imag(), sh)));
    else pol.a.push_back(std::ldexp(e.value, sh));
    pol.abs_a.push_back(std::abs(pol.a.back()));
  }
  TableMeter meter(table_limit(a, opt) - 24.0 * double(a.nnz()), budget_limited(opt));  // less the scaled entries
  meter.set_target(graph_frontier_bytes(plan, pol.words, loops));
  GraphRun<FloatPolicy<T>> run(pol, opt, loops, meter);
  const auto r = run.run(steps);
  if (run.step_max().size() < steps.size()) return {T(0), 0.0};  // no state survived
  auto up = [&](double x) { return std::ldexp(x, int(std::clamp(long(run.shift()) - total, -100000L, 100000L))); };
  T value;
  if constexpr (FloatPolicy<T>::cplx) value = Complex(up(r[0]), up(r[1]));
  else value = up(r[0]);
  // A term takes at most one product and (sources - 1) sums per vertex, each erring by u
  // relative (a complex one by 2u), so it errs by at most (1+u)^ops - 1 relative; bounded
  // against the same DP of |A| with a factor 2 of margin. Entries that carry errors move each
  // term by at most symmetric_perturbation of it (entry_errors.hpp), the whole by that of
  // haf(|A|), even where no operation rounded.
  double ops = 0;
  for (const auto& st : steps) ops += double(1 + st.back.size() + (st.loop >= 0 ? 1 : 0));
  if (FloatPolicy<T>::cplx) ops *= 2;
  const double abs_haf = up(r[std::size_t(pol.abs_word)]) * (1 + 2 * kEps * ops);
  const double moved = symmetric_perturbation(a, loops, opt) * abs_haf;
  // Integers (unscaled) whose every state's |terms| sum below 2^53: no operation rounded.
  if (integral && std::all_of(run.step_max().begin(), run.step_max().end(), [](double m) { return m < 0x1p53; }))
    return {value, moved};
  return {value, 2 * kEps * ops * abs_haf + moved + 0x1p-1074};
}

/// haf(a) modulo each prime, as many primes a pass as the memory limit allows (the tables and
/// the residue tables of the distinct entry values).
template <bool Unit>
std::vector<std::uint64_t> residues(const SparseMatrix<Integer>& a, bool loops, const std::vector<std::uint64_t>& primes,
                                    const EngineOptions& opt, const GraphFrontierTuning& tuning) {
  const GraphFrontierPlan plan = checked_plan(a, loops, 1, opt);
  const auto steps = graph_frontier_steps(a, loops, plan);
  const DistinctValues distinct = Unit ? DistinctValues{} : distinct_values(a);
  const std::vector<Integer>& values = distinct.values;
  // Each prime a pass adds a word to every state and the residue tables of the values: as many
  // a pass as fit the limit, one at least (checked_plan refused the block if one does not).
  const double limit = table_limit(a, opt);
  const std::size_t K = primes.size();
  std::size_t per_pass = kMaxWords;
  while (per_pass > 1 && graph_frontier_bytes(plan, int(per_pass), loops) + 16.0 * double(values.size() * per_pass) > limit)
    --per_pass;
  if (tuning.max_primes_per_pass > 0) per_pass = std::min(per_pass, tuning.max_primes_per_pass);
  const std::size_t passes = (K + per_pass - 1) / per_pass;
  std::vector<std::uint64_t> out;
  for (std::size_t b = 0; b < passes; ++b) {
    const std::size_t first = b * per_pass, count = std::min(K, first + per_pass) - first;
    EngineOptions o = opt;
    if (opt.progress) o.progress = [&](double f) { opt.progress((double(b) + f) / double(passes)); };
    auto pass = [&](auto words) {
      constexpr int W = decltype(words)::value;
      ModPolicy<Unit, W> pol;
      std::copy_n(primes.begin() + std::ptrdiff_t(first), W, pol.p.begin());
      for (int j = 0; j < W; ++j) pol.barrett[std::size_t(j)] = barrett_factor(pol.p[std::size_t(j)]);
      pol.value_of = &distinct.index_of;
      pol.factors = ShoupTable(values, pol.p);
      TableMeter meter(limit - 16.0 * double(values.size() * W), budget_limited(opt));
      meter.set_target(graph_frontier_bytes(plan, W, loops));
      const auto r = GraphRun<ModPolicy<Unit, W>>(pol, o, loops, meter).run(steps);
      out.insert(out.end(), r.begin(), r.end());
    };
    switch (count) {
      case 1: pass(std::integral_constant<int, 1>{}); break;
      case 2: pass(std::integral_constant<int, 2>{}); break;
      case 3: pass(std::integral_constant<int, 3>{}); break;
      case 4: pass(std::integral_constant<int, 4>{}); break;
      case 5: pass(std::integral_constant<int, 5>{}); break;
      case 6: pass(std::integral_constant<int, 6>{}); break;
      case 7: pass(std::integral_constant<int, 7>{}); break;
      default: pass(std::integral_constant<int, 8>{}); break;
    }
  }
  return out;
}

class GraphFrontierEngine final : public GraphEngine {
 public:
  std::string name() const override { return "graph-frontier"; }
  int max_n() const override { return 1 << 20; }
  bool loops() const override { return true; }

 protected:
  Integer count(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt) const override {
    return graph_frontier_hafnian(a, loops, opt, {});
  }
  Approx<double> count(const SparseMatrix<double>& a, bool loops, const EngineOptions& opt) const override {
    return float_hafnian(a, loops, opt);
  }
  Approx<Complex> count(const SparseMatrix<Complex>& a, bool loops, const EngineOptions& opt) const override {
    return float_hafnian(a, loops, opt);
  }
};

}  // namespace

Integer graph_frontier_hafnian(const SparseMatrix<Integer>& a, bool loops, const EngineOptions& opt,
                               const GraphFrontierTuning& tuning) {
  if (a.rows == 0) return 1;
  std::vector<std::uint64_t> primes;
  for (double p : choose_primes(hafnian_bound(a, loops))) primes.push_back(std::uint64_t(p));
  const bool unit = std::all_of(a.entries.begin(), a.entries.end(),
                                [&](const auto& e) { return !counted(e, loops) || e.value == 1; });
  return crt_symmetric(unit ? residues<true>(a, loops, primes, opt, tuning) : residues<false>(a, loops, primes, opt, tuning),
                       primes);
}

double graph_frontier_seconds(const GraphFrontierPlan& plan, int n, double primes, NumberKind kind, int cores,
                              bool unit, bool loops) {
  const double scale = loops ? 2 : 1;  // tables and gathers double with loops
  double per_unit = kGraphFrontierBase + (kind == NumberKind::Complex ? 3 * kGraphFrontierComplexWord : 2 * kGraphFrontierRealWord);
  double words = kind == NumberKind::Complex ? 3 : 2;
  if (primes > 0) {
    const double fit = std::clamp(std::floor(kGraphFrontierMemoryLimit / graph_frontier_state_bytes(plan, 1, loops)), 1.0,
                                  double(kMaxWords));
    const double passes = std::ceil(primes / fit);
    per_unit = passes * kGraphFrontierBase + primes * (unit ? kGraphFrontierUnitWord : kGraphFrontierModWord);
    words = std::min(primes, fit);
  }
  const double bytes = graph_frontier_state_bytes(plan, int(words), loops);
  const double memory = 1 + 0.25 * std::max(0.0, std::log2(bytes / double(16 << 20)));
  // Small tables get fewer threads (the run's thread_count: a thread per 2e6 quarter-nanosecond
  // steps of a vertex's gathers, about 3 sources of words + 1 words a state).
  const double cap = std::max(1.0, 6e-6 * plan.peak_states * scale * (words + 1));
  const double parallel = 1 + kGraphFrontierParallel * (std::min(double(std::max(cores, 1)), cap) - 1);
  return kGraphFrontierFixed + kGraphFrontierPerVertex * n + plan.cost * scale * per_unit * memory / parallel;
}

std::unique_ptr<GraphEngine> make_graph_frontier() { return std::make_unique<GraphFrontierEngine>(); }

}  // namespace matchcount::engines
