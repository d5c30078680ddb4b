// Private to the estimation stage: the handler of kSampler jobs, which the service loop of the
// ranks other than 0 runs (src/api/serve.cpp).
#pragma once

#include <string>

#include "matchcount/matrix.hpp"
#include "runtime/mpi/blocks.hpp"

namespace matchcount::cluster {

/// A kSampler job: builds this rank's sampler for the block and runs the samples rank 0 asks
/// for until kSamplerEnd.
void serve_sampler(Reader& in);

}  // namespace matchcount::cluster
