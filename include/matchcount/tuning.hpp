// The tuning knobs: environment variables that steer the engines past their planners, for
// measurements and tests (docs/usage.md, "Tuning knobs (environment)"). The library reads them
// once per process.
#pragma once

#include <string>

namespace matchcount {

/// Every knob with its current value, its default where that differs, and its meaning, one
/// knob per two lines (what `matchcount --explain -v` prints).
std::string tuning_text();

}  // namespace matchcount
