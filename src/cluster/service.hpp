// Private to the cluster stage: what the service loop of the ranks other than 0 dispatches
// to, and the helpers it shares with the sample sharing (share_samples.cpp).
#pragma once

#include <string>

#include "matchcount/matrix.hpp"
#include "messages.hpp"

namespace matchcount::cluster {

/// A kSampler job: builds this rank's sampler for the block and runs the samples rank 0 asks
/// for until kSamplerEnd.
void serve_sampler(Reader& in);
void put_block(Writer& w, const SparseMatrix<double>& a);
SparseMatrix<double> get_block(Reader& r);

}  // namespace matchcount::cluster
