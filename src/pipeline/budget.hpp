// Private to the pipeline: the time budget of a count (CountOptions::max_seconds and
// on_prediction), checked against the planner's predictions before any engine starts; shared
// by the permanent (count.cpp) and hafnian (hafnian.cpp) paths.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "matchcount/error.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {


/// The planner's predicted seconds for the engines of a plan: nullopt-like -1 when no block has
/// a prediction (engines forced by name are not predicted), infinity when a block cannot be
/// counted at all (its refusal, with the reason, comes when the engine is asked).
inline double predicted_seconds(const std::vector<EnginePlan>& plans) {
  double total = 0;
  bool any = false;
  for (const EnginePlan& p : plans) {
    if (!p.why.empty() || !std::isfinite(p.predicted_seconds)) return INFINITY;
    if (p.predicted_seconds > 0) any = true;
    total += p.predicted_seconds;
  }
  return any ? total : -1;
}

/// Before the engines start: a count predicted to take longer than options.max_seconds is
/// refused (BudgetError, exit code 3) with the prediction, before any time is spent on it;
/// otherwise options.on_prediction hears the prediction.
inline void check_time_budget(const std::vector<EnginePlan>& plans, const CountOptions& options) {
  const double predicted = predicted_seconds(plans);
  if (predicted < 0 || !std::isfinite(predicted)) return;
  if (options.max_seconds > 0 && predicted > options.max_seconds) {
    char cap[32], sec[32];
    std::snprintf(cap, sizeof cap, "%g", options.max_seconds);
    std::snprintf(sec, sizeof sec, "%.3g", predicted);
    throw BudgetError("the count is predicted to take about " + duration_text(predicted) +
                       (predicted < 120 || duration_text(predicted).find(" s)") != std::string::npos
                            ? std::string()
                            : std::string(" (") + sec + " s)") +
                       ", more than the time cap of " + cap + " s; nothing was counted");
  }
  if (options.on_prediction) options.on_prediction(predicted);
}

/// The same for a question answered by one engine run, predicted to take `predicted` seconds.
inline void check_time_budget(const std::string& engine, double predicted, const CountOptions& options) {
  EnginePlan plan;
  plan.engine = engine;
  plan.predicted_seconds = predicted;
  check_time_budget(std::vector<EnginePlan>{plan}, options);
}

}  // namespace matchcount::detail
