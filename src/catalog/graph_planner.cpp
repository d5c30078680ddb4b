// The planner for general graphs: the hafnian engine of least predicted time for a symmetric
// block, from the catalog's cost models (catalog.cpp, the rows of shape Symmetric).
#include <omp.h>

#include <cmath>
#include <limits>

#include "catalog/catalog.hpp"
#include "catalog/planar_gate.hpp"
#include "core/arith.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/gpu.hpp"
#include "matchcount/memory.hpp"

namespace matchcount {
namespace {

/// About how many CRT primes (below 2^50) an exact count takes: hafnian_bound's logarithm in
/// floating point (the bound itself multiplies n big integers: too slow for planning large
/// graphs).
double predicted_hafnian_primes(const SparseMatrix<Integer>& a, bool loops) {
  std::vector<double> diag(static_cast<std::size_t>(a.rows)), row(static_cast<std::size_t>(a.rows));
  bool unit = true;
  for (const auto& e : a.entries) {
    const double v = std::fabs(e.value.get_d());
    if (e.row == e.col) {
      if (loops) diag[static_cast<std::size_t>(e.row)] = v;
    } else {
      row[static_cast<std::size_t>(e.row)] += v;
      unit = unit && v == 1.0;
    }
  }
  double bits = 0;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const double r = row[i];
    const double f = unit && r > 0 ? std::exp(std::lgamma(r + 1) / (2 * r)) : std::sqrt(r);
    bits += std::log2(std::max(1.0, diag[i] + f));
  }
  return std::ceil((bits + 2) / 49.0);
}

/// What the plans of one graph compute from the graph alone, shared by the plans for several
/// device policies (catalog::Lazy; planner.cpp's BlockMemo says why).
struct GraphMemo {
  catalog::Lazy<double> primes;
  catalog::Lazy<Integer> bound;
  catalog::Lazy<std::vector<std::pair<int, int>>> pattern;
  catalog::Lazy<engines::GraphFrontierPlan> frontier;
  catalog::Lazy<engines::PfaffianPlan> pfaffian_estimate, pfaffian_tested;
};

/// The Pfaffian plan of the graph, tested for planarity only where the engine could count it
/// within its limits and the budget faster than `others` seconds (planar_gate.hpp); otherwise
/// not planar, with `note` saying why the test was skipped.
engines::PfaffianPlan gated_pfaffian(const std::vector<std::pair<int, int>>& pattern, catalog::GraphFacts& f,
                                     double others, std::string& note, GraphMemo& memo) {
  note.clear();
  const int n = f.n;
  if (f.loops || (n >= 3 && pattern.size() / 2 > std::size_t(3 * n - 6))) return {};  // Euler: not planar
  const catalog::Row& row = catalog::entry("pfaffian");
  f.pfaffian = memo.pfaffian_estimate.get([&] {
    engines::PfaffianPlan p = catalog::estimated_pfaffian(pattern, n);
    if (f.kind == NumberKind::Integer) engines::plan_pfaffian_fronts(p, pattern, n);
    return p;
  });
  const std::optional<double> seconds = row.predict_graph(f);
  const double bytes = row.graph_bytes(f);
  if (!seconds)
    note = "the Pfaffian's band matrix would need about " + memory_text(f.pfaffian.bytes) + ", over its limit of " +
           memory_text(engines::kPfaffianMemoryLimit) + " (planarity not tested)";
  else if (bytes > f.max_bytes)
    note = "the Pfaffian would need about " + memory_text(bytes) + ", over the memory budget of " +
           memory_text(f.max_bytes) + " (--max-memory; planarity not tested)";
  else if (*seconds >= others)
    note = "planarity not tested: the Pfaffian is predicted to take longer than the other engines";
  else {
    return memo.pfaffian_tested.get([&] {
      engines::PfaffianPlan p = engines::plan_pfaffian(pattern, n);
      if (p.planar) {  // the fronts planned with the estimate
        p.fronts = f.pfaffian.fronts, p.front_bytes = f.pfaffian.front_bytes;
        engines::take_fronts(p);
      }
      return p;
    });
  }
  return {};
}

template <class T>
EnginePlan plan_graph_impl(const SparseMatrix<T>& a, bool loops, DevicePolicy device, int threads, double max_bytes,
                           GraphMemo& memo) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  catalog::GraphFacts f;
  f.n = a.rows, f.nnz = a.nnz(), f.kind = number_kind<T>(), f.loops = loops, f.max_bytes = max_bytes;
  f.cores = threads > 0 ? threads : omp_get_max_threads();
  // GPU engines are weighed as for permanents (planner.cpp): --device gpu, or auto with a device.
  f.gpu = device == DevicePolicy::Gpu || (device == DevicePolicy::Auto && gpu_available());
  if (f.gpu) f.device_gib = catalog::first_device_gib();
  const bool cplx = std::is_same_v<T, Complex>;
  if constexpr (std::is_same_v<T, Integer>) {
    f.primes = memo.primes.get([&] { return predicted_hafnian_primes(a, loops); });
    if (a.rows <= catalog::entry("hafnian").max_n) {
      const Integer& bound = memo.bound.get([&] { return hafnian_bound(a, loops); });
      f.hafnian_primes = double(engines::hafnian_prime_count(a.rows, bound));
      if (f.gpu) f.gpu_hafnian_channels = engines::gpu_hafnian_exact_channels(a.rows, bound);
    }
    for (const auto& e : a.entries) f.unit = f.unit && ((e.row == e.col && !loops) || e.value == 1);
  } else {
    f.unit = false;
  }
  f.words = std::is_same_v<T, Integer> ? 1 : cplx ? 3 : 2;
  const std::vector<std::pair<int, int>>& pattern = memo.pattern.get([&] {
    std::vector<std::pair<int, int>> off_diagonal;
    off_diagonal.reserve(a.entries.size());
    for (const auto& e : a.entries)
      if (e.row != e.col) off_diagonal.emplace_back(e.row, e.col);
    return off_diagonal;
  });
  f.frontier = memo.frontier.get([&] { return engines::plan_graph_frontier(pattern, a.rows); });
  EnginePlan best{"", inf, inf, f.frontier.width, {}};
  // An engine's predicted seconds, or nullopt when it is not weighed; infinite beyond its row
  // limit or, with the reason kept, beyond the memory budget.
  std::vector<std::string> over_budget;
  auto weigh = [&](const catalog::Row& row, bool keep_reason) -> std::optional<double> {
    if (row.shape != catalog::Shape::Symmetric || !row.predict_graph || (loops && !row.loops)) return std::nullopt;
    const std::optional<double> predicted = row.predict_graph(f);
    if (!predicted) return std::nullopt;
    if (f.n > row.max_n) return inf;
    if (row.graph_bytes && row.graph_bytes(f) > f.max_bytes) {
      if (keep_reason)
        over_budget.push_back(std::string(row.name) + " would need about " + memory_text(row.graph_bytes(f)) +
                              ", over the memory budget of " + memory_text(f.max_bytes) + " (--max-memory)");
      return inf;
    }
    return predicted;
  };
  // Planarity last, against the best of the others (gated_pfaffian).
  double others = inf;
  for (const catalog::Row& row : catalog::rows())
    if (std::string_view(row.name) != "pfaffian")
      if (const auto seconds = weigh(row, false)) others = std::min(others, *seconds);
  std::string planar_note;
  f.pfaffian = gated_pfaffian(pattern, f, others, planar_note, memo);
  // In the catalog's order; a tie keeps the earlier one.
  for (const catalog::Row& row : catalog::rows()) {
    const std::optional<double> seconds = weigh(row, true);
    if (!seconds) continue;
    best.candidates.emplace_back(row.name, *seconds);
    if (best.engine.empty() || *seconds < best.predicted_seconds) {
      best.engine = row.name;
      best.predicted_seconds = *seconds;
      best.predicted_bytes = row.graph_bytes ? row.graph_bytes(f) : 0.0;
    }
  }
  // Work in the units of the permanent planner (one CPU Ryser row-step, 2.6e-10 core-seconds).
  best.work = best.predicted_seconds * f.cores / 2.6e-10;
  if (!std::isfinite(best.predicted_seconds)) {
    best.why = "n = " + std::to_string(f.n) + " is over the dense hafnian's limit of " +
               std::to_string(catalog::entry("hafnian").max_n);
    if (f.frontier.width > engines::kGraphFrontierMaxWidth)
      best.why += "; frontier width " + std::to_string(f.frontier.width) + " is over the frontier DP's limit of " +
                  std::to_string(engines::kGraphFrontierMaxWidth);
    else if (engines::graph_frontier_bytes(f.frontier, f.words, f.loops) > engines::kGraphFrontierMemoryLimit)
      best.why += "; the frontier DP's state table is over its memory limit";  // else the budget's note says why
    best.why += loops                 ? "; loops (no Pfaffian)"
                : !planar_note.empty() ? "; " + planar_note
                : !f.pfaffian.planar   ? "; not planar (no Pfaffian)"
                                       : "; the Pfaffian's band matrix is over its memory limit";
    for (const std::string& note : over_budget) best.why += "; " + note;
    if (best.engine.empty()) best.engine = "hafnian";
  }
  return best;
}

/// The plan for `device`, the plans it takes (ask_for_a_device_late) sharing one GraphMemo.
template <class T>
EnginePlan plan_graph_once(const SparseMatrix<T>& a, bool loops, DevicePolicy device, int threads, double max_bytes) {
  GraphMemo memo;
  return catalog::ask_for_a_device_late<EnginePlan>(
      device, [&](DevicePolicy p) { return plan_graph_impl(a, loops, p, threads, max_bytes, memo); }, gpu_available);
}

}  // namespace

EnginePlan plan_graph_engine(const SparseMatrix<Integer>& a, bool loops, DevicePolicy d, int t, double max_bytes) {
  return plan_graph_once(a, loops, d, t, max_bytes);
}
EnginePlan plan_graph_engine(const SparseMatrix<double>& a, bool loops, DevicePolicy d, int t, double max_bytes) {
  return plan_graph_once(a, loops, d, t, max_bytes);
}
EnginePlan plan_graph_engine(const SparseMatrix<Complex>& a, bool loops, DevicePolicy d, int t, double max_bytes) {
  return plan_graph_once(a, loops, d, t, max_bytes);
}

}  // namespace matchcount
