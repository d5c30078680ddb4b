// Private to the pipeline: counts as logarithms (CountOptions::log). A planar block is counted
// by the sparse LU log-determinant of its Kasteleyn matrix (permanents) or Pfaffian matrix
// (hafnians); every other block by the engine the planner picks, its value then taken to its
// logarithm. The plans of count.cpp and hafnian.cpp are evaluated on LogApprox values unchanged:
// exact and float values convert into them, and mul/add carry the error of the logarithm.
#pragma once

#include <limits>
#include <optional>
#include <string>

#include "engines/engine.hpp"
#include "engines/graph_engine.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// A count sign * e^log whose logarithm is known within err (so its relative error is
/// expm1(err)); sign 0 for a count of 0 (log -inf, err 0 when it is exactly 0).
struct LogApprox {
  int sign = 0;
  double log = -std::numeric_limits<double>::infinity();
  double err = 0;
  bool estimated = false;  // err is an estimate, not a bound (Approx::estimated)

  LogApprox() = default;
  LogApprox(int s, double l, double e, bool est = false) : sign(s), log(l), err(e), estimated(est) {}
  LogApprox(const Integer& v);         // NOLINT: exact values enter the plan as they are
  LogApprox(const Approx<double>& v);  // NOLINT: as do floats with their error
};

/// Products and sums of counts on their logarithms, the error of each operand carried and the
/// rounding of the result added (the plan's products over blocks and sums over branches).
LogApprox mul(const LogApprox& a, const LogApprox& b);
LogApprox add(const LogApprox& a, const LogApprox& b);

/// Whether --log takes this block by its log-determinant (the engine is not forced to another
/// than kasteleyn, resp. pfaffian, and the graph is planar; no loops for hafnians), and its
/// plan: the engine's name and the predicted seconds.
template <class T>
std::optional<EnginePlan> log_det_plan(const SparseMatrix<T>& block, const CountOptions& options);
template <class T>
std::optional<EnginePlan> log_pfaffian_plan(const SparseMatrix<T>& block, bool loops, const CountOptions& options);

/// One leaf's value. E = LogApprox: the log-determinant when the engine is kasteleyn (resp.
/// pfaffian), else the engine's value as a logarithm; any other E: the engine's value.
template <class E, class T>
E count_leaf(const Engine& engine, const SparseMatrix<T>& leaf, const EngineOptions& eo);
template <class E, class T>
E count_graph_leaf(const GraphEngine& engine, const SparseMatrix<T>& leaf, bool loops, const EngineOptions& eo);

/// The value of a count made with CountOptions::log (a bipartite block of a hafnian).
LogApprox log_of_report(const CountReport& r);
/// With CountOptions::log, at the end of a count: a value settled without engines (no perfect
/// matching, an empty line) is given as a logarithm too.
void finish_log(CountReport& report);

/// Checkpoint text and bounds of LogApprox block values (as resume.hpp's for the others).
std::string encode_value(const LogApprox& v);
bool decode_value(const std::string& text, LogApprox& v);
template <class T>
bool within_permanent_bound(const SparseMatrix<T>& block, const LogApprox& v);
template <class T>
bool within_hafnian_bound(const SparseMatrix<T>& block, bool loops, const LogApprox& v);

/// Counts with CountOptions::log, from count_permanent and count_hafnian (after the cases
/// settled without engines): the input by its kind (complex weights are a UsageError, rational
/// ones are scaled to integers), the blocks by count_blocks_log (count.cpp) or
/// count_graph_blocks_log (hafnian.cpp), the value stored as report.value.log.
void count_permanent_log(const AnyMatrix& input, const CountOptions& options, CountReport& report);
/// `a` symmetric, its diagonal dropped unless `loops`.
template <class T>
void count_hafnian_log(const SparseMatrix<T>& a, bool loops, const CountOptions& options, CountReport& report);
template <class T>
LogApprox count_blocks_log(const SparseMatrix<T>& a, const CountOptions& options, CountReport& report);
template <class T>
LogApprox count_graph_blocks_log(const SparseMatrix<T>& a, bool loops, const CountOptions& options,
                                 CountReport& report);

}  // namespace matchcount::detail
