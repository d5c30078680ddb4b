// The sparse Ryser walks on the CPU: SpaRyser (row sums updated per nonzero) and SkipPer (jumps
// over Gray subsets where a row is structurally zero). The GPU SkipPer is gpu_skipper.hpp.
#pragma once

#include <memory>

#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_sparyser();
std::unique_ptr<Engine> make_skipper();

}  // namespace matchcount::engines
