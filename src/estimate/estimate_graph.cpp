// estimate_hafnian: the general-graph road of count_hafnian up to the engines (Edmonds'
// matching, edges in no perfect matching, components, forced edges and degree-2 folds), then
// per block an exact count (small or cheap blocks) or rounds of samples of the graph samplers
// (graph_path.hpp, determinant_sample.hpp), assembled as estimate_permanent assembles blocks.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "estimate/block_rounds.hpp"
#include "estimate/share_samples.hpp"
#include "matchcount/cluster.hpp"
#include "matchcount/error.hpp"
#include "matchcount/estimate.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/graph_matching.hpp"
#include "matchcount/memory.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount {
namespace {

using estimate::Clock;
using estimate::since;

/// The graph cut into independent blocks: haf = factor * prod haf(block), or 0 (`zero`, with
/// the reason in `why`). T is Integer for integer weights (exact factors), else double.
template <class T>
struct GraphBlocks {
  T factor = T(1);
  bool zero = false;
  std::string why;
  int matching_size = 0;
  std::vector<SparseMatrix<T>> blocks;
};

template <class T>
void split_components(const SparseMatrix<T>& a, GraphBlocks<T>& out) {
  const std::vector<std::vector<int>> parts = graph_components(GraphPattern::of(a));
  for (const auto& part : parts) {
    GraphReduced<T> r = reduce_graph(parts.size() == 1 ? a : principal_submatrix(a, part), false);
    if (r.zero) {
      out.zero = true, out.why = "a reduction left a vertex with no neighbour: the count is 0";
      return;
    }
    out.factor *= r.factor;
    if (r.rest.rows == 0) continue;
    if (r.changed) split_components(r.rest, out);  // a reduction may disconnect the graph
    else out.blocks.push_back(std::move(r.rest));
    if (out.zero) return;
  }
}

template <class T>
GraphBlocks<T> graph_blocks(const SparseMatrix<T>& a) {
  GraphBlocks<T> out;
  const GraphPattern g = GraphPattern::of(a);
  const GraphMatching m = edmonds_matching(g);
  out.matching_size = m.size;
  if (!m.perfect()) {
    out.zero = true;
    out.why = "no perfect matching (a maximum matching has " + std::to_string(m.size) + " edges for " +
              std::to_string(a.rows) + " vertices; " + tutte_witness_text(m) + "): the count is 0";
    return out;
  }
  SparseMatrix<T> live = a;
  const DeadEdges dead = edges_in_no_perfect_matching(g, m);
  erase_edges(live, dead.edges);
  split_components(live, out);
  return out;
}

SparseMatrix<double> as_doubles(const SparseMatrix<Integer>& a) {
  return convert<double>(a, [](const Integer& v) { return v.get_d(); });
}
const SparseMatrix<double>& as_doubles(const SparseMatrix<double>& a) { return a; }

PermanentValue value_of(const Integer& x) {
  PermanentValue v;
  v.value = x;
  return v;
}
PermanentValue value_of(double x) {
  PermanentValue v;
  v.value = x;
  return v;
}

/// Counts one block exactly with the hafnian pipeline on the CPU (integers exactly; doubles
/// with their rounding error as rel_std_error). False when no engine takes it within the
/// memory budget: it is sampled.
template <class T>
bool count_block(const SparseMatrix<T>& b, int threads, double max_memory, BlockEstimate& out, PermanentValue& value) {
  CountOptions co;
  co.threads = threads;
  co.max_memory = max_memory;
  co.device = DevicePolicy::Cpu;
  try {
    value = count_hafnian(AnyMatrix(b), false, co).value;
  } catch (const RefusedError&) {
    return false;
  }
  if constexpr (std::is_same_v<T, Integer>) {
    out.mean = estimate::wide_of(std::get<Integer>(value.value));
  } else {
    const double v = std::get<double>(value.value);
    if (!std::isfinite(v)) return false;
    out.mean = WideReal::from(v);
    out.rel_std_error = v > 0 ? value.abs_error / v : 0.0;
  }
  out.exact = true;
  return true;
}

/// Whether the scaling methods should rescale locally (scale_radius 2, docs/estimation.md):
/// on lattice-like graphs, where balls grow polynomially (the ball of radius 8 about vertex 0
/// at most 10 times the ball of radius 4, and under half the graph), a covered pair moves the
/// Sinkhorn scaling only near it, so local sweeps keep the variance at a fraction of the cost
/// (docs/benchmarks.md). On expanders (random regular graphs) a pair moves the scaling
/// everywhere, and dense graphs fill the region anyway.
bool lattice_like(const estimate::GraphData& g) {
  if (g.n == 0) return false;
  std::vector<int> depth(static_cast<std::size_t>(g.n), -1), queue{0};
  depth[0] = 0;
  int ball4 = 0, ball8 = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const int x = queue[head];
    if (depth[x] > 8) break;
    ball8 += 1, ball4 += depth[x] <= 4;
    for (int k = g.start[x]; k < g.start[x + 1]; ++k)
      if (depth[g.adj[k]] < 0) depth[g.adj[k]] = depth[x] + 1, queue.push_back(g.adj[k]);
  }
  return 2 * ball8 < g.n && ball8 <= 10 * ball4;
}

/// The largest graph --device auto samples on the GPU.
constexpr int kGpuGraphVertices = 640;
/// Automatic resampling (--particles -1): lattice-like blocks of at least this many vertices,
/// populations of this many paths (the variance per second hardly depends on it, and fewer
/// paths a population leave more populations for the error bar; docs/benchmarks.md).
constexpr int kSmcVertices = 512;
constexpr int kSmcParticles = 50;
/// Automatic Bethe scaling (--bethe -1): sparse blocks (at most this many neighbours a vertex
/// on average) of at least this many vertices. Belief propagation is near exact where short
/// cycles are few; on dense graphs the Sinkhorn scaling is the better guide, and on small
/// blocks the GPU draws the Sinkhorn paths (docs/benchmarks.md).
constexpr int kBetheDegree = 8;
constexpr int kBetheVertices = 512;

WideReal wide_factor(const Integer& x) { return estimate::wide_of(x); }
WideReal wide_factor(double x) { return WideReal::from(x); }

template <class T>
EstimateReport estimate_graph(const SparseMatrix<T>& a, const EstimateOptions& o, Clock::time_point start,
                              EstimateReport rep) {
  const GraphBlocks<T> cut = graph_blocks(a);
  rep.matching_size = cut.matching_size;
  if (cut.zero) {
    rep.exact = true;
    rep.exact_value = value_of(T(0));
    rep.notes.push_back(cut.why);
    rep.seconds = since(start);
    return rep;
  }
  const auto& blocks = cut.blocks;
  // Blocks counted exactly: perfect matchings of at most exact_up_to edges, and (unless every
  // block is to be sampled) those the planner predicts within the budget for exact counts.
  std::vector<char> count_exactly(blocks.size(), 0);
  const double budget = o.max_memory > 0 ? o.max_memory : default_max_memory();
  double exact_budget = estimate::exact_budget_seconds(o), exact_predicted = 0;
  int planned_exact = 0, to_sample = 0;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    if (blocks[bi].rows <= 2 * std::max(o.exact_up_to, 1)) {
      count_exactly[bi] = 1;
    } else if (o.exact_up_to > 0 && estimate::worth_planning(blocks[bi].nnz(), exact_budget)) {
      const double p = plan_graph_engine(blocks[bi], false, DevicePolicy::Cpu, o.threads, budget).predicted_seconds;
      if (p <= exact_budget) count_exactly[bi] = 1, exact_budget -= p, exact_predicted += p, ++planned_exact;
    }
    to_sample += !count_exactly[bi];
  }
  const bool determinant = estimate::is_determinant(static_cast<estimate::Method>(static_cast<int>(o.method)));
  if (determinant && o.device == DevicePolicy::Gpu)
    throw RefusedError("--device gpu: the determinant estimators (godsil-gutman, barvinok) run on the CPU only");
  if (o.particles > 0 && o.device == DevicePolicy::Gpu)
    throw RefusedError("--device gpu: the resampled populations (--particles) run on the CPU only");
  if (o.bethe > 0 && o.device == DevicePolicy::Gpu)
    throw RefusedError("--device gpu: the Bethe scaling (--bethe) runs on the CPU only");
  // Asked when the first block is sampled (asking starts CUDA; estimate.cpp says why).
  const auto want_gpu = [&] {
    return !determinant && o.particles <= 0 && o.bethe <= 0 && o.device != DevicePolicy::Cpu && gpu_available();
  };
  estimate::EstimateRun run(o, start, to_sample);
  run.multiply(wide_factor(cut.factor));
  run.exact_value = value_of(cut.factor);
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const auto& b = blocks[bi];
    BlockEstimate be;
    be.n = b.rows, be.nnz = b.nnz();
    if (run.try_exact(be, count_exactly[bi], [&](BlockEstimate& out, PermanentValue& v) {
          return count_block(b, o.threads, budget, out, v);
        }, rep))
      continue;
    const SparseMatrix<double> bd = as_doubles(b);
    const bool scaling = o.method == EstimateMethod::Scaling || o.method == EstimateMethod::ScalingPlus;
    const bool bethe = scaling && (o.bethe > 0 || (o.bethe < 0 && o.device != DevicePolicy::Gpu && b.rows >= kBetheVertices &&
                                                   b.nnz() <= static_cast<std::size_t>(kBetheDegree) * b.rows));
    const estimate::GraphData data = estimate::GraphData::from(bd, bethe);
    estimate::SamplerConfig cfg;
    cfg.graph = true;
    cfg.method = static_cast<estimate::Method>(static_cast<int>(o.method));
    // A step covers two vertices: about 256 rescales a sample on large graphs, as for permanents.
    // Bethe messages want a sweep after every step: a covered pair moves them everywhere on
    // an expander (as it does the Sinkhorn scaling), and one sweep a step gave the least
    // variance per second (docs/benchmarks.md).
    const bool lattice = lattice_like(data);
    const int radius = o.scale_radius >= 0 ? o.scale_radius : lattice ? 2 : 0;
    // Local rescaling replaces the full sweeps unless an interval is given.
    const int interval = o.scale_interval > 0 ? o.scale_interval
                         : radius > 0         ? b.rows
                         : bethe              ? 1
                                              : std::max(1, b.rows / 512);
    cfg.params = {interval, bethe ? 1 : o.scale_iterations, radius};
    cfg.params.bethe = bethe;
    // The "+" methods' cheap test of each candidate (GraphSearch::certify) pays on expanders,
    // where two small trees meet long before one search has covered its share of the graph;
    // on lattices one search answers for every candidate sooner, and skipping the test leaves
    // the samples as they are (figures in docs/benchmarks.md, "Estimation targets, final").
    // Only with Bethe scaling, which runs on the CPU: the GPU's searches were not measured.
    cfg.params.cheap_test = !(lattice && bethe);
    // Resampled populations on large lattices, where independent paths' variance has grown
    // too heavy-tailed to trust (docs/estimation.md); their twist needs the scaling.
    // (They run on the CPU: --device gpu keeps independent paths.)
    const bool smc = o.device != DevicePolicy::Gpu && lattice && scaling && b.rows >= kSmcVertices;
    cfg.particles = o.particles >= 0 ? o.particles : smc ? kSmcParticles : 0;
    // Each CPU thread holds its paths (one per particle: populations resample in place), each
    // with its scratch arrays: on large graphs automatic populations fall back to
    // independent paths to fit the budget, and what does not fit is refused.
    const auto sampling_bytes = [&](int particles) {
      const std::size_t slots = bethe ? data.adj.size() : 0;
      const double path = 4.0 * static_cast<double>(estimate::GraphWorkspace::ints(data.n, data.max_degree, cfg.method)) +
                          8.0 * static_cast<double>(estimate::GraphWorkspace::doubles(data.n, cfg.method, slots)) + 256;
      return estimate::sampling_threads(o) * path * (particles > 0 ? 1.0 * particles : 1.0);
    };
    const std::string block_text = "a block of " + std::to_string(b.rows) + " vertices";
    if (o.particles < 0 && cfg.particles > 0 && sampling_bytes(cfg.particles) > estimate::memory_budget(o)) {
      rep.notes.push_back(block_text + ": populations of " + std::to_string(cfg.particles) + " paths would need about " +
                          memory_text(sampling_bytes(cfg.particles)) + ", over the memory budget; independent paths instead");
      cfg.particles = 0;
    }
    if (determinant) {  // a dense matrix per thread
      const double n = static_cast<double>(data.n);
      estimate::check_sampling_memory(estimate::sampling_threads(o) * n * n * 16.0, block_text, o);
    } else {
      estimate::check_sampling_memory(sampling_bytes(cfg.particles), block_text, o);
    }
    cfg.seed = o.seed;
    cfg.block_id = static_cast<std::uint32_t>(bi);
    cfg.threads = o.threads;
    std::unique_ptr<estimate::Sampler> sampler;
    // One GPU thread per sample is latency-bound: past a few hundred vertices 16 CPU cores
    // draw as many samples (docs/benchmarks.md), so --device auto keeps those on the CPU.
    if (want_gpu() && cfg.particles == 0 && !bethe && (o.device == DevicePolicy::Gpu || b.rows <= kGpuGraphVertices)) {
      try {
        sampler = estimate::make_gpu_graph_sampler(data, cfg);
      } catch (const GpuError& e) {
        if (o.device == DevicePolicy::Gpu) throw;
        rep.notes.push_back(std::string("GPU unavailable, sampling on the CPU: ") + e.what());
      }
    }
    if (!sampler) sampler = estimate::make_graph_cpu_sampler(data, cfg);
    if (cluster::distributed()) sampler = cluster::share_samples(std::move(sampler), bd, cfg, want_gpu() && !bethe);
    if (cfg.particles > 0)
      rep.notes.push_back("block of " + std::to_string(b.rows) + " vertices: each sample is one estimate from a population of " +
                          std::to_string(cfg.particles) + " resampled paths (--particles)");
    if (bethe)
      rep.notes.push_back("block of " + std::to_string(b.rows) +
                          " vertices: draws weighted by belief propagation (the Bethe approximation, --bethe)");
    run.add_sampled(*sampler, be, rep);
  }
  run.finish(rep, planned_exact, exact_predicted, blocks.size());
  return rep;
}

/// The matrix as integers when every entry is one (graphs, integer weights): exact factors and
/// exact counts of the blocks counted exactly.
std::optional<SparseMatrix<Integer>> integral(const SparseMatrix<double>& a) {
  for (const auto& e : a.entries)
    if (e.value != std::floor(e.value) || e.value > 0x1p53) return std::nullopt;
  return convert<Integer>(a, [](double v) { return Integer(v); });
}

}  // namespace

EstimateReport estimate_hafnian(const AnyMatrix& input, bool loops, const EstimateOptions& o) {
  const auto start = Clock::now();
  if (o.samples == 0 && !(o.rel_error > 0.0)) throw UsageError("estimation needs a sample count or a relative error target > 0");
  if (o.scale_interval < 0 || o.scale_iterations < 0) throw UsageError("the scaling interval and sweeps must be >= 0");
  if (o.scale_radius < -1) throw UsageError("the scaling radius must be >= -1 (-1: automatic)");
  if (o.particles < -1) throw UsageError("the number of particles must be >= -1 (-1: automatic)");
  if (o.bethe < -1 || o.bethe > 1) throw UsageError("--bethe must be -1 (automatic), 0 or 1");
  if (o.bethe > 0 && o.method != EstimateMethod::Scaling && o.method != EstimateMethod::ScalingPlus)
    throw UsageError("--bethe weights the scaling methods' draws; choose scaling or scaling+");
  if (o.particles > 0 && estimate::is_determinant(static_cast<estimate::Method>(static_cast<int>(o.method))))
    throw UsageError("--particles resamples sample paths; the determinant estimators have none");
  if (loops)
    throw RefusedError("--estimate does not estimate loop hafnians (a vertex covered by its loop has no partner to "
                       "sample); without --estimate the count is exact");
  if (o.device == DevicePolicy::Gpu && !gpu_available())
    throw RefusedError(built_with_cuda() ? "--device gpu: no CUDA device is visible" : "--device gpu: matchcount was built without CUDA");
  EstimateReport rep;
  rep.method = o.method;
  rep.hafnian = true;
  rep.rows = rows_of(input), rep.cols = cols_of(input), rep.nnz = nnz_of(input);
  SparseMatrix<double> a = estimate::nonnegative_doubles(input);
  require_symmetric(a);
  const auto diagonal = std::erase_if(a.entries, [](const Entry<double>& e) { return e.row == e.col; });
  std::erase_if(a.entries, [](const Entry<double>& e) { return e.value == 0.0; });  // no edge
  if (diagonal > 0)
    rep.notes.push_back("the diagonal (" + std::to_string(diagonal) + (diagonal == 1 ? " entry" : " entries") +
                        ") is ignored: the hafnian has no loops");
  if (const std::string empty = estimate::sparse_empty_line(a, true); !empty.empty()) {
    rep.exact = true;  // before the matching stages, which allocate per vertex
    rep.exact_value.emplace();
    rep.notes.push_back(empty + ": the hafnian is 0");
    rep.seconds = since(start);
    return rep;
  }
  if (const auto z = integral(a)) return estimate_graph(*z, o, start, std::move(rep));
  return estimate_graph(a, o, start, std::move(rep));
}

}  // namespace matchcount
