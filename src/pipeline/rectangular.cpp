// The rectangular permanent: transpose to rows <= columns, a row without entries or without a
// matching into the columns gives 0, empty columns are dropped, and the connected components
// of the bipartite graph are counted apart (the permanent is their product: an injective map
// is one per component). A square component goes through the whole square pipeline; the
// others to rect-ryser, rect-dp or, when the square engines are predicted cheaper, padded with
// n - m rows of ones into an n x n matrix whose permanent is (n - m)! times theirs.
#include "pipeline/rectangular.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "engines/common.hpp"
#include "engines/rectangular/rectangular.hpp"
#include "core/arith.hpp"
#include "engines/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/memory.hpp"
#include "pipeline/entry_errors.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/memory_budget.hpp"

namespace matchcount::detail {
namespace {

using Clock = std::chrono::steady_clock;
/// Padding multiplies by (n - m)!, exact in doubles up to 22!: at most this many rows.
constexpr int kMaxPadRows = 20;
/// The padded matrix goes through the whole square pipeline (matching, decomposition, a
/// block's primes and CRT): a fixed cost the square planner does not count.
constexpr double kPadSeconds = 5e-5;
/// Seconds of one CPU Ryser row-step, the pipeline's unit of work (CountOptions::max_work).
constexpr double kRyserStepSeconds = 2.6e-10;

/// Divides each row by the gcd of its entries (columns not: an unused column would take its
/// factor along).
Integer row_content(SparseMatrix<Integer>& a) {
  std::vector<Integer> g(static_cast<std::size_t>(a.rows), 0);
  for (const auto& e : a.entries) mpz_gcd(g[e.row].get_mpz_t(), g[e.row].get_mpz_t(), e.value.get_mpz_t());
  for (auto& e : a.entries) e.value /= g[e.row];
  Integer total = 1;
  for (const auto& x : g)
    if (x != 0) total *= x;
  return total;
}

std::string shape(int m, int n) { return std::to_string(m) + "x" + std::to_string(n); }

template <class T>
class RectCounter {
 public:
  using V = typename Evaluated<T>::type;
  RectCounter(const CountOptions& options, CountReport& report) : options_(options), report_(report) {}

  /// perm(a) for a.rows < a.cols.
  V count(const SparseMatrix<T>& a) {
    if (!options_.preprocess) return component(a);
    const Matching mm = hopcroft_karp(Pattern::of(a));
    report_.matching_size = mm.size;
    if (mm.size < a.rows) {
      report_.notes.push_back("a maximum matching has " + std::to_string(mm.size) + " of " + std::to_string(a.rows) +
                              " rows: no injective map has a nonzero product, the permanent is 0");
      return V{zero()};
    }
    // Connected components of rows and columns (union-find; columns are a.rows + j).
    std::vector<int> parent(static_cast<std::size_t>(a.rows + a.cols));
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (const auto& e : a.entries) parent[find(e.row)] = find(a.rows + e.col);
    std::vector<int> comp_of(parent.size(), -1), local(parent.size());
    std::vector<SparseMatrix<T>> parts;
    auto place = [&](int x) {
      const int root = find(x);
      if (comp_of[root] < 0) comp_of[root] = static_cast<int>(parts.size()), parts.emplace_back();
      SparseMatrix<T>& p = parts[comp_of[root]];
      local[x] = x < a.rows ? p.rows++ : p.cols++;
      return comp_of[root];
    };
    std::vector<int> comp(parent.size(), -1);
    std::size_t empty_cols = 0;
    for (int i = 0; i < a.rows; ++i) comp[i] = place(i);
    for (const auto& e : a.entries)
      if (comp[a.rows + e.col] < 0) comp[a.rows + e.col] = place(a.rows + e.col);
    for (int j = 0; j < a.cols; ++j) empty_cols += comp[a.rows + j] < 0;
    for (const auto& e : a.entries) parts[comp[e.row]].entries.push_back({local[e.row], local[a.rows + e.col], e.value});
    if (empty_cols > 0) report_.notes.push_back(std::to_string(empty_cols) + " empty column(s) dropped");
    if (parts.size() > 1)
      report_.notes.push_back(std::to_string(parts.size()) + " connected components, counted apart");
    V value = V{T(1)};
    for (auto& p : parts) {
      p.normalize();
      value = mul(value, p.rows == p.cols ? square(p, 0) : component(p));
    }
    return value;
  }

 private:
  static T zero() { return T(0); }

  /// A square matrix through the whole pipeline; its report joins ours. With `pad` rows of
  /// ones in it, the result is divided by pad!.
  V square(const SparseMatrix<T>& b, int pad) {
    CountOptions o = options_;
    o.perfect_matchings = true;
    o.checkpoint = nullptr;
    if (o.engine == "rect-ryser" || o.engine == "rect-dp") o.engine.clear();
    const CountReport sub = count_permanent(AnyMatrix(b), o);
    report_.dm_blocks += sub.dm_blocks;
    report_.dm_deleted_entries += sub.dm_deleted_entries;
    report_.dm_block_sizes.insert(report_.dm_block_sizes.end(), sub.dm_block_sizes.begin(), sub.dm_block_sizes.end());
    ReduceStats& r = report_.reduce;
    r.lines_multiplied_out += sub.reduce.lines_multiplied_out, r.merges += sub.reduce.merges;
    r.branches += sub.reduce.branches, r.leaves += sub.reduce.leaves, r.zero_branches += sub.reduce.zero_branches;
    r.branchings_undone += sub.reduce.branchings_undone;
    report_.engine_runs.insert(report_.engine_runs.end(), sub.engine_runs.begin(), sub.engine_runs.end());
    report_.notes.insert(report_.notes.end(), sub.notes.begin(), sub.notes.end());
    for (const auto& [stage, s] : sub.stage_seconds) add_stage(stage, s);
    report_.explained = report_.explained || sub.explained;
    if (sub.explained) return V{zero()};
    Integer factorial;
    mpz_fac_ui(factorial.get_mpz_t(), static_cast<unsigned long>(pad));
    if constexpr (std::is_same_v<T, Integer>) {
      const Integer& v = std::get<Integer>(sub.value.value);
      if (!mpz_divisible_p(v.get_mpz_t(), factorial.get_mpz_t()))
        throw std::logic_error("the padded permanent is not a multiple of " + factorial.get_str());
      return Integer(v / factorial);
    } else {
      const double f = factorial.get_d();  // exact for pad <= 22
      const T v = std::get<T>(sub.value.value) / f;
      return {v, sub.value.abs_error / f + kEps * std::abs(v), sub.value.error_estimated};
    }
  }

  void add_stage(const std::string& stage, double s) {
    if (stage == "total") return;
    for (auto& [name, t] : report_.stage_seconds)
      if (name == stage) {
        t += s;
        return;
      }
    report_.stage_seconds.push_back({stage, s});
  }

  /// A rectangular m x n block (m < n, no empty row): the engine predicted fastest.
  V component(const SparseMatrix<T>& b) {
    const int m = b.rows, n = b.cols, pad = n - m;
    const int cores = std::max(1, options_.threads > 0 ? options_.threads : omp_get_max_threads());
    std::size_t primes = 0;
    if constexpr (std::is_same_v<T, Integer>) primes = choose_primes(engines::rect_bound(b)).size();
    const bool cplx = std::is_same_v<T, Complex>;
    const double ryser = engines::rect_ryser_seconds(m, n, primes, cplx, options_.threads);
    // rect-dp's tables of 2^m row sets beyond what the budget leaves: passed over.
    const bool dp_over_budget =
        engines::rect_dp_bytes(m, primes > 0, cplx) > detail::engine_bytes_left(options_.max_memory);
    const double dp = dp_over_budget ? std::numeric_limits<double>::infinity()
                                     : engines::rect_dp_seconds(m, n, b.nnz(), primes, cplx, options_.threads);
    // Floats: Ryser's alternating sum cancels and its error bound grows with the sum of the
    // absolute terms, while the program's only sums products of entries: rect-dp is taken
    // unless four times slower.
    const double accuracy = std::is_same_v<T, Integer> ? 1.0 : 4.0;
    std::string engine = ryser * accuracy < dp ? "rect-ryser" : "rect-dp";
    double predicted = engine == "rect-ryser" ? ryser : dp;
    const bool forced = !options_.engine.empty();
    if (forced) {
      engine = options_.engine == "rect-ryser" || options_.engine == "rect-dp" ? options_.engine : "pad";
      predicted = engine == "rect-ryser" ? ryser : engine == "rect-dp" ? dp : 0.0;
    } else if (pad <= kMaxPadRows && options_.preprocess) {
      const double padded =
          kPadSeconds + plan_engine(padded_matrix(b), options_.device, options_.threads).predicted_seconds;
      if (padded < predicted) engine = "pad", predicted = padded;
    }
    if (engine == "pad") {
      if (pad > kMaxPadRows && !forced)
        throw RefusedError("padding a " + shape(m, n) + " block takes more than " + std::to_string(kMaxPadRows) + " rows");
      report_.notes.push_back("a " + shape(m, n) + " block padded with " + std::to_string(pad) +
                              " row(s) of ones: its permanent is the " + shape(n, n) + " permanent divided by " +
                              std::to_string(pad) + "!");
      return square(padded_matrix(b), pad);
    }
    // Only the budget stood in rect-dp's way: a larger one may count the block.
    if (!std::isfinite(predicted) && dp_over_budget && m <= 40 &&
        engines::rect_dp_bytes(m, primes > 0, cplx) <= engines::kRectDpMaxBytes)
      throw BudgetError("the rectangular permanent of a " + shape(m, n) + " block does not fit: rect-dp needs tables of about " +
                        memory_text(engines::rect_dp_bytes(m, primes > 0, cplx)) + ", over the memory budget of " +
                        memory_text(options_.max_memory) + " (--max-memory)" +
                        (forced ? "" : "; rect-ryser would visit " + engines::three_digits(engines::rect_subsets(m, n)) +
                                           " column subsets (limit " + engines::three_digits(engines::kRectRyserMaxSubsets) + ")"));
    if (!std::isfinite(predicted))
      throw RefusedError("the rectangular permanent of a " + shape(m, n) + " block is beyond reach: rect-ryser would visit " +
                         engines::three_digits(engines::rect_subsets(m, n)) + " column subsets (limit " +
                         engines::three_digits(engines::kRectRyserMaxSubsets) + ") and rect-dp needs tables of 2^" +
                         std::to_string(m) + " row sets (limit " +
                         engines::three_digits(engines::kRectDpMaxBytes / (1u << 30)) + " GiB)");
    if (predicted * cores / kRyserStepSeconds > options_.max_work)
      throw RefusedError("a " + shape(m, n) + " block needs about " +
                         engines::three_digits(predicted * cores / kRyserStepSeconds) +
                         " Ryser steps of work, more than the limit of " + engines::three_digits(options_.max_work));
    BlockRun run;
    run.n = m, run.nnz = b.nnz(), run.engine = engine, run.predicted_seconds = predicted;
    run.stats.note = "a " + shape(m, n) + " block";
    ++report_.reduce.leaves;
    if (options_.explain) {
      report_.engine_runs.push_back(run);
      report_.explained = true;
      return V{zero()};
    }
    EngineOptions eo;
    eo.threads = options_.threads;
    eo.progress = options_.progress;
    if (options_.max_memory > 0) eo.max_bytes = detail::engine_bytes_left(options_.max_memory);
    set_entry_errors<T>(eo, &errors_);  // the entries as read: nothing here computes new ones
    const auto t0 = Clock::now();
    V v = engine == "rect-ryser" ? engines::rect_ryser(b, eo) : engines::rect_dp(b, eo);
    run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    add_stage("engines", run.seconds);
    report_.engine_runs.push_back(run);
    return v;
  }

  static SparseMatrix<T> padded_matrix(const SparseMatrix<T>& b) {
    SparseMatrix<T> p = b;
    p.rows = b.cols;
    for (int i = b.rows; i < b.cols; ++i)
      for (int j = 0; j < b.cols; ++j) p.entries.push_back({i, j, T(1)});
    return p;
  }

  const CountOptions& options_;
  CountReport& report_;
  EntryErrors errors_;  // floats: what the entries stand for (entry_errors.hpp)
};

template <class T>
typename Evaluated<T>::type count_oriented(SparseMatrix<T> a, const CountOptions& options, CountReport& report) {
  if (a.rows > a.cols) {
    a = transpose(a);
    report.notes.push_back("more rows than columns: the permanent of the transpose");
  }
  return RectCounter<T>(options, report).count(a);
}

}  // namespace

void count_rectangular(const AnyMatrix& input, const CountOptions& options, CountReport& report) {
  report.notes.push_back(shape(report.rows, report.cols) +
                         ": the rectangular permanent, the sum over injective maps from the shorter side into the "
                         "longer one of the products of their entries");
  if (options.checkpoint) report.notes.push_back("no checkpoint is kept for a rectangular matrix");
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        if constexpr (std::is_same_v<T, Integer> || std::is_same_v<T, Rational>) {
          // Rational: every row (of the shorter side) times the lcm of its denominators:
          // each injective map takes one entry of each row, so perm(DA) = det(D) perm(A).
          SparseMatrix<T> t = m.rows > m.cols ? transpose(m) : m;
          SparseMatrix<Integer> a = convert<Integer>(t, [](const T&) { return Integer(0); });
          Integer denominator = 1;
          if constexpr (std::is_same_v<T, Rational>) {
            std::vector<Integer> scale(static_cast<std::size_t>(t.rows), 1);
            for (const auto& e : t.entries) mpz_lcm(scale[e.row].get_mpz_t(), scale[e.row].get_mpz_t(), e.value.get_den_mpz_t());
            for (std::size_t k = 0; k < t.entries.size(); ++k)
              a.entries[k].value = t.entries[k].value.get_num() * (scale[t.entries[k].row] / t.entries[k].value.get_den());
            for (const auto& s : scale) denominator *= s;
          } else {
            for (std::size_t k = 0; k < t.entries.size(); ++k) a.entries[k].value = t.entries[k].value;
          }
          if (m.rows > m.cols) report.notes.push_back("more rows than columns: the permanent of the transpose");
          const Integer content = row_content(a);
          const Integer v = content * RectCounter<Integer>(options, report).count(a);
          if constexpr (std::is_same_v<T, Rational>) {
            Rational q(v, denominator);
            q.canonicalize();
            report.value.value = q;
          } else {
            report.value.value = v;
          }
        } else {
          store_float(report, count_oriented(m, options, report));
        }
      },
      input);
  if (options.explain) report.explained = true;
}

}  // namespace matchcount::detail
