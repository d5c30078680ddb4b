// The dense Ryser walk: on the CPU (SIMD Gray-code walk in work units) and on CUDA devices.
#pragma once

#include <memory>

#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_ryser();
std::unique_ptr<Engine> make_gpu_ryser();

}  // namespace matchcount::engines
