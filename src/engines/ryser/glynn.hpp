// The "glynn" engine: Glynn's formula in SIMD lanes for small dense blocks (n <= 16), the walk
// behind matchcount::small_dense_permanent (matchcount/small_dense.hpp). Named only (--engine
// glynn); the planner leaves blocks this small to ryser. Integer blocks whose sums could reach
// 2^53 are counted by ryser's exact walk.
#pragma once

#include <memory>

#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_glynn();

}  // namespace matchcount::engines
