// Private to the GPU SkipPer walk: how its launcher obtains a kernel (generic, or specialised by
// NVRTC). Kernels take one mcgpu::SkipArgs by value.
#pragma once

#include "cuda/launch.hpp"
#include "engines/sparse/cuda/skipper.hpp"

namespace matchcount::gpu::detail {

/// The precompiled kernel for this kind with the fewest slots >= `slots` (at most 64); its
/// local columns come from dynamic shared memory, dense over `rows` slots.
Kernel skipper_generic_kernel(WalkKind kind, int primes, int slots);

/// A kernel compiled by NVRTC for this job (or found in the disk cache; compiled only when
/// `compile` is set): the slot count fixed and the local columns baked in. rows = slots.
Kernel skipper_specialised_kernel(const SkipJob& job, int cc_major, int cc_minor, bool compile);

/// The NVRTC source of that kernel (for tests: it must compile without a device).
std::string skipper_source(const SkipJob& job);

}  // namespace matchcount::gpu::detail
