// Enumeration of the permutations with a nonzero product: the oracle of the tests, n <= 24.
#pragma once

#include <memory>

#include "engines/engine.hpp"

namespace matchcount::engines {

std::unique_ptr<Engine> make_brute();

}  // namespace matchcount::engines
