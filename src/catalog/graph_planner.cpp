// The planner for general graphs: the hafnian engine of least predicted time for a symmetric
// block, from the catalog's cost models (catalog.cpp, the rows of shape Symmetric).
#include <omp.h>

#include <cmath>
#include <limits>

#include "catalog/catalog.hpp"
#include "engines/hafnian/hafnian.hpp"
#include "matchcount/gpu.hpp"

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

/// Memory of the first CUDA device in GiB (0 without one), looked up once.
double first_device_gib() {
  static const double gib = gpu_devices().empty() ? 0.0 : gpu_devices().front().memory_gib;
  return gib;
}

template <class T>
EnginePlan plan_graph_impl(const SparseMatrix<T>& a, bool loops, DevicePolicy device, int threads) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  catalog::GraphFacts f;
  f.n = a.rows, f.nnz = a.nnz(), f.kind = number_kind<T>(), f.loops = loops;
  f.cores = threads > 0 ? threads : omp_get_max_threads();
  // GPU engines are weighed as for permanents (planner.cpp): --device gpu, or auto with a device.
  f.gpu = device == DevicePolicy::Gpu || (device == DevicePolicy::Auto && gpu_available());
  if (f.gpu) f.device_gib = first_device_gib();
  const bool cplx = std::is_same_v<T, Complex>;
  if constexpr (std::is_same_v<T, Integer>) {
    f.primes = predicted_hafnian_primes(a, loops);
    if (a.rows <= catalog::entry("hafnian").max_n) f.hafnian_primes = double(engines::hafnian_prime_count(a, loops));
    for (const auto& e : a.entries) f.unit = f.unit && ((e.row == e.col && !loops) || e.value == 1);
  } else {
    f.unit = false;
  }
  f.words = std::is_same_v<T, Integer> ? 1 : cplx ? 3 : 2;
  std::vector<std::pair<int, int>> pattern;
  pattern.reserve(a.entries.size());
  for (const auto& e : a.entries)
    if (e.row != e.col) pattern.emplace_back(e.row, e.col);
  f.pfaffian = engines::plan_pfaffian(pattern, a.rows);
  f.frontier = engines::plan_graph_frontier(pattern, a.rows);
  EnginePlan best{"", inf, inf, f.frontier.width, {}};
  // In the catalog's order; a tie keeps the earlier one.
  for (const catalog::Row& row : catalog::rows()) {
    if (row.shape != catalog::Shape::Symmetric || !row.predict_graph || (loops && !row.loops)) continue;
    const std::optional<double> predicted = row.predict_graph(f);
    if (!predicted) continue;
    const double seconds = f.n > row.max_n ? inf : *predicted;
    best.candidates.emplace_back(row.name, seconds);
    if (best.engine.empty() || seconds < best.predicted_seconds) {
      best.engine = row.name;
      best.predicted_seconds = seconds;
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
    else
      best.why += "; the frontier DP's state table is over its memory limit";
    best.why += loops ? "; loops (no Pfaffian)" : !f.pfaffian.planar ? "; not planar (no Pfaffian)"
                                                                      : "; the Pfaffian's band matrix is over its memory limit";
    if (best.engine.empty()) best.engine = "hafnian";
  }
  return best;
}

}  // namespace

EnginePlan plan_graph_engine(const SparseMatrix<Integer>& a, bool loops, DevicePolicy d, int t) {
  return plan_graph_impl(a, loops, d, t);
}
EnginePlan plan_graph_engine(const SparseMatrix<double>& a, bool loops, DevicePolicy d, int t) {
  return plan_graph_impl(a, loops, d, t);
}
EnginePlan plan_graph_engine(const SparseMatrix<Complex>& a, bool loops, DevicePolicy d, int t) {
  return plan_graph_impl(a, loops, d, t);
}

}  // namespace matchcount
