// count_permanent: preprocessing builds a Plan (an expression over blocks), engines count the
// leaves, the plan is evaluated. Integers stay exact throughout; floats carry error bounds.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "matchcount/checkpoint.hpp"
#include "matchcount/decompose.hpp"
#include "catalog/catalog.hpp"
#include "matchcount/error.hpp"
#include "matchcount/matching.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/empty_lines.hpp"
#include "pipeline/entry_errors.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/integer_rows.hpp"
#include "pipeline/log_count.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/rectangular.hpp"
#include "pipeline/resume.hpp"
#include "pipeline/share_walks.hpp"

namespace matchcount {
namespace {

using detail::add;
using detail::Evaluated;
using detail::lift;
using detail::mul;

using Clock = std::chrono::steady_clock;

/// Engines that count a block whole in polynomial time or by width, for which branching
/// would only multiply the blocks (the catalog's whole_block column).
bool whole_block_engine(const std::string& name) { return catalog::entry(name).whole_block; }

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}


// ---- preprocessing: builds the plan ----
template <class T>
class PlanBuilder {
 public:
  PlanBuilder(const CountOptions& options, CountReport& report, detail::EntryErrors* errors)
      : options_(options), report_(report), errors_(errors) {}

  detail::Plan<T> plan;

  /// Any square matrix: matching check, DM split, then each block. Matrices are handed down by
  /// value and moved, so that a large block is held in as few copies as the stages need.
  int matrix(SparseMatrix<T> a, bool top) {
    if (a.rows == 0) return plan.constant(T(1));
    auto t0 = Clock::now();
    const Pattern pattern = Pattern::of(a);
    const Matching m = hopcroft_karp(pattern);
    matching_seconds_ += seconds_since(t0);
    if (top) report_.matching_size = m.size;
    if (!m.perfect()) {
      if (top)
        report_.notes.push_back("no perfect matching: a maximum matching has " + std::to_string(m.size) +
                                " of " + std::to_string(a.rows) + " rows");
      return plan.constant(T(0));
    }
    t0 = Clock::now();
    const FineDecomposition d = fine_dulmage_mendelsohn(pattern, m);
    // One block is the matrix itself: it goes on without a copy.
    std::vector<SparseMatrix<T>> blocks;
    if (d.blocks() > 1) blocks = split_blocks(a, d);
    decompose_seconds_ += seconds_since(t0);
    if (top) {
      report_.dm_blocks = d.blocks();
      report_.dm_deleted_entries = d.deleted_entries;
      if (blocks.empty()) report_.dm_block_sizes.push_back(a.rows);
      for (const auto& b : blocks) report_.dm_block_sizes.push_back(b.rows);
    }
    if (blocks.empty()) return block(std::move(a));
    a = SparseMatrix<T>{};
    std::vector<int> kids;
    for (auto& b : blocks) {
      const int k = block(std::move(b));
      if (plan.is_zero(k)) return k;
      kids.push_back(k);
    }
    return kids.size() == 1 ? kids[0] : plan.combine(detail::Plan<T>::Kind::Product, std::move(kids), T(1));
  }

  /// A DM-irreducible square block with a perfect matching.
  int block(SparseMatrix<T> b) {
    if (b.rows == 1) return plan.constant(b.entries.at(0).value);
    auto t0 = Clock::now();
    Reduced<T> r = detail::reduce_block(std::move(b), report_.reduce, errors_);
    reduce_seconds_ += seconds_since(t0);
    if (r.zero) {
      ++report_.reduce.zero_branches;
      return plan.constant(T(0));
    }
    if (r.rest.rows == 0) return plan.constant(r.factor);
    if (r.changed && options_.reduce.redecompose) {
      const int k = matrix(std::move(r.rest), false);
      plan.nodes[k].scale = detail::scale_times(plan.nodes[k].scale, r.factor, errors_);
      return k;
    }
    // --log: a planar block is taken whole by its log-determinant (pipeline/log_count.hpp).
    if (auto log_plan = detail::log_det_plan(r.rest, options_)) return leaf(std::move(r.rest), r.factor, log_plan);
    Branch<T> br;
    bool may_branch = r.rest.rows >= options_.reduce.branch_min_size && !tree_over_ &&
                      plan.leaves.size() + open_branches_ < options_.reduce.max_leaves;
    // Branching multiplies blocks; a block of small frontier width, or a planar one (a
    // Kasteleyn determinant), is cheaper whole. Checked where branching would start (not at
    // every node of a branching tree: planning costs).
    std::optional<EnginePlan> whole;  // the planner's choice for the block whole, where asked
    double whole_seconds = 0;         // the block counted whole, when a branching tree would start here
    if (may_branch && open_branches_ == 0) {
      if (options_.engine.empty() || whole_block_engine(options_.engine)) {
        const auto t_whole = Clock::now();
        whole = plan_engine(r.rest, options_.device, options_.threads, options_.max_memory);
        if (whole_block_engine(whole->engine)) may_branch = false;
        whole_seconds = whole->predicted_seconds;
        whole_planning_ = seconds_since(t_whole);
      } else {
        whole_seconds = fixed_leaf_seconds(r.rest.rows);
      }
      // The tree's matrices (each level's minor and rest, and the leaves so far) stay within a
      // quarter of the memory budget. A tree under a block no engine can count is a long
      // shot (each level holds copies of the block and shrinks it by a few lines), so it may
      // hold only 64 MiB: a large block's tree does not start.
      tree_bytes_ = 0, tree_bytes_cap_ = options_.max_memory / 4;
      if (!std::isfinite(whole_seconds)) tree_bytes_cap_ = std::min(tree_bytes_cap_, double(64 << 20));
    }
    if (may_branch && tree_bytes_ + 3 * block_bytes(r.rest) > tree_bytes_cap_) may_branch = false;  // before copies
    if (may_branch && branch_on_sparse_line(r.rest, options_.reduce.branch_max_degree, br)) {
      const std::size_t nodes_before = plan.nodes.size(), leaves_before = plan.leaves.size();
      const ReduceStats stats_before = report_.reduce;
      const bool tree_root = open_branches_ == 0;
      if (tree_root) {
        tree_budget_ = whole_seconds, tree_seconds_ = 0, tree_over_ = false;
        // Planning the tree may take a twentieth of the time it could save, or 0.2 s, at most a
        // day; a block no engine can count whole (predicted to take forever) gives the tree
        // as long again as planning it whole took.
        const double allowed = std::isfinite(whole_seconds) ? std::min(std::max(0.2, 0.05 * whole_seconds), 86400.0)
                                                            : std::max(0.2, whole_planning_);
        tree_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(allowed));
      }
      ++report_.reduce.branches;
      ++open_branches_;
      // Beyond its memory cap or past its deadline the tree stops and is undone, and nothing
      // more of it is planned.
      const double level_bytes = block_bytes(br.minor) + block_bytes(br.rest) + block_bytes(r.rest);
      tree_bytes_ += level_bytes;
      if (tree_bytes_ > tree_bytes_cap_ || Clock::now() > tree_deadline_) tree_over_ = true;
      const int minor = tree_over_ ? plan.constant(T(0))
                        : options_.reduce.redecompose ? matrix(std::move(br.minor), false)
                                                      : block_or_leaf(std::move(br.minor));
      const int rest = tree_over_ ? plan.constant(T(0))
                       : options_.reduce.redecompose ? matrix(std::move(br.rest), false)
                                                     : block_or_leaf(std::move(br.rest));
      tree_bytes_ -= level_bytes;
      --open_branches_;
      // A branching tree whose leaves are predicted to take longer than the block whole is
      // undone: a line of d entries makes d minors of n - 1 rows, each half of the block's
      // n 2^(n-1) Ryser steps, and the tree pays only when later reductions shrink them (with
      // wide exact entries, each small leaf also pays a fixed cost per prime that one walk of
      // the whole block pays once). The tree stops branching once over that budget or its
      // planning deadline, so an undone tree costs little planning (the sparsify ey matrices
      // in docs/benchmarks.md, "Every shared matrix exact, one H100").
      if (tree_root && std::exchange(tree_over_, false)) {
        plan.nodes.resize(nodes_before);
        plan.leaves.resize(leaves_before);
        leaf_plans.erase(leaf_plans.lower_bound(leaves_before), leaf_plans.end());
        report_.reduce = stats_before;
        ++report_.reduce.branchings_undone;
        return leaf(std::move(r.rest), r.factor, whole);
      }
      plan.nodes[minor].scale = detail::scale_times(plan.nodes[minor].scale, br.weight, errors_);
      std::vector<int> kids;
      if (!plan.is_zero(minor)) kids.push_back(minor);
      if (!plan.is_zero(rest)) kids.push_back(rest);
      if (kids.empty()) return plan.constant(T(0));
      return plan.combine(detail::Plan<T>::Kind::Sum, std::move(kids), r.factor);
    }
    if (open_branches_ > 0 && !tree_over_) {
      // A leaf of a branching tree: the planner's prediction for large blocks (kept for
      // plan_leaves), else the fixed estimate. A leaf no engine can count makes the tree
      // useless; the tree's leaves count against its memory.
      if (r.rest.rows > 16 && options_.engine.empty())
        whole = plan_engine(r.rest, options_.device, options_.threads, options_.max_memory);
      const double leaf_seconds = whole ? whole->predicted_seconds : fixed_leaf_seconds(r.rest.rows);
      tree_seconds_ += leaf_seconds;
      tree_bytes_ += block_bytes(r.rest);
      if (!std::isfinite(leaf_seconds) || tree_seconds_ > tree_budget_ || Clock::now() > tree_deadline_ ||
          tree_bytes_ > tree_bytes_cap_)
        tree_over_ = true;
    }
    return leaf(std::move(r.rest), r.factor, whole);
  }

  /// The planner's choices for leaves, by leaf index, where preprocessing already asked for
  /// them (plan_leaves does not ask again).
  std::map<std::size_t, EnginePlan> leaf_plans;

  /// Predicted seconds of a small block, or of any block under a forced engine: CPU Ryser
  /// steps at 2.6e-10 s plus 20 us for setting the block up (primes, CRT).
  static double fixed_leaf_seconds(int n) {
    return 2e-5 + 2.6e-10 * std::ldexp(static_cast<double>(n), std::max(n - 1, 0));
  }

  void record_times() {
    report_.stage_seconds.push_back({"matching", matching_seconds_});
    report_.stage_seconds.push_back({"decompose", decompose_seconds_});
    report_.stage_seconds.push_back({"reduce", reduce_seconds_});
  }

 private:
  int block_or_leaf(SparseMatrix<T> b) { return b.rows == 0 ? plan.constant(T(1)) : block(std::move(b)); }
  static double block_bytes(const SparseMatrix<T>& b) { return double(b.nnz()) * detail::entry_bytes(number_kind<T>()); }

  /// A leaf, with the planner's choice for it when one was made (and the engine is the planner's).
  int leaf(SparseMatrix<T> b, const T& factor, const std::optional<EnginePlan>& planned) {
    if (planned && options_.engine.empty()) leaf_plans[plan.leaves.size()] = *planned;
    return plan.leaf(std::move(b), factor);
  }

  const CountOptions& options_;
  CountReport& report_;
  detail::EntryErrors* errors_;  // floats: what preprocessing's values stand for (entry_errors.hpp)
  std::size_t open_branches_ = 0;
  // The branching tree being built: its budget (the block whole, predicted seconds), its
  // leaves' predicted seconds so far, and its planning deadline.
  double tree_budget_ = 0, tree_seconds_ = 0;
  Clock::time_point tree_deadline_{};
  bool tree_over_ = false;
  double tree_bytes_ = 0, tree_bytes_cap_ = 0, whole_planning_ = 0;
  double matching_seconds_ = 0, decompose_seconds_ = 0, reduce_seconds_ = 0;
};

// Relative work of a leaf for progress reporting: Ryser-type cost n * 2^(n-1).
template <class T>
double predicted_work(const SparseMatrix<T>& leaf) {
  return std::ldexp(static_cast<double>(leaf.rows) + 1.0, std::max(leaf.rows - 1, 0));
}

// The engine and predicted work (in CPU Ryser row-steps) of every leaf.
template <class T>
std::vector<EnginePlan> plan_leaves(const detail::Plan<T>& plan, const CountOptions& options,
                                    const std::map<std::size_t, EnginePlan>& planned) {
  std::vector<EnginePlan> out;
  for (std::size_t i = 0; i < plan.leaves.size(); ++i) {
    const auto& leaf = plan.leaves[i];
    if (options.engine.empty()) {
      const auto it = planned.find(i);
      out.push_back(it != planned.end() ? it->second
                                        : plan_engine(leaf, options.device, options.threads, options.max_memory));
      out.back().work = std::max(out.back().work, 1.0);
    } else {
      const int limit = catalog::entry(options.engine).max_n;
      out.push_back({options.engine, 0.0, predicted_work(leaf), -1, {},
                     leaf.rows > limit ? "n = " + std::to_string(leaf.rows) + " is over " + options.engine +
                                             "'s limit of " + std::to_string(limit)
                                       : std::string()});
    }
  }
  return out;
}

/// E: the blocks' values (exact, or floats with errors; detail::LogApprox for CountOptions::log).
template <class T, class E = typename Evaluated<T>::type>
E count_typed(const SparseMatrix<T>& a, const CountOptions& options, CountReport& report,
              detail::EntryErrors* errors = nullptr) {
  PlanBuilder<T> builder(options, report, errors);
  detail::Plan<T>& plan = builder.plan;
  if (options.preprocess) {
    builder.matrix(a, true);
    report.reduce.leaves = plan.leaves.size();
  } else {
    plan.leaf(a, T(1));
    if (auto log_plan = detail::log_det_plan(a, options)) builder.leaf_plans[0] = *log_plan;  // --log
  }
  builder.record_times();

  // Engines count the leaves, the largest first so that progress reflects the real work.
  const auto t0 = Clock::now();
  double total_work = 0, done_work = 0;
  const std::vector<EnginePlan> plans = plan_leaves(plan, options, builder.leaf_plans);
  for (const auto& p : plans) total_work += p.work;
  if (total_work > options.max_work) {
    int largest = 0;
    for (const auto& leaf : plan.leaves) largest = std::max(largest, leaf.rows);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu block(s) up to %dx%d remain after preprocessing: the work of about %.3g Ryser steps, "
                  "more than the limit of %.3g", plan.leaves.size(), largest, largest, total_work, options.max_work);
    throw RefusedError(buf);
  }
  if (options.explain) {
    for (std::size_t i = 0; i < plan.leaves.size(); ++i)
      report.engine_runs.push_back({plan.leaves[i].rows, plan.leaves[i].nnz(), plans[i].engine, 0.0, {},
                                    plans[i].predicted_seconds, plans[i].frontier_width, plans[i].why,
                                    plans[i].predicted_bytes});
    report.explained = true;
    if (options.leaves)
      for (const auto& leaf : plan.leaves) options.leaves->push_back(AnyMatrix(leaf));
    return lift(T(0));
  }
  {
    std::vector<std::pair<int, std::size_t>> sizes;
    for (const auto& leaf : plan.leaves) sizes.emplace_back(leaf.rows, leaf.nnz());
    detail::refuse_uncountable(plans, sizes);
  }
  if (options.engine.empty()) detail::check_time_budget(plans, options);
  Checkpoint* checkpoint = options.checkpoint;
  if (checkpoint) {
    checkpoint->open(detail::count_fingerprint(a, options, plan.leaves, plans), plan.leaves.size(),
                     detail::checkpoint_size_limit(plan.leaves));
    if (checkpoint->resumed()) report.notes.push_back("resumed from the checkpoint " + checkpoint->path());
  }
  std::vector<E> leaf_value(plan.leaves.size());
  for (std::size_t i = 0; i < plan.leaves.size(); ++i) {
    const auto& leaf = plan.leaves[i];
    const std::string& name = plans[i].engine;
    if (checkpoint) {
      if (const std::string saved = checkpoint->block_value(i); !saved.empty()) {
        if (!detail::decode_value(saved, leaf_value[i]))
          throw InputError(checkpoint->path(), 0, "the checkpoint holds a malformed block value");
        if (!detail::within_permanent_bound(leaf, leaf_value[i]))
          throw InputError(checkpoint->path(), 0, detail::kBeyondBound);
        report.engine_runs.push_back({leaf.rows, leaf.nnz(), name, 0.0, {}, plans[i].predicted_seconds, plans[i].frontier_width});
        report.engine_runs.back().stats.note = "value from the checkpoint";
        done_work += plans[i].work;
        continue;
      }
      checkpoint->begin_block(i);
    }
    const auto engine = make_engine(name);
    if (leaf.rows > engine->max_n())
      throw RefusedError("a block of size " + std::to_string(leaf.rows) + " remains after preprocessing; engine '" +
                         name + "' handles at most " + std::to_string(engine->max_n()));
    EngineStats stats;
    EngineOptions eo = detail::block_options(options, checkpoint, &stats);
    detail::set_entry_errors<T>(eo, errors);
    // MPI: the other ranks take part in this block's walks (forced engines have no predicted
    // time: their work at about 1e9 row-steps a second stands in).
    if (cluster::shares(name, std::max(plans[i].predicted_seconds, plans[i].work * 1e-9)))
      eo.team = cluster::share_walks(name, leaf, eo);
    cluster::SharedCall shared_call(eo.team != nullptr);
    const double work = plans[i].work;
    if (options.progress)
      eo.progress = [&, work](double f) { options.progress((done_work + f * work) / total_work); };
    const auto t1 = Clock::now();
    leaf_value[i] = detail::count_leaf<E>(*engine, leaf, eo);
    shared_call.returned();
    report.engine_runs.push_back({leaf.rows, leaf.nnz(), name, seconds_since(t1), stats, plans[i].predicted_seconds,
                                  plans[i].frontier_width, {}, plans[i].predicted_bytes});
    if (!stats.note.empty()) report.notes.push_back(name + ": " + stats.note);
    done_work += work;
    if (checkpoint) checkpoint->finish_block(i, detail::encode_value(leaf_value[i]));
  }
  report.resume = detail::resume_summary(checkpoint);
  if (checkpoint) checkpoint->complete();
  report.stage_seconds.push_back({"engines", seconds_since(t0)});

  // Children precede parents, so one forward pass evaluates every node.
  std::vector<E> value(plan.nodes.size());
  for (std::size_t k = 0; k < plan.nodes.size(); ++k) {
    const auto& node = plan.nodes[k];
    E v;
    if (node.kind == detail::Plan<T>::Kind::Leaf) {
      v = leaf_value[node.leaf];
    } else if (node.kind == detail::Plan<T>::Kind::Sum) {
      v = value[node.kids[0]];
      for (std::size_t c = 1; c < node.kids.size(); ++c) v = add(v, value[node.kids[c]]);
    } else {
      v = lift(T(1));
      for (int c : node.kids) v = mul(v, value[c]);
    }
    value[k] = mul(detail::scale_value(node.scale, errors), v);
  }
  return plan.nodes.empty() ? lift(T(1)) : value.back();
}

/// count_permanent before CountOptions::log's value of counts settled without engines; `seed`:
/// the entry errors of an enclosing count (detail::count_permanent_with).
CountReport count_any(const AnyMatrix& input, const CountOptions& given, detail::EntryErrors* seed) {
  const auto start = Clock::now();
  const CountOptions options = detail::with_memory_budget(given);
  const detail::MemoryScope memory_scope(input);  // engines get the budget less what the count holds
  CountReport report;
  report.rows = rows_of(input);
  report.cols = cols_of(input);
  report.nnz = nnz_of(input);
  report.max_memory = options.max_memory;
  // Empty lines first: a huge dimension with few entries costs only its entries.
  std::optional<AnyMatrix> smaller;
  if (!(report.rows != report.cols && options.perfect_matchings) &&
      detail::settle_empty_lines(input, options, report, smaller)) {
    report.stage_seconds.push_back({"total", seconds_since(start)});
    return report;
  }
  if (report.rows != report.cols && !options.perfect_matchings) {
    detail::count_rectangular(smaller ? *smaller : input, options, report);
    report.stage_seconds.push_back({"total", seconds_since(start)});
    return report;
  }
  if (report.rows != report.cols) {
    report.notes.push_back(std::to_string(report.rows) + " rows but " + std::to_string(report.cols) +
                           " columns: a non-square matrix has no perfect matching, the count is 0");
    if (kind_of(input) == NumberKind::Real) report.value.value = 0.0;
    else if (kind_of(input) == NumberKind::Complex) report.value.value = Complex(0.0);
    else report.value.value = Integer(0);
    report.stage_seconds.push_back({"total", seconds_since(start)});
    return report;
  }
  // The rectangular engines take the rectangular blocks; square ones are planned as usual.
  if (!options.engine.empty() && catalog::entry(options.engine).shape == catalog::Shape::Rectangular) {
    CountOptions square = options;
    square.engine.clear();
    return count_permanent(input, square);
  }
  // Preprocessing and planning hold a few copies of the matrix beside the planner's structures.
  report.planning_bytes = detail::planning_bytes(report.rows, double(report.nnz), kind_of(input));
  detail::check_memory("planning", report.planning_bytes,
                       "a " + std::to_string(report.rows) + " x " + std::to_string(report.cols) + " matrix with " +
                           std::to_string(report.nnz) + " entries",
                       options.max_memory);
  if (options.log) detail::count_permanent_log(input, options, report);  // --log (pipeline/log_count.hpp)
  else std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        if constexpr (std::is_same_v<T, Integer>) {
          // Entries of +-1 have no content to take out: the matrix is counted without a copy.
          if (std::all_of(m.entries.begin(), m.entries.end(), [](const auto& e) { return abs(e.value) == 1; })) {
            report.value.value = Integer(count_typed(m, options, report));
            return;
          }
          SparseMatrix<Integer> a = m;
          const Integer content = detail::extract_content(a);
          report.value.value = Integer(content * count_typed(a, options, report));
        } else if constexpr (std::is_same_v<T, Rational>) {
          // Scale every row to integers: perm(A) = perm(D A) / det(D), D = diag(lcm of row denominators).
          std::vector<Integer> scale(static_cast<std::size_t>(m.rows), 1);
          for (const auto& e : m.entries) {
            Integer& s = scale[e.row];
            mpz_lcm(s.get_mpz_t(), s.get_mpz_t(), e.value.get_den_mpz_t());
          }
          SparseMatrix<Integer> a = convert<Integer>(m, [](const Rational&) { return Integer(0); });
          for (std::size_t k = 0; k < m.entries.size(); ++k)
            a.entries[k].value = m.entries[k].value.get_num() * (scale[m.entries[k].row] / m.entries[k].value.get_den());
          Integer denominator = 1;
          for (const auto& s : scale) denominator *= s;
          const Integer content = detail::extract_content(a);
          Rational q(Integer(content * count_typed(a, options, report)), denominator);
          q.canonicalize();
          report.value.value = q;
        } else if (const auto split = detail::integer_rows_of(m)) {
          detail::count_integer_rows(*split, options, report, [&](const SparseMatrix<Integer>& b, const CountOptions& o,
                                                                  CountReport& r) { return Integer(count_typed(b, o, r)); });
        } else {
          detail::EntryErrors own;  // what the entries stand for (pipeline/entry_errors.hpp)
          detail::store_float(report, count_typed(m, options, report, seed ? seed : &own));
        }
      },
      input);
  report.stage_seconds.push_back({"total", seconds_since(start)});
  return report;
}

}  // namespace

template <class T>
detail::LogApprox detail::count_blocks_log(const SparseMatrix<T>& a, const CountOptions& options, CountReport& report) {
  detail::EntryErrors errors;  // floats: what the entries stand for (ignored for integers)
  return count_typed<T, LogApprox>(a, options, report, &errors);
}
template detail::LogApprox detail::count_blocks_log(const SparseMatrix<Integer>&, const CountOptions&, CountReport&);
template detail::LogApprox detail::count_blocks_log(const SparseMatrix<double>&, const CountOptions&, CountReport&);

CountReport detail::count_permanent_with(const AnyMatrix& input, const CountOptions& options, EntryErrors* errors) {
  CountReport report = count_any(input, options, errors);
  if (options.log) detail::finish_log(report);  // a count settled before the engines, too
  return report;
}

CountReport count_permanent(const AnyMatrix& input, const CountOptions& options) {
  return detail::count_permanent_with(input, options, nullptr);
}

}  // namespace matchcount
