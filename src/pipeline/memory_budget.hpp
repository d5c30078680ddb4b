// Private to the pipeline: the memory budget of a count (CountOptions::max_memory), checked
// stage by stage before each starts; shared by the permanent (count.cpp) and hafnian
// (hafnian.cpp) paths.
#pragma once

#include <string>
#include <vector>

#include "matchcount/engine.hpp"
#include "matchcount/matrix.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// The options with max_memory resolved (0 becomes default_max_memory()), so that every stage
/// of one count sees the same budget.
CountOptions with_memory_budget(const CountOptions& options);

/// Bytes one stored entry of a matrix of this kind takes (position and value; an integer's
/// value owns heap limbs).
double entry_bytes(NumberKind kind);

/// Predicted peak bytes of preprocessing and planning a square matrix of `lines` rows (or
/// vertices) and `nnz` entries: the copies of the matrix the stages hold at once (the working
/// copy, the blocks, the Forbert-Marx working matrix, the planned leaf) and the planner's own
/// structures per entry and per line (orders, adjacency lists, line hashes). The model and its
/// measurements are in docs/benchmarks.md ("Planning at scale").
double planning_bytes(double lines, double nnz, NumberKind kind);

/// What a count holds while it runs, measured rather than predicted: the outermost count of a
/// thread (count_permanent, count_hafnian) opens a scope that records the process's resident
/// size and its input's bytes; nested counts (a hafnian's bipartite blocks, a permanent's
/// rectangular detour) share the outer scope.
class MemoryScope {
 public:
  explicit MemoryScope(const AnyMatrix& input);
  ~MemoryScope();
  MemoryScope(const MemoryScope&) = delete;
  MemoryScope& operator=(const MemoryScope&) = delete;

 private:
  bool outer_;
};

/// The bytes the count of this thread holds now: its input, and what the process's resident
/// size grew by since its scope opened (copies, plans, heap left by freed structures); 0
/// outside a scope.
double held_bytes();

/// What the budget leaves an engine that starts now (EngineOptions::max_bytes): the budget less
/// held_bytes(), 0 at least; infinite without a budget.
double engine_bytes_left(double budget);

/// Refuses (BudgetError) a stage predicted to need more than the budget: "planning needs
/// about 3.1 GiB for a 1000000 x 1000000 matrix with 4000000 entries, over the memory budget
/// of 200 MiB (--max-memory)".
void check_memory(const std::string& stage, double bytes, const std::string& what, double budget);

/// Before the engines start: the first block that no engine can count (its plan's `why`) is
/// refused with the reason, before any block is counted (BudgetError where the budget passed
/// over an engine, else RefusedError). `sizes` holds each block's rows and
/// entries.
void refuse_uncountable(const std::vector<EnginePlan>& plans, const std::vector<std::pair<int, std::size_t>>& sizes);

}  // namespace matchcount::detail
