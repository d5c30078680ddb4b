// count_hafnian: the general-graph path. Edmonds' matching decides whether there is a perfect
// matching at all; edges in no perfect matching go; connected components multiply; reductions
// (forced edges, degree-2 folds) shrink what is left; bipartite blocks are permanents of their
// biadjacency matrices (count_permanent), the others go to the hafnian engine the planner picks.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "catalog/catalog.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/error.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/block_options.hpp"
#include "pipeline/budget.hpp"
#include "pipeline/empty_lines.hpp"
#include "pipeline/entry_errors.hpp"
#include "pipeline/evaluated.hpp"
#include "pipeline/log_count.hpp"
#include "pipeline/memory_budget.hpp"
#include "pipeline/resume.hpp"
#include "pipeline/share_walks.hpp"

namespace matchcount {
namespace {

using detail::Evaluated;
using detail::lift;
using detail::mul;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The biadjacency matrix of the graph of the symmetric block `b` (no diagonal) when the graph
/// is bipartite (rows: the colour class of vertex 0's component side, by BFS); nullopt otherwise.
template <class T>
std::optional<SparseMatrix<T>> biadjacency_of(const SparseMatrix<T>& b) {
  const std::size_t n = static_cast<std::size_t>(b.rows);
  std::vector<std::size_t> start(n + 1, 0);
  for (const auto& e : b.entries) ++start[static_cast<std::size_t>(e.row) + 1];
  for (std::size_t v = 0; v < n; ++v) start[v + 1] += start[v];
  std::vector<signed char> colour(n, -1);
  std::vector<int> queue;
  for (std::size_t s = 0; s < n; ++s) {
    if (colour[s] >= 0) continue;
    colour[s] = 0;
    queue.assign(1, static_cast<int>(s));
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const auto v = static_cast<std::size_t>(queue[q]);
      for (std::size_t k = start[v]; k < start[v + 1]; ++k) {  // entries are sorted by row
        const auto w = static_cast<std::size_t>(b.entries[k].col);
        if (colour[w] < 0) {
          colour[w] = static_cast<signed char>(1 - colour[v]);
          queue.push_back(static_cast<int>(w));
        } else if (colour[w] == colour[v]) {
          return std::nullopt;
        }
      }
    }
  }
  std::vector<int> index(n);
  int rows = 0, cols = 0;
  for (std::size_t v = 0; v < n; ++v) index[v] = colour[v] == 0 ? rows++ : cols++;
  SparseMatrix<T> out;
  out.rows = rows, out.cols = cols;
  for (const auto& e : b.entries)
    if (colour[static_cast<std::size_t>(e.row)] == 0)
      out.entries.push_back({index[static_cast<std::size_t>(e.row)], index[static_cast<std::size_t>(e.col)], e.value});
  out.normalize();
  return out;
}

/// Preprocessing of a general graph into independent blocks and a factor: the hafnian is
/// factor * prod(block values).
template <class T>
class GraphPlanBuilder {
 public:
  GraphPlanBuilder(bool loops, const CountOptions& options, CountReport& report, detail::EntryErrors* errors)
      : loops_(loops), options_(options), report_(report), errors_(errors) {}

  T factor = T(1);
  bool zero = false;
  /// Blocks left for the engines: symmetric blocks, or biadjacency matrices where `bipartite`.
  std::vector<SparseMatrix<T>> blocks;
  std::vector<char> bipartite;

  void top(const SparseMatrix<T>& a) {
    const GraphPattern g = GraphPattern::of(a);
    report_.graph.vertices = a.rows;
    report_.graph.edges = g.edges();
    if (!options_.preprocess) {
      report_.graph.components = 1;
      leaf(a);
      return;
    }
    SparseMatrix<T> live = a;
    if (!loops_) {
      auto t0 = Clock::now();
      const GraphMatching m = edmonds_matching(g);
      matching_seconds_ += seconds_since(t0);
      report_.matching_size = m.size;
      if (!m.perfect()) {
        zero = true;
        std::vector<std::string> names = options_.vertex_names;
        if (names.size() != static_cast<std::size_t>(a.rows)) {
          names.clear();
          for (int v = 1; v <= a.rows; ++v) names.push_back(std::to_string(v));
        }
        report_.graph.witness = tutte_witness_text(m, names);
        report_.notes.push_back("no perfect matching: a maximum matching has " + std::to_string(m.size) + " edges for " +
                                std::to_string(a.rows) + " vertices; " + report_.graph.witness);
        return;
      }
      t0 = Clock::now();
      const DeadEdges dead = edges_in_no_perfect_matching(g, m);
      report_.graph.dead_edges = dead.edges.size();
      report_.graph.dead_edges_complete = dead.complete;
      erase_edges(live, dead.edges);
      decompose_seconds_ += seconds_since(t0);
    }
    split(live, true);
  }

  void record_times() {
    report_.stage_seconds.push_back({"matching", matching_seconds_});
    report_.stage_seconds.push_back({"decompose", decompose_seconds_});
    report_.stage_seconds.push_back({"reduce", reduce_seconds_});
  }

 private:
  /// Connected components, each on its own.
  void split(const SparseMatrix<T>& a, bool top) {
    const auto t0 = Clock::now();
    const std::vector<std::vector<int>> parts = graph_components(GraphPattern::of(a));
    if (top) report_.graph.components = static_cast<int>(parts.size());
    std::vector<SparseMatrix<T>> subs;
    subs.reserve(parts.size());
    for (const auto& part : parts) subs.push_back(parts.size() == 1 ? a : principal_submatrix(a, part));
    decompose_seconds_ += seconds_since(t0);
    for (auto& sub : subs) {
      component(std::move(sub));
      if (zero) return;
    }
  }

  void component(SparseMatrix<T> b) {
    const auto t0 = Clock::now();
    GraphReduced<T> r = detail::reduce_graph_block(b, loops_, errors_);
    reduce_seconds_ += seconds_since(t0);
    report_.graph.forced += r.forced;
    report_.graph.folded += r.folded;
    report_.graph.loops_taken += r.loops_taken;
    if (r.zero) {
      zero = true;
      return;
    }
    factor = detail::scale_times(factor, r.factor, errors_);
    if (r.rest.rows == 0) return;
    if (r.changed) {
      split(r.rest, false);  // a reduction may disconnect the graph
      return;
    }
    leaf(r.rest);
  }

  void leaf(const SparseMatrix<T>& b) {
    const bool diagonal = std::any_of(b.entries.begin(), b.entries.end(), [](const Entry<T>& e) { return e.row == e.col; });
    if (!diagonal) {
      if (auto bi = biadjacency_of(b)) {
        // Colour classes of unequal sizes have no perfect matching. Edmonds' test finds that
        // first, but it is skipped for loop hafnians and without preprocessing.
        if (bi->rows != bi->cols) {
          zero = true;
          report_.notes.push_back("no perfect matching: a bipartite part has " + std::to_string(bi->rows) + " and " +
                                  std::to_string(bi->cols) + " vertices in its colour classes");
          return;
        }
        blocks.push_back(std::move(*bi));
        bipartite.push_back(1);
        ++report_.graph.bipartite_blocks;
        return;
      }
    }
    blocks.push_back(b);
    bipartite.push_back(0);
  }

  bool loops_;
  const CountOptions& options_;
  CountReport& report_;
  detail::EntryErrors* errors_;  // floats: what preprocessing's values stand for (entry_errors.hpp)
  double matching_seconds_ = 0, decompose_seconds_ = 0, reduce_seconds_ = 0;
};

/// The value of a permanent's report as a block value.
template <class T, class E = typename Evaluated<T>::type>
E value_of(const CountReport& r) {
  if constexpr (std::is_same_v<E, detail::LogApprox>) return detail::log_of_report(r);
  else if constexpr (std::is_same_v<T, Integer>) return std::get<Integer>(r.value.value);
  else return {std::get<T>(r.value.value), r.value.abs_error, r.value.error_estimated};
}

/// The forced engine when it counts general graphs ("" otherwise: the planner chooses).
std::string forced_graph_engine(const CountOptions& o) {
  if (o.engine.empty()) return {};
  return catalog::entry(o.engine).shape == catalog::Shape::Symmetric ? o.engine : std::string();
}

/// E: the blocks' values (exact, or floats with errors; detail::LogApprox for CountOptions::log).
template <class T, class E = typename Evaluated<T>::type>
E count_graph(const SparseMatrix<T>& a, bool loops, const CountOptions& options, CountReport& report,
              detail::EntryErrors* errors = nullptr) {
  GraphPlanBuilder<T> builder(loops, options, report, errors);
  builder.top(a);
  builder.record_times();
  report.dm_blocks = static_cast<int>(builder.blocks.size());
  for (const auto& b : builder.blocks) report.dm_block_sizes.push_back(b.rows);
  if (builder.zero) return lift(T(0));

  // Permanent options for the bipartite blocks: the forced engine when it counts permanents.
  CountOptions perm = options;
  perm.perfect_matchings = true;
  perm.checkpoint = nullptr;
  perm.progress = nullptr;
  perm.max_seconds = 0;  // the budget is checked once, below, over every block
  perm.on_prediction = nullptr;
  if (!forced_graph_engine(options).empty()) perm.engine.clear();
  const std::string forced = forced_graph_engine(options);

  std::vector<EnginePlan> plans(builder.blocks.size());
  double total_work = 0;
  for (std::size_t i = 0; i < builder.blocks.size(); ++i) {
    const auto& b = builder.blocks[i];
    if (builder.bipartite[i]) {
      plans[i] = perm.engine.empty() ? plan_engine(b, options.device, options.threads, options.max_memory)
                                     : EnginePlan{perm.engine, 0.0, 1.0, -1, {}};
    } else if (auto log_plan = detail::log_pfaffian_plan(b, loops, options)) {
      plans[i] = *log_plan;  // --log: a planar graph's log-Pfaffian (pipeline/log_count.hpp)
    } else if (!forced.empty()) {
      const int limit = catalog::entry(forced).max_n;
      plans[i] = {forced, 0.0, 1.0, -1, {},
                  b.rows > limit ? "n = " + std::to_string(b.rows) + " is over " + forced + "'s limit of " +
                                       std::to_string(limit)
                                 : std::string()};
    } else {
      plans[i] = plan_graph_engine(b, loops, options.device, options.threads, options.max_memory);
    }
    plans[i].work = std::max(plans[i].work, 1.0);
    total_work += plans[i].work;
  }
  if (total_work > options.max_work) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu block(s) remain after preprocessing: the work of about %.3g Ryser steps, "
                  "more than the limit of %.3g", builder.blocks.size(), total_work, options.max_work);
    throw RefusedError(buf);
  }
  if (options.explain) {
    for (std::size_t i = 0; i < builder.blocks.size(); ++i) {
      const auto& b = builder.blocks[i];
      report.engine_runs.push_back({b.rows, b.nnz(), plans[i].engine, 0.0, {}, plans[i].predicted_seconds,
                                    plans[i].frontier_width, plans[i].why, plans[i].predicted_bytes});
      if (builder.bipartite[i]) report.engine_runs.back().stats.note = "bipartite block: a permanent";
      if (options.leaves) options.leaves->push_back(AnyMatrix(b));
    }
    report.explained = true;
    return lift(T(0));
  }
  {
    std::vector<std::pair<int, std::size_t>> sizes;
    for (const auto& b : builder.blocks) sizes.emplace_back(b.rows, b.nnz());
    detail::refuse_uncountable(plans, sizes);
  }
  if (options.engine.empty()) detail::check_time_budget(plans, options);

  Checkpoint* checkpoint = options.checkpoint;
  if (checkpoint) {
    CountOptions keyed = options;  // the fingerprint tells hafnians and loop hafnians apart
    keyed.engine += loops ? "|loop-hafnian" : "|hafnian";
    checkpoint->open(detail::count_fingerprint(a, keyed, builder.blocks, plans), builder.blocks.size(),
                     detail::checkpoint_size_limit(builder.blocks, true, loops, builder.bipartite));
    if (checkpoint->resumed()) report.notes.push_back("resumed from the checkpoint " + checkpoint->path());
  }
  const auto t0 = Clock::now();
  double done_work = 0;
  E value = detail::scale_value(builder.factor, errors);
  for (std::size_t i = 0; i < builder.blocks.size(); ++i) {
    const auto& b = builder.blocks[i];
    const std::string& name = plans[i].engine;
    E v{};
    if (checkpoint) {
      if (const std::string saved = checkpoint->block_value(i); !saved.empty()) {
        if (!detail::decode_value(saved, v))
          throw InputError(checkpoint->path(), 0, "the checkpoint holds a malformed block value");
        if (!(builder.bipartite[i] ? detail::within_permanent_bound(b, v) : detail::within_hafnian_bound(b, loops, v)))
          throw InputError(checkpoint->path(), 0, detail::kBeyondBound);
        report.engine_runs.push_back({b.rows, b.nnz(), name, 0.0, {}, plans[i].predicted_seconds, plans[i].frontier_width});
        report.engine_runs.back().stats.note = "value from the checkpoint";
        done_work += plans[i].work;
        value = mul(value, v);
        continue;
      }
      checkpoint->begin_block(i);
    }
    if (builder.bipartite[i]) {
      const CountReport sub = detail::count_permanent_with(AnyMatrix(b), perm, errors);
      v = value_of<T, E>(sub);
      for (const auto& run : sub.engine_runs) report.engine_runs.push_back(run);
      // A block without a perfect matching (reachable with --no-preprocess) is 0 before any
      // engine runs: it adds no run, and says why in the notes.
      if (!sub.engine_runs.empty()) report.engine_runs.back().stats.note = "bipartite block: a permanent";
      for (const auto& note : sub.notes) report.notes.push_back(note);
    } else {
      if (!plans[i].why.empty())
        throw RefusedError("a " + std::to_string(b.rows) + "-vertex block remains after preprocessing: " + plans[i].why);
      const auto engine = make_graph_engine(name);
      EngineStats stats;
      EngineOptions eo = detail::block_options(options, checkpoint, &stats);
      detail::set_entry_errors<T>(eo, errors);
      if (cluster::shares(name, std::max(plans[i].predicted_seconds, plans[i].work * 1e-9)))
        eo.team = cluster::share_walks(name, b, eo, loops ? cluster::Walks::LoopHafnian : cluster::Walks::Hafnian);
      cluster::SharedCall shared_call(eo.team != nullptr);
      const double work = plans[i].work;
      if (options.progress)
        eo.progress = [&, work](double f) { options.progress((done_work + f * work) / total_work); };
      const auto t1 = Clock::now();
      v = detail::count_graph_leaf<E>(*engine, b, loops, eo);
      shared_call.returned();
      report.engine_runs.push_back({b.rows, b.nnz(), name, seconds_since(t1), stats, plans[i].predicted_seconds,
                                    plans[i].frontier_width, {}, plans[i].predicted_bytes});
      if (!stats.note.empty()) report.notes.push_back(name + ": " + stats.note);
    }
    done_work += plans[i].work;
    if (checkpoint) checkpoint->finish_block(i, detail::encode_value(v));
    value = mul(value, v);
  }
  report.resume = detail::resume_summary(checkpoint);
  if (checkpoint) checkpoint->complete();
  report.stage_seconds.push_back({"engines", seconds_since(t0)});
  return value;
}

/// `a` without its diagonal (the plain hafnian ignores it), with a note when there was one.
template <class T>
SparseMatrix<T> without_diagonal(const SparseMatrix<T>& a, CountReport& report) {
  SparseMatrix<T> out = a;
  const auto dropped = std::erase_if(out.entries, [](const Entry<T>& e) { return e.row == e.col; });
  if (dropped > 0)
    report.notes.push_back("the diagonal (" + std::to_string(dropped) +
                           (dropped == 1 ? " entry" : " entries") + ") is ignored: --loop-hafnian counts it as loop weights");
  return out;
}


/// count_hafnian before CountOptions::log's value of counts settled without engines.
CountReport count_graph_any(const AnyMatrix& input, bool loops, const CountOptions& given) {
  const auto start = Clock::now();
  const CountOptions options = detail::with_memory_budget(given);
  const detail::MemoryScope memory_scope(input);  // engines get the budget less what the count holds
  CountReport report;
  report.max_memory = options.max_memory;
  report.rows = rows_of(input);
  report.cols = cols_of(input);
  report.nnz = nnz_of(input);
  report.graph.hafnian = true;
  report.graph.loops = loops;
  if (!options.engine.empty() && catalog::entry(options.engine).shape == catalog::Shape::Rectangular)
    throw UsageError("engine '" + options.engine + "' counts rectangular permanents, not hafnians");
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m.entries[0].value)>;
        require_symmetric(m);
        const SparseMatrix<T> a = loops ? m : without_diagonal(m, report);
        if (detail::settle_isolated_vertices(a, loops, options, report)) return;  // before per-vertex arrays
        report.planning_bytes = detail::planning_bytes(a.rows, double(a.nnz()), number_kind<T>());
        detail::check_memory("planning", report.planning_bytes,
                             "a graph of " + std::to_string(a.rows) + " vertices with " + std::to_string(a.nnz() / 2) +
                                 " edges",
                             options.max_memory);
        if (options.log) return detail::count_hafnian_log(a, loops, options, report);  // pipeline/log_count.hpp
        if constexpr (std::is_same_v<T, Rational>) {
          // One common denominator L: edges times L^2 and loops times L make every matching's
          // weight L^n times its own (2 * edges + loops = n), so lhaf(A) = lhaf(Z) / L^n.
          Integer l = 1;
          for (const auto& e : a.entries) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), e.value.get_den_mpz_t());
          SparseMatrix<Integer> z = convert<Integer>(a, [](const Rational&) { return Integer(0); });
          for (std::size_t k = 0; k < a.entries.size(); ++k) {
            const auto& e = a.entries[k];
            const Integer scale = e.row == e.col ? l : Integer(l * l);
            z.entries[k].value = e.value.get_num() * (scale / e.value.get_den());
          }
          Integer denominator;
          mpz_pow_ui(denominator.get_mpz_t(), l.get_mpz_t(), static_cast<unsigned long>(a.rows));
          Rational q(count_graph(z, loops, options, report), denominator);
          q.canonicalize();
          report.value.value = q;
        } else if constexpr (std::is_same_v<T, Integer>) {
          report.value.value = count_graph(a, loops, options, report);
        } else {
          detail::EntryErrors errors;  // what the entries stand for (pipeline/entry_errors.hpp)
          detail::store_float(report, count_graph(a, loops, options, report, &errors), "the hafnian");
        }
      },
      input);
  report.stage_seconds.push_back({"total", seconds_since(start)});
  return report;
}

}  // namespace

template <class T>
detail::LogApprox detail::count_graph_blocks_log(const SparseMatrix<T>& a, bool loops, const CountOptions& options,
                                                 CountReport& report) {
  detail::EntryErrors errors;  // floats: what the entries stand for (ignored for integers)
  return count_graph<T, LogApprox>(a, loops, options, report, &errors);
}
template detail::LogApprox detail::count_graph_blocks_log(const SparseMatrix<Integer>&, bool, const CountOptions&,
                                                          CountReport&);
template detail::LogApprox detail::count_graph_blocks_log(const SparseMatrix<double>&, bool, const CountOptions&,
                                                          CountReport&);

CountReport count_hafnian(const AnyMatrix& input, bool loops, const CountOptions& options) {
  CountReport report = count_graph_any(input, loops, options);
  if (options.log) detail::finish_log(report);  // a count settled before the engines, too
  return report;
}

}  // namespace matchcount
