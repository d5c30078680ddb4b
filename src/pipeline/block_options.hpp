// Private to the pipeline: the options an engine counts one block with, shared by the
// permanent (count.cpp) and hafnian (hafnian.cpp) paths.
#pragma once

#include "engines/engine.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/pipeline.hpp"
#include "pipeline/memory_budget.hpp"

namespace matchcount::detail {

/// The count's threads, kernel policy, GPUs and the memory its budget leaves the engine, the
/// checkpoint's journal (when there is a checkpoint) and where the engine reports what it did.
inline EngineOptions block_options(const CountOptions& options, Checkpoint* checkpoint, EngineStats* stats) {
  EngineOptions eo;
  eo.threads = options.threads;
  eo.specialise = options.specialise;
  eo.gpus = options.gpus;
  eo.journal = checkpoint ? checkpoint->journal() : nullptr;
  eo.stats = stats;
  // The engine gets what the budget leaves beside what the count holds when it starts.
  if (options.max_memory > 0) eo.max_bytes = engine_bytes_left(options.max_memory);
  return eo;
}

}  // namespace matchcount::detail
