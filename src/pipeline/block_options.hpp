// Private to the pipeline: the options an engine counts one block with, shared by the
// permanent (count.cpp) and hafnian (hafnian.cpp) paths.
#pragma once

#include "engines/engine.hpp"
#include "matchcount/checkpoint.hpp"
#include "matchcount/pipeline.hpp"

namespace matchcount::detail {

/// The count's threads, kernel policy, GPUs and memory budget, the checkpoint's journal (when
/// there is a checkpoint) and where the engine reports what it did.
inline EngineOptions block_options(const CountOptions& options, Checkpoint* checkpoint, EngineStats* stats) {
  EngineOptions eo;
  eo.threads = options.threads;
  eo.specialise = options.specialise;
  eo.gpus = options.gpus;
  eo.journal = checkpoint ? checkpoint->journal() : nullptr;
  eo.stats = stats;
  eo.max_bytes = options.max_memory > 0 ? options.max_memory : eo.max_bytes;
  return eo;
}

}  // namespace matchcount::detail
