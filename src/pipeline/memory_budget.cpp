// The memory budget of a count (memory_budget.hpp).
#include "pipeline/memory_budget.hpp"

#include <algorithm>
#include <cmath>

#include "core/resident.hpp"
#include "matchcount/error.hpp"
#include "matchcount/memory.hpp"

namespace matchcount::detail {

CountOptions with_memory_budget(const CountOptions& options) {
  CountOptions resolved = options;
  if (!(resolved.max_memory > 0)) resolved.max_memory = default_max_memory();
  return resolved;
}

double entry_bytes(NumberKind kind) {
  switch (kind) {
    case NumberKind::Integer: return 8 + 16 + 32;  // position, mpz_t, its smallest heap block
    case NumberKind::Rational: return 8 + 32 + 64;
    case NumberKind::Real: return 16;
    case NumberKind::Complex: return 24;
  }
  return 56;
}

// The copies of the matrix held at once, and the planner's bytes per entry and per line
// beside them (measured in docs/benchmarks.md, "Planning at scale"); a Forbert-Marx tree under
// a block no engine can count may add up to its 64 MiB (count.cpp).
constexpr double kPlanningCopies = 3, kPlanningPerEntry = 48, kPlanningPerLine = 200, kLongShotTree = 64 << 20;

double planning_bytes(double lines, double nnz, NumberKind kind) {
  const double copy = nnz * entry_bytes(kind);
  return kPlanningCopies * copy + nnz * kPlanningPerEntry + lines * kPlanningPerLine +
         std::min(kLongShotTree, kPlanningCopies * copy);
}

namespace {

/// The scope of this thread's outermost count: its depth, the resident size when it opened
/// and its input's bytes.
struct Scope {
  int depth = 0;
  double resident = 0, input = 0;
};
thread_local Scope scope;

}  // namespace

MemoryScope::MemoryScope(const AnyMatrix& input) : outer_(scope.depth++ == 0) {
  if (!outer_) return;
  scope.resident = resident_bytes();
  scope.input = double(nnz_of(input)) * entry_bytes(kind_of(input));
}

MemoryScope::~MemoryScope() { --scope.depth; }

double held_bytes() {
  if (scope.depth == 0) return 0;
  return scope.input + std::max(0.0, resident_bytes() - scope.resident);
}

double engine_bytes_left(double budget) {
  if (!std::isfinite(budget)) return budget;
  return std::max(0.0, budget - held_bytes());
}

void check_memory(const std::string& stage, double bytes, const std::string& what, double budget) {
  if (bytes <= budget) return;
  throw BudgetError(stage + " needs about " + memory_text(bytes) + " for " + what + ", over the memory budget of " +
                     memory_text(budget) + " (--max-memory)");
}

void refuse_uncountable(const std::vector<EnginePlan>& plans, const std::vector<std::pair<int, std::size_t>>& sizes) {
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (plans[i].why.empty()) continue;
    const std::string line = "a block of " + std::to_string(sizes[i].first) + " rows and " +
                             std::to_string(sizes[i].second) + " entries cannot be counted: " + plans[i].why;
    // The planners name the option in every engine they passed over for the budget
    // (planner.cpp, graph_planner.cpp): then a larger budget may count the block.
    if (plans[i].why.find("(--max-memory") != std::string::npos) throw BudgetError(line);
    throw RefusedError(line);
  }
}

}  // namespace matchcount::detail
