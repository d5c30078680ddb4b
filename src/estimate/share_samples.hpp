// Private to the pipeline's stages: the estimation stage shares its rounds of samples over
// the ranks through this (src/estimate/share_samples.cpp).
#pragma once

#include <memory>

#include "estimate/runner.hpp"
#include "matchcount/matrix.hpp"

namespace matchcount::cluster {

/// Rank 0: a sampler of `block` whose rounds are split over every rank at batch boundaries
/// (each rank samples on its GPU when `gpu` and it has one, else on its CPU) and merged in
/// order; `own` is rank 0's sampler. CPU ranks give the bits of one process.
std::unique_ptr<estimate::Sampler> share_samples(std::unique_ptr<estimate::Sampler> own,
                                                 const SparseMatrix<double>& block,
                                                 const estimate::SamplerConfig& cfg, bool gpu);

}  // namespace matchcount::cluster
